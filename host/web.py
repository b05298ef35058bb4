"""HTTP pages and endpoints of the TV side: the landing page, the TV page, room creation and the QR code."""

from __future__ import annotations

import functools
import io
from typing import Any, NoReturn

import qrcode
import qrcode.image.svg
from flask import Blueprint, Response, abort, current_app, jsonify, make_response, render_template, request, url_for

from engine.registry import LOBBY_ORDER
from host.i18n import best_language, direction, translate
from host.room import LANGUAGES, RoomError, check_text, is_room_code
from questions.model import MAX_FILE_BYTES, Problem, shown

bp = Blueprint("host", __name__)



def page_context(page: str, **extra: Any) -> dict[str, Any]:
    """What every page template gets: language, direction, the translate function, the URL of its language's catalog
    (host/assets.py) and ``assets``, what the page's script may load later: each language's catalog and each game's
    scripts and style sheets (the built-in games' by id, those of any games module the app loaded as ``extra``), all
    at fingerprinted URLs. A page loads a game's files when it first shows that game (host/static/common.js
    ``TR.prepare``), another language's catalog when it switches to it (docs/decisions.md "Light pages")."""
    from host.assets import catalog_url

    language = best_language(request.args.get("lang"), request.cookies.get("lang"),
                             list(request.accept_languages.values()))
    runtime = current_app.extensions["throneroom"]
    extra_files = {"scripts": [extra_url(u) for u in runtime.game_scripts],
                   "styles": [extra_url(u) for u in runtime.game_styles]}
    return {
        "assets": {
            "catalogs": {other: catalog_url(other) for other in LANGUAGES},
            "games": {g: {"scripts": [url_for("static", filename=f"games/{g}.js")],
                          "styles": [url_for("static", filename=f"games/{g}.css")]} for g in LOBBY_ORDER},
            **({"extra": extra_files} if extra_files["scripts"] or extra_files["styles"] else {}),
        },
        "catalog_url": catalog_url(language),
        "page": page,
        "lang": language,
        "dir": direction(language),
        "_": lambda key, **params: translate(language, key, **params),
        "public_url": runtime.public_url,
        **extra,
    }


def extra_url(url: str) -> str:
    """A games module's file URL (``/extra/<module>/<file>``, host/app.py) with its hash, as url_for gives."""
    _, _, module, filename = url.split("/", 3)
    return url_for("extra_file", module=module, filename=filename)


def json_body() -> Any:
    """The request's JSON body (None without one), as every endpoint that takes one reads it: a body whose strings
    UTF-8 cannot carry (a lone surrogate) is refused ``400 invalid`` naming the field (``room_error``), as socket
    events are (host/room.py ``check_text``). Read only by the endpoints that take JSON, after their rate limit."""
    body = request.get_json(silent=True)
    check_text(body)
    return body


@bp.get("/")
def index() -> str:
    """The landing page: join with a code (phones) or host a room on this screen (TV)."""
    return render_template("index.html", **page_context("index"))


@bp.get("/healthz")
def health() -> Any:
    """HAProxy's health check of a worker (deploy/haproxy.cfg): whether this process serves. 503 only while it stops;
    a process stuck or dead does not answer at all, which HAProxy counts as failed checks. An outage of the database
    or of Redis is not a dead worker (docs/scaling.md, "When PostgreSQL or Redis stops"): its rooms hold still and
    their sockets stay, so the check still answers 200 and says so in its figures (``database down``, ``redis
    down``), for the operator. It never waits on either service: the store's and the relay's own state is read."""
    runtime = current_app.extensions["throneroom"]
    plain = {"Content-Type": "text/plain", "Cache-Control": "no-store"}
    if runtime.stopping:
        return "stopping\n", 503, plain
    service = runtime.service
    relay = runtime.relay
    relayed = len(relay.local) if relay is not None else 0
    sockets = len(service.connections.sids)
    held = len(service.clocks.held)
    figures = (f"rooms {len(service.rooms)}\nsockets {sockets}\nrelayed {relayed}\n"
               f"database {'down' if service.store.down else 'up'}\n"
               + ("" if relay is None else f"redis {'down' if relay.down else 'up'}\n")
               + f"held {held}\n")  # for the operator
    return "ok\n" + figures, 200, plain


@bp.get("/tv")
@bp.get("/tv/<code>")
def tv(code: str | None = None) -> str:
    """The TV page; without a code it creates (or returns to) this screen's room."""
    if code is not None and not is_room_code(code):
        abort(404)
    return render_template("tv.html", **page_context("tv", code=code))


@bp.post("/api/rooms")
def create_room() -> Any:
    """Create a room; the answer holds the host token, which only this screen will know. A TV leaving its room
    with "New room" sends ``{"from": {"code": ..., "host_token": ...}}``: the new room keeps that room's owner
    identity, and so its host's packs (docs/packs.md)."""
    runtime = current_app.extensions["throneroom"]
    runtime.limits.hit("room", request.remote_addr)  # refusals: ``room_error`` (429, or 503 for no_code)
    body = json_body()
    code, host_token = runtime.service.create_room(body.get("from") if isinstance(body, dict) else None)
    return jsonify({"code": code, "host_token": host_token}), 201


@bp.get("/api/rooms/<code>")
def room_exists(code: str) -> Any:
    """Whether a room exists (for the landing page's code box, which asks before it leaves the page): its code as
    normalised, whether it is locked and its language; nothing secret. A code of the wrong form is ``invalid_code``,
    a well-formed one without a room ``unknown_room``."""
    service = current_app.extensions["throneroom"].service
    try:
        room = service.room(code)
    except RoomError as error:
        response = jsonify({"ok": False, "error": error.to_json()})
        response.headers["Cache-Control"] = "no-store"
        return response, 404
    response = jsonify({"ok": True, "code": room.code, "locked": room.locked, "language": room.language})
    response.headers["Cache-Control"] = "no-store"
    return response


def join_url(code: str) -> str:
    """The address a phone opens to join a room."""
    return f"{current_app.extensions['throneroom'].public_url}/join/{code}"


@functools.lru_cache(maxsize=512)
def qr_of(url: str) -> bytes:
    """The SVG of a QR code of ``url``: drawing one takes milliseconds on the loop, and a TV asks for its own again
    and again."""
    image = qrcode.make(url, image_factory=qrcode.image.svg.SvgPathFillImage, border=2,
                        error_correction=qrcode.constants.ERROR_CORRECT_M)
    buffer = io.BytesIO()
    image.save(buffer)
    return buffer.getvalue()


@bp.get("/qr/<code>.svg")
def qr_svg(code: str) -> Response:
    """The QR code of a room's join URL, as SVG (black on white, with a quiet zone)."""
    if not is_room_code(code):
        abort(404)
    response = Response(qr_of(join_url(code)), mimetype="image/svg+xml")
    response.headers["Cache-Control"] = "public, max-age=3600"
    return response


@bp.get("/campaign/maps/<map_id>.json")
def campaign_map(map_id: str) -> Any:
    """A Short Campaign map's drawing (outlines, labels, names), for the TV and the phones."""
    from engine.campaign.maps import MapError, builtin_map

    try:
        game_map = builtin_map(map_id)
    except MapError:
        abort(404)
    response = jsonify(game_map.drawing())
    response.headers["Cache-Control"] = "public, max-age=600"
    return response


@bp.get("/packs/<pack_id>/media/<name>")
def pack_media(pack_id: str, name: str) -> Response:
    """An image of an uploaded pack (a .zip's, questions/archive.py), for the TV: its stored media type, never
    sniffed, cached for a year (a pack's images never change; a deleted pack's uuid is never given again). Only by
    the pack's uuid, and only to a room that plays the pack: ``?room=CODE`` names a room whose chosen packs hold it
    (the questions a room draws carry it in their image URLs, questions/library.py ``Entry.image_url``), so a pack's
    id alone, or a room that is only offered the pack, gets nothing; packs from before uuids (``db:<number>``) have
    no images. 404 for anything else."""
    from questions.store import load_image

    key = pack_id[3:] if pack_id.startswith("db:") else ""
    if len(key) != 32 or len(name) > 200:
        abort(404)
    service = current_app.extensions["throneroom"].service
    try:
        room = service.room(request.args.get("room", ""))
    except RoomError:
        abort(404)
    if pack_id not in (room.packs or ()):
        abort(404)
    found = load_image(service.store.engine, key, name)
    if found is None:
        abort(404)
    media_type, data = found
    response = Response(data, mimetype=media_type)
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Cache-Control"] = "public, max-age=31536000, immutable"
    response.headers["Content-Disposition"] = "inline"
    return response


def host_room() -> Any:
    """The room whose host token the request carries (headers X-Room-Code and X-Host-Token), or abort 403."""
    service = current_app.extensions["throneroom"].service
    try:
        room = service.room(request.headers.get("X-Room-Code", ""))
    except RoomError:
        abort(403)
    if not service.is_host(room, request.headers.get("X-Host-Token")):
        abort(403)
    return room


@bp.get("/api/rooms/<code>/report.<fmt>")
def quiz_report(code: str, fmt: str) -> Any:
    """The report of the room's last finished Quiz (host/report.py), as ``csv`` or ``xlsx``, for its host only: the
    TV's host credentials (headers X-Room-Code, naming this room, and X-Host-Token), else 403; counted against the
    address's report rate (429); 404 ``no_report`` before a Quiz has finished in the room (also after the room went
    back to the lobby, the last finished one's), and for another format."""
    from host.report import FORMATS, NoReport, render, source_of

    room = host_room()
    if room.code != code.upper():
        abort(403)
    if fmt not in FORMATS:
        abort(404)
    runtime = current_app.extensions["throneroom"]
    runtime.limits.hit("report", request.remote_addr)
    service = runtime.service
    try:
        with service.locks[room.code]:  # a moment's look; the file is made outside the room's lock
            source = source_of(room, service.audience)
    except NoReport as error:
        refused(404, error.code, error.message, "room")
    data, name, media_type = render(source, fmt)
    response = Response(data, mimetype=media_type.split(";")[0])
    if fmt == "csv":
        response.headers["Content-Type"] = media_type
    response.headers["Content-Disposition"] = f'attachment; filename="{name}"'
    response.headers["Cache-Control"] = "no-store"
    return response


def problem(code: str, message: str, field: str = "file", **args: Any) -> dict[str, Any]:
    """One problem of an upload that is not about the file's content, as the TV shows it (``pack.problem.<code>``)."""
    return Problem("upload", field, message, code=code, args=args).to_json()


def refused(status: int, code: str, message: str, field: str = "pack") -> NoReturn:
    """Refuse a pack request with ``error`` as the sockets send one (the TV shows ``error.<code>``)."""
    abort(make_response(jsonify({"ok": False, "error": {"code": code, "message": message, "field": field}}), status))


def packs_of(room: Any) -> Any:
    """The room service's library and the owner identity the room sees packs as."""
    return current_app.extensions["throneroom"].service.library, room.owner


@bp.post("/api/packs")
def upload_pack() -> Any:
    """A host uploads a pack file: all of it is imported, or nothing and the report of every problem. The file is
    read in a child process with hard limits (questions/isolate.py) while this loop keeps serving every room; when
    two files are being read already, the answer is 503 and the host tries again (429 when one of them came from the
    same address: one device holds one reader at a time). The form gives ``language``
    (en, fa, ro; none: the file's own or English) and ``shared`` ("true": offered to every room); the pack belongs
    to the room's owner (docs/packs.md)."""
    from host.store import busy_refused
    from questions.isolate import Busy, parse_isolated
    from questions.model import PackError
    from questions.store import save_pack

    room = host_room()
    runtime = current_app.extensions["throneroom"]
    service = runtime.service
    # each upload costs a reader process and may store 20,000 questions: a host uploads a few, not thousands
    runtime.limits.hit("upload", request.remote_addr)
    upload = request.files.get("file")
    if upload is None or not upload.filename:
        return jsonify({"ok": False, "problems": [problem("no_file", "choose a file")]}), 400
    language = request.form.get("language") or None
    if language is not None and language not in LANGUAGES:
        return jsonify({"ok": False, "problems": [Problem("pack", "language", "language must be one of en, fa, ro",
                                                          code="bad_language", args={"value": shown(language)})
                                                  .to_json()]}), 422
    shared = request.form.get("shared") in ("true", "on", "1")
    try:
        pack = parse_isolated(upload.read(), upload.filename, request.form.get("name") or None, language,
                              sleep=runtime.socketio.sleep, who=request.remote_addr)
    except PackError as error:
        return jsonify({"ok": False, "problems": [p.to_json() for p in error.problems]}), \
            error.status if isinstance(error, Busy) else 422
    with busy_refused():  # a thousand questions per transaction, the rooms' turn between (questions/store.py)
        key = save_pack(service.store.engine, pack, pause=lambda: runtime.socketio.sleep(0), owner=room.owner,
                        shared=shared)
    pack_id = f"db:{key}"
    selection = service.pack_uploaded(room, pack_id)  # the next game's pack, chosen here, not by the page ([17])
    service.notify_lobbies()
    kinds = pack.kinds()  # as the lobby's list of packs counts them (Library.packs)
    return jsonify({"ok": True, "room": room.code, "pack": {"id": pack_id, "name": pack.name, "language": pack.language,
                                                            "numeric": kinds.get("numeric", 0),
                                                            "choice": kinds.get("choice", 0), "kinds": kinds,
                                                            "total": len(pack.questions), "mine": True,
                                                            "shared": shared},
                    "selection": selection, "warnings": [w.to_json() for w in pack.warnings]}), 201


@bp.get("/api/packs/<pack_id>")
def preview_pack(pack_id: str) -> Any:
    """The first questions of a pack, for the host to look at (prompts and options, never the answers: the TV
    is in front of everyone). Only a pack the room is offered (its owner's, or shared): another is not there. It
    reads the pack's count and its first 20 questions, never the whole pack, and is counted against the address's
    preview rate (docs/security.md)."""
    room = host_room()
    current_app.extensions["throneroom"].limits.hit("preview", request.remote_addr)
    library, owner = packs_of(room)
    preview = library.preview(pack_id, owner)
    if preview is None:
        abort(404)
    return jsonify({"ok": True, "name": preview["name"], "language": preview["language"], "count": preview["count"],
                    "questions": [q.preview() for q in preview["questions"]]})  # each kind's shape, no answer


def owned_pack(pack_id: str) -> tuple[Any, str]:
    """The room service and the store's key of a pack the requesting host owns; else the request is refused:
    400 ``builtin_pack``, 404 for no such pack, 403 ``not_your_pack`` for another host's pack or one without an
    owner (from before owners: only the command line deletes it)."""
    from questions.library import builtin_packs

    room = host_room()
    service = current_app.extensions["throneroom"].service
    if pack_id in builtin_packs():
        refused(400, "builtin_pack", "built-in packs cannot be deleted or changed")
    found = service.library.owner_of(pack_id)  # db:<uuid>, or db:<number> from before uuids
    if found is None:
        abort(404)
    if found[1] is None or found[1] != room.owner:
        refused(403, "not_your_pack", "only the host who uploaded this pack can change or delete it")
    return service, found[0][3:]


@bp.delete("/api/packs/<pack_id>")
def remove_pack(pack_id: str) -> Any:
    """Delete an uploaded pack: only its owner's rooms may (the built-in ones stay; ``throneroom pack delete`` deletes
    any)."""
    from host.store import busy_refused
    from questions.store import delete_pack

    service, key = owned_pack(pack_id)
    with busy_refused():
        deleted = delete_pack(service.store.engine, key)
    if not deleted:
        abort(404)
    service.notify_lobbies()
    return jsonify({"ok": True})


@bp.patch("/api/packs/<pack_id>")
def share_pack(pack_id: str) -> Any:
    """The owner offers a pack to every room, or to its own rooms only again: ``{"shared": true|false}``. A room
    that chose a pack no longer shared with it loses it from its choice, as if it had been deleted."""
    from host.store import busy_refused
    from questions.store import set_shared

    service, key = owned_pack(pack_id)
    body = json_body()
    shared = body.get("shared") if isinstance(body, dict) else None
    if not isinstance(shared, bool):
        refused(400, "invalid", "shared must be true or false", "shared")
    with busy_refused():
        if not set_shared(service.store.engine, key, shared):
            abort(404)
    service.notify_lobbies()
    return jsonify({"ok": True, "shared": shared})


@bp.app_errorhandler(RoomError)
def room_error(error: RoomError) -> Any:
    """A refusal raised in an HTTP handler, with the error as the sockets send it and as an upload's report
    (``problems``): 429 and ``Retry-After`` for a rate limit, 503 for what passes by itself (a locked database, no
    free room code), 400 otherwise."""
    status = {"rate_limited": 429, "storage_busy": 503, "no_code": 503}.get(error.code, 400)
    response = jsonify({"ok": False, "error": error.to_json(),
                        "problems": [problem(error.code, error.message, error.field or "file",
                                             **({"n": error.retry_after} if getattr(error, "retry_after", None)
                                                else {}))]})
    if getattr(error, "retry_after", None):
        response.headers["Retry-After"] = str(error.retry_after)
    return response, status


@bp.app_errorhandler(413)
def too_large(_: Any) -> Any:
    """An upload over the limit."""
    return jsonify({"ok": False, "problems": [problem("file_too_large", "the file is larger than 5 MB",
                                                      mb=MAX_FILE_BYTES // (1024 * 1024))]}), 413


@bp.after_app_request
def security_headers(response: Response) -> Response:
    """Everything the pages use is served from here: forbid the rest."""
    response.headers.setdefault(
        "Content-Security-Policy",
        "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
        "script-src 'self'; connect-src 'self' ws: wss:; object-src 'none'; base-uri 'none'")
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "no-referrer")
    worker = current_app.config.get("WORKER_ID")
    if worker:  # which worker answered, for the operator behind HAProxy (docs/scaling.md)
        response.headers["X-Throneroom-Worker"] = worker
    return response

"""HTTP pages and endpoints of the TV side: the landing page, the TV page, room creation and the QR code."""

from __future__ import annotations

import io
from typing import Any

import qrcode
import qrcode.image.svg
from flask import Blueprint, Response, abort, current_app, jsonify, render_template, request

from host.i18n import all_catalogs, best_language, direction, translate
from host.room import RoomError, is_room_code

bp = Blueprint("host", __name__)


def page_context(page: str, **extra: Any) -> dict[str, Any]:
    """What every page template gets: language, direction, catalogs, the translate function."""
    language = best_language(request.args.get("lang"), request.cookies.get("lang"),
                             list(request.accept_languages.values()))
    return {
        "page": page,
        "lang": language,
        "dir": direction(language),
        "catalogs": all_catalogs(),
        "_": lambda key, **params: translate(language, key, **params),
        "public_url": current_app.extensions["throneroom"].public_url,
        **extra,
    }


@bp.get("/")
def index() -> str:
    """The landing page: join with a code (phones) or host a room on this screen (TV)."""
    return render_template("index.html", **page_context("index"))


@bp.get("/tv")
@bp.get("/tv/<code>")
def tv(code: str | None = None) -> str:
    """The TV page; without a code it creates (or returns to) this screen's room."""
    if code is not None and not is_room_code(code):
        abort(404)
    return render_template("tv.html", **page_context("tv", code=code))


@bp.post("/api/rooms")
def create_room() -> Any:
    """Create a room; the answer holds the host token, which only this screen will know."""
    service = current_app.extensions["throneroom"].service
    code, host_token = service.create_room()
    return jsonify({"code": code, "host_token": host_token}), 201


@bp.get("/api/rooms/<code>")
def room_exists(code: str) -> Any:
    """Whether a room exists (for the landing page's code box)."""
    service = current_app.extensions["throneroom"].service
    try:
        room = service.room(code)
    except RoomError as error:
        return jsonify({"ok": False, "error": error.to_json()}), 404
    return jsonify({"ok": True, "code": room.code, "locked": room.locked, "language": room.language})


def join_url(code: str) -> str:
    """The address a phone opens to join a room."""
    return f"{current_app.extensions['throneroom'].public_url}/join/{code}"


@bp.get("/qr/<code>.svg")
def qr_svg(code: str) -> Response:
    """The QR code of a room's join URL, as SVG (black on white, with a quiet zone)."""
    if not is_room_code(code):
        abort(404)
    image = qrcode.make(join_url(code), image_factory=qrcode.image.svg.SvgPathFillImage, border=2,
                        error_correction=qrcode.constants.ERROR_CORRECT_M)
    buffer = io.BytesIO()
    image.save(buffer)
    response = Response(buffer.getvalue(), mimetype="image/svg+xml")
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


@bp.after_app_request
def security_headers(response: Response) -> Response:
    """Everything the pages use is served from here: forbid the rest."""
    response.headers.setdefault(
        "Content-Security-Policy",
        "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
        "script-src 'self'; connect-src 'self' ws: wss:; object-src 'none'; base-uri 'none'")
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("Referrer-Policy", "no-referrer")
    return response

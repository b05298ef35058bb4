"""The application factory: ``create_app(config)`` builds a Flask app, its Socket.IO server and room service."""

from __future__ import annotations

import gc
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flask import Flask, abort
from flask_socketio import SocketIO

from engine.core import Game
from host.guard import RATE_KINDS
from host.service import Clock, RoomService
from host.store import Store

ROOT = Path(__file__).resolve().parent.parent
log = logging.getLogger("throneroom")

GC_THRESHOLDS = (5000, 20, 100)  # the cyclic collector's, while the server runs (start_ticker; docs/decisions.md)
PROBE_EVERY_MS = 500  # a pass of round-trip probes; who is probed at which pass: host/broadcast.py
STOP_GRACE_S = 2.0  # how long a stop waits for the ticker to finish its turn, at most (``shutdown``)
CLOSE_GRACE_S = 0.2  # and how long it lets the sockets' writers send their close packets

DEFAULTS: dict[str, Any] = {
    "DATABASE_URL": "sqlite://",  # in memory; `throneroom serve` passes a file
    "PUBLIC_URL": "http://127.0.0.1:8000",
    "ASYNC_MODE": "eventlet",
    "TIMER_SCALE": 1.0,
    "INCLUDE_UNLISTED_GAMES": False,  # offer games not listed in the lobby (the test games); tests only
    "GAMES_MODULES": (),  # modules of extra games to load (load_games_module), e.g. ("tests.games",) in tests
    "MAX_MESSAGE_BYTES": 64 * 1024,
    "CLOCK": None,
    "SEED_SOURCE": None,
    "COALESCE_BROADCASTS": None,  # None: under eventlet (host/broadcast.py Broadcaster.notify)
    # docs/security.md: what one guest may do
    # ROOM_RATE, JOIN_RATE... : how often one address may do each thing (host/guard.py RATE_KINDS: what each counts,
    # its default); "off": no limit
    **{setting: None for setting, *_ in RATE_KINDS.values()},
    "RATE_STORAGE": "memory://",  # where the counts are kept (any ``limits`` storage URI)
    "MAX_SPECTATORS": 500,  # per room
    "MAX_WATCHERS": 8,  # TV screens per room besides the host's own
    "ROOM_TTL_HOURS": 48.0,  # a room without activity this long is deleted, and its code can be drawn again
    "ALLOWED_HOSTS": (),  # names the server answers to besides its public URL's and the loopback ones
    "TRUST_PROXY": 0,  # how many reverse proxies in front set X-Forwarded-For/-Proto/-Host
    # docs/scaling.md: one of several workers behind HAProxy
    "WORKER_ID": None,  # set: this process is a worker; it holds a lease on each room it loads (host/lease.py)
    "MESSAGE_QUEUE": None,  # redis:// URL of Flask-SocketIO's message queue shared by the workers
}


class MalformedMessageFilter(logging.Filter):
    """Engine.IO logs a whole traceback when Socket.IO cannot parse a client's packet; that is bad input from
    a client, already dropped, so keep one line of it."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.getMessage() == "message handler error" and record.exc_info:
            error = record.exc_info[1]
            record.msg = "dropped a malformed message from a client (%s: %s)"
            record.args = (type(error).__name__, error)
            record.exc_info = None
            record.exc_text = None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


@dataclass
class Runtime:
    """What the handlers need: the room service, the Socket.IO server and the settings."""

    service: RoomService
    socketio: SocketIO
    public_url: str
    host_sids: set[str] = field(default_factory=set)
    ticker_started: bool = False
    broadcaster: Any = None  # host.broadcast.Broadcaster: room states, probes, kicks, closing sockets
    coalesce_broadcasts: bool | None = None
    stopping: bool = False  # set by ``shutdown``: the ticker ends, a leaving socket changes no room
    ticker_running: bool = False
    limits: Any = None  # host.guard.RateLimits
    max_watchers: int = 8
    relay: Any = None  # host.relay.Relay: a worker's audience phones of rooms held elsewhere (docs/scaling.md)
    game_scripts: list[str] = field(default_factory=list)  # URLs of the games modules' page scripts (host/web.py)
    game_styles: list[str] = field(default_factory=list)  # and of their style sheets


def load_games_module(name: str) -> Any:
    """Import a module of extra games and register them for this process: its ``GAMES`` (engine games) into
    engine.registry and its ``CATALOGS`` folder of message fragments into the catalogs. Its ``STATIC`` folder,
    ``SCRIPTS`` and ``STYLES`` are served by each app that names the module in ``GAMES_MODULES``. Loading a module
    twice changes nothing. The test games come this way (tests/games); nothing of them ships."""
    import importlib

    from engine import registry
    from host.i18n import add_catalog_dir

    try:
        module = importlib.import_module(name)
    except ImportError as error:
        raise ValueError(f"games module {name!r} cannot be imported: {error}") from None
    games = getattr(module, "GAMES", None)
    if not isinstance(games, (list, tuple)) or not all(isinstance(g, Game) for g in games):
        raise ValueError(f"games module {name!r} has no GAMES (a list of engine games)")
    for game in games:
        registry.register(game)
    if getattr(module, "CATALOGS", None) is not None:
        add_catalog_dir(Path(module.CATALOGS))
    return module


def serve_games_modules(app: Flask, runtime: Runtime, names: Any) -> None:
    """Load each games module and serve its page files at /extra/<module>/<file> (with ETags, host/assets.py): a
    page loads its ``SCRIPTS`` and ``STYLES`` when it first shows one of the module's games (host/web.py
    page_context, ``extra``)."""
    from flask import abort

    from host.assets import serve_file

    folders: dict[str, Path] = {}
    for name in names:
        module = load_games_module(name)
        static = getattr(module, "STATIC", None)
        if static is None:
            continue
        folders[name] = Path(static)
        runtime.game_scripts += [f"/extra/{name}/{file}" for file in getattr(module, "SCRIPTS", ())]
        runtime.game_styles += [f"/extra/{name}/{file}" for file in getattr(module, "STYLES", ())]
    if not folders:
        return
    app.extensions["throneroom.extra"] = folders

    def extra_file(module: str, filename: str) -> Any:
        if module not in folders:
            abort(404)
        return serve_file(folders[module], filename)

    app.add_url_rule("/extra/<module>/<path:filename>", "extra_file", extra_file)


def templates_dir() -> str:
    """Where the page templates are, in a checkout or an installed copy."""
    return str(ROOT / "templates")


def create_app(config: dict[str, Any] | None = None) -> Flask:
    """A new app with its own room service and database."""
    settings = {**DEFAULTS, **(config or {})}
    engineio_log = logging.getLogger("engineio.server")
    if not any(isinstance(f, MalformedMessageFilter) for f in engineio_log.filters):
        engineio_log.addFilter(MalformedMessageFilter())
    app = Flask(__name__, template_folder=templates_dir(), static_folder="static")
    app.config.update(settings)
    app.config["MAX_CONTENT_LENGTH"] = 6 * 1024 * 1024  # pack uploads: 5 MB of file and the form around it
    app.config["JSON_AS_ASCII"] = False
    app.json.ensure_ascii = False  # type: ignore[attr-defined]

    from host.guard import HostCheck, RateLimits, host_names

    limits = RateLimits(settings)  # before the database: a bad setting is told before anything is opened
    clock = settings["CLOCK"] or Clock()
    store = Store(settings["DATABASE_URL"])
    if settings["WORKER_ID"]:
        from host.lease import Leases

        store.leases = Leases(store.engine, str(settings["WORKER_ID"]), lambda: clock.wall_ms())
    service = RoomService(
        store,
        clock,
        timer_scale=float(settings["TIMER_SCALE"]),
        include_unlisted=bool(settings["INCLUDE_UNLISTED_GAMES"]),
        seed_source=settings["SEED_SOURCE"],
        max_spectators=int(settings["MAX_SPECTATORS"]),
        room_ttl_ms=int(float(settings["ROOM_TTL_HOURS"]) * 3600 * 1000),
    )
    from host.sockets import WirePacket

    socketio = SocketIO(
        app,
        serializer=WirePacket,  # one encoding of a state shared by many spectators (host/sockets.py)
        async_mode=settings["ASYNC_MODE"],
        max_http_buffer_size=settings["MAX_MESSAGE_BYTES"],
        cors_allowed_origins=None,  # same origin only (an empty list would switch the check off)
        async_handlers=False,  # one client's events are handled in the order it sent them
        ping_interval=5,
        ping_timeout=10,
        **({"message_queue": settings["MESSAGE_QUEUE"]} if settings["MESSAGE_QUEUE"] else {}),
    )
    route_socketio_path(app)
    runtime = Runtime(service, socketio, settings["PUBLIC_URL"].rstrip("/"),
                      coalesce_broadcasts=settings["COALESCE_BROADCASTS"], limits=limits,
                      max_watchers=int(settings["MAX_WATCHERS"]))
    app.extensions["throneroom"] = runtime
    serve_games_modules(app, runtime, settings["GAMES_MODULES"])
    proxies = int(settings["TRUST_PROXY"])
    if proxies:
        from werkzeug.middleware.proxy_fix import ProxyFix

        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies, x_proto=proxies, x_host=proxies)  # type: ignore
    app.wsgi_app = HostCheck(app.wsgi_app, host_names(runtime.public_url, settings["ALLOWED_HOSTS"]),  # type: ignore
                             trust_proxy=proxies > 0, max_message_bytes=int(settings["MAX_MESSAGE_BYTES"]),
                             drop_session=lambda sid: drop_session(socketio, sid),
                             public_url=lambda: runtime.public_url)

    from host.broadcast import Broadcaster
    from host.sockets import TvNamespace
    from host.web import bp as host_bp
    from player.sockets import PlayerNamespace
    from player.web import bp as player_bp

    app.register_blueprint(host_bp)
    app.register_blueprint(player_bp)
    from host import assets

    assets.setup(app)  # ETags, fingerprinted URLs, the catalogs' files, compression (docs/decisions.md "Light pages")
    socketio.on_namespace(TvNamespace("/tv", runtime))
    socketio.on_namespace(PlayerNamespace("/play", runtime))
    runtime.broadcaster = broadcaster = Broadcaster(runtime)  # the room service's transport
    service.notify = broadcaster.notify
    service.on_foreseen = broadcaster.foreseen
    service.on_kick = broadcaster.kick
    service.tell_phone = broadcaster.tell_phone  # claims answered, house requests
    service.on_moved = broadcaster.moved
    service.on_forgotten = broadcaster.forget  # what it keeps per room and per socket goes with them
    service.on_left = broadcaster.left
    service.sleep = socketio.sleep
    if settings["WORKER_ID"] and settings["MESSAGE_QUEUE"]:
        from host.relay import Relay

        runtime.relay = Relay(runtime, settings["MESSAGE_QUEUE"], str(settings["WORKER_ID"]))
        service.on_taken = runtime.relay.took
    if store.leases is None:  # a worker loads each room when its first socket comes (docs/scaling.md)
        restored = service.restore_all()
        if restored:
            log.info("restored %d room(s) from the database", restored)
    return app


def route_socketio_path(app: Flask) -> None:
    """Routes for the Socket.IO path, which the Engine.IO middleware answers before Flask ever sees it. Flask-SocketIO
    handles every event inside a request context made from the socket's first request, and without a route for its
    path Werkzeug raised NoMatch and then NotFound at every event: each exception's traceback held a dozen frames and
    the context in a reference cycle that only the cyclic collector frees, most of what a young collection walked in
    the party benchmark (10 ms, once a second: docs/decisions.md). One rule per transport: a WebSocket's request
    matches only a rule marked for WebSockets."""
    path = "/socket.io/"  # Flask-SocketIO's default, which create_app keeps

    def engineio_only() -> Any:
        abort(404)  # never reached through the middleware

    app.add_url_rule(path, "engineio", engineio_only, methods=["GET", "POST"])
    app.add_url_rule(path, "engineio_websocket", engineio_only, websocket=True)


def drop_session(socketio: SocketIO, sid: str) -> None:
    """Close an Engine.IO session at once, as the server does when a client breaks the protocol."""
    eio = socketio.server.eio
    socket = eio.sockets.get(sid) if sid else None
    if socket is not None:
        socket.close(wait=False, abort=True, reason=eio.reason.TRANSPORT_ERROR)
        eio.sockets.pop(sid, None)


def runtime_of(app: Flask) -> Runtime:
    """The runtime of an app built by ``create_app``."""
    return app.extensions["throneroom"]


def start_ticker(app: Flask) -> None:
    """Start the one background task that fires timeouts and bot moves (Flask-SocketIO's own primitives)."""
    runtime = runtime_of(app)
    if runtime.ticker_started:
        return
    runtime.ticker_started = True
    runtime.service.clocks.resume()  # the start-up since the rooms were restored is no time of any game
    gc.freeze()  # what start-up built (modules, packs, restored rooms) lives as long as the process: a full
    # collection no longer walks it, which made for pauses of tens of ms under load (docs/decisions.md)
    gc.set_threshold(*GC_THRESHOLDS)  # Python's (700, 10, 10) made a party of 250 rooms collect a thousand times a
    # minute and walk its whole heap every few seconds, for up to 160 ms each: its p99 (docs/decisions.md)
    runtime.service.yield_now = lambda: runtime.socketio.sleep(0)  # a timeout in one room must not hold up a
    # hundred others: between rooms that fired something, broadcasts and handlers waiting run first

    def loop() -> None:
        while not runtime.stopping:
            try:
                runtime.service.tick()
            except Exception:  # never let one bad room stop the clock of all the others
                log.exception("tick failed")
            runtime.socketio.sleep(runtime.service.clocks.next_wakeup_ms() / 1000)
        runtime.ticker_running = False

    def probe() -> None:
        """Measure the phones' round trips (a pass every PROBE_EVERY_MS), in a task of its own: probing thousands of
        phones (which lets the others run every hundred) must not hold up the timers, nor a worker's lease renewals."""
        while not runtime.stopping:
            try:
                runtime.broadcaster.probe_all()
            except Exception:
                log.exception("probing the phones failed")
            runtime.socketio.sleep(PROBE_EVERY_MS / 1000)

    runtime.ticker_running = True
    runtime.socketio.start_background_task(loop)
    runtime.socketio.start_background_task(probe)
    if runtime.relay is not None:
        runtime.relay.start()


def shutdown(app: Flask) -> None:
    """Stop serving cleanly, as ``throneroom serve`` does when asked to stop: no new ticks, every socket closed (an
    Engine.IO close, so pages reconnect by themselves when the server is back), then everything that waits to be
    written is written: the audience's batched answers and every room's game clock. Called by the one task that
    handles a stop, never from a signal handler; each wait is bounded, so a stop always ends."""
    runtime = runtime_of(app)
    if runtime.stopping:
        return
    runtime.stopping = True
    if runtime.relay is not None:
        runtime.relay.stop()
    eio = runtime.socketio.server.eio
    closed = list(eio.sockets.values())
    for socket in closed:
        try:  # without waiting for each socket's writer: one whose client is gone would never answer
            socket.close(wait=False, reason=eio.reason.SERVER_DISCONNECT)
        except Exception:  # one broken socket must not keep the others open
            log.warning("could not close socket %s", getattr(socket, "sid", "?"), exc_info=True)
    runtime.socketio.server.shutdown()  # Engine.IO's own background task (ping timeouts)
    started = time.monotonic()
    while time.monotonic() < started + STOP_GRACE_S and (runtime.ticker_running or
                                                          time.monotonic() < started + CLOSE_GRACE_S):
        runtime.socketio.sleep(0.02)  # the ticker finishes its turn; the sockets' writers send the close packets
    # audience answers wait for the ticker's next turn: written now, waiting a few seconds for a database locked
    # elsewhere, and past that put in a file beside it that the next start reads back (host/audience.py)
    runtime.service.audience.save_before_stop(sleep=runtime.socketio.sleep)
    runtime.service.clocks.save(0)
    if runtime.service.store.leases is not None:  # a worker's rooms move at once, not when their leases expire
        try:
            runtime.service.store.leases.release_all()
        except Exception:  # a stop always ends
            log.warning("could not release the room leases", exc_info=True)
    try:  # everything into the .db file: a copy of that file alone is then a whole backup
        if not runtime.service.store.checkpoint():
            log.warning("the database's write-ahead log could not be emptied (in use elsewhere)")
    except Exception:  # a stop always ends
        log.warning("could not checkpoint the database", exc_info=True)
    log.info("stopped: %d socket(s) closed", len(closed))


DEMO_RESULTS_SECONDS = 20


def start_demo(app: Flask, game_id: str) -> str:
    """A room where bots play ``game_id`` by themselves, again and again; returns its code."""
    runtime = runtime_of(app)
    service = runtime.service
    code, _ = service.create_room()
    room = service.room(code)
    service.host_event(room, "select_game", {"game": game_id})
    service.host_event(room, "settings", {"game": game_id, "settings": {"bots": True}})
    service.host_event(room, "start", {})

    def loop() -> None:
        while True:
            runtime.socketio.sleep(1)
            try:
                if room.phase == "finished":
                    runtime.socketio.sleep(DEMO_RESULTS_SECONDS)
                    service.host_event(room, "lobby", {})
                    service.host_event(room, "start", {})
            except Exception:  # a demo must never take the server down
                log.exception("demo room %s", code)

    runtime.socketio.start_background_task(loop)
    return code

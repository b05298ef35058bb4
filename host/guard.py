"""What keeps one guest from spoiling the evening for the others (docs/security.md): rate limits per client
address, per room and per seat, and the check that every request names this server by one of its own names.

- ``RateLimits``: how often one address may create a room, join one, watch one, upload a pack or preview one, how
  often one seat may rename itself or change its language, team or sitting out, how often a room takes joins,
  seat changes and host controls (``RATE_KINDS``), counted by the ``limits`` library (the engine of
  Flask-Limiter; memory storage by default, any ``limits`` storage URI, such as Redis, for several processes, with
  memory standing in while that storage does not answer).
- ``HostCheck``: a WSGI middleware in front of everything (pages, the API, Socket.IO): a request whose ``Host`` is
  not one of the server's names is refused, and so is a request whose ``Origin`` is another site. A web page on the
  LAN whose name was rebound to this server's address (DNS rebinding) thus reaches nothing, and neither does a
  page elsewhere that posts to it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple
from urllib.parse import parse_qs, urlsplit

from limits import RateLimitItem, parse_many
from limits.errors import StorageError
from limits.storage import MemoryStorage, storage_from_string
from limits.strategies import MovingWindowRateLimiter

from host.room import RoomError

log = logging.getLogger("throneroom.limits")

class RateKind(NamedTuple):
    """One rate limit: its setting (and option ``--<kind>-rate``), its default, what a refusal says, what it counts
    (the help of its option and the table of docs/security.md) and what it counts per: a client ``address``, a
    ``room`` (from every address) or a ``seat`` (one phone's seat in one room)."""

    setting: str
    default: str
    refusal: str
    counted: str
    per: str


# kind -> RateKind: the settings of create_app, the options --<kind>-rate of throneroom serve and worker
# (host/cli.py) and the table of docs/security.md. The defaults let a bar's 50 guests behind one NAT address into
# one room within a minute, and a school open a room per class from one address (docs/scaling.md, "Rate limits in a
# crowded bar"); what one address, or many at one room, can do to the others stays bounded.
RATE_KINDS = {
    "room": RateKind("ROOM_RATE", "20/minute;100/hour", "this address created too many rooms",
                     "rooms one address may create", "address"),
    "join": RateKind("JOIN_RATE", "60/minute;600/hour", "too many joins from this address",
                     "joins from one address, into any rooms (new seats and \"that's me\")", "address"),
    "room-join": RateKind("ROOM_JOIN_RATE", "200/minute;2000/hour", "too many people are joining this room at once",
                          "joins into one room, from all addresses", "room"),
    "watch": RateKind("WATCH_RATE", "30/minute", "this address opened too many TV screens",
                      "TV screens one address may open", "address"),
    "upload": RateKind("UPLOAD_RATE", "10/minute;60/hour", "this address uploaded too many packs",
                       "pack uploads from one address", "address"),
    "preview": RateKind("PREVIEW_RATE", "120/minute;1200/hour", "this address asked for too many pack previews",
                        "pack previews from one address", "address"),
    "rename": RateKind("RENAME_RATE", "10/minute;60/hour", "this phone changed its name too often",
                       "renames of one seat", "seat"),
    "seat": RateKind("SEAT_RATE", "30/minute;300/hour",
                     "this phone changed its language, team or sitting out too often",
                     "a seat's changes of language, team or sitting out (and taking the host remote)", "seat"),
    "changes": RateKind("CHANGES_RATE", "300/minute;3000/hour", "the phones of this address changed their seats "
                        "too often", "renames and seat changes of all the phones of one address", "address"),
    "room-changes": RateKind("ROOM_CHANGES_RATE", "600/minute;6000/hour", "this room's phones changed their seats "
                             "too often", "renames and seat changes in one room, from all addresses", "room"),
    "control": RateKind("CONTROL_RATE", "600/minute;6000/hour", "the host screens of this address sent too many "
                        "controls", "host controls from one address, to any rooms", "address"),
    "room-control": RateKind("ROOM_CONTROL_RATE", "120/minute;1200/hour", "this room's host sent too many controls",
                             "host controls of one room (its TV and its host remote)", "room"),
    "report": RateKind("REPORT_RATE", "20/minute;200/hour", "this address downloaded too many reports",
                       "a Quiz's report downloaded by its host, from one address", "address"),
}
# what a call site counts -> the kinds it is counted against, all of them or none (``RateLimits.hit``)
RATE_ACTIONS = {
    "room": ("room",),
    "join": ("join", "room-join"),
    "watch": ("watch",),
    "upload": ("upload",),
    "preview": ("preview",),
    "rename": ("rename", "changes", "room-changes"),
    "seat": ("seat", "changes", "room-changes"),
    "control": ("control", "room-control"),
    "report": ("report",),
}
STORAGE_RETRY_S = 5.0  # after a shared storage failed, counts go to memory; it is tried again at most this often
STORAGE_TIMEOUT_S = 0.5  # a Redis that does not answer within this is failed (URI query parameters override it)
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
DEFAULT_PORTS = {"http": 80, "https": 443}
DRAIN_MAX_BYTES = 8 * 1024 * 1024  # an oversized long-polling message is read and dropped up to this size


def parse_rate(text: Any, name: str) -> list[RateLimitItem]:
    """Rate limits in the ``limits`` notation ("5/minute;30/hour"), or ValueError naming the setting; "off": none."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"{name}: give limits like 5/minute;30/hour, or off")
    if text.strip().lower() == "off":
        return []
    try:
        items = parse_many(text)
    except ValueError:
        raise ValueError(f"{name}: {text!r} is not a rate like 5/minute;30/hour (or off)") from None
    if not items:
        raise ValueError(f"{name}: {text!r} is not a rate like 5/minute;30/hour (or off)")
    return items


def rate_option(kind: str) -> str:
    """The command line option of a kind (``room-join`` -> ``--room-join-rate``)."""
    return f"--{kind}-rate"


def storage_options(uri: str) -> dict[str, float]:
    """Connection timeouts for a Redis storage, so that a Redis that stopped answering costs one request at most
    ``STORAGE_TIMEOUT_S`` every ``STORAGE_RETRY_S`` rather than a hang (``?socket_timeout=`` in the URI wins)."""
    if urlsplit(uri).scheme in ("redis", "rediss", "redis+unix", "unix"):
        return {"socket_timeout": STORAGE_TIMEOUT_S, "socket_connect_timeout": STORAGE_TIMEOUT_S}
    return {}


def shown_uri(uri: str) -> str:
    """A storage URI without its password, for the log."""
    parts = urlsplit(uri)
    if parts.password is None:
        return uri
    return parts._replace(netloc=parts.netloc.replace(f":{parts.password}@", ":***@")).geturl()


class RateLimits:
    """How often one client address, one room or one seat may do each kind of thing (``RATE_KINDS``), counted in
    the storage of ``RATE_STORAGE`` (memory, or a Redis the workers share). When that storage fails, the counts go
    on in this process's memory (logged once per outage) and the storage is tried again every ``STORAGE_RETRY_S``:
    a stopped Redis is never a refused request (issue [19])."""

    def __init__(self, settings: dict[str, Any], clock: Callable[[], float] = time.monotonic):
        self.rules = {kind: parse_rate(settings.get(rule.setting) or rule.default, rule.setting)
                      for kind, rule in RATE_KINDS.items()}
        self.clock = clock
        self.uri = str(settings.get("RATE_STORAGE") or "memory://")
        if self.uri.startswith("unix://"):  # the message queue's notation for a Redis socket
            self.uri = "redis+unix://" + self.uri[len("unix://"):]
        self.memory = MovingWindowRateLimiter(MemoryStorage())
        self.shared: MovingWindowRateLimiter | None = None
        if not self.uri.startswith("memory://"):
            storage = storage_from_string(self.uri, wrap_exceptions=True, **storage_options(self.uri))
            self.shared = MovingWindowRateLimiter(storage)
            base = storage.base_exceptions
            self.failures: tuple[type[BaseException], ...] = (StorageError, *(base if isinstance(base, tuple) else
                                                                             (base,)))
        self.down_since: float | None = None  # when the shared storage failed, while it does
        self.retry_at = 0.0

    def hit(self, action: str, address: str | None, room: str | None = None, seat: int | None = None) -> None:
        """Count one ``action`` (``RATE_ACTIONS``) from ``address``, in ``room``, by ``seat``; or RoomError
        ``rate_limited`` (nothing counted) if any of its kinds is over a limit: the error says how long to wait."""
        parts = {"address": address or "unknown", "room": room or "unknown", "seat": f"{room or 'unknown'}/{seat}"}
        checks = [(kind, item, parts[RATE_KINDS[kind].per])
                  for kind in RATE_ACTIONS[action] for item in self.rules[kind]]
        if not checks:
            return
        limiter = self.limiter()
        if limiter is self.memory:
            self.count(self.memory, checks)
            return
        try:
            self.count(limiter, checks)
        except self.failures as error:
            self.failed(error)
            self.count(self.memory, checks)
            return
        if self.down_since is not None:
            log.warning("rate limits: %s answers again after %.0f s: counting there again", shown_uri(self.uri),
                        self.clock() - self.down_since)
            self.down_since = None

    def limiter(self) -> MovingWindowRateLimiter:
        """The shared storage's limiter; while it is down, memory's, and the shared one again for one request every
        ``STORAGE_RETRY_S`` (the others meanwhile in memory, never waiting for it)."""
        if self.shared is None:
            return self.memory
        if self.down_since is None:
            return self.shared
        now = self.clock()
        if now < self.retry_at:
            return self.memory
        self.retry_at = now + STORAGE_RETRY_S
        return self.shared

    def failed(self, error: BaseException) -> None:
        now = self.clock()
        self.retry_at = now + STORAGE_RETRY_S
        if self.down_since is None:
            self.down_since = now
            log.warning("rate limits: %s does not answer (%s): counting in this process's memory meanwhile, trying it "
                        "again every %.0f s", shown_uri(self.uri), str(error) or type(error).__name__, STORAGE_RETRY_S)

    @staticmethod
    def count(limiter: MovingWindowRateLimiter, checks: list[tuple[str, RateLimitItem, str]]) -> None:
        for kind, item, key in checks:
            if not limiter.test(item, kind, key):
                reset = limiter.get_window_stats(item, kind, key).reset_time
                wait = max(1, int(reset - time.time()) + 1)
                # the pages say how long to wait, not who is counted (a room's limit is not "this device")
                error = RoomError("rate_limited", f"{RATE_KINDS[kind].refusal}: wait {wait} s and try again",
                                  params={"s": wait})
                error.retry_after = wait  # type: ignore[attr-defined]
                raise error
        for kind, item, key in checks:
            limiter.hit(item, kind, key)


def limits_off() -> list[str]:
    """The options of ``throneroom serve`` and ``worker`` that switch every per-address limit off: for the tests' and
    the benchmarks' servers, whose every phone comes from 127.0.0.1 (tests/test_limits.py tests them as shipped)."""
    return [*(option for kind in RATE_KINDS for option in (rate_option(kind), "off")), "--connections-per-address", "off"]


def host_names(public_url: str, extra: Iterable[str] = ()) -> set[str]:
    """The names a request may give in ``Host``: the public URL's, the loopback names (a TV on the server
    itself), and any the operator added (``--allowed-host``), all lower case, ports aside."""
    names = {name.lower().strip("[]") for name in (*LOOPBACK_NAMES, *extra) if name}
    host = urlsplit(public_url).hostname
    if host:
        names.add(host.lower())
    return names


def split_host(value: str) -> str:
    """The name part of a Host header ("a.b:8000" -> "a.b", "[::1]:80" -> "::1")."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1:].split("]", 1)[0]
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


def origin_of(url: str) -> tuple[str, str, int] | None:
    """The scheme, name and port of an origin or URL ("http://a.b" -> ("http", "a.b", 80)), or None if it has no
    valid ones."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:  # not a number, or over 65535
        return None
    if not parts.hostname or scheme not in DEFAULT_PORTS:
        return None
    return scheme, parts.hostname.lower(), port or DEFAULT_PORTS[scheme]


class HostCheck:
    """WSGI middleware: refuse requests that name another host or come from another site's page (module doc).
    Without trusted proxies, ``X-Forwarded-*`` headers are dropped: only a proxy the operator named may set them."""

    def __init__(self, app: Callable[..., Any], names: set[str], trust_proxy: bool, max_message_bytes: int,
                 drop_session: Callable[[str], None] = lambda sid: None, public_url: Callable[[], str] = lambda: ""):
        self.drop_session = drop_session
        self.public_url = public_url  # read at each request: with --port 0 its port is known once listening
        self.app = app
        self.names = names
        self.trust_proxy = trust_proxy
        self.max_message_bytes = max_message_bytes

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        if not self.trust_proxy:
            for key in [k for k in environ if k.startswith("HTTP_X_FORWARDED_")]:
                del environ[key]
        host = environ.get("HTTP_X_FORWARDED_HOST", "").split(",")[0] if self.trust_proxy else ""
        host = host or environ.get("HTTP_HOST", "")
        if split_host(host) not in self.names:
            return self.refuse(start_response, 421, f"This server does not answer to the name {host[:60]!r}. Open "
                               "it at its own address (the one in the QR code), or start it with --allowed-host.")
        origin = environ.get("HTTP_ORIGIN")
        if origin and origin != "null":
            if not self.same_origin(origin, host, environ):
                return self.refuse(start_response, 403, "Requests from another site's page are refused.")
        elif origin == "null" and environ.get("REQUEST_METHOD", "GET") not in ("GET", "HEAD", "OPTIONS"):
            return self.refuse(start_response, 403, "Requests from another site's page are refused.")
        if environ.get("PATH_INFO", "").startswith("/socket.io") and environ.get("REQUEST_METHOD") == "POST" \
                and self.oversized(environ):
            sid = parse_qs(environ.get("QUERY_STRING", "")).get("sid", [""])[0]
            self.drop_session(sid)  # as Engine.IO would, but without waiting for the next poll to take the close
            if not self.drain(environ):
                return self.refuse(start_response, 413, "The message is too large.")
            return self.refuse(start_response, 400, "The message is too large.")
        return self.app(environ, start_response)

    def same_origin(self, origin: str, host: str, environ: dict[str, Any]) -> bool:
        """Whether a page of ``origin`` is this server's own: its scheme, name AND port are those the request was
        sent to (``host``, with the default port of the request's scheme if it names none), or the public URL's.
        Another port of the same machine is another server, whose pages must not drive this one."""
        seen = origin_of(origin)
        forwarded = environ.get("HTTP_X_FORWARDED_PROTO", "").split(",")[0].strip() if self.trust_proxy else ""
        scheme = forwarded or environ.get("wsgi.url_scheme", "http")
        return seen is not None and seen in (origin_of(f"{scheme}://{host.strip()}"), origin_of(self.public_url()))

    def oversized(self, environ: dict[str, Any]) -> bool:
        """Whether a long-polling message is over the size limit. Engine.IO refuses one with a 400, but first closes
        the session and waits until the client's next poll has taken the close: with no poll waiting, the client
        never got its answer (docs/protocol.md promises a 400)."""
        try:
            return int(environ.get("CONTENT_LENGTH") or 0) > self.max_message_bytes
        except ValueError:
            return False

    @staticmethod
    def drain(environ: dict[str, Any]) -> bool:
        """Read and drop a request's body, up to a bound, so that a client still sending reads the answer; False if
        it is longer (the answer then closes the connection)."""
        length = int(environ.get("CONTENT_LENGTH") or 0)
        if length > DRAIN_MAX_BYTES:
            return False
        stream, left = environ["wsgi.input"], length
        while left > 0:
            chunk = stream.read(min(left, 64 * 1024))
            if not chunk:
                break
            left -= len(chunk)
        return True

    @staticmethod
    def refuse(start_response: Callable[..., Any], status: int, text: str) -> list[bytes]:
        body = text.encode()
        reason = {400: "Bad Request", 403: "Forbidden", 413: "Content Too Large", 421: "Misdirected Request"}[status]
        start_response(f"{status} {reason}", [("Content-Type", "text/plain; charset=utf-8"),
                                               ("Content-Length", str(len(body))), ("Cache-Control", "no-store"),
                                               *([("Connection", "close")] if status == 413 else [])])
        return [body]

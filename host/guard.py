"""What keeps one guest from spoiling the evening for the others (docs/security.md): rate limits per client
address, and the check that every request names this server by one of its own names.

- ``RateLimits``: how often one address may create a room, join one, watch one, upload a pack, preview one, rename a
  seat, change its language, team or sitting out, and send host controls, counted by the ``limits`` library
  (the engine of Flask-Limiter, which also counts Socket.IO events; memory storage by default, any ``limits``
  storage URI, such as Redis, for several processes).
- ``HostCheck``: a WSGI middleware in front of everything (pages, the API, Socket.IO): a request whose ``Host`` is
  not one of the server's names is refused, and so is a request whose ``Origin`` is another site. A web page on the
  LAN whose name was rebound to this server's address (DNS rebinding) thus reaches nothing, and neither does a
  page elsewhere that posts to it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import parse_qs, urlsplit

from limits import RateLimitItem, parse_many
from limits.storage import storage_from_string
from limits.strategies import MovingWindowRateLimiter

from host.room import RoomError

# kind -> (setting, default, what a refusal says, what is counted): the settings of create_app, the options
# --<kind>-rate of throneroom serve and worker (host/cli.py) and the table of docs/security.md
RATE_KINDS = {
    "room": ("ROOM_RATE", "5/minute;30/hour", "this device created too many rooms", "rooms one address may create"),
    "join": ("JOIN_RATE", "20/minute;200/hour", "too many joins from this device",
             "joins from one address (new seats and \"that's me\")"),
    "watch": ("WATCH_RATE", "30/minute", "this device opened too many TV screens", "TV screens one address may open"),
    "upload": ("UPLOAD_RATE", "10/minute;60/hour", "this device uploaded too many packs",
               "pack uploads from one address"),
    "preview": ("PREVIEW_RATE", "60/minute;600/hour", "this device asked for too many pack previews",
                "pack previews from one address"),
    "rename": ("RENAME_RATE", "10/minute;60/hour", "this device changed names too often", "renames from one address"),
    "seat": ("SEAT_RATE", "30/minute;300/hour", "this device changed its language, team or sitting out too often",
             "a phone's changes of language, team or sitting out from one address"),
    "control": ("CONTROL_RATE", "120/minute;1200/hour", "this device sent too many host controls",
                "host controls from one address"),
    "report": ("REPORT_RATE", "20/minute;200/hour", "this device downloaded too many reports",
               "a Quiz's report downloaded by its host, from one address"),
}
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


class RateLimits:
    """How often one client address may do each kind of thing (``RATE_KINDS``)."""

    def __init__(self, settings: dict[str, Any]):
        self.rules = {kind: parse_rate(settings.get(key) or default, key)
                      for kind, (key, default, *_) in RATE_KINDS.items()}
        self.storage = storage_from_string(settings.get("RATE_STORAGE") or "memory://")
        self.limiter = MovingWindowRateLimiter(self.storage)

    def hit(self, kind: str, address: str | None) -> None:
        """Count one ``kind`` from ``address``, or RoomError ``rate_limited`` (nothing counted) if it is over a
        limit; the error says how long to wait."""
        items = self.rules[kind]
        key = address or "unknown"
        for item in items:
            if not self.limiter.test(item, kind, key):
                reset = self.limiter.get_window_stats(item, kind, key).reset_time
                wait = max(1, int(reset - time.time()) + 1)
                error = RoomError("rate_limited", f"{RATE_KINDS[kind][2]}: wait {wait} s and try again")
                error.retry_after = wait  # type: ignore[attr-defined]
                raise error
        for item in items:
            self.limiter.hit(item, kind, key)


def limits_off() -> list[str]:
    """The options of ``throneroom serve`` and ``worker`` that switch every per-address limit off: for the tests' and
    the benchmarks' servers, whose every phone comes from 127.0.0.1 (tests/test_limits.py tests them as shipped)."""
    return [*(option for kind in RATE_KINDS for option in (f"--{kind}-rate", "off")), "--connections-per-address", "off"]


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

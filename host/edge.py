"""The serving edge: what a connection may cost before it has said anything (docs/security.md, "Connections").

eventlet's WSGI server (``throneroom serve`` and ``worker`` in the eventlet mode) accepted every connection and kept
it as long as its peer did. One guest holding thousands of idle connections took every file the process may open:
``accept()`` then failed with EMFILE, and that ended the server (issue [16]). Here:

- ``ConnectionGate`` is the pool the WSGI server hands each accepted connection to (its ``custom_pool``, which sees
  every connection before it is served): it counts the live connections, in all and per client address, and refuses
  one over a limit at once, with a short ``503`` and a close, instead of serving it. The total stays below the
  open-file limit by a reserve (``capacity``), so the files the database, the pack readers, Redis and the logs need
  are always there, and ``accept()`` never meets the limit.
- ``serving_options`` adds the idle timeouts: a connection that sends no request, or stalls in one, is closed.

In the threading mode (Werkzeug's server, for development) none of this applies.
"""

from __future__ import annotations

import json
import logging
import socket
import time
from collections.abc import Callable
from typing import Any

log = logging.getLogger("throneroom.edge")

FILE_RESERVE = 128  # files kept beyond those open at the start, for all but connections: database connections (and
# their -wal and -shm files), pack readers' pipes, Redis, uploads' temporary files, and the refusals still lingering
MAX_LINGERING = 32  # refused connections given a moment to read their 503 (the rest are closed at once)
LINGER_S = 1.0  # how long a refused connection is given to read its answer and close
REFUSAL_LOG_S = 60  # refusals are logged at most this often (with their count): a flood does not flood the log
RETRY_AFTER_S = 5
REFUSALS = {  # code -> what the 503 says (the pages show error.<code>)
    "server_full": "the server has all the connections it can hold: try again in a moment",
    "too_many_connections": "this device has too many connections open: close some pages and try again",
}


def capacity(files_limit: int, open_now: int, most: int) -> int:
    """How many connections the process may hold at once: its open-file limit less the files already open and the
    reserve, and at most ``most``."""
    return max(1, min(most, files_limit - open_now - FILE_RESERVE))


def open_files() -> int:
    """How many files this process has open now (0 where that cannot be told)."""
    import psutil

    try:
        return int(psutil.Process().num_fds())
    except (AttributeError, psutil.Error):  # Windows: no such count (nor such a limit)
        return 0


def peer(address: Any) -> str:
    """The client's address, without its port."""
    return str(address[0]) if isinstance(address, tuple) and address else str(address)


class Handle:
    """What the WSGI server gets back from ``spawn``: it links its cleanup (which closes the socket) to it, and that
    runs once the connection is done with, at once for a refused one."""

    def __init__(self) -> None:
        self.done = False
        self.links: list[tuple[Callable[..., Any], tuple[Any, ...]]] = []

    def link(self, callback: Callable[..., Any], *args: Any) -> None:
        if self.done:
            callback(self, *args)
        else:
            self.links.append((callback, args))

    def finish(self) -> None:
        self.done = True
        links, self.links = self.links, []
        for callback, args in links:
            callback(self, *args)


class ConnectionGate:
    """The WSGI server's pool of connections (module doc): at most ``limit`` at once, and ``per_address`` from one
    client address (None: no such limit, as behind a proxy every connection comes from the proxy's address). Each
    admitted connection is served in a task of its own (``start_task``: Socket.IO's ``start_background_task``)."""

    def __init__(self, start_task: Callable[..., Any], limit: int, per_address: int | None):
        self.start_task = start_task
        self.limit = limit
        self.per_address = per_address
        self.live = 0
        self.by_address: dict[str, int] = {}  # only addresses with a live connection: it cannot grow past ``limit``
        self.lingering = 0
        self.refused: dict[str, int] = {code: 0 for code in REFUSALS}  # since the refusals were last logged
        self.logged_at: dict[str, float] = {}

    def spawn(self, serve: Callable[[Any], Any], connection: list[Any]) -> Handle:
        """Serve ``connection`` (eventlet's ``[address, socket, state]``) in a task, or refuse it at once."""
        address = peer(connection[0])
        handle = Handle()
        code = self.admit(address)
        if code is not None:
            self.refuse(connection[1], code, handle)
            return handle

        def run() -> None:
            try:
                serve(connection)
            finally:
                self.release(address)
                handle.finish()

        self.start_task(run)
        return handle

    def waitall(self) -> None:
        """The WSGI server waits here when it ends. It waits for nothing: the connections are closed by the clean
        stop (host/app.py ``shutdown``), which must run even when the server ends by a failure."""

    def admit(self, address: str) -> str | None:
        """Count a new connection from ``address``, or the code of its refusal (nothing counted)."""
        if self.live >= self.limit:
            return "server_full"
        held = self.by_address.get(address, 0)
        if self.per_address is not None and held >= self.per_address:
            return "too_many_connections"
        self.live += 1
        self.by_address[address] = held + 1
        return None

    def release(self, address: str) -> None:
        self.live -= 1
        left = self.by_address.get(address, 1) - 1
        if left > 0:
            self.by_address[address] = left
        else:
            self.by_address.pop(address, None)

    def refuse(self, sock: Any, code: str, handle: Handle) -> None:
        """Answer ``503`` with the reason and close, without ever waiting in the accept loop: the request, if it came
        already, is read and dropped, and the answer goes into the empty send buffer of a new connection. A few
        refused connections are then given a moment to read it before the close (closing with the client's request
        unread would reset the connection and lose the answer); under a flood, the others are closed at once."""
        self.note(code)
        body = json.dumps({"ok": False, "error": {"code": code, "message": REFUSALS[code], "field": None}}).encode()
        head = ("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\nRetry-After: {RETRY_AFTER_S}\r\nCache-Control: no-store\r\n"
                "X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n").encode()
        try:
            sock.setblocking(False)
            try:
                sock.recv(64 * 1024)
            except OSError:  # nothing sent yet
                pass
            sock.send(head + body)
        except OSError:  # gone already
            handle.finish()
            return
        if self.lingering >= MAX_LINGERING:
            handle.finish()
            return
        self.lingering += 1

        def linger() -> None:
            try:
                sock.shutdown(socket.SHUT_WR)  # the answer is complete
                sock.settimeout(LINGER_S)
                deadline = time.monotonic() + LINGER_S
                while time.monotonic() < deadline and sock.recv(64 * 1024):
                    pass
            except OSError:  # the client closed, reset, or took too long
                pass
            finally:
                self.lingering -= 1
                handle.finish()

        self.start_task(linger)

    def note(self, code: str) -> None:
        """Log refusals: the first of each reason at once, then at most once a ``REFUSAL_LOG_S`` with their count."""
        self.refused[code] += 1
        now = time.monotonic()
        last = self.logged_at.get(code)
        if last is not None and now - last < REFUSAL_LOG_S:
            return
        self.logged_at[code] = now
        count, self.refused[code] = self.refused[code], 0
        what = "a connection" if last is None else f"{count} connection(s) in {now - last:.0f} s"
        why = (f"{self.live} open, the most this process can hold (its open-file limit less {FILE_RESERVE} kept "
               "in reserve)" if code == "server_full" else
               f"its address had {self.per_address} open already (--connections-per-address)")
        log.warning("refused %s: %s%s", what, why, "; further refusals are counted and logged at most once a minute"
                    if last is None else "")


def serving_options(socketio: Any, files_limit: int, most: int, per_address: int | None,
                    idle_timeout: float) -> dict[str, Any]:
    """The options of eventlet's WSGI server (through ``socketio.run``): the gate, and the idle timeouts. A
    connection waiting for its next request (or its first) is closed after ``idle_timeout`` seconds; inside a request
    (its headers, its body, a WebSocket) a read or write that waits longer than that, but never less than Engine.IO's
    own allowance for a silent phone (its ping interval and timeout: 15 s), ends it."""
    eio = socketio.server.eio
    silence = float(eio.ping_interval) + float(eio.ping_timeout)
    gate = ConnectionGate(socketio.start_background_task, capacity(files_limit, open_files(), most), per_address)
    return {"custom_pool": gate, "keepalive": idle_timeout, "socket_timeout": max(idle_timeout, silence)}

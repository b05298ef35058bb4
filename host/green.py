"""A worker under eventlet makes the standard library cooperative first thing (docs/scaling.md).

Only the standard library's ``os``, ``sys`` and ``warnings`` are imported here: host/__init__.py calls ``green_process``
before anything else of the process has created a lock or opened a socket.
"""

from __future__ import annotations

import os
import sys
import warnings


def green_process(async_mode: str) -> None:
    """A worker under eventlet: make the standard library cooperative (sockets, select, threads and their locks, time)
    before anything uses it. The Redis message queue listens on a socket for the whole life of the process, and
    python-socketio refuses to run it under eventlet otherwise (Flask-SocketIO's documented requirement); the locks
    must be green too, or a task that waits on Redis or PostgreSQL while holding one would let another block the only
    thread for good. PostgreSQL's driver then waits through the green ``select`` as well (``PSYCOPG_WAIT_FUNC``), so
    one room's query no longer holds up the others. A single ``serve`` (SQLite, no queue) is left as it is. The one
    place Throneroom touches eventlet itself: Socket.IO's own primitives do everything else."""
    if async_mode != "eventlet":
        return
    os.environ.setdefault("PSYCOPG_WAIT_FUNC", "wait_select")
    warnings.filterwarnings("ignore", message=r"\s*Eventlet is deprecated")
    import eventlet

    if not eventlet.patcher.is_monkey_patched("thread"):
        eventlet.monkey_patch()


def waits_cooperatively() -> bool:
    """Whether this process was made cooperative (``green_process``): PostgreSQL's driver then waits through the green
    ``select``, and a task waiting on a lock holds up no other."""
    eventlet = sys.modules.get("eventlet")
    return eventlet is not None and eventlet.patcher.is_monkey_patched("select") \
        and os.environ.get("PSYCOPG_WAIT_FUNC") == "wait_select"


def worker_command(argv: list[str]) -> str | None:
    """The async mode of a ``throneroom worker`` command line, None for any other command (host/__init__.py runs
    ``green_process`` for it first thing, before anything has created a lock or opened a socket)."""
    if argv[:1] != ["worker"]:
        return None
    mode = os.environ.get("THRONEROOM_ASYNC_MODE", "eventlet")
    for i, arg in enumerate(argv):
        if arg == "--async-mode" and i + 1 < len(argv):
            mode = argv[i + 1]
        elif arg.startswith("--async-mode="):
            mode = arg.split("=", 1)[1]
    return mode


def maybe_green() -> None:
    """``throneroom worker`` (or ``python -m host.cli worker``, whose ``argv[0]`` is ``-m`` while the package is
    imported): ``green_process`` for its async mode."""
    if os.path.basename(sys.argv[0]) in ("throneroom", "cli.py", "-m") and sys.argv[1:2] == ["worker"]:
        green_process(worker_command(sys.argv[1:]) or "eventlet")

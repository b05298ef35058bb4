"""``throneroom cluster``: the operator's tools for workers behind HAProxy (docs/operating.md).

- ``haproxy-config``: a complete haproxy.cfg for N workers (on one machine or several), made from the shipped
  deploy/haproxy.cfg: only its ``server`` lines are replaced (and, if asked, its ``bind``), so everything else (the
  routing by room code, the health checks) is exactly the shipped file's. Every worker keeps a fixed ``id``: HAProxy
  places a server's points on the hash ring by its id (docs/scaling.md), so going from 4 workers to 3 moves only the
  4th worker's rooms.
- ``status``: which worker holds which room, read from the lease table all workers share (host/lease.py), and, for
  the workers named with ``--worker``, what their ``/healthz`` says.
- ``wait-drained``: wait until a worker holds no live lease (deploy/workers.sh ``drain``).

Bad input is a one-line error and exit status 2, never a traceback; so is a database that cannot be reached.
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import re
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from host.cli import bounded  # (host/cli.py imports this module only inside its functions)

ROOT = Path(__file__).resolve().parent.parent
MAX_WORKERS = 99  # per machine: ids are (machine - 1) * 100 + worker
SERVER_LINE = re.compile(r"\s+server\s")
WORKER_ID = re.compile(r"[A-Za-z0-9_.-]{1,64}")


class Refused(Exception):
    """Bad input or an unreachable service: said in one line, exit status 2."""


def shipped_template() -> Path:
    """deploy/haproxy.cfg: the checkout's, or the copy ``pip install`` puts in ``<prefix>/share/throneroom/``."""
    for path in (ROOT / "deploy" / "haproxy.cfg", Path(sys.prefix) / "share" / "throneroom" / "haproxy.cfg"):
        if path.is_file():
            return path
    raise Refused("deploy/haproxy.cfg is neither in this checkout nor in share/throneroom of this environment: "
                  "give --template PATH")


# ----- arguments -----

worker_count = bounded(int, 1, MAX_WORKERS, "--workers")
first_port = bounded(int, 1, 65535 - MAX_WORKERS, "--first-port")


def machine_address(text: str) -> str:
    """An IP address or a host name, as HAProxy's ``server`` line takes it."""
    try:
        ipaddress.ip_address(text)
        return text
    except ValueError:
        pass
    if re.fullmatch(r"(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}"
                    r"[A-Za-z0-9])?)*", text):
        return text
    raise argparse.ArgumentTypeError(f"--host takes an IP address or a host name, not {text!r}")


def bind_address(text: str) -> str:
    """What follows ``bind`` in HAProxy: ``:8000``, ``192.168.1.20:80``, ``fd@3`` (a socket handed over)."""
    if not re.fullmatch(r"(fd@\d+|[A-Za-z0-9.:\[\]*-]*:\d{1,5})", text):
        raise argparse.ArgumentTypeError(f"--bind takes ADDRESS:PORT (e.g. :8000 or 192.168.1.20:80), not {text!r}")
    return text


def run_as(text: str) -> str:
    if not re.fullmatch(r"[a-z_][a-z0-9_-]{0,31}", text):
        raise argparse.ArgumentTypeError(f"--run-as takes a system user name, not {text!r}")
    return text


def worker_url(text: str) -> str:
    parts = urlsplit(text)
    try:
        port = parts.port
    except ValueError:
        port = None
    if parts.scheme not in ("http", "https") or not parts.hostname or port is None or parts.path.strip("/"):
        raise argparse.ArgumentTypeError(f"--worker takes a worker's own address, e.g. http://127.0.0.1:8001, "
                                          f"not {text!r}")
    return text.rstrip("/")


def worker_id(text: str) -> str:
    if not WORKER_ID.fullmatch(text):
        raise argparse.ArgumentTypeError("a worker id is 1 to 64 letters, digits, '-', '_' or '.'")
    return text


timeout_seconds = bounded(float, 0, 3600, "--timeout")  # seconds


def add_parser(sub: Any) -> None:
    """Register ``throneroom cluster`` on the main parser's subcommands (host/cli.py)."""
    import os

    cluster = sub.add_parser("cluster", help="workers behind HAProxy: their configuration and which holds which room "
                             "(docs/operating.md)")
    commands = cluster.add_subparsers(dest="cluster_command", required=True)
    config = commands.add_parser("haproxy-config", help="print a complete haproxy.cfg for N workers, made from the "
                                 "shipped deploy/haproxy.cfg")
    config.add_argument("--workers", type=worker_count, required=True, metavar="N",
                        help="workers on each machine (ports FIRST-PORT to FIRST-PORT+N-1)")
    config.add_argument("--first-port", type=first_port, default=8001, metavar="PORT",
                        help="the first worker's port (default 8001)")
    config.add_argument("--host", type=machine_address, action="append", metavar="ADDRESS",
                        help="a machine running workers (default 127.0.0.1; repeat for several machines, in a fixed "
                        "order: a machine's place gives its workers' ids)")
    config.add_argument("--bind", type=bind_address, metavar="ADDRESS:PORT",
                        help="where HAProxy listens for phones and TVs (default: the template's, :8000)")
    config.add_argument("--run-as", type=run_as, metavar="USER",
                        help="HAProxy drops root for this user once listening (Debian's package makes 'haproxy')")
    config.add_argument("--template", type=Path, metavar="FILE", help="the configuration to start from (default: the "
                        "shipped deploy/haproxy.cfg)")
    config.add_argument("--output", "-o", type=Path, metavar="FILE", help="write to FILE instead of printing")

    database = {"metavar": "URL", "default": os.environ.get("DATABASE_URL"),
                "help": "the database the workers share (default: $DATABASE_URL, as in worker.env)"}
    status = commands.add_parser("status", help="which worker holds which room (the lease table), and what each "
                                 "worker's /healthz says")
    status.add_argument("--database-url", **database)
    status.add_argument("--worker", type=worker_url, action="append", default=[], metavar="URL",
                        help="also ask this worker's /healthz, e.g. http://127.0.0.1:8001 (repeatable)")
    status.add_argument("--json", action="store_true", help="one JSON document instead of tables")
    drained = commands.add_parser("wait-drained", help="wait until a worker holds no room (after its SIGTERM)")
    drained.add_argument("--database-url", **database)
    drained.add_argument("--worker-id", type=worker_id, required=True, metavar="NAME",
                         help="the worker's --worker-id (the systemd unit and deploy/workers.sh: HOSTNAME-PORT)")
    drained.add_argument("--timeout", type=timeout_seconds, default=30.0, metavar="S",
                         help="give up after S seconds (exit status 1; default 30)")


# ----- haproxy-config -----

def servers(hosts: list[str], count: int, port: int) -> list[str]:
    """The ``server`` lines: worker k of machine m gets id (m - 1) * 100 + k, for ever."""
    lines = []
    for m, host in enumerate(hosts, 1):
        shown = f"[{host}]" if ":" in host else host
        for k in range(1, count + 1):
            name = f"w{k}" if len(hosts) == 1 else f"m{m}w{k}"
            lines.append(f"    server {name} {shown}:{port + k - 1} id {(m - 1) * 100 + k}")
    return lines


def haproxy_config(template: str, hosts: list[str], count: int, port: int, bind: str | None = None,
                   user: str | None = None, described: str = "") -> str:
    """The template with its ``server`` lines replaced by these workers' in every backend (after each
    ``# workers`` comment, where the shipped file lists them), everything else as it is."""
    out = [(f"# Made by `throneroom cluster haproxy-config{described}` from deploy/haproxy.cfg: edit the command's "
            "options, not this file."), ""]
    backends = placed = 0
    in_backend = False
    for line in template.splitlines():
        if SERVER_LINE.match(line):
            continue  # the template's own workers
        if re.match(r"backend\s", line):
            backends += 1
            in_backend = True
        elif re.match(r"\S", line) and not line.startswith("#"):
            in_backend = False
        if bind is not None and re.match(r"\s+bind\s", line):
            line = f"    bind {bind}"
        out.append(line)
        if user is not None and re.match(r"global\b", line):
            out += [f"    user {user}", f"    group {user}"]
        if in_backend and line.strip().startswith("# workers"):
            out += servers(hosts, count, port)
            placed += 1
    if backends == 0 or placed != backends:
        raise Refused("the template must have, in each backend, a comment line starting with '# workers' where the "
                      "server lines go (as deploy/haproxy.cfg has)")
    return "\n".join(out) + "\n"


def haproxy_command(args: argparse.Namespace) -> int:
    hosts = args.host or ["127.0.0.1"]
    if len(set(hosts)) != len(hosts):
        raise Refused("each --host once: a machine's place in the list gives its workers' ids")
    if args.first_port + args.workers - 1 > 65535:
        raise Refused("the last worker's port would be past 65535")
    path = args.template or shipped_template()
    try:
        template = path.read_text()
    except (OSError, UnicodeDecodeError) as error:
        raise Refused(f"cannot read the template {path}: {getattr(error, 'strerror', None) or error}") from None
    described = f" --workers {args.workers}" + ("" if args.first_port == 8001 else f" --first-port {args.first_port}")
    described += "".join(f" --host {h}" for h in args.host or [])
    described += "" if args.bind is None else f" --bind {args.bind}"
    described += "" if args.run_as is None else f" --run-as {args.run_as}"
    text = haproxy_config(template, hosts, args.workers, args.first_port, args.bind, args.run_as, described)
    if args.output is None:
        sys.stdout.write(text)
    else:
        try:
            args.output.write_text(text)
        except OSError as error:
            raise Refused(f"cannot write {args.output}: {error.strerror}") from None
    return 0


# ----- status -----

def engine_of(url: str | None) -> Any:
    """A SQLAlchemy engine for the shared database, its reachability checked; Refused with one line if not."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError, NoSuchModuleError, SQLAlchemyError

    if not url:
        raise Refused("give --database-url URL (or set DATABASE_URL, as worker.env does)")
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError):
        raise Refused("--database-url is not a database URL (e.g. postgresql+psycopg://throneroom:PASSWORD@"
                      "127.0.0.1/throneroom)") from None
    shown = parsed.render_as_string(hide_password=True)
    options: dict[str, Any] = {}
    if parsed.get_backend_name() == "postgresql":
        options["connect_args"] = {"connect_timeout": 5}
    elif parsed.get_backend_name() == "sqlite" and parsed.database and not Path(parsed.database).is_file():
        raise Refused(f"no database file at {parsed.database}")
    try:
        engine = create_engine(parsed, **options)
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
    except (NoSuchModuleError, ImportError):
        raise Refused(f"no driver for {parsed.drivername} (the workers use postgresql+psycopg://)") from None
    except SQLAlchemyError as error:
        reason = str(getattr(error, "orig", None) or error).strip().splitlines()[0]
        raise Refused(f"cannot reach the database {shown}: {reason}") from None
    return engine


def leases(engine: Any, now_ms: int) -> list[dict[str, Any]]:
    """Every lease row with its room's last activity; ``live``: held and not expired."""
    from sqlalchemy import inspect, text

    if not inspect(engine).has_table("room_lease"):
        return []  # no worker has used this database yet
    with engine.connect() as connection:
        rows = connection.execute(text(
            "SELECT l.room_code, l.holder, l.epoch, l.expires_ms, l.wanted_by, r.updated_ms, r.closed "
            "FROM room_lease l LEFT JOIN room r ON r.code = l.room_code ORDER BY l.holder, l.room_code")).all()
    found = []
    for code, holder, epoch, expires, wanted, updated, closed in rows:
        live = holder is not None and expires >= now_ms
        found.append({"room": code, "worker": holder if live else None, "live": live, "epoch": int(epoch),
                      "expires_in_s": round((expires - now_ms) / 1000, 1) if live else None,
                      "last_holder": holder, "wanted_by": wanted if live else None,
                      "idle_s": None if updated is None else round((now_ms - updated) / 1000),
                      "closed": bool(closed)})
    return found


def health(url: str) -> dict[str, Any]:
    """One worker's /healthz: its status, its worker id (a response header) and its figures."""
    request = urllib.request.Request(url + "/healthz", headers={"Host": "127.0.0.1"})  # as HAProxy's check asks
    found: dict[str, Any] = {"url": url}
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            status, body, worker = response.status, response.read(4096), response.headers.get("X-Throneroom-Worker")
    except urllib.error.HTTPError as error:  # 503: stopping, or its database unreachable
        status, body, worker = error.code, error.read(4096), error.headers.get("X-Throneroom-Worker")
    except (OSError, ValueError) as error:
        reason = getattr(error, "reason", None) or error
        found.update(status=None, health=f"unreachable ({getattr(reason, 'strerror', None) or reason})")
        return found
    lines = body.decode("utf-8", "replace").splitlines()
    found.update(status=status, worker=worker, health=lines[0] if lines else "")
    for line in lines[1:]:
        name, _, value = line.partition(" ")
        if value.isdigit():
            found[name] = int(value)
    return found


def table(rows: list[list[str]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows)


def status_command(args: argparse.Namespace) -> int:
    engine = engine_of(args.database_url)
    try:
        rooms = leases(engine, int(time.time() * 1000))
    except Exception as error:  # noqa: BLE001 - a table of another shape, a connection lost: one line
        raise Refused(f"cannot read the lease table: {str(error).splitlines()[0]}") from None
    finally:
        engine.dispose()
    workers = [health(url) for url in args.worker]
    held: dict[str, int] = {}
    for room in rooms:
        if room["worker"] is not None:
            held[room["worker"]] = held.get(room["worker"], 0) + 1
    for worker in workers:
        worker["holds"] = held.get(worker.get("worker") or "", 0)
    if args.json:
        print(json.dumps({"rooms": rooms, "held": held, "workers": workers}, indent=2))
        return 0
    if workers:
        rows = [["WORKER URL", "ID", "HEALTH", "ROOMS LOADED", "LEASES", "SOCKETS", "RELAYED"]]
        rows += [[w["url"], w.get("worker") or "-", w["health"], str(w.get("rooms", "-")), str(w["holds"]),
                  str(w.get("sockets", "-")), str(w.get("relayed", "-"))] for w in workers]
        print(table(rows))
        print()
    live = [room for room in rooms if room["live"]]
    if not live:
        print("No worker holds a room now (a room is loaded when its first screen or phone connects).")
    else:
        rows = [["ROOM", "WORKER", "LEASE", "ASKED FOR BY", "IDLE"]]
        rows += [[r["room"], r["worker"], f"{r['expires_in_s']:.1f} s left", r["wanted_by"] or "-",
                  "-" if r["idle_s"] is None else f"{r['idle_s']} s"] for r in live]
        print(table(rows))
        print()
        print(", ".join(f"{worker}: {count} room{'s' if count != 1 else ''}" for worker, count in sorted(held.items())))
    free = len(rooms) - len(live)
    if free:
        print(f"{free} room{'s' if free != 1 else ''} held by no worker (released or expired: loaded again by the "
              "worker HAProxy sends its next screen or phone to).")
    return 0


def wait_drained(args: argparse.Namespace) -> int:
    engine = engine_of(args.database_url)
    deadline = time.monotonic() + args.timeout
    try:
        while True:
            mine = [r["room"] for r in leases(engine, int(time.time() * 1000)) if r["worker"] == args.worker_id]
            if not mine:
                print(f"{args.worker_id} holds no room")
                return 0
            if time.monotonic() >= deadline:
                print(f"throneroom: {args.worker_id} still holds {len(mine)} room(s) after {args.timeout:g} s: "
                      f"{', '.join(mine[:20])}", file=sys.stderr)
                return 1
            time.sleep(0.2)
    except Refused:
        raise
    except Exception as error:  # noqa: BLE001 - the database went away meanwhile: one line
        raise Refused(f"cannot read the lease table: {str(error).splitlines()[0]}") from None
    finally:
        engine.dispose()


def run(args: argparse.Namespace) -> int:
    """``throneroom cluster ...``: 0 done, 1 ``wait-drained`` timed out, 2 refused (one line on stderr)."""
    commands = {"haproxy-config": haproxy_command, "status": status_command, "wait-drained": wait_drained}
    try:
        return commands[args.cluster_command](args)
    except Refused as refusal:
        print(f"throneroom: {refusal}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `... | head`: the reader has what it wanted
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error when Python flushes at exit
        return 0

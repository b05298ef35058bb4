"""The server under test: ``throneroom serve`` in its own process, on 127.0.0.1 only, with a temporary database."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import psutil

from bench.services import HAProxy, PostgresServer, RedisServer, front_socket
from host.guard import limits_off

ROOT = Path(__file__).resolve().parent.parent


START_TRIES = 5  # a restart on its former port may find it taken for a moment: try again


class ServerExited(RuntimeError):
    """The server process ended before it listened; ``busy_port`` when its port was taken."""

    def __init__(self, message: str, busy_port: bool):
        super().__init__(message)
        self.busy_port = busy_port


def launch(command: list[str], log: Path, timeout: float = 60, env: dict[str, str] | None = None
           ) -> tuple[subprocess.Popen[str], int]:
    """Start ``python -m host.cli serve|worker ...`` (``command`` without ``--port-file``), its output appended to
    ``log``, and wait until it listens: (process, port). The server writes the port it listens on to a file once
    it does (``--port-file``), so ``--port 0`` takes any free port and no caller hands a closed port to a later bind
    (issue [15]: a port picked, closed, then bound later was taken by something else in between)."""
    port_file = log.with_name(log.name + ".port")
    port_file.unlink(missing_ok=True)
    out = open(log, "a")  # noqa: SIM115 - the server writes to it for its whole life
    process = subprocess.Popen([*command, "--port-file", str(port_file)], cwd=ROOT, stdout=out,
                               stderr=subprocess.STDOUT, text=True,
                               env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})})
    out.close()
    deadline = time.monotonic() + timeout
    while not port_file.exists():
        if process.poll() is not None:
            tail = log.read_text(errors="replace")[-3000:]
            raise ServerExited(f"the server exited with {process.returncode}: {tail}", "cannot listen on" in tail)
        if time.monotonic() > deadline:
            process.kill()
            process.wait(10)
            raise RuntimeError(f"the server did not listen within {timeout:.0f} s: {log.read_text()[-3000:]}")
        time.sleep(0.02)
    return process, int(port_file.read_text())


def launch_on(command: list[str], port: int, log: Path, timeout: float = 60,
              env: dict[str, str] | None = None) -> tuple[subprocess.Popen[str], int]:
    """``launch`` with ``--port port`` (0: any), trying again a few times when a given port is taken for a moment
    (a restart on the port the pages know). ``command`` has ``{port}`` where the port goes (the public URL too)."""
    for attempt in range(START_TRIES):
        try:
            return launch([part.replace("{port}", str(port)) for part in command], log, timeout, env)
        except ServerExited as error:
            if not (port and error.busy_port) or attempt == START_TRIES - 1:
                raise
            time.sleep(0.5)
    raise AssertionError("unreachable")


class Server:
    """One server process; ``cpu_seconds`` and ``rss_bytes`` read it from outside (``process_cpu_seconds``, psutil)."""

    def __init__(self, db: Path, timer_scale: float = 1.0, test_games: bool = False, seed: int | None = 1):
        self.db = db
        self.port = 0  # any free port, known once started
        self.timer_scale = timer_scale
        self.test_games = test_games
        self.seed = seed
        self.log = db.with_suffix(".log")
        self.process: subprocess.Popen[str] | None = None
        self.ps: psutil.Process | None = None
        self.started_at = 0.0
        self.ready_after = 0.0  # seconds from the process's start to its first answered HTTP request

    def command(self) -> list[str]:
        """The server's command line."""
        args = [sys.executable, "-m", "host.cli", "serve", "--host", "127.0.0.1", "--port", "{port}",
                "--db", str(self.db), "--public-url", "http://127.0.0.1:{port}", "--timer-scale", str(self.timer_scale), "--quiet",
                # every simulated phone and room comes from this one address: the per-address limits would stop the
                # load long before the server does (docs/security.md)
                *limits_off(), "--max-spectators", "100000"]
        if self.test_games:
            args += ["--games-module", "bench.games"]  # Buzz, the fair-timing game
        if self.seed is not None:
            args += ["--seed", str(self.seed)]
        return args

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 120) -> None:
        """Start the process and wait until it listens."""
        self.started_at = time.monotonic()
        self.process, self.port = launch_on(self.command(), self.port, self.log, timeout)
        self.ps = psutil.Process(self.process.pid)
        self.ready_after = time.monotonic() - self.started_at

    def cpu_seconds(self) -> float:
        """User and system CPU the server process has used so far."""
        assert self.ps is not None
        return process_cpu_seconds(self.ps.pid)

    def rss_bytes(self) -> int:
        """The server's resident memory now."""
        assert self.ps is not None
        return self.ps.memory_info().rss

    def create_room(self) -> dict[str, Any]:
        """A new room through the HTTP API: ``{code, host_token}``."""
        request = urllib.request.Request(self.url + "/api/rooms", method="POST")
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.load(response)

    def stop(self) -> None:
        """Stop the process (SIGTERM, then SIGKILL)."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


# ----- several workers behind HAProxy, sharing PostgreSQL and Redis (issue [14]) -----


def shipped_haproxy_config() -> Path:
    """deploy/haproxy.cfg: the checkout's, or the copy ``pip install`` puts in ``<prefix>/share/throneroom/``."""
    for path in (ROOT / "deploy" / "haproxy.cfg", Path(sys.prefix) / "share" / "throneroom" / "haproxy.cfg"):
        if path.is_file():
            return path
    raise FileNotFoundError("deploy/haproxy.cfg is neither in a checkout nor in share/throneroom of this environment")


def haproxy_config(bind: str, workers: list[tuple[str, int]]) -> str:
    """deploy/haproxy.cfg as shipped, listening on ``bind`` (``fd@N``: bench.services.HAProxy) with these workers in both backends and room
    for the bench's connections; the bench and tests/cluster.py both use it."""
    lines = []
    for line in shipped_haproxy_config().read_text().splitlines():
        if re.match(r"\s+server\s", line):
            continue  # the shipped example's workers
        if "reject if { sc0_conn_cur" in line:
            continue  # the limit per address: every simulated phone comes from 127.0.0.1 (as --connections-per-address off)
        if re.match(r"\s+bind\s", line):
            line = f"    bind {bind}"
        if re.match(r"\s+maxconn\s", line):
            line = "    maxconn 8000"
        lines.append(line)
        if re.match(r"\s+# workers", line):  # a backend's list (the file's header may say "workers" too)
            lines += [f"    server {name} 127.0.0.1:{wport} id {i}" for i, (name, wport) in enumerate(workers, 1)]
    return "\n".join(lines) + "\n"


def process_cpu_seconds(pid: int) -> float:
    """User and system CPU seconds a process has used so far, all its threads, the ended ones too, to the nanosecond:
    read from its CPU clock (clock_getcpuclockid(3): Linux lets any process read another's). psutil's ``cpu_times``
    count in the kernel's clock ticks of 10 ms, too coarse for a quick run: a relay using 5 ms in 3 s read 0 or 10.
    Where that clock cannot be read, psutil's figure."""
    try:
        return time.clock_gettime(((~pid) << 3) | 2)  # MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED)
    except (OSError, AttributeError, OverflowError):
        times = psutil.Process(pid).cpu_times()
        return times.user + times.system


def tree_cpu(ps: psutil.Process) -> float:
    """CPU seconds of a process and of its children, the live ones and those it reaped (PostgreSQL's backends)."""
    total = 0.0
    try:
        times = ps.cpu_times()
        total = process_cpu_seconds(ps.pid) + times.children_user + times.children_system
        for child in ps.children(recursive=True):
            with contextlib.suppress(psutil.Error, OSError):
                total += process_cpu_seconds(child.pid)
    except psutil.Error:
        pass
    return total


class Cluster:
    """``count`` ``throneroom worker`` processes (w1, w2, ...) behind HAProxy, sharing a PostgreSQL and a Redis, all on
    127.0.0.1; ``url`` is HAProxy's. ``cpu()`` reads every process's CPU seconds from outside (``tree_cpu``)."""

    def __init__(self, tmp: Path, count: int, timer_scale: float = 1.0, seed: int | None = 1):
        self.tmp = tmp
        self.count = count
        self.timer_scale = timer_scale
        self.seed = seed
        self.front = front_socket()  # HAProxy's port, held from the start: the workers' public URL names it
        self.port = self.front.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.workers: dict[str, dict[str, Any]] = {}
        self.postgres: Any = None
        self.redis: Any = None
        self.haproxy: Any = None
        self.database_url = ""
        self.ready_after = 0.0

    def worker_command(self, name: str, port: int) -> list[str]:
        args = [sys.executable, "-m", "host.cli", "worker", "--port", str(port), "--worker-id", name,
                "--database-url", self.database_url, "--message-queue", self.redis.url, "--public-url", self.url,
                "--timer-scale", str(self.timer_scale), "--quiet",
                *limits_off(), "--max-spectators", "100000"]
        if self.seed is not None:
            args += ["--seed", str(self.seed)]
        return args

    def start(self, timeout: float = 120) -> None:
        """PostgreSQL, Redis, the workers (each until it answers /healthz), then HAProxy until it sends requests to
        every worker."""
        started = time.monotonic()
        self.postgres = PostgresServer().start()
        self.redis = RedisServer().start()
        self.database_url = self.postgres.new_database("bench")
        for i in range(1, self.count + 1):
            name = f"w{i}"
            log = self.tmp / f"{name}.log"
            process, port = launch(self.worker_command(name, 0), log, timeout)
            self.workers[name] = {"port": port, "process": process, "ps": psutil.Process(process.pid), "log": log}
        deadline = started + timeout
        for name, worker in self.workers.items():
            while True:
                if worker["process"].poll() is not None:
                    raise RuntimeError(f"worker {name} exited: {worker['log'].read_text()[-2000:]}")
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{worker['port']}/healthz", timeout=1):
                        break
                except OSError:
                    if time.monotonic() > deadline:
                        raise RuntimeError(f"worker {name} did not start: {worker['log'].read_text()[-2000:]}")
                    time.sleep(0.1)
        workers = [(n, w["port"]) for n, w in self.workers.items()]
        self.haproxy = HAProxy(lambda bind: haproxy_config(bind, workers), self.front).start()
        seen: set[str] = set()
        while seen != set(self.workers):
            if time.monotonic() > deadline:
                raise RuntimeError(f"HAProxy never sent a request to {sorted(set(self.workers) - seen)}")
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=2) as response:
                    seen.add(response.headers["X-Throneroom-Worker"])
            except OSError:
                time.sleep(0.1)
        self.ready_after = time.monotonic() - started

    def cpu(self) -> dict[str, float]:
        """CPU seconds so far: each worker by name, and ``postgres``, ``redis`` and ``haproxy``."""
        figures = {name: tree_cpu(w["ps"]) for name, w in self.workers.items()}
        for key, service in (("postgres", self.postgres), ("redis", self.redis), ("haproxy", self.haproxy)):
            process = service.process if service is not None else None
            figures[key] = tree_cpu(psutil.Process(process.pid)) if process is not None else 0.0
        return figures

    def cpu_seconds(self) -> float:
        """The workers' CPU together."""
        figures = self.cpu()
        return sum(figures[name] for name in self.workers)

    def rss_bytes(self) -> int:
        """The live workers' resident memory together."""
        total = 0
        for worker in self.workers.values():
            with contextlib.suppress(psutil.Error):
                total += worker["ps"].memory_info().rss
        return total

    def create_room(self) -> dict[str, Any]:
        """A new room through HAProxy (any worker): ``{code, host_token}``."""
        request = urllib.request.Request(self.url + "/api/rooms", method="POST")
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.load(response)

    def query(self, sql: str, **params: Any) -> list[tuple[Any, ...]]:
        """Rows from the shared database."""
        from sqlalchemy import create_engine, text

        engine = create_engine(self.database_url)
        try:
            with engine.connect() as connection:
                return [tuple(row) for row in connection.execute(text(sql), params).all()]
        finally:
            engine.dispose()

    def holders(self) -> dict[str, str]:
        """Room code -> the worker holding its lease."""
        return {code: holder for code, holder in self.query("SELECT room_code, holder FROM room_lease")
                if holder is not None}

    def log_tails(self, chars: int = 1500) -> str:
        """The end of every worker's output, for error messages."""
        def tail(path: Path) -> str:  # python-socketio's warning for an ack it no longer waits for says nothing here
            lines = [line for line in path.read_text(errors="replace").splitlines() if "Unknown callback" not in line]
            return "\n".join(lines)[-chars:]

        return "\n".join(f"--- {name} ---\n{tail(w['log'])}" for name, w in self.workers.items() if w["log"].exists())

    def kill(self, name: str) -> None:
        """SIGKILL one worker: it dies with no chance to write or release anything."""
        process = self.workers[name]["process"]
        process.send_signal(signal.SIGKILL)
        process.wait(10)

    def stop(self) -> None:
        """Every process, the workers first."""
        for worker in self.workers.values():
            process = worker["process"]
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(15)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(10)
        for service in (self.haproxy, self.redis, self.postgres):
            if service is not None:
                service.stop()

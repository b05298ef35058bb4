"""Several real ``throneroom worker`` processes behind a real HAProxy, sharing a real PostgreSQL and Redis
(tests/services.py starts those): what the scaling tests drive (docs/scaling.md). Loopback only."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any, Self

from sqlalchemy import create_engine, text

from bench.server import haproxy_config, launch_on
from bench.services import HAProxy, front_socket
from host.guard import limits_off

ROOT = Path(__file__).resolve().parent.parent


def new_room(url: str) -> tuple[str, str]:
    """Create a room over HTTP (through HAProxy, or at one worker): its code and host token."""
    request = urllib.request.Request(url + "/api/rooms", data=b"{}", method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        answer = json.load(response)
    return answer["code"], answer["host_token"]


def wait_for(predicate: Callable[[], Any], what: str, seconds: float = 30) -> Any:
    """Poll ``predicate`` every 0.1 s until it gives something true (returned), or fail after ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


class Worker:
    """One ``throneroom worker`` process; a test may kill, pause, resume or restart it."""

    def __init__(self, name: str, database_url: str, redis_url: str, public_url: str, log_dir: Path,
                 timer_scale: float = 1.0, seed: int | None = None):
        self.name = name
        self.port = 0  # any free port at the first start; a restart takes the same one (HAProxy's configuration names it)
        self.database_url = database_url
        self.redis_url = redis_url
        self.public_url = public_url
        self.log = log_dir / f"{name}.log"
        self.timer_scale = timer_scale
        self.seed = seed
        self.process: subprocess.Popen[str] | None = None

    def start(self) -> None:
        args = [sys.executable, "-m", "host.cli", "worker", "--port", "{port}", "--worker-id", self.name,
                "--database-url", self.database_url, "--message-queue", self.redis_url,
                "--public-url", self.public_url, "--timer-scale", str(self.timer_scale), "--games-module", "tests.games",
                "--quiet",
                *limits_off(),
                *([] if self.seed is None else ["--seed", str(self.seed)])]
        self.process, self.port = launch_on(args, self.port, self.log, timeout=30)
        wait_for(self.healthy, f"worker {self.name} to answer /healthz")

    def healthy(self) -> bool:
        if not self.alive:
            raise RuntimeError(f"worker {self.name} exited: {self.log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=1):
                return True
        except OSError:
            return False

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def signal(self, signum: int) -> None:
        assert self.process is not None
        self.process.send_signal(signum)

    def kill(self) -> None:
        """SIGKILL: the worker dies with no chance to write or release anything."""
        if self.alive:
            self.signal(signal.SIGKILL)
            assert self.process is not None
            self.process.wait(10)

    def stop(self) -> None:
        if not self.alive:
            return
        assert self.process is not None
        self.process.send_signal(signal.SIGCONT)  # a paused worker cannot take its SIGTERM
        self.process.terminate()
        try:
            self.process.wait(15)
        except subprocess.TimeoutExpired:
            self.kill()


class Cluster:
    """``count`` workers named w1, w2, ... behind HAProxy on one free port; ``url`` is HAProxy's address."""

    def __init__(self, database_url: str, redis_url: str, log_dir: Path, count: int = 2, timer_scale: float = 1.0,
                 seed: int | None = None):
        self.front = front_socket()  # HAProxy's port, held from the start: the workers' public URL names it
        self.port = self.front.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.database_url = database_url
        self.workers = {f"w{i}": Worker(f"w{i}", database_url, redis_url, self.url, log_dir, timer_scale, seed)
                        for i in range(1, count + 1)}
        self.haproxy: HAProxy | None = None
        self.engine = create_engine(database_url)

    def __enter__(self) -> Self:
        for worker in self.workers.values():
            worker.start()
        workers = [(w.name, w.port) for w in self.workers.values()]
        self.haproxy = HAProxy(lambda bind: haproxy_config(bind, workers), self.front)
        self.haproxy.start()
        self.wait_serving(set(self.workers))
        return self

    def __exit__(self, *exc: object) -> None:
        for worker in self.workers.values():
            worker.stop()
        if self.haproxy is not None:
            self.haproxy.stop()
        self.front.close()
        self.engine.dispose()

    def worker_of(self, path: str) -> str:
        """The worker HAProxy sends a request for ``path`` to (each answer names its worker)."""
        with urllib.request.urlopen(self.url + path, timeout=10) as response:
            return response.headers["X-Throneroom-Worker"]

    def wait_serving(self, names: set[str], seconds: float = 30) -> None:
        """Until HAProxy sends requests to every one of these workers (its health checks found them up)."""
        seen: set[str] = set()
        deadline = time.monotonic() + seconds
        while not names <= seen:
            if time.monotonic() > deadline:
                raise AssertionError(f"HAProxy never sent a request to {sorted(names - seen)}")
            try:
                seen.add(self.worker_of("/healthz"))
            except OSError:
                time.sleep(0.1)

    def holder(self, code: str) -> str | None:
        """The worker holding the room's lease in the database, if any."""
        with self.engine.connect() as connection:
            row = connection.execute(text("SELECT holder FROM room_lease WHERE room_code = :c"), {"c": code}).first()
        return None if row is None else row[0]

    def events(self, code: str) -> list[tuple[int, str, str]]:
        """The room's log as stored: (seq, kind, data JSON)."""
        with self.engine.connect() as connection:
            rows = connection.execute(text("SELECT seq, kind, data FROM room_event WHERE room_code = :c ORDER BY seq"),
                                      {"c": code}).all()
        return [(r[0], r[1], r[2]) for r in rows]

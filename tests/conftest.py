"""Shared fixtures: an app on an in-memory database with a fake clock, socket clients, a real server process."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from host.app import create_app, load_games_module, runtime_of
from host.service import FakeClock, RoomService
from host.store import Store

ROOT = Path(__file__).resolve().parent.parent
TEST_GAMES = "tests.games"  # Tally, TeamTally and Buzz: never shipped, loaded for every test (and served below)
load_games_module(TEST_GAMES)


class Harness:
    """An app built for tests, with helpers to make socket clients and read the room service."""

    def __init__(self, **config: Any):
        self.clock = FakeClock()
        seeds = iter(range(1000, 10_000))
        self.app = create_app({"ASYNC_MODE": "threading", "INCLUDE_UNLISTED_GAMES": True,
                               "GAMES_MODULES": (TEST_GAMES,), "CLOCK": self.clock,
                               "SEED_SOURCE": lambda: next(seeds), "PUBLIC_URL": "http://127.0.0.1:9999",
                               "ROOM_RATE": "off", "JOIN_RATE": "off", "WATCH_RATE": "off",  # see LiveServer
                               "UPLOAD_RATE": "off",
                               **config})
        self.rt = runtime_of(self.app)
        self.service: RoomService = self.rt.service

    def tv(self) -> Any:
        """A socket on the TV namespace."""
        return self.rt.socketio.test_client(self.app, namespace="/tv")

    def phone(self) -> Any:
        """A socket on the phone namespace."""
        return self.rt.socketio.test_client(self.app, namespace="/play")

    def host_room(self) -> tuple[str, Any]:
        """A new room watched by its host TV: (code, tv client)."""
        code, token = self.service.create_room()
        tv = self.tv()
        answer = tv.emit("watch", {"code": code, "host_token": token}, namespace="/tv", callback=True)
        assert answer["ok"], answer
        return code, tv

    def join(self, code: str, name: str, role: str = "player") -> tuple[Any, dict[str, Any]]:
        """A phone that joined: (client, join answer)."""
        phone = self.phone()
        answer = phone.emit("join", {"code": code, "name": name, "role": role}, namespace="/play", callback=True)
        assert answer["ok"], answer
        return phone, answer


def control(tv: Any, name: str, **extra: Any) -> dict[str, Any]:
    """Send a host control and return the acknowledgement."""
    return tv.emit("control", {"control": name, **extra}, namespace="/tv", callback=True)


def last_state(client: Any, namespace: str) -> dict[str, Any] | None:
    """The newest state message a test client received (remembered across calls, as a page would)."""
    states = [m["args"][0] for m in client.get_received(namespace) if m["name"] == "state"]
    if states:
        client.throneroom_last_state = states[-1]
    return getattr(client, "throneroom_last_state", None)


@pytest.fixture
def harness() -> Harness:
    return Harness()


@pytest.fixture
def store() -> Store:
    return Store("sqlite://")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class LiveServer:
    """``throneroom serve`` in its own process on loopback, which a test may kill and start again."""

    def __init__(self, db: Path, timer_scale: float = 1.0, extra: list[str] | None = None, limits: bool = False):
        self.db = db
        self.limits = limits  # the per-address limits as shipped; otherwise off, as every phone of a test comes from
        # 127.0.0.1 (tests/test_limits.py tests them)
        self.port = free_port()
        self.timer_scale = timer_scale
        self.extra = extra or []
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[str] | None = None
        self.log = db.with_suffix(".log")

    def start(self) -> None:
        args = [sys.executable, "-m", "host.cli", "serve", "--host", "127.0.0.1", "--port", str(self.port),
                "--db", str(self.db), "--public-url", self.url, "--timer-scale", str(self.timer_scale),
                "--games-module", TEST_GAMES, "--quiet",
                *([] if self.limits else ["--room-rate", "off", "--join-rate", "off", "--watch-rate", "off",
                                     "--upload-rate", "off"]),
                *self.extra]
        out = open(self.log, "a")  # noqa: SIM115 - the server process writes to it for its whole life
        self.process = subprocess.Popen(args, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, text=True,
                                        env={**os.environ, "PYTHONUNBUFFERED": "1"})
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited: {self.log.read_text()}")
            try:
                with urllib.request.urlopen(self.url + "/", timeout=1):
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"server did not start: {self.log.read_text()}")

    def kill(self) -> None:
        """SIGKILL: no chance to clean up, as in a power cut."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)

    def stop(self) -> None:
        """SIGTERM, as a service manager stops it: the server must end by itself (tests/test_stop.py); one that
        does not is killed and the test fails, so that a stop request swallowed somewhere cannot go unnoticed."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()
                raise AssertionError(f"the server ignored SIGTERM for 10 s; its log:\n{self.log.read_text()[-3000:]}")


@contextmanager
def serving(db: Path, timer_scale: float = 1.0, seed: int | None = None) -> Iterator[LiveServer]:
    """A real server for the length of a ``with`` block (a test's own fixture, or a test that restarts it)."""
    live = LiveServer(db, timer_scale, [] if seed is None else ["--seed", str(seed)])
    live.start()
    try:
        yield live
    finally:
        live.stop()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    """A fresh real server for one test."""
    live = LiveServer(tmp_path / "throneroom.db")
    live.start()
    yield live
    live.stop()


@pytest.fixture
def slow_server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[LiveServer]:
    """A real server whose timers run ten times slower, so nothing moves by itself while a screen is judged
    (tests/screens/); a test module's ``SERVER_SEED`` makes its deals reproducible."""
    seed = getattr(request.module, "SERVER_SEED", None)
    live = LiveServer(tmp_path / "screens.db", timer_scale=10, extra=[] if seed is None else ["--seed", str(seed)])
    live.start()
    yield live
    live.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium, one per test module."""
    from playwright.sync_api import sync_playwright

    from tests.e2e import launch

    with sync_playwright() as playwright:
        chromium = launch(playwright)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def postgres() -> Iterator[Any]:
    """A real PostgreSQL on loopback for a test module (tests/services.py); ``.new_database()`` gives each test its own."""
    from tests.services import PostgresServer

    with PostgresServer() as server:
        yield server


@pytest.fixture(scope="module")
def redis_server() -> Iterator[Any]:
    """A real Redis on loopback for a test module (tests/services.py)."""
    from tests.services import RedisServer

    with RedisServer() as server:
        yield server

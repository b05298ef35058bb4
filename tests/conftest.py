"""Shared fixtures: an app on an in-memory database with a fake clock, socket clients, real server processes and one
headless Chromium for the whole run.

Marks come from fixtures (``pytest_collection_modifyitems``), so a test cannot forget them:
- ``browser``: it drives Chromium (the ``browser`` fixture);
- ``live``: it starts a real ``throneroom serve`` or worker (``server``, ``servers``, ``slow_server``, a cluster);
- ``slow``: live or browser tests, and the ones that start PostgreSQL, Redis or HAProxy, or play thousands of games;
- ``serial``: it measures timing on the real machine and must not share the CPU with other tests (.ci/run runs these
  alone, after the others).
``-m "not browser and not slow"`` is the quick suite: everything that runs in this process.
"""

from __future__ import annotations

import contextlib
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from bench.server import launch_on
from engine.core import Draw, Rng
from host.app import create_app, load_games_module, runtime_of
from host.guard import RATE_KINDS, limits_off
from host.service import FakeClock, RoomService
from host.store import Store
from questions.library import Entry, Library
from questions.model import MAX_QUESTIONS

ROOT = Path(__file__).resolve().parent.parent
TEST_GAMES = "tests.games"  # Tally, TeamTally and Buzz: never shipped, loaded for every test (and served below)
load_games_module(TEST_GAMES)

MARKS = {
    "browser": "drives the headless Chromium (tests/e2e.py)",
    "live": "starts a real server process",
    "slow": "a browser or live test, real PostgreSQL/Redis/HAProxy, or a long statistical run: not in the quick suite",
    "serial": "measures timing on the real machine: run alone, after the parallel part (.ci/run)",
}
FIXTURE_MARKS = {  # fixture -> the marks a test using it gets
    "browser": ("browser", "slow"),
    "server": ("live", "slow"),
    "servers": ("live", "slow"),
    "slow_server": ("live", "slow"),
    "cluster": ("live", "slow"),  # workers behind HAProxy (tests/cluster.py)
    "postgres": ("slow",),
    "redis_server": ("slow",),
}
IMPLIED = {"live": ("slow",), "browser": ("slow",), "serial": ("slow",)}  # a mark set by hand brings these too


def pytest_configure(config: pytest.Config) -> None:
    for name, description in MARKS.items():
        config.addinivalue_line("markers", f"{name}: {description}")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        wanted = {mark for fixture in getattr(item, "fixturenames", ()) for mark in FIXTURE_MARKS.get(fixture, ())}
        wanted |= {implied for mark in list(wanted) + [m.name for m in item.iter_markers()]
                   for implied in IMPLIED.get(mark, ())}
        for mark in sorted(wanted - {m.name for m in item.iter_markers()}):
            item.add_marker(getattr(pytest.mark, mark))
    # The longest modules first (browser, then live or slow), each module's tests kept together and in order: the
    # workers of .ci/run take tests from the front of this queue, so the run ends with short in-process tests filling
    # the gaps, not with one worker alone on a minute-long screen check.
    weight = {}
    for item in items:
        rank = 0 if item.get_closest_marker("browser") else 1 if item.get_closest_marker("slow") else 2
        weight[item.module] = min(weight.get(item.module, 2), rank)
    items.sort(key=lambda item: weight[item.module])


_running_test: list[pytest.Item] = []  # the test now running, so that LiveServer can check that it is marked live


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Any:
    _running_test.append(item)
    try:
        return (yield)
    finally:
        _running_test.pop()


class Harness:
    """An app built for tests, with helpers to make socket clients and read the room service."""

    def __init__(self, **config: Any):
        self.clock = FakeClock()
        seeds = iter(range(1000, 10_000))
        self.app = create_app({"ASYNC_MODE": "threading", "INCLUDE_UNLISTED_GAMES": True,
                               "GAMES_MODULES": (TEST_GAMES,), "CLOCK": self.clock,
                               "SEED_SOURCE": lambda: next(seeds), "PUBLIC_URL": "http://127.0.0.1:9999",
                               **{setting: "off" for setting, *_ in RATE_KINDS.values()},  # see LiveServer
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


def every_entry(library: Library, pack_ids: list[str]) -> list[Entry]:
    """Every question of these packs, in order, as a start's draw would give them all (``Library.draw``)."""
    return library.draw(pack_ids, Draw(MAX_QUESTIONS, in_order=True), set(), Rng(1))


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


class LiveServer:
    """``throneroom serve`` in its own process on loopback, which a test may kill and start again. The first start
    takes any free port (``--port 0``; the server writes the port it got); a restart takes the same port again, as
    the pages of the test reconnect to the address they know."""

    def __init__(self, db: Path, timer_scale: float = 1.0, extra: list[str] | None = None, limits: bool = False,
                 prefix: list[str] | None = None):
        self.db = db
        self.prefix = prefix or []  # a command the server runs under, e.g. prlimit (tests/test_connection_limits.py)
        self.limits = limits  # the per-address limits as shipped; otherwise off, as every phone of a test comes from
        # 127.0.0.1 (tests/test_limits.py tests them)
        self.port = 0
        self.timer_scale = timer_scale
        self.extra = extra or []
        self.process: subprocess.Popen[str] | None = None
        self.log = db.with_suffix(".log")

    @property
    def url(self) -> str:
        assert self.port, "the server has not started yet"
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        test = _running_test[-1] if _running_test else None
        if test is not None and test.get_closest_marker("live") is None:
            raise AssertionError(f"{test.nodeid} starts a server without the servers, server or slow_server fixture: "
                                 "ask for one of them, so that it is marked live and its servers are stopped")
        args = [*self.prefix, sys.executable, "-m", "host.cli", "serve", "--host", "127.0.0.1", "--port", "{port}",
                "--db", str(self.db), "--public-url", "http://127.0.0.1:{port}", "--timer-scale", str(self.timer_scale),
                "--games-module", TEST_GAMES, "--quiet",
                *([] if self.limits else limits_off()),
                *self.extra]
        self.process, self.port = launch_on(args, self.port, self.log, timeout=30)

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


class Servers:
    """The ``servers`` fixture: real servers a test starts (and may kill and restart) itself; every one still running
    is stopped when the test ends."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.started: list[LiveServer] = []

    def new(self, name: str = "throneroom", timer_scale: float = 1.0, seed: int | None = None,
            extra: list[str] | None = None, limits: bool = False, prefix: list[str] | None = None) -> LiveServer:
        """A server not started yet, its database ``<name>.db`` in the test's folder."""
        live = LiveServer(self.folder / f"{name}.db", timer_scale,
                          [*([] if seed is None else ["--seed", str(seed)]), *(extra or [])], limits, prefix)
        self.started.append(live)
        return live

    def start(self, name: str = "throneroom", **options: Any) -> LiveServer:
        """A started server (``new``'s options)."""
        live = self.new(name, **options)
        live.start()
        return live

    @contextmanager
    def serving(self, name: str = "throneroom", **options: Any) -> Iterator[LiveServer]:
        """A server for the length of a ``with`` block (stopped at its end, as a test that then reads the database
        needs)."""
        live = self.start(name, **options)
        try:
            yield live
        finally:
            live.stop()

    def stop_all(self) -> None:
        failures = []
        for live in self.started:
            try:
                live.stop()
            except AssertionError as error:
                failures.append(str(error))
        assert not failures, failures


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[Servers]:
    """Real servers the test starts itself (see ``Servers``)."""
    started = Servers(tmp_path)
    yield started
    started.stop_all()


def module_server(folder: Path, timer_scale: float = 1.0, seed: int | None = None) -> Iterator[LiveServer]:
    live = LiveServer(folder / "throneroom.db", timer_scale, [] if seed is None else ["--seed", str(seed)])
    live.start()
    yield live
    live.stop()


@pytest.fixture(scope="module")
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One real server for a test module (a test that restarts a server starts its own with ``servers``); its
    ``SERVER_SEED`` makes its draws reproducible."""
    yield from module_server(tmp_path_factory.mktemp("server"), seed=getattr(request.module, "SERVER_SEED", None))


@pytest.fixture(scope="module")
def slow_server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A real server for a test module whose timers run ten times slower, so nothing moves by itself while a screen
    is judged (tests/screens/); a test module's ``SERVER_SEED`` makes its deals reproducible."""
    yield from module_server(tmp_path_factory.mktemp("screens"), 10, getattr(request.module, "SERVER_SEED", None))


class TestBrowser:
    """The session's Chromium as one test sees it: every context the test opens is closed when it ends (a page left
    open on a stopped server kept Chromium busy reconnecting), and a JavaScript error on any page fails the test."""

    __test__ = False  # not a test class

    def __init__(self, chromium: Any):
        self.chromium = chromium
        self.contexts: list[Any] = []
        self.errors: list[str] = []

    def new_context(self, **options: Any) -> Any:
        context = self.chromium.new_context(**options)
        self.contexts.append(context)
        context.on("page", self._watch)
        return context

    def new_page(self, **options: Any) -> Any:
        return self.new_context(**options).new_page()

    def _watch(self, page: Any) -> None:
        page.on("pageerror", lambda error: self.errors.append(f"{page.url}: {error}"))

    def close(self) -> None:
        for context in self.contexts:
            with contextlib.suppress(Exception):  # closed already (by the test, or Chromium let it go)
                context.close()
        self.contexts.clear()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.chromium, name)


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    """Debian's Chromium, one for the whole run (each xdist worker has its own)."""
    from playwright.sync_api import sync_playwright

    from tests.e2e import launch

    with sync_playwright() as playwright:
        browser = launch(playwright)
        yield browser
        browser.close()


@pytest.fixture
def browser(chromium: Any) -> Iterator[TestBrowser]:
    """The session's Chromium for one test: its pages are closed after it, and a JavaScript error on any of them
    fails it."""
    tracked = TestBrowser(chromium)
    yield tracked
    tracked.close()
    assert not tracked.errors, f"JavaScript errors on the test's pages: {tracked.errors[:5]}"


@pytest.fixture(scope="module")
def postgres() -> Iterator[Any]:
    """A real PostgreSQL on loopback for a test module (tests/services.py); ``.new_database()`` gives each test its own."""
    from bench.services import PostgresServer

    with PostgresServer() as server:
        yield server


@pytest.fixture(scope="module")
def redis_server() -> Iterator[Any]:
    """A real Redis on loopback for a test module (tests/services.py)."""
    from bench.services import RedisServer

    with RedisServer() as server:
        yield server

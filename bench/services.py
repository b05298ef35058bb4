"""Real Redis, PostgreSQL and HAProxy servers for the tests and the benchmark (issue [14]), from Debian's packages.

Each runs on 127.0.0.1, on a free port, in its own temporary directory, and is stopped (SIGTERM, then SIGKILL after a
timeout; its whole process group) and its directory deleted by ``stop()``, at the end of a ``with`` block, or at
exit at the latest: no test leaves a server behind. A missing program is an error that says what installs it
(``.ci/run``), never a skip.

    with PostgresServer() as pg:
        url = pg.new_database("t1")      # postgresql+psycopg://postgres@127.0.0.1:P/t1
    with RedisServer() as redis:
        redis.url                        # redis://127.0.0.1:P/0
    with HAProxy(lambda bind: config_text(bind)) as proxy:  # haproxy -db -f TMP/haproxy.cfg, on a socket
        proxy.front_port                 # listening before HAProxy starts (bind fd@N)
"""

from __future__ import annotations

import atexit
import glob
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

START_TIMEOUT_S = 30.0  # how long a server may take to answer
STOP_TIMEOUT_S = 10.0  # how long a server may take to stop after SIGTERM before it is killed
START_TRIES = 3  # another free port if the one drawn was taken meanwhile

_running: set[Service] = set()
_running_lock = threading.Lock()


class ServiceMissing(RuntimeError):
    """A server's program is not installed."""


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_listening(port: int, host: str = "127.0.0.1", timeout: float = START_TIMEOUT_S) -> None:
    """Wait until something accepts TCP connections on this port; TimeoutError if nothing does in time."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with socket.create_connection((host, port), timeout=1.0):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise TimeoutError(f"nothing listens on {host}:{port} after {timeout:.0f} s") from None
            time.sleep(0.05)


def _require(program: str, package: str) -> str:
    """The path of an installed program, or ServiceMissing naming the Debian package."""
    path = shutil.which(program) or shutil.which(program, path="/usr/sbin:/usr/bin:/sbin:/bin")
    if path is None:
        raise ServiceMissing(f"{program} is not installed: .ci/run installs it (apt-get install {package})")
    return path


def _stop_all() -> None:
    with _running_lock:
        services = list(_running)
    for service in services:
        service.stop()


atexit.register(_stop_all)


class Service:
    """A server process in its own temporary directory and process group."""

    name = "service"
    stop_signal = signal.SIGTERM

    def __init__(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix=f"throneroom-{self.name}-"))
        self.port = 0
        self.process: subprocess.Popen[bytes] | None = None
        self.log_path = self.tmp / f"{self.name}.log"
        with _running_lock:
            _running.add(self)

    # ----- to be given by each server -----

    def command(self) -> list[str]:
        raise NotImplementedError

    def ready(self) -> bool:
        """Whether the server answers (called until it does)."""
        raise NotImplementedError

    def prepare(self) -> None:
        """What comes before the first start (an initdb)."""

    # ----- common -----

    def _spawn(self, argv: list[str], **kwargs: Any) -> subprocess.Popen[bytes]:
        with open(self.log_path, "ab") as log:
            return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                    start_new_session=True, cwd=self.tmp, **kwargs)

    def log_tail(self, chars: int = 3000) -> str:
        """The end of the server's output, for error messages."""
        try:
            return self.log_path.read_text(errors="replace")[-chars:]
        except OSError:
            return ""

    def start(self) -> Service:
        """Start the server and wait until it answers; RuntimeError (with its output) if it does not."""
        if self.process is not None:
            return self
        try:
            self.prepare()
            for attempt in range(START_TRIES):
                self.port = free_port()
                self.process = self._spawn(self.command())
                deadline = time.monotonic() + START_TIMEOUT_S
                while self.process.poll() is None and time.monotonic() < deadline:
                    if self._ready_quietly():
                        return self
                    time.sleep(0.05)
                died = self.process.poll() is not None
                self._terminate()
                if not died or attempt == START_TRIES - 1:  # a dead server may have lost a race for its port
                    raise RuntimeError(f"{self.name} did not start on port {self.port}"
                                       f" ({'it exited' if died else f'no answer in {START_TIMEOUT_S:.0f} s'}):\n"
                                       f"{self.log_tail()}")
        except BaseException:
            self.stop()
            raise
        return self

    def _ready_quietly(self) -> bool:
        try:
            return self.ready()
        except Exception:  # noqa: BLE001 (not up yet: refused, reset, not accepting connections yet)
            return False

    def _terminate(self) -> None:
        """Stop the process (its stop signal, then SIGKILL after STOP_TIMEOUT_S) and anything left in its group."""
        process, self.process = self.process, None
        if process is None:
            return
        if process.poll() is None:
            try:
                os.kill(process.pid, self.stop_signal)
            except ProcessLookupError:
                pass
            try:
                process.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                pass
        try:
            os.killpg(process.pid, signal.SIGKILL)  # its children too (the group is its own: start_new_session)
        except (ProcessLookupError, PermissionError):
            pass
        process.wait()

    def stop(self) -> None:
        """Stop the server and delete its directory; harmless when already stopped."""
        self._terminate()
        shutil.rmtree(self.tmp, ignore_errors=True)
        with _running_lock:
            _running.discard(self)

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def __enter__(self) -> Any:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.stop()


class RedisServer(Service):
    """``redis-server`` without persistence; ``url`` is ``redis://127.0.0.1:P/0``."""

    name = "redis"

    def __init__(self) -> None:
        self.program = _require("redis-server", "redis-server")
        super().__init__()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def command(self) -> list[str]:
        return [self.program, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                "--dir", str(self.tmp)]

    def client(self) -> Any:
        """A ``redis.Redis`` client of this server (the caller closes it)."""
        import redis

        return redis.Redis.from_url(self.url, socket_timeout=5)

    def ready(self) -> bool:
        client = self.client()
        try:
            return bool(client.ping())
        finally:
            client.close()


def postgres_bin() -> Path:
    """The bin directory of the newest PostgreSQL installed by Debian's packages."""
    found = [Path(p).parent for p in glob.glob("/usr/lib/postgresql/*/bin/postgres")]

    def version(path: Path) -> tuple[int, ...]:
        return tuple(int(part) for part in re.findall(r"\d+", path.parent.name))

    if not found:
        raise ServiceMissing("PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/postgres): .ci/run installs "
                             "it (apt-get install postgresql)")
    return max(found, key=version)


class PostgresServer(Service):
    """A throwaway PostgreSQL cluster (initdb, trust authentication, no fsync). As root it runs as the ``postgres``
    system user (PostgreSQL refuses root). ``url`` is the ``postgres`` database; ``new_database`` makes others."""

    name = "postgres"
    stop_signal = signal.SIGINT  # "fast" shutdown: open connections are closed rather than waited for

    def __init__(self) -> None:
        self.bin = postgres_bin()
        self.as_user: list[str] = []
        self.owner: tuple[int, int] | None = None
        if os.geteuid() == 0:
            import pwd

            try:
                account = pwd.getpwnam("postgres")
            except KeyError:
                raise ServiceMissing("tests run as root and there is no postgres user: .ci/run installs the "
                                     "postgresql package, which creates it") from None
            self.owner = (account.pw_uid, account.pw_gid)
            setpriv = shutil.which("setpriv")
            if setpriv:  # execs the program itself: the pid we signal is the server's
                self.as_user = [setpriv, f"--reuid={account.pw_uid}", f"--regid={account.pw_gid}", "--init-groups",
                                "--"]
            else:
                self.as_user = [_require("runuser", "util-linux"), "-u", "postgres", "--"]
        super().__init__()
        self.data = self.tmp / "data"
        self.databases = 0

    @property
    def url(self) -> str:
        return self.database_url("postgres")

    def database_url(self, name: str) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{name}"

    def prepare(self) -> None:
        if self.owner is not None:
            os.chown(self.tmp, *self.owner)
        env = {**os.environ, "LC_ALL": "C.UTF-8", "LANG": "C.UTF-8"}
        done = subprocess.run([*self.as_user, str(self.bin / "initdb"), "-D", str(self.data), "--auth=trust",
                               "--username=postgres", "--encoding=UTF8", "--locale=C.UTF-8", "--no-sync"],
                              cwd=self.tmp, env=env, capture_output=True, text=True, timeout=120, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"initdb failed ({done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")

    def command(self) -> list[str]:
        return [*self.as_user, str(self.bin / "postgres"), "-D", str(self.data), "-p", str(self.port),
                "-k", str(self.tmp), "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off",
                "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=200"]

    def _spawn(self, argv: list[str], **kwargs: Any) -> subprocess.Popen[bytes]:
        return super()._spawn(argv, env={**os.environ, "LC_ALL": "C.UTF-8", "LANG": "C.UTF-8"}, **kwargs)

    def connect(self, database: str = "postgres") -> Any:
        """A psycopg connection (autocommit) to one of its databases; the caller closes it."""
        import psycopg

        return psycopg.connect(host="127.0.0.1", port=self.port, user="postgres", dbname=database,
                               autocommit=True, connect_timeout=5)

    def ready(self) -> bool:
        with self.connect() as connection:
            return connection.execute("SELECT 1").fetchone() == (1,)

    def new_database(self, name: str | None = None) -> str:
        """Create an empty database (a fresh name if none is given) and return its SQLAlchemy URL."""
        if name is None:
            self.databases += 1
            name = f"test_{self.databases}"
        if not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", name):
            raise ValueError(f"not a plain database name: {name!r}")
        with self.connect() as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return self.database_url(name)


class HAProxy(Service):
    """``haproxy -db -f TMP/haproxy.cfg`` with the given configuration, checked first with ``haproxy -c``. Its front
    is a socket already listening (``front_socket``: a port taken and held by the caller before anything else needs
    its number), handed to HAProxy as ``bind fd@N``: ``config_for`` makes the configuration from that bind line, so no
    port is picked, closed and bound again later (issue [15])."""

    name = "haproxy"

    def __init__(self, config_for: Any, front: socket.socket | None = None) -> None:
        self.program = _require("haproxy", "haproxy")
        self.front = front if front is not None else front_socket()
        super().__init__()
        self.config = self.tmp / "haproxy.cfg"
        self.config.write_text(config_for(f"fd@{self.front.fileno()}"))

    @property
    def front_port(self) -> int:
        return int(self.front.getsockname()[1])

    def prepare(self) -> None:
        done = subprocess.run([self.program, "-c", "-f", str(self.config)], capture_output=True, text=True,
                              timeout=60, check=False, pass_fds=(self.front.fileno(),))
        if done.returncode != 0:
            raise RuntimeError(f"haproxy refuses its configuration:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")

    def command(self) -> list[str]:
        return [self.program, "-db", "-f", str(self.config)]

    def _spawn(self, argv: list[str], **kwargs: Any) -> subprocess.Popen[bytes]:
        return super()._spawn(argv, pass_fds=(self.front.fileno(),), **kwargs)

    def ready(self) -> bool:
        with socket.create_connection(("127.0.0.1", self.front_port), timeout=1.0):
            return True

    def stop(self) -> None:
        super().stop()
        self.front.close()


def front_socket() -> socket.socket:
    """A socket listening on a free port of 127.0.0.1, for HAProxy to take over (``HAProxy(front=...)``)."""
    return socket.create_server(("127.0.0.1", 0))

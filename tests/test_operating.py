"""docs/operating.md as an operator follows it without systemd: ``throneroom cluster haproxy-config`` makes HAProxy's
configuration for N workers from the shipped deploy/haproxy.cfg, ``deploy/workers.sh`` starts, drains and stops the
workers, ``throneroom cluster status`` says which worker holds which room. The live test runs all of it for real on
loopback (PostgreSQL, Redis, HAProxy and two workers, tests/cluster.py's services); the others check the commands'
input handling and that every command and option the page shows still exists, so the page cannot drift."""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shlex
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import socketio

from bench.services import HAProxy, front_socket
from host.cli import build_parser, main
from host.cluster_cli import haproxy_config

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "operating.md"
TEMPLATE = ROOT / "deploy" / "haproxy.cfg"
WORKERS_SH = ROOT / "deploy" / "workers.sh"
CHECK_LINE = re.compile(r"\s*(option httpchk|http-check|default-server|timeout check)\b")


def cli(*args: str, env: dict[str, str] | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """``throneroom ARGS`` as a process of its own (this checkout's): what an operator runs, tracebacks included."""
    return subprocess.run([sys.executable, "-m", "host.cli", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, env=env, check=False)


def run(*args: str, database_url: str | None = None) -> subprocess.CompletedProcess[str]:
    """``throneroom ARGS`` in this process (quicker), its exit status and output as ``cli`` gives them; the
    environment's DATABASE_URL is ``database_url``. An exception escaping it fails the test (no traceback allowed)."""
    out, err = io.StringIO(), io.StringIO()
    saved = os.environ.pop("DATABASE_URL", None)
    if database_url is not None:
        os.environ["DATABASE_URL"] = database_url
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as exit:  # argparse's refusals
                code = exit.code if isinstance(exit.code, int) else 2
    finally:
        os.environ.pop("DATABASE_URL", None)
        if saved is not None:
            os.environ["DATABASE_URL"] = saved
    return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())


def servers_by_backend(config: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    backend = None
    for line in config.splitlines():
        if line.startswith("backend "):
            backend = line.split()[1]
            found[backend] = []
        elif backend and line.strip().startswith("server "):
            found[backend].append(line.strip())
    return found


# ----- haproxy-config -----


def test_haproxy_config_lists_the_workers_and_keeps_the_rest_of_the_shipped_file() -> None:
    done = run("cluster", "haproxy-config", "--workers", "2", "--first-port", "9001")
    assert done.returncode == 0, done.stderr
    config = done.stdout
    assert servers_by_backend(config) == {backend: ["server w1 127.0.0.1:9001 id 1", "server w2 127.0.0.1:9002 id 2"]
                                          for backend in ("rooms", "audience", "anywhere")}
    # every other line is the template's, in its order: the health checks (another part's) flow through unchanged
    template = [line for line in TEMPLATE.read_text().splitlines() if not line.strip().startswith("server ")]
    made = [line for line in config.splitlines()[2:] if not line.strip().startswith("server ")]
    assert made == template
    checks = [line for line in template if CHECK_LINE.match(line)]
    assert len(checks) >= 6 and all(line in config.splitlines() for line in checks)


def test_a_worker_keeps_its_id_when_others_come_or_go() -> None:
    def lines(*options: str) -> set[str]:
        return set(servers_by_backend(haproxy_config(TEMPLATE.read_text(), *options_of(*options)))["rooms"])

    def options_of(*options: str) -> tuple[list[str], int, int]:
        count, *hosts = options
        return (hosts or ["127.0.0.1"]), int(count), 8001

    assert lines("2") < lines("3") < lines("4")  # going from 4 to 3 workers drops one line, changes none
    machines = lines("2", "10.0.0.11", "10.0.0.12")
    assert machines == {"server m1w1 10.0.0.11:8001 id 1", "server m1w2 10.0.0.11:8002 id 2",
                        "server m2w1 10.0.0.12:8001 id 101", "server m2w2 10.0.0.12:8002 id 102"}
    assert lines("2", "10.0.0.11") < lines("2", "10.0.0.11", "10.0.0.12") | {"server w1 10.0.0.11:8001 id 1",
                                                                           "server w2 10.0.0.11:8002 id 2"}


def test_haproxy_accepts_the_generated_configuration(tmp_path: Path) -> None:
    for options in (["--workers", "1"], ["--workers", "3", "--bind", "127.0.0.1:18000", "--run-as", "haproxy"],
                    ["--workers", "2", "--host", "10.0.0.11", "--host", "10.0.0.12"]):
        out = tmp_path / "haproxy.cfg"
        done = run("cluster", "haproxy-config", *options, "-o", str(out))
        assert done.returncode == 0 and done.stdout == "", done.stderr
        checked = subprocess.run(["haproxy", "-c", "-f", str(out)], capture_output=True, text=True, timeout=60,
                                 check=False)
        assert checked.returncode == 0, (options, checked.stdout, checked.stderr)


@pytest.mark.parametrize("options, said", [
    (["--workers", "0"], "--workers must be between 1 and 99, not 0"),
    (["--workers", "two"], "--workers must be a whole number, not 'two'"),
    (["--workers", "2", "--first-port", "65500"], "--first-port must be"),
    (["--workers", "2", "--host", "a b"], "--host takes an IP address or a host name"),
    (["--workers", "2", "--host", "10.0.0.1", "--host", "10.0.0.1"], "each --host once"),
    (["--workers", "2", "--bind", "everywhere"], "--bind takes ADDRESS:PORT"),
    (["--workers", "2", "--run-as", "Root;rm"], "--run-as takes a system user name"),
    (["--workers", "2", "--template", "/nonexistent/haproxy.cfg"], "cannot read the template"),
])
def test_haproxy_config_refuses_bad_options_in_one_line(options: list[str], said: str) -> None:
    done = run("cluster", "haproxy-config", *options)
    assert done.returncode == 2 and done.stdout == ""
    assert said in done.stderr and "Traceback" not in done.stderr


def test_a_template_without_a_place_for_the_workers_is_refused(tmp_path: Path) -> None:
    template = tmp_path / "t.cfg"
    template.write_text("defaults\n    mode http\nbackend rooms\n    server a 127.0.0.1:1 id 1\n")
    done = run("cluster", "haproxy-config", "--workers", "1", "--template", str(template))
    assert done.returncode == 2 and "'# workers'" in done.stderr and "Traceback" not in done.stderr


# ----- status and wait-drained -----


def lease_database(path: Path, leases: list[tuple[str, str | None, int]]) -> str:
    """A SQLite database with the workers' tables and these leases (code, holder, ms from now to expiry)."""
    from sqlalchemy import create_engine
    from sqlmodel import SQLModel

    import host.lease
    import host.store  # noqa: F401

    url = f"sqlite:///{path}"
    engine = create_engine(url)
    SQLModel.metadata.create_all(engine)
    engine.dispose()
    now = int(time.time() * 1000)
    with sqlite3.connect(path) as db:
        for code, holder, expires in leases:
            db.execute("INSERT INTO room (code, host_token_hash, seed, created_ms, updated_ms, closed) "
                       "VALUES (?, 'x', 1, ?, ?, 0)", (code, now - 60_000, now - 5_000))
            db.execute("INSERT INTO room_lease (room_code, holder, epoch, expires_ms) VALUES (?, ?, 3, ?)",
                       (code, holder, now + expires))
    return url


def test_status_says_which_worker_holds_which_room(tmp_path: Path) -> None:
    url = lease_database(tmp_path / "t.db", [("ABCD", "quiz-8001", 60_000), ("EFGH", "quiz-8002", 60_000),
                                             ("JKLM", "quiz-8001", 60_000), ("OLD1", "quiz-8002", -10_000),
                                             ("FREE", None, 0)])
    done = run("cluster", "status", "--database-url", url)
    assert done.returncode == 0, done.stderr
    rows = {line.split()[0]: line.split()[1] for line in done.stdout.splitlines() if re.match(r"[A-Z0-9]{4}\s", line) and not line.startswith("ROOM")}
    assert rows == {"ABCD": "quiz-8001", "EFGH": "quiz-8002", "JKLM": "quiz-8001"}
    assert "quiz-8001: 2 rooms, quiz-8002: 1 room" in done.stdout
    assert "2 rooms held by no worker" in done.stdout
    done = run("cluster", "status", "--json", database_url=url)  # worker.env's variable
    report = json.loads(done.stdout)
    assert report["held"] == {"quiz-8001": 2, "quiz-8002": 1}
    old = next(room for room in report["rooms"] if room["room"] == "OLD1")
    assert old["worker"] is None and old["last_holder"] == "quiz-8002" and not old["live"]


def test_status_of_a_database_no_worker_used_yet(tmp_path: Path) -> None:
    path = tmp_path / "empty.db"
    sqlite3.connect(path).close()
    done = run("cluster", "status", "--database-url", f"sqlite:///{path}")
    assert done.returncode == 0 and "No worker holds a room now" in done.stdout


def test_status_asks_each_named_worker_and_says_which_one_is_down(tmp_path: Path) -> None:
    url = lease_database(tmp_path / "t.db", [])
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    done = run("cluster", "status", "--database-url", url, "--worker", f"http://127.0.0.1:{port}", "--json")
    assert done.returncode == 0, done.stderr
    (worker,) = json.loads(done.stdout)["workers"]
    assert worker["status"] is None and worker["health"].startswith("unreachable")


@pytest.mark.parametrize("url, said", [
    ("not a url", "--database-url is not a database URL"),
    ("postgresql+psycopg://throneroom:SECRET@127.0.0.1:1/throneroom", "cannot reach the database"),
    ("nosuchdb://x/y", "no driver for nosuchdb"),
    ("sqlite:////nonexistent/dir/x.db", "no database file at"),
])
def test_status_refuses_a_bad_or_unreachable_database_in_one_line(url: str, said: str) -> None:
    done = cli("cluster", "status", "--database-url", url)
    assert done.returncode == 2 and done.stdout == "", done.stdout
    assert said in done.stderr and "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert "SECRET" not in done.stderr  # a password is never printed


def test_status_without_a_database_says_how_to_give_one() -> None:
    done = run("cluster", "status")
    assert done.returncode == 2 and "give --database-url URL" in done.stderr
    done = run("cluster", "status", "--database-url", "sqlite://", "--worker", "ftp://x:1")
    assert done.returncode == 2 and "--worker takes a worker's own address" in done.stderr


def test_wait_drained(tmp_path: Path) -> None:
    url = lease_database(tmp_path / "t.db", [("ABCD", "quiz-8001", 60_000), ("EFGH", "quiz-8002", -1000)])
    done = run("cluster", "wait-drained", "--database-url", url, "--worker-id", "quiz-8002", "--timeout", "5")
    assert done.returncode == 0 and "quiz-8002 holds no room" in done.stdout  # its lease expired
    started = time.monotonic()
    done = run("cluster", "wait-drained", "--database-url", url, "--worker-id", "quiz-8001", "--timeout", "0.5")
    assert done.returncode == 1 and "still holds 1 room(s) after 0.5 s: ABCD" in done.stderr
    assert time.monotonic() - started < 30
    done = run("cluster", "wait-drained", "--database-url", url, "--worker-id", "no spaces")
    assert done.returncode == 2 and "a worker id is" in done.stderr


# ----- the page itself -----


def shell_blocks() -> list[str]:
    return re.findall(r"^```sh\n(.*?)^```", DOC.read_text(), flags=re.DOTALL | re.MULTILINE)


def commands_of(block: str) -> list[list[str]]:
    """The block's commands as words, variables given plausible values, here-documents left out."""
    values = {"DB_PASSWORD": "0a1b", "REDIS_PASSWORD": "2c3d", "PUBLIC_ADDRESS": "192.168.1.20", "port": "8001"}
    text = re.sub(r"<<EOF\n.*?^EOF$", "", block, flags=re.DOTALL | re.MULTILINE).replace("\\\n", " ")
    text = re.sub(r"\$\((hostname|grep[^)]*)\)", "quiz", text)
    text = re.sub(r"\$\{?(\w+)\}?", lambda m: values.get(m.group(1), "x"), text)
    commands = []
    for line in text.splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        words: list[str] = []
        for token in [*lexer, ";"]:
            if token in ("&&", "||", ";", "|", "&", ">", ">>", "<"):
                if words and words[0] not in ("for", "do", "done"):
                    commands.append(words[1:] if words[0] == "do" else words)
                words = []
            else:
                words.append(token)
    return commands


def test_every_shell_block_of_the_page_parses() -> None:
    blocks = shell_blocks()
    assert len(blocks) >= 12
    for block in blocks:
        checked = subprocess.run(["bash", "-n"], input=block, capture_output=True, text=True, timeout=30, check=False)
        assert checked.returncode == 0, (block, checked.stderr)
    checked = subprocess.run(["bash", "-n", str(WORKERS_SH)], capture_output=True, text=True, timeout=30, check=False)
    assert checked.returncode == 0, checked.stderr


def test_every_throneroom_command_of_the_page_is_accepted() -> None:
    """Each `throneroom ...` line of the page, as the parser of this checkout reads it (a renamed option fails here);
    each `workers.sh` line names a command the script has."""
    parser = build_parser()
    seen = set()
    for block in shell_blocks():
        for words in commands_of(block):
            if words[0] == "env":
                words = words[2:]
            if words[0].endswith("/throneroom"):
                if words[-1] == "--help":  # the subcommand exists and prints its help
                    with contextlib.redirect_stdout(io.StringIO()), pytest.raises(SystemExit) as exited:
                        parser.parse_args(words[1:])
                    assert exited.value.code == 0, words
                    seen.add(words[1])
                    continue
                try:
                    args = parser.parse_args(words[1:])
                except SystemExit:
                    pytest.fail(f"docs/operating.md: throneroom does not accept {shlex.join(words)}")
                seen.add(args.command + ("" if args.command != "cluster" else " " + args.cluster_command))
            elif words[0].endswith("deploy/workers.sh"):
                assert words[1] in ("start", "stop", "drain", "status"), words
                assert all(word.isdigit() for word in words[2:]), words
                seen.add(f"workers.sh {words[1]}")
            elif words[0] in ("cp", "install") and any("deploy/" in word for word in words):
                for word in words:
                    if "/opt/throneroom/src/" in word:
                        assert (ROOT / word.split("/opt/throneroom/src/")[1]).exists(), word
    assert seen >= {"worker", "cluster haproxy-config", "cluster status", "cluster wait-drained", "workers.sh start",
                    "workers.sh stop", "workers.sh drain", "workers.sh status"}


def test_the_unit_and_the_page_use_the_settings_worker_env_has() -> None:
    shipped = dict(line.split("=", 1) for line in (ROOT / "deploy" / "worker.env").read_text().splitlines()
                   if line and not line.startswith("#"))
    written = re.search(r"cat > /etc/throneroom/worker.env <<EOF\n(.*?)^EOF$", DOC.read_text(), re.DOTALL | re.MULTILINE)
    assert written is not None
    assert {line.split("=", 1)[0] for line in written.group(1).splitlines()} == set(shipped)
    unit = (ROOT / "deploy" / "throneroom-worker@.service").read_text()
    start = re.search(r"^ExecStart=(.*?)(?<!\\)$", unit, re.DOTALL | re.MULTILINE)
    assert start is not None and "User=throneroom" in unit
    command = start.group(1).replace("\\\n", " ").replace("%i", "8001").replace("%H", "quiz")
    values = {**shipped, "WORKER_OPTIONS": "--allowed-host quiz.lan"}
    used = set(re.findall(r"\$\{?(\w+)\}?", command))
    assert used <= set(shipped), used - set(shipped)
    words = shlex.split(re.sub(r"\$\{?(\w+)\}?", lambda m: values[m.group(1)], command))
    assert words[0] == "/opt/throneroom/venv/bin/throneroom"
    args = build_parser().parse_args(words[1:])
    assert (args.command, args.port, args.worker_id, args.allowed_host) == ("worker", 8001, "quiz-8001", ["quiz.lan"])


# ----- the whole path, live -----


def consecutive_free_ports(count: int) -> int:
    """The first of ``count`` consecutive ports free on 127.0.0.1 right now (workers.sh numbers them in a row)."""
    for _ in range(200):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            first = probe.getsockname()[1]
        if first + count > 65000:
            continue
        try:
            held = []
            for port in range(first, first + count):
                s = socket.socket()
                held.append(s)
                s.bind(("127.0.0.1", port))
            return first
        except OSError:
            continue
        finally:
            for s in held:
                s.close()
    raise AssertionError("no consecutive free ports")


def gone(pid: int) -> bool:
    """Whether the process has exited: no such process, or a zombie its parent has not reaped (the workers' parent
    is whatever adopted them when workers.sh exited: in a container, not always a reaper)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state in ("Z", "X")


def get(url: str) -> tuple[int, str, str | None]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.read().decode(), response.headers.get("X-Throneroom-Worker")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(), error.headers.get("X-Throneroom-Worker")


def until(predicate: Any, what: str, seconds: float = 30) -> Any:
    deadline = time.monotonic() + seconds
    while True:
        try:
            value = predicate()
        except OSError:
            value = None
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def tv(front: str, code: str, token: str) -> socketio.Client:
    """The room's TV as its page connects: through HAProxy, the room's code in the query."""
    sio = socketio.Client(reconnection=False)
    sio.connect(f"{front}?room={code}", namespaces=["/tv"], transports=["websocket"], wait_timeout=10)
    answer = sio.call("watch", {"code": code, "host_token": token}, namespace="/tv", timeout=10)
    assert answer["ok"], answer
    return sio


@pytest.mark.live
def test_the_documented_path_without_systemd(postgres: Any, redis_server: Any, tmp_path: Path) -> None:
    """Two workers started by deploy/workers.sh from a worker.env, HAProxy from the generated configuration; a room
    made and watched through HAProxy; `cluster status` names its worker; `drain` stops that worker cleanly and the
    room goes on on the other; `stop` stops the rest."""
    first = consecutive_free_ports(2)
    front = front_socket()
    front_url = f"http://127.0.0.1:{front.getsockname()[1]}"
    database = postgres.new_database()
    (tmp_path / "worker.env").write_text(
        f"# as docs/operating.md writes it, on loopback ports\nDATABASE_URL={database}\n"
        f"MESSAGE_QUEUE={redis_server.url}\nPUBLIC_URL={front_url}\nLISTEN=127.0.0.1\nTRUST_PROXY=1\n"
        f'WORKER_OPTIONS="--allowed-host quiz.test --games-module tests.games"\nFIRST_PORT={first}\n')
    env = {**os.environ, "THRONEROOM_ENV": str(tmp_path / "worker.env"), "THRONEROOM_RUN": str(tmp_path / "run"),
           "THRONEROOM_LOG": str(tmp_path / "log"), "THRONEROOM": f"{sys.executable} -m host.cli",
           "THRONEROOM_USER": "", "STOP_TIMEOUT": "20"}
    host = socket.gethostname()
    ids = {first: f"{host}-{first}", first + 1: f"{host}-{first + 1}"}

    def workers(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["bash", str(WORKERS_SH), *args], cwd=ROOT, env=env, capture_output=True, text=True,
                              timeout=120, check=False)

    def pid(port: int) -> int:
        return int((tmp_path / "run" / f"worker-{port}.pid").read_text())

    def status() -> dict[str, Any]:
        done = cli("cluster", "status", "--database-url", database, "--json", "--worker", f"http://127.0.0.1:{first}",
                   "--worker", f"http://127.0.0.1:{first + 1}")
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    proxy = None
    clients: list[socketio.Client] = []
    pids: list[int] = []
    try:
        started = workers("start", "2")
        assert started.returncode == 0, started.stdout + started.stderr
        assert started.stdout.count(": running (pid") == 2
        pids = [pid(first), pid(first + 1)]
        for number in pids:  # each in a session of its own: the terminal's hangup never reaches it
            assert os.getsid(number) == number != os.getsid(0)
        again = workers("start", "2")
        assert again.returncode == 0 and again.stdout.count("already running") == 2
        assert [pid(first), pid(first + 1)] == pids

        def config(bind: str) -> str:
            made = cli("cluster", "haproxy-config", "--workers", "2", "--first-port", str(first), "--bind", bind)
            assert made.returncode == 0, made.stderr
            return made.stdout

        proxy = HAProxy(config, front)
        proxy.start()
        seen: set[str] = set()

        def both_served() -> bool:
            seen.add(get(front_url + "/healthz")[2] or "")
            return set(ids.values()) <= seen

        until(both_served, "HAProxy to send requests to both workers")
        request = urllib.request.Request(front_url + "/api/rooms", method="POST", data=b"{}",
                                         headers={"Content-Type": "application/json", "Host": "quiz.test"})
        with urllib.request.urlopen(request, timeout=10) as response:  # a name given with --allowed-host
            room = json.load(response)
        code = room["code"]
        request = urllib.request.Request(front_url + "/", headers={"Host": "elsewhere.test"})
        with pytest.raises(urllib.error.HTTPError) as refused:  # a name nobody gave: 421 (docs/operating.md step 5)
            urllib.request.urlopen(request, timeout=10)
        assert refused.value.code == 421
        clients.append(tv(front_url, code, room["host_token"]))
        report = until(lambda: (s := status())["held"] and s, "the room's lease")
        (held,) = [r for r in report["rooms"] if r["room"] == code]
        holder = held["worker"]
        assert holder in ids.values() and report["held"] == {holder: 1}
        port = next(p for p, name in ids.items() if name == holder)
        other = first + (port == first)
        by_id = {w["worker"]: w for w in report["workers"]}
        assert by_id[holder]["rooms"] == 1 and by_id[ids[other]]["rooms"] == 0
        assert get(f"{front_url}/tv/{code}")[2] == holder  # HAProxy sends the room's pages to its worker
        table = workers("status")
        assert table.returncode == 0 and f"{code}  {holder}" in table.stdout, table.stdout
        assert table.stdout.count("/healthz: ok") == 2

        drained = workers("drain", str(port))
        assert drained.returncode == 0, drained.stdout + drained.stderr
        assert f"worker {port}: stopped, holds no room" in drained.stdout
        assert not (tmp_path / "run" / f"worker-{port}.pid").exists()
        assert gone(pids[port - first])
        log = (tmp_path / "log" / f"worker-{port}.log").read_text()
        assert "stopping (SIGTERM)" in log and "stopped:" in log and "Traceback" not in log
        assert "killed" not in drained.stderr
        clients.pop().disconnect()
        # the page reconnects through HAProxy: the other worker takes the room and replays it
        clients.append(until(lambda: tv(front_url, code, room["host_token"]), "the room on the other worker", 20))
        after = until(lambda: (s := status())["held"] and s, "the room's new lease")
        assert after["held"] == {ids[other]: 1}
        assert {w["url"].rsplit(":", 1)[1]: w["health"] for w in after["workers"]}[str(port)].startswith("unreachable")

        stopped = workers("stop")
        assert stopped.returncode == 0, stopped.stdout + stopped.stderr
        assert f"worker {other}: stopped, holds no room" in stopped.stdout
        assert not list((tmp_path / "run").glob("*.pid"))
        assert all(gone(number) for number in pids)
        assert status()["held"] == {}
    finally:
        for client in clients:
            client.disconnect()
        workers("stop")
        for number in pids:  # only ours (not a process that got its number since), if the script failed to stop them
            try:
                if not gone(number) and f"--database-url {database}" in \
                        Path(f"/proc/{number}/cmdline").read_text().replace("\0", " "):
                    os.kill(number, signal.SIGKILL)
            except OSError:
                pass
        if proxy is not None:
            proxy.stop()
        front.close()

"""The ``throneroom`` command line: argument checks and a real ``serve`` on loopback."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from host import cli
from tests.conftest import ROOT


@pytest.mark.parametrize("args,message", [
    (["serve", "--port", "65536"], "between 0 and 65535"),
    (["serve", "--port", "-1"], "between 0 and 65535"),
    (["serve", "--port", "http"], "whole number"),
    (["serve", "--timer-scale", "0"], "between 0.01 and 10"),
    (["serve", "--timer-scale", "fast"], "must be a number"),
    (["serve", "--public-url", "192.168.1.2:8000"], "http://host:port"),
    (["serve", "--public-url", "http://x/?a=1"], "query"),
    (["serve", "--async-mode", "gevent"], "invalid choice"),
    ([], "required"),
])
def test_bad_arguments_are_named(args, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(args)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_db_and_database_url_are_checked(tmp_path: Path):
    parser = cli.build_parser()
    with pytest.raises(SystemExit, match="not both"):
        cli.database_url(parser.parse_args(["serve", "--db", "x.db", "--database-url", "sqlite://"]))
    with pytest.raises(SystemExit, match="is a folder"):
        cli.database_url(parser.parse_args(["serve", "--db", str(tmp_path)]))
    url, _described = cli.database_url(parser.parse_args(["serve", "--db", str(tmp_path / "a" / "b.db")]))
    assert url == f"sqlite:///{tmp_path / 'a' / 'b.db'}" and (tmp_path / "a").is_dir()
    assert cli.database_url(parser.parse_args(["serve", "--database-url", "sqlite://"]))[0] == "sqlite://"


def test_public_url_is_trimmed_and_lan_address_is_not_loopback():
    assert cli.public_url("https://quiz.example.org/") == "https://quiz.example.org"
    address = cli.lan_address()  # asks the kernel for a route; sends nothing
    assert address is None or not address.startswith("127.")


@pytest.mark.live
def test_serve_on_port_0_listens_on_a_free_port_and_prints_and_writes_it(tmp_path: Path):
    """``--port 0`` (issue [15]): the system gives a free port, the server says it once it listens (the addresses,
    the QR code, ``--port-file``), and a public URL with port 0 gets that port; the default database is created."""
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "PYTHONUNBUFFERED": "1"}
    port_file = tmp_path / "port"
    process = subprocess.Popen([sys.executable, "-m", "host.cli", "serve", "--host", "127.0.0.1", "--port", "0",
                                "--public-url", "http://127.0.0.1:0", "--port-file", str(port_file)], cwd=ROOT,
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 30
        while not port_file.exists():
            assert process.poll() is None and time.monotonic() < deadline, "the server never wrote its port"
            time.sleep(0.05)
        port = int(port_file.read_text())
        public = f"http://127.0.0.1:{port}"
        with urllib.request.urlopen(public + "/", timeout=10) as response:  # listening once the file is there
            assert response.status == 200
        with urllib.request.urlopen(public + "/tv", timeout=10) as response:  # the TV's QR code names the port
            assert response.status == 200
    finally:
        process.terminate()
        output = process.communicate(timeout=10)[0]
    assert port > 0
    assert f"{public}/tv" in output and f"Phones join at:             {public}" in output
    assert ":0/" not in output and not output.rstrip().endswith(":0")
    assert "█" in output or "▀" in output  # the QR code, drawn in the terminal
    assert "Eventlet is deprecated" not in output
    assert (tmp_path / "data" / "throneroom" / "throneroom.db").is_file()


@pytest.mark.live
@pytest.mark.parametrize("program", ["serve", "bench relay"])
def test_serve_reports_a_busy_port(tmp_path: Path, program: str):
    """throneroom serve, and the bench's bare relay, which listens the same way (host/cli.py listen_in_background):
    a port already taken is said in one line, never waited on."""
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        command = [sys.executable, "-m", "bench.relay", "--port", str(port)] if program == "bench relay" else [
            sys.executable, "-m", "host.cli", "serve", "--host", "127.0.0.1", "--port", str(port),
            "--db", str(tmp_path / "x.db"), "--public-url", f"http://127.0.0.1:{port}", "--quiet"]
        result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr


@pytest.mark.parametrize("module,why", [("tests.no_such_games", "cannot be imported"), ("tests.conftest", "no GAMES")])
def test_serve_refuses_a_games_module_it_cannot_load(tmp_path: Path, module, why):
    result = subprocess.run([sys.executable, "-m", "host.cli", "serve", "--host", "127.0.0.1", "--port", "0",
                             "--db", str(tmp_path / "x.db"), "--quiet", "--games-module", module],
                            cwd=ROOT, capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 1
    assert f"cannot start: games module {module!r}" in result.stderr and why in result.stderr


def test_simulate_campaign_prints_a_line_per_game_and_a_summary():
    # CAMP-R2 CAMP-D12
    import json

    def run(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "host.cli", "simulate", "campaign", *extra], cwd=ROOT,
                              capture_output=True, text=True, timeout=120, check=False)

    first = run("--games", "3", "--seed", "5", "--map", "archipelago")
    assert first.returncode == 0, first.stderr
    lines = [json.loads(line) for line in first.stdout.splitlines()]
    assert len(lines) == 4 and lines[-1]["summary"] and lines[-1]["games"] == 3
    for line in lines[:3]:
        assert line["map"] == "archipelago" and line["winner"] == line["ranking"][0]
        assert {"scores", "expansion_rounds", "battle_rounds", "eliminations", "actions"} <= set(line)
    assert run("--games", "3", "--seed", "5", "--map", "archipelago").stdout == first.stdout  # seeded
    bad = run("--map", "atlantis")
    assert bad.returncode == 2 and "neither a built-in map" in bad.stderr
    zero = run("--games", "0")
    assert zero.returncode == 2 and "between 1 and 100000" in zero.stderr


def test_simulate_crown_prints_a_line_per_game_and_a_summary():
    # CROWN-D6 CROWN-D7
    import json

    def run(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "host.cli", "simulate", "crown", *extra], cwd=ROOT,
                              capture_output=True, text=True, timeout=120, check=False)

    done = run("--games", "2", "--seed", "3", "--last-day", "3")
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(lines) == 3 and lines[-1]["summary"] and lines[-1]["games"] == 2
    for line in lines[:2]:
        assert line["days"] <= 3 and line["reason"] in ("throne", "last_day") and 0 <= line["winner"] < 5
    again = [json.loads(line) for line in run("--games", "2", "--seed", "3", "--last-day", "3").stdout.splitlines()]
    assert again[:2] == lines[:2]  # seeded (the summary's slowest decision is a wall-clock figure)
    bad = run("--last-day", "99")
    assert bad.returncode == 2 and "--last-day" in bad.stderr


def simulated(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[dict]]:
    """``throneroom simulate ARGS`` in this process: the exit code and the JSON lines printed."""
    import json

    code = cli.main(["simulate", *args])
    return code, [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_simulate_crown_lines_and_summary_in_process(capsys):
    # CROWN-D6: (moved from the former tests/crown/test_conformance.py)
    code, lines = simulated(capsys, "crown", "--games", "3", "--seed", "2", "--last-day", "5")
    assert code == 0 and len(lines) == 4 and lines[-1]["summary"] and lines[-1]["games"] == 3
    assert all(line["days"] <= 5 and line["winner"] in range(5) for line in lines[:3])
    assert set(lines[-1]["reasons"]) <= {"throne", "last_day"}
    assert all(line["levels"] == ["strong"] * 5 and line["events"] >= line["refused"] for line in lines[:3])
    code, lines = simulated(capsys, "crown", "--games", "1", "--seed", "1", "--max-days", "1")
    assert code == 0 and lines[0]["reason"] == "unfinished" and lines[0]["winner"] is None and lines[0]["days"] == 2
    assert lines[-1]["reasons"] == {"unfinished": 1}


@pytest.mark.parametrize("game", ["hierarchy", "avignon"])
def test_simulate_card_games_print_a_line_per_game_and_a_summary(game, capsys):
    # (moved from the former tests/avignon/test_conformance.py, and the same for Hierarchy)
    code, lines = simulated(capsys, game, "--games", "2", "--seed", "3", "--bots", "greedy,random")
    assert code == 0 and len(lines) == 3 and lines[-1]["summary"] and lines[-1]["games"] == 2
    assert all(line["winner"] in (0, 1) and line["winner_bot"] == ("greedy", "random")[line["winner"]]
               for line in lines[:2])
    assert all(line["seed"] == 3 + i and line["actions"] > 0 and line["turns"] > 0 for i, line in enumerate(lines[:2]))
    again = simulated(capsys, game, "--games", "2", "--seed", "3", "--bots", "greedy,random")[1]
    assert [{k: v for k, v in line.items() if "ms" not in k} for line in again] == \
        [{k: v for k, v in line.items() if "ms" not in k} for line in lines]  # seeded; decision times aside
    assert cli.main(["simulate", game, "--bots", "strong"]) == 2
    assert "--bots takes two of random, greedy, strong" in capsys.readouterr().err

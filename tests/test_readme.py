"""The README's commands work as typed on a fresh clone (issue [15]: its quick start failed on Debian's own Python,
`throneroom bench` after `pip install .` failed with "No module named 'tests'", and bare `pytest` did not collect).

The quick start's server line is run in a fresh clone of the committed tree, in a fresh virtual environment, exactly
as the README gives it, with options added after `throneroom serve` only so that the server listens on loopback on a
free port (tests never listen elsewhere). The README's other command, `bash .ci/run`, is what CI runs on a clean
clone: running it inside its own suite would run the suite twice.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import ROOT

README = ROOT / "README.md"


def shell_blocks(text: str) -> list[str]:
    """The commands of the README's ```sh blocks, one string per block (comments and blank lines dropped)."""
    blocks = re.findall(r"```sh\n(.*?)```", text, flags=re.DOTALL)
    return ["\n".join(line.split("  #")[0].rstrip() for line in block.splitlines()
                      if line.strip() and not line.startswith("#")) for block in blocks]


def quick_start() -> tuple[str, str]:
    """The quick start's two commands: (install and serve, install and test)."""
    section = README.read_text(encoding="utf-8").split("## Quick start", 1)[1].split("\n## ", 1)[0]
    blocks = shell_blocks(section)
    assert len(blocks) == 2, f"the quick start must have exactly two commands, not {blocks}"
    return blocks[0], blocks[1]


def test_the_quick_start_has_one_line_to_serve_and_one_to_test():
    serve, test = quick_start()
    assert "\n" not in serve and serve.endswith("throneroom serve"), serve
    assert "-c constraints.txt" in serve and "python3 -m venv" in serve  # Debian's Python refuses a bare pip install
    assert test == "bash .ci/run"
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "-c constraints.txt" in ci and "ruff check" in ci and "mypy" in ci


DEBIAN_PYTHON = Path("/usr/bin/python3")


def fresh_environment(home: Path) -> dict[str, str]:
    """This machine's environment without the test run's virtual environment and Python settings, and with a data
    folder of its own (pip's download cache stays the machine's: the packages are the same). On Debian or Ubuntu, the
    system's own Python comes first, the one a new user has (it refuses a bare `pip install`: issue [15])."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    bin_dir = str(Path(sys.executable).parent)
    path = [p for p in env.get("PATH", "").split(os.pathsep) if p != bin_dir]
    if DEBIAN_PYTHON.exists():
        path.insert(0, str(DEBIAN_PYTHON.parent))
    env["PATH"] = os.pathsep.join(path)
    env["XDG_DATA_HOME"] = str(home / "data")
    env["PYTHONUNBUFFERED"] = "1"
    return env


@dataclass
class FreshClone:
    folder: Path
    env: dict[str, str]
    log: str  # what the quick start's serve line printed
    served: int  # the HTTP status of /tv

    def run(self, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        """A program of the clone's .venv, run from outside the checkout (the installed package, not the sources)."""
        return subprocess.run([str(self.folder / ".venv" / "bin" / args[0]), *args[1:]], cwd=cwd or self.folder.parent,
                              env=self.env, capture_output=True, text=True, timeout=300, check=False)


@pytest.fixture(scope="module")
def fresh_clone(tmp_path_factory: pytest.TempPathFactory) -> FreshClone:
    """A clone of the committed tree, set up and served by the quick start's line exactly as the README gives it
    (options added after `throneroom serve` only), in a fresh virtual environment; the server is stopped again."""
    tmp = tmp_path_factory.mktemp("fresh")
    clone = tmp / "throneroom"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True, timeout=120)
    serve, _ = quick_start()
    env = fresh_environment(tmp / "home")
    port_file = tmp / "port"
    command = f"{serve} --host 127.0.0.1 --port 0 --public-url http://127.0.0.1:0 --port-file {port_file} --quiet"
    log = tmp / "serve.log"
    with open(log, "w") as out:
        process = subprocess.Popen(["bash", "-c", command], cwd=clone, env=env, stdout=out, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    try:
        deadline = time.monotonic() + 600  # the install downloads and builds: generous, never a speed claim
        while not port_file.exists():
            assert process.poll() is None, log.read_text()[-3000:]
            assert time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(0.2)
        with urllib.request.urlopen(f"http://127.0.0.1:{int(port_file.read_text())}/tv", timeout=30) as response:
            served = response.status
            assert b"Throneroom" in response.read()
    finally:
        os.killpg(process.pid, 15)
        process.wait(30)
    return FreshClone(clone, env, log.read_text(), served)


@pytest.mark.live
def test_the_quick_start_serves_from_a_fresh_clone(fresh_clone: FreshClone):
    assert fresh_clone.served == 200 and "Throneroom is running." in fresh_clone.log
    assert Path(fresh_clone.env["XDG_DATA_HOME"], "throneroom", "throneroom.db").is_file()  # the default database
    if DEBIAN_PYTHON.exists():  # the venv was made by the system's own Python, as on a new user's machine
        assert f"home = {DEBIAN_PYTHON.parent}" in (fresh_clone.folder / ".venv" / "pyvenv.cfg").read_text()
    # the installed package (run from outside the checkout) has everything its commands need, and no tests
    done = fresh_clone.run("python", "-c", "import bench.server, bench.services, bench.scenarios, bench.games; "
                                           "import tests")
    assert "No module named 'tests'" in done.stderr, done.stderr


@pytest.mark.live
def test_every_readme_command_works_in_the_installed_package(fresh_clone: FreshClone, tmp_path: Path):
    """The README's other commands, each once with small sizes, against a database of this test's own."""
    db = ["--db", str(tmp_path / "packs.db")]
    examples = fresh_clone.folder / "questions" / "examples"

    def ok(*args: str) -> str:
        done = fresh_clone.run(*args)
        assert done.returncode == 0, (args, done.stdout[-1500:], done.stderr[-1500:])
        return done.stdout

    assert "valid" in ok("throneroom", "pack", "validate", str(examples / "example.csv"))
    imported = ok("throneroom", "pack", "import", str(examples / "example.csv"), "--name", "Office quiz",
                  "--language", "en", *db)
    pack_id = re.search(r"db:[0-9a-f]+", imported).group(0)
    assert pack_id in ok("throneroom", "pack", "list", *db)
    ok("throneroom", "pack", "export", pack_id, str(tmp_path / "office-quiz.json"), *db)
    ok("throneroom", "pack", "export", pack_id, str(tmp_path / "office-quiz.zip"), *db)
    assert (tmp_path / "office-quiz.json").stat().st_size > 0 and (tmp_path / "office-quiz.zip").stat().st_size > 0
    assert "shared" in ok("throneroom", "pack", "share", pack_id, *db)
    ok("throneroom", "pack", "share", pack_id, "--off", *db)
    ok("throneroom", "pack", "delete", pack_id, *db)
    ok("throneroom", "backup", str(tmp_path / "copy.db"), *db)
    maps = fresh_clone.folder / "engine" / "campaign" / "maps"
    ok("throneroom", "map", "validate", str(next(maps.glob("*.json"))))
    assert '"winner"' in ok("throneroom", "simulate", "campaign", "--games", "1", "--seed", "1")
    for game in ("hierarchy", "avignon"):
        assert '"winner"' in ok("throneroom", "simulate", game, "--games", "1", "--seed", "1", "--bots", "random,greedy")
    assert '"winner"' in ok("throneroom", "simulate", "crown", "--games", "1", "--seed", "1", "--last-day", "3",
                            "--crown-bots", "simple")
    assert "| weight | hash-type |" in ok("throneroom", "bench", "--quick", "--scenario", "spread")
    assert "share/throneroom/haproxy.cfg" in ok("python", "-c", "from bench.server import shipped_haproxy_config as f; "
                                                                "print(f())")
    assert "games/s" in ok("python", "-m", "engine.campaign.bench", "--games", "5")


def test_bare_pytest_finds_the_tests_package():
    """Bare `pytest` (not `python -m pytest`) imports `tests` and the project's packages from the checkout: before the
    fix every module importing tests.conftest failed to collect. A top-level module and one in a subpackage suffice."""
    pytest_command = shutil.which("pytest", path=str(Path(sys.executable).parent))
    assert pytest_command is not None
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    files = ["tests/test_rules_reference.py", "tests/campaign/test_maps.py"]
    done = subprocess.run([pytest_command, "--collect-only", "-q", "-p", "no:cacheprovider", *files], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout[-3000:]
    assert re.search(r"\d+ tests collected", done.stdout), done.stdout[-3000:]

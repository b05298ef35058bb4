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


def fresh_environment(home: Path) -> dict[str, str]:
    """This machine's environment without the test run's virtual environment and Python settings, and with a data
    folder of its own (pip's download cache stays the machine's: the packages are the same)."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    bin_dir = str(Path(sys.executable).parent)
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if p != bin_dir)
    env["XDG_DATA_HOME"] = str(home / "data")
    env["PYTHONUNBUFFERED"] = "1"
    return env


@pytest.mark.live
def test_the_quick_start_serves_from_a_fresh_clone_and_the_installed_commands_work(tmp_path: Path):
    clone = tmp_path / "throneroom"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True, timeout=120)
    serve, _ = quick_start()
    env = fresh_environment(tmp_path / "home")
    port_file = tmp_path / "port"
    command = f"{serve} --host 127.0.0.1 --port 0 --public-url http://127.0.0.1:0 --port-file {port_file} --quiet"
    log = tmp_path / "serve.log"
    with open(log, "w") as out:
        process = subprocess.Popen(["bash", "-c", command], cwd=clone, env=env, stdout=out, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    try:
        deadline = time.monotonic() + 600  # the install downloads and builds: generous, never a speed claim
        while not port_file.exists():
            assert process.poll() is None, log.read_text()[-3000:]
            assert time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(0.2)
        url = f"http://127.0.0.1:{int(port_file.read_text())}"
        with urllib.request.urlopen(url + "/tv", timeout=30) as response:
            assert response.status == 200 and b"Throneroom" in response.read()
    finally:
        os.killpg(process.pid, 15)
        process.wait(30)
    assert "Throneroom is running." in log.read_text()
    assert (tmp_path / "home" / "data" / "throneroom" / "throneroom.db").is_file()

    # The installed package (not the checkout: run from elsewhere) has everything its commands need, and no tests.
    venv_bin = clone / ".venv" / "bin"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(venv_bin / args[0]), *args[1:]], cwd=elsewhere, env=env, capture_output=True,
                              text=True, timeout=300, check=False)

    done = run("python", "-c", "import bench.server, bench.services, bench.scenarios, host.cli; import tests")
    assert "No module named 'tests'" in done.stderr, done.stderr  # the bench's imports work; tests are not shipped
    done = run("throneroom", "bench", "--quick", "--scenario", "spread")
    assert done.returncode == 0 and "| weight | hash-type |" in done.stdout, done.stderr[-2000:]
    done = run("python", "-c", "from bench.server import shipped_haproxy_config as f; print(f())")
    assert done.returncode == 0 and "share/throneroom/haproxy.cfg" in done.stdout, done.stderr
    done = run("throneroom", "simulate", "campaign", "--games", "1", "--seed", "1")
    assert done.returncode == 0 and '"winner"' in done.stdout, done.stderr[-2000:]
    done = run("throneroom", "pack", "validate", str(clone / "questions" / "examples" / "example.csv"))
    assert done.returncode == 0, done.stderr[-2000:]


def test_bare_pytest_collects_every_test():
    pytest_command = shutil.which("pytest", path=str(Path(sys.executable).parent))
    assert pytest_command is not None
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([pytest_command, "--collect-only", "-q", "-p", "no:cacheprovider"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout[-3000:]
    assert re.search(r"\d+ tests collected", done.stdout) and "error" not in done.stdout.lower().splitlines()[-1]

"""The server under test: ``throneroom serve`` in its own process, on 127.0.0.1 only, with a temporary database."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import psutil

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    """A free TCP port on the loopback interface."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    """One server process; ``cpu_seconds`` and ``rss_bytes`` read it from outside with psutil."""

    def __init__(self, db: Path, timer_scale: float = 1.0, test_games: bool = False, seed: int | None = 1):
        self.db = db
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
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
        args = [sys.executable, "-m", "host.cli", "serve", "--host", "127.0.0.1", "--port", str(self.port),
                "--db", str(self.db), "--public-url", self.url, "--timer-scale", str(self.timer_scale), "--quiet",
                # every simulated phone and room comes from this one address: the per-address limits would stop the
                # load long before the server does (docs/security.md)
                "--room-rate", "off", "--join-rate", "off", "--watch-rate", "off", "--upload-rate", "off",
                "--max-spectators", "100000"]
        if self.test_games:
            args.append("--test-games")
        if self.seed is not None:
            args += ["--seed", str(self.seed)]
        return args

    def start(self, timeout: float = 120) -> None:
        """Start the process and wait until it answers over HTTP."""
        args = self.command()
        out = open(self.log, "a")  # noqa: SIM115 - the server writes to it for its whole life
        self.started_at = time.monotonic()
        self.process = subprocess.Popen(args, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, text=True,
                                        env={**os.environ, "PYTHONUNBUFFERED": "1"})
        self.ps = psutil.Process(self.process.pid)
        deadline = self.started_at + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited: {self.log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(self.url + "/", timeout=1):
                    self.ready_after = time.monotonic() - self.started_at
                    return
            except OSError:
                time.sleep(0.02)
        raise RuntimeError(f"the server did not start in {timeout} s: {self.log.read_text()[-2000:]}")

    def cpu_seconds(self) -> float:
        """User and system CPU the server process has used so far."""
        assert self.ps is not None
        times = self.ps.cpu_times()
        return times.user + times.system

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

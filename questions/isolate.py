"""Reading an uploaded pack off the server's event loop: ``read_pack`` runs in a child Python process with hard
limits (address space for memory, CPU seconds for time), while the server's loop keeps serving every room.

``parse_isolated`` writes the file to a temporary folder, starts ``python -m questions.isolate FOLDER``, and waits
by polling the child and calling ``sleep`` between polls (the server passes ``socketio.sleep``, which lets other rooms
run). The child writes its answer to the folder as JSON lines: a first line with the pack's fields and warnings, or
with the problems, then one line per question; the images of a .zip pack (questions/archive.py) are written as files
beside it. The parent reads the questions in batches, yielding between them, and rebuilds the ``Pack``. A child that runs too long is killed; at most MAX_PARALLEL files are read at once (a further
upload is told to try again: ``Busy``), and one address holds at most one of them (its second file while the first
is read: ``ReadingYours``), so that a guest sending slow files cannot keep the host's upload out. Every failure is
a ``PackError`` with a report, never another exception.
"""

from __future__ import annotations

import json
import logging
import math
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from questions.model import Pack, PackError, Problem, Question

MAX_PARALLEL = 2  # files read at once, in the whole server
POLL_SECONDS = 0.02
BATCH = 500  # questions rebuilt between two yields to the event loop
ROOT = Path(__file__).resolve().parent.parent
log = logging.getLogger("throneroom.packs")
_places = threading.Lock()
_readers: list[str | None] = []  # the address each file being read came from (None: not told)


class Busy(PackError):
    """MAX_PARALLEL files are being read already: the upload should be tried again in a moment (HTTP 503)."""

    status = 503


class ReadingYours(Busy):
    """A file from the same address is being read: it is answered first (HTTP 429)."""

    status = 429


def parse_isolated(data: bytes, filename: str, name: str | None, language: str | None, *,
                   sleep: Callable[[float], Any], timeout_s: float = 20, memory_mb: int = 768,
                   who: str | None = None) -> Pack:
    """``read_pack(data, filename, name, language)`` in a child process limited to ``timeout_s`` seconds and
    ``memory_mb`` MB; ``sleep`` is called between polls (and between batches of questions) so that the caller's
    event loop runs meanwhile. ``who`` is the uploader's address: while a file of it is read, another from it is
    refused. Returns the pack or raises PackError (Busy when too many files are being read, ReadingYours when one
    of ``who`` is)."""
    _take_place(who)
    try:
        with tempfile.TemporaryDirectory(prefix="throneroom-pack-") as name_of_folder:
            folder = Path(name_of_folder)
            (folder / "pack.bin").write_bytes(data)
            (folder / "request.json").write_text(json.dumps({
                "filename": filename, "name": name, "language": language, "memory_mb": memory_mb,
                "cpu_s": math.ceil(timeout_s) + 1}), encoding="utf-8")
            returncode = _run_child(folder, sleep, timeout_s)
            result = folder / "result.jsonl"
            if not result.exists():
                raise PackError([_failure(returncode, folder / "stderr.txt")])
            return _rebuild(result.read_text(encoding="utf-8").splitlines(), sleep, folder)
    finally:
        with _places:
            _readers.remove(who)


def _take_place(who: str | None) -> None:
    """One of the MAX_PARALLEL places, checked without waiting (never a queue of hostile files); none for an
    address that holds one already, whatever the others: its two slow files would leave no place for anyone."""
    with _places:
        if who is not None and who in _readers:
            raise ReadingYours([Problem("upload", "file", "a file from this device is being read already: wait for "
                                                          "its report, then upload again", code="upload_in_progress")])
        if len(_readers) >= MAX_PARALLEL:
            raise Busy([Problem("upload", "file", "the server is reading other packs; try again in a moment",
                                code="busy")])
        _readers.append(who)


def _run_child(folder: Path, sleep: Callable[[float], Any], timeout_s: float) -> int:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    with open(folder / "stderr.txt", "wb") as errors:
        process = subprocess.Popen([sys.executable, "-m", "questions.isolate", str(folder)], cwd=folder, env=env,
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errors)
    deadline = time.monotonic() + timeout_s
    try:
        while process.poll() is None:
            if time.monotonic() > deadline:
                process.kill()
                process.wait()
                raise PackError([_too_long(timeout_s)])
            sleep(POLL_SECONDS)
    finally:
        if process.poll() is None:  # the caller was interrupted: leave no child behind
            process.kill()
            process.wait()
    if process.returncode == -signal.SIGXCPU:
        raise PackError([_too_long(timeout_s)])
    return process.returncode


def _too_long(timeout_s: float) -> Problem:
    return Problem("file", "", f"the file took too long to read (over {timeout_s:g} s)", code="too_slow",
                   args={"n": math.ceil(timeout_s)})


def _failure(returncode: int, stderr: Path) -> Problem:
    """The report for a child that ended without an answer."""
    tail = stderr.read_bytes()[-2000:].decode("utf-8", "replace") if stderr.exists() else ""
    if "MemoryError" in tail or returncode == -signal.SIGKILL:  # its own limit, or the system's OOM killer
        return Problem("file", "", "the file needs too much memory to read", code="too_much_memory")
    log.error("the pack reader ended with code %s: %s", returncode, tail)
    return Problem("file", "", f"could not read the file (the reader stopped with code {returncode})",
                   code="reader_failed", args={"code": returncode})


def _rebuild(lines: list[str], sleep: Callable[[float], Any], folder: Path) -> Pack:
    """The pack (or the PackError) the child wrote; the questions are rebuilt BATCH at a time. A pack from a .zip
    comes with its images, one file each in ``folder`` (questions/archive.py)."""
    head = json.loads(lines[0])
    if not head["ok"]:
        raise PackError([Problem(**p) for p in head["problems"]])
    questions = []
    for start in range(1, len(lines), BATCH):
        for line in lines[start: start + BATCH]:
            questions.append(Question.from_json(json.loads(line)))
        sleep(0)
    pack = head["pack"]
    warnings = [Problem(**w) for w in head["warnings"]]
    if "images" in head:
        from questions.archive import ArchivePack, PackImage

        images = [PackImage(i["name"], i["media_type"], (folder / f"image-{number}.bin").read_bytes())
                  for number, i in enumerate(head["images"])]  # the files the child wrote, by their number only
        return ArchivePack(pack["name"], pack["language"], questions, pack["author"], pack["licence"],
                           pack["description"], warnings, images)
    return Pack(pack["name"], pack["language"], questions, pack["author"], pack["licence"], pack["description"],
                warnings)


def _limit(memory_mb: int, cpu_s: int) -> None:
    """The child's own hard limits: address space, CPU seconds, size of the files it writes."""
    import resource

    memory = memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024 * 1024, 64 * 1024 * 1024))


def main(folder: Path) -> None:
    """The child: read the request and the file from ``folder``, write the answer to ``folder/result.jsonl``."""
    request = json.loads((folder / "request.json").read_text(encoding="utf-8"))
    _limit(request["memory_mb"], request["cpu_s"])
    from questions.formats import read_pack

    data = (folder / "pack.bin").read_bytes()
    try:
        pack = read_pack(data, request["filename"], request["name"], request["language"])
    except PackError as error:
        lines = [{"ok": False, "problems": [p.to_json() for p in error.problems]}]
    else:
        whole = pack.to_json()
        questions = whole.pop("questions")
        head: dict[str, Any] = {"ok": True, "pack": whole, "warnings": [w.to_json() for w in pack.warnings]}
        images = getattr(pack, "images", None)
        if images is not None:  # a .zip's images: one file each (a JSON line of 50 MB of base64 would not do)
            head["images"] = []
            for number, image in enumerate(images):
                (folder / f"image-{number}.bin").write_bytes(image.data)
                head["images"].append({"name": image.name, "media_type": image.media_type,
                                       "file": f"image-{number}.bin"})
        lines = [head, *questions]
    part = folder / "result.part"
    part.write_text("\n".join(json.dumps(line, ensure_ascii=False) for line in lines), encoding="utf-8")
    part.rename(folder / "result.jsonl")  # whole or not at all


if __name__ == "__main__":
    main(Path(sys.argv[1]))

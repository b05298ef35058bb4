"""End to end, the report of a Quiz (issue [17]) in headless Chromium on the real server: after the game the host's
TV offers "Download the report", and both files it gives (CSV and Excel) read back with every player's answer, time
and points; another screen of the room, without the host's credentials, offers nothing."""

from __future__ import annotations

import csv
import io
import json
import time
from typing import Any

import openpyxl
import requests
import socketio
from playwright.sync_api import expect

from tests.conftest import LiveServer
from tests.e2e import new_page, open_tv, shot

PACK = {"format": "throneroom-pack/1", "name": "Report", "language": "en", "questions": [
    {"type": "choice", "prompt": "Which planet is closest to the Sun?", "options": ["Venus", "Mercury", "Mars"],
     "correct": 1, "category": "science", "difficulty": "easy"}]}
PLAYERS = {"Ana": 1, "سارا": 1, '=HYPERLINK("x","y")': 0}  # name -> the option tapped


def seated(url: str, code: str, name: str) -> socketio.Client:
    phone = socketio.Client(reconnection=False)
    phone.connect(url + f"?room={code}", namespaces=["/play"], transports=["websocket"], wait_timeout=10)
    joined = phone.call("join", {"code": code, "name": name, "role": "player"}, namespace="/play", timeout=10)
    assert joined["ok"], joined
    return phone


def answer_when_open(phone: socketio.Client, choice: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while True:
        taken = phone.call("action", {"action": {"choice": choice}}, namespace="/play", timeout=10)
        if taken["ok"]:
            return
        assert time.monotonic() < deadline, taken
        time.sleep(0.1)


def test_the_tv_downloads_the_report_as_csv_and_excel(browser: Any, server: LiveServer) -> None:
    tv, code = open_tv(browser, server.url, 1280, 720)
    token = json.loads(tv.evaluate(f"localStorage.getItem('throneroom.host.{code}')"))
    headers = {"X-Room-Code": code, "X-Host-Token": token}
    upload = requests.post(server.url + "/api/packs", headers=headers, timeout=60,
                           files={"file": ("pack.json", json.dumps(PACK).encode())})
    assert upload.status_code == 201, upload.text
    host = socketio.Client(reconnection=False)
    host.connect(server.url + f"?room={code}", namespaces=["/tv"], transports=["websocket"], wait_timeout=10)
    assert host.call("watch", {"code": code, "host_token": token}, namespace="/tv", timeout=10)["ok"]
    phones = {name: seated(server.url, code, name) for name in PLAYERS}
    try:
        for control in ({"control": "packs", "packs": [upload.json()["pack"]["id"]]},
                        {"control": "select_game", "game": "quiz"},
                        {"control": "settings", "game": "quiz", "settings": {"order": "pack", "bots": False}},
                        {"control": "start"}):
            assert host.call("control", control, namespace="/tv", timeout=10)["ok"], control
        for name, choice in PLAYERS.items():
            answer_when_open(phones[name], choice)
        expect(tv.locator("#report-download")).to_be_visible(timeout=30_000)  # the results, the host's controls
        shot(tv, "report-tv-finished")
        files = {}
        for fmt in ("csv", "xlsx"):
            with tv.expect_download() as started:
                tv.click(f"#report-{fmt}")
            download = started.value
            assert download.suggested_filename == f"throneroom-{code}-quiz-1.{fmt}"
            files[fmt] = open(download.path(), "rb").read()  # noqa: SIM115 - Playwright's own temporary file

        assert files["csv"].startswith(b"\xef\xbb\xbf")
        rows = list(csv.reader(io.StringIO(files["csv"].decode("utf-8-sig"))))
        header = rows[rows.index(["Answers"]) + 1]
        answers = {r[header.index("Player")]: r for r in rows[rows.index(["Answers"]) + 2:][:3]}
        assert set(answers) == {"Ana", "سارا", "'" + '=HYPERLINK("x","y")'}
        assert answers["Ana"][header.index("Answer")] == "Mercury" and answers["Ana"][header.index("Right")] == "yes"
        assert int(answers["Ana"][header.index("Points")]) > 0
        assert 0 <= int(answers["سارا"][header.index("Time (ms)")]) <= 20_000
        book = openpyxl.load_workbook(io.BytesIO(files["xlsx"]))
        sheet = [list(r) for r in book["Answers"].iter_rows(values_only=True)]
        top = next(i for i, r in enumerate(sheet) if r[0] == "No.")
        by_name = {r[sheet[top].index("Player")]: r for r in sheet[top + 1:]}
        assert by_name['=HYPERLINK("x","y")'][sheet[top].index("Answer")] == "Venus"
        assert isinstance(by_name["Ana"][sheet[top].index("Points")], int)
        assert by_name["Ana"][sheet[top].index("Points")] == int(answers["Ana"][header.index("Points")])
        assert all(c.data_type != "f" for row in book["Answers"].iter_rows() for c in row)

        assert host.call("control", {"control": "language", "language": "fa"}, namespace="/tv", timeout=10)["ok"]
        expect(tv.locator("#report-download .report-label")).to_have_text("دریافت گزارش")  # the room's language
        shot(tv, "report-tv-finished-fa")
        with tv.expect_download() as started:
            tv.click("#report-csv")
        persian = open(started.value.path(), "rb").read().decode("utf-8-sig")  # noqa: SIM115
        assert "پاسخ‌ها" in persian and "بازیکن" in persian and "سارا" in persian

        watcher = new_page(browser, viewport={"width": 1280, "height": 720})  # another screen of the room
        watcher.goto(f"{server.url}/tv/{code}")
        expect(watcher.locator(".finished-head h1")).to_be_visible()
        expect(watcher.locator("#report-download")).to_have_count(0)
        refused = requests.get(f"{server.url}/api/rooms/{code}/report.csv", timeout=10)
        assert refused.status_code == 403
        tv.click("#lobby")  # back to the lobby: the report stays the host's to download
        assert requests.get(f"{server.url}/api/rooms/{code}/report.csv", headers=headers, timeout=10).ok
    finally:
        host.disconnect()
        for phone in phones.values():
            phone.disconnect()

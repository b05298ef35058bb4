"""Storage that never loses or hijacks (issue [11], findings 3 and 5, and the backup part of 6): pack ids are never
reused, a migrated database keeps its old pack ids, a locked database neither drops acknowledged audience answers nor
stalls every request, a clean stop leaves everything in the .db file, and ``throneroom backup`` copies a live one."""

from __future__ import annotations

import io
import json
import shutil
import sqlite3
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import socketio
from sqlmodel import Session, select

from host.store import Store
from questions.formats import read_pack
from questions.library import Library
from questions.store import PackRecord, list_packs, save_pack
from tests.cluster import wait_for
from tests.conftest import ROOT, Harness, Servers, control, every_entry, last_state
from tests.test_audience import campaign_room, correct_of, open_question, send

EXAMPLES = ROOT / "questions" / "examples"


def example_pack(name: str) -> Any:
    pack = read_pack((EXAMPLES / "example.json").read_bytes(), "example.json")
    pack.name = name
    return pack


# ----- finding 3: pack ids -----

def test_a_deleted_pack_id_is_never_given_to_another_pack(tmp_path: Path):
    store = Store(f"sqlite:///{tmp_path / 'packs.db'}")
    library = Library(store.engine)
    first = f"db:{save_pack(store.engine, example_pack('Good pack'))}"
    assert library.pack(first).name == "Good pack"
    from questions.store import delete_pack

    assert delete_pack(store.engine, first[3:])
    evil = f"db:{save_pack(store.engine, example_pack('Evil pack'))}"
    assert evil != first, "the id of a deleted pack was given to a new one"
    assert library.pack(first) is None and not library.has(first)
    assert library.pack(evil).name == "Evil pack"
    assert [p["id"] for p in library.packs() if not p["builtin"]] == [evil]


def test_a_room_that_chose_a_deleted_pack_never_plays_its_replacement():
    harness = Harness()
    code, token = harness.service.create_room()
    tv = harness.tv()
    assert tv.emit("watch", {"code": code, "host_token": token}, namespace="/tv", callback=True)["ok"]
    headers = {"X-Room-Code": code, "X-Host-Token": token}
    client = harness.app.test_client()
    data = (EXAMPLES / "example.json").read_bytes()

    def upload(name: str) -> str:
        answer = client.post("/api/packs", headers=headers, data={"file": (io.BytesIO(data), "p.json"), "name": name})
        assert answer.status_code == 201, answer.get_json()
        return answer.get_json()["pack"]["id"]

    good = upload("Good pack")
    assert control(tv, "select_game", game="campaign")["ok"]
    assert control(tv, "packs", packs=[good, "builtin:en-numbers"])["ok"]
    assert client.delete(f"/api/packs/{good}", headers=headers).get_json()["ok"] is True
    room = harness.service.room(code)
    # stored by this host elsewhere (an upload on this TV would be chosen for the next game: docs/packs.md)
    evil = "db:" + save_pack(harness.service.store.engine, read_pack(data, "p.json", name="Evil pack"), owner=room.owner)
    harness.service.notify_lobbies()
    assert evil != good
    entries = every_entry(harness.service.library, harness.service.chosen_packs(room))
    assert entries and not any(e.id.startswith(evil) for e in entries), "the room plays the evil pack"
    assert client.get(f"/api/packs/{good}", headers=headers).status_code == 404
    shown = harness.service.view(room, None, True)["questions"]
    assert shown["selected"] == ["builtin:en-numbers"], "the deleted pack still shows as chosen"
    # the TV builds its next choice from what it shows: adding a pack now works
    assert control(tv, "packs", packs=shown["selected"] + [evil])["ok"]


def test_a_lobby_asks_the_database_for_its_packs_once_and_sees_a_change_at_once(monkeypatch: pytest.MonkeyPatch):
    """Every lobby view shows the packs (a count over every question): a crowd's views share one answer; a pack
    stored, shared or deleted by this process shows at the next view; one stored elsewhere (another worker, the
    command line) within SUPPLY_FRESH_MS."""
    import questions.library
    from host.service import SUPPLY_FRESH_MS
    from questions.store import delete_pack

    asked = []
    real = questions.library.list_packs
    monkeypatch.setattr(questions.library, "list_packs", lambda engine: asked.append(1) or real(engine))
    harness = Harness()
    code, _tv = harness.host_room()
    room = harness.service.room(code)

    def names() -> list[str]:
        return [p["name"] for p in harness.service.view(room, None, True)["questions"]["packs"] if not p["builtin"]]

    for _ in range(50):
        assert names() == []
    assert len(asked) == 1, "every view asked the database again"
    key = save_pack(harness.service.store.engine, example_pack("Stored here"))
    assert names() == ["Stored here"], "a pack this process stored did not show at once"
    with Session(harness.service.store.engine) as session:  # as another process would: behind this one's back
        record = session.exec(select(PackRecord).where(PackRecord.uuid == key)).one()
        record.name = "Renamed elsewhere"
        session.add(record)
        session.commit()
    assert names() == ["Stored here"]  # kept for a moment ...
    harness.clock.advance(SUPPLY_FRESH_MS)
    assert names() == ["Renamed elsewhere"]  # ... then asked again
    assert delete_pack(harness.service.store.engine, key)
    assert names() == []


OLD_SCHEMA = """
CREATE TABLE pack (id INTEGER NOT NULL PRIMARY KEY, name VARCHAR NOT NULL, language VARCHAR NOT NULL,
                   author VARCHAR NOT NULL, licence VARCHAR NOT NULL, description VARCHAR NOT NULL,
                   created_ms INTEGER NOT NULL);
CREATE INDEX ix_pack_language ON pack (language);
CREATE TABLE question (id INTEGER NOT NULL PRIMARY KEY, pack_id INTEGER NOT NULL REFERENCES pack (id),
                       position INTEGER NOT NULL, type VARCHAR NOT NULL, prompt VARCHAR NOT NULL, answer INTEGER,
                       unit VARCHAR, options VARCHAR, correct INTEGER, category VARCHAR NOT NULL,
                       difficulty VARCHAR NOT NULL, source VARCHAR);
CREATE INDEX ix_question_pack_id ON question (pack_id);
INSERT INTO pack VALUES (1, 'Old one', 'en', '', '', '', 1);
INSERT INTO pack VALUES (2, 'Old two', 'en', '', '', '', 2);
INSERT INTO question VALUES (1, 1, 0, 'numeric', 'Legs of a spider?', 8, NULL, NULL, NULL, 'general', 'easy', NULL);
INSERT INTO question VALUES (2, 2, 0, 'choice', 'Closest planet?', NULL, NULL, '["Venus","Mercury"]', 1, 'science',
                             'easy', NULL);
"""


def test_a_database_from_before_stable_ids_keeps_its_packs_and_their_old_ids(tmp_path: Path):
    path = tmp_path / "old.db"
    with sqlite3.connect(path) as old:
        old.executescript(OLD_SCHEMA)
    store = Store(f"sqlite:///{path}")  # the upgrade
    library = Library(store.engine)
    listed = {p["name"]: p["id"] for p in library.packs() if not p["builtin"]}
    assert set(listed) == {"Old one", "Old two"}
    assert all(len(i) == 3 + 32 and i.startswith("db:") for i in listed.values()), listed
    assert library.pack("db:1").name == "Old one"  # a room log that chose db:1 before the upgrade
    assert library.pack("db:2").questions[0].prompt == "Closest planet?"
    assert library.pack(listed["Old one"]).questions[0].answer == 8
    from questions.store import delete_pack

    assert delete_pack(store.engine, "2")
    newer = f"db:{save_pack(store.engine, example_pack('Newer'))}"
    with sqlite3.connect(path) as check:
        (row_id,) = check.execute("SELECT id FROM pack WHERE name = 'Newer'").fetchone()
    assert library.pack(f"db:{row_id}") is None, "a pack made after the upgrade answers to an old number"
    assert library.pack("db:2") is None and library.pack(newer).name == "Newer"
    store.close()
    again = Store(f"sqlite:///{path}")  # a second start changes nothing
    assert {p["id"] for p in list_packs(again.engine)} == {listed["Old one"][3:], newer[3:]}
    assert Library(again.engine).pack("db:1").name == "Old one"


# ----- finding 5: a locked database -----

def hold_lock(path: Path) -> sqlite3.Connection:
    """Another process's write lock on the database, as a second real connection."""
    other = sqlite3.connect(path, timeout=0, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    return other


def stored_answers(path: Path) -> int:
    with sqlite3.connect(path) as check:
        return check.execute("SELECT count(*) FROM audience_answer").fetchone()[0]


def test_answers_taken_during_a_lock_are_written_after_it_and_events_say_storage_busy(tmp_path: Path):
    path = tmp_path / "locked.db"
    harness = Harness(TIMER_SCALE=0.5, DATABASE_URL=f"sqlite:///{path}")
    code, tv, phones = campaign_room(harness, ("Sam", "Tea", "Uma"))
    audience = harness.service.audience
    audience.trouble_after_s = 0  # the warning's delay (5 s by default) and the pause between tries of a refused
    audience.retry_after_s = 0  # write (1 s) are not what this test is about
    open_question(harness, code, "numeric")
    truth = correct_of(harness, code)
    harness.clock.advance(400)
    harness.service.tick()
    before = stored_answers(path)
    other = hold_lock(path)
    try:
        for name in ("Sam", "Tea", "Uma"):
            assert send(phones[name], {"answer": truth})["ok"]  # acknowledged
        harness.service.tick()  # the batch write fails: the answers wait
        assert stored_answers(path) == before
        late = harness.phone()
        refused = late.emit("join", {"code": code, "name": "Vic", "role": "spectator"}, namespace="/play",
                            callback=True)
        assert not refused["ok"] and refused["error"]["code"] == "storage_busy", refused
        assert "Vic" not in [s.name for s in harness.service.room(code).seats.values()]
        warning = harness.service.view(harness.service.room(code), None, True)["storage"]
        assert warning is not None and warning["waiting"] == 3, warning
        assert harness.service.view(harness.service.room(code), None, False)["storage"] is None
        harness.service.tick()  # still locked: still waiting, nothing dropped
    finally:
        other.rollback()
        other.close()
    harness.service.tick()
    assert stored_answers(path) == before + 3, "acknowledged answers were dropped"
    assert harness.service.view(harness.service.room(code), None, True)["storage"] is None
    harness.service.tick()  # the ticker's next turn tells the TV the warning is gone
    assert last_state(tv, "/tv")["storage"] is None
    assert late.emit("join", {"code": code, "name": "Vic", "role": "spectator"}, namespace="/play",
                     callback=True)["ok"]
    seqs = [e.seq for e in harness.service.store.events(code)]
    assert seqs == list(range(1, len(seqs) + 1)) and len(seqs) == harness.service.room(code).seq  # log consistent


def test_the_tv_is_told_while_answers_wait_and_new_ones_are_refused_beyond_the_bound(tmp_path: Path):
    path = tmp_path / "bound.db"
    harness = Harness(TIMER_SCALE=0.5, DATABASE_URL=f"sqlite:///{path}")
    code, tv, phones = campaign_room(harness, ("Sam", "Tea", "Uma"))
    audience = harness.service.audience
    audience.max_waiting = 2
    audience.retry_after_s = 0
    open_question(harness, code, "choice")
    harness.clock.advance(400)
    harness.service.tick()
    last_state(tv, "/tv")
    other = hold_lock(path)
    try:
        assert send(phones["Sam"], {"choice": 0})["ok"]
        assert send(phones["Tea"], {"choice": 1})["ok"]
        full = send(phones["Uma"], {"choice": 0})
        assert not full["ok"] and full["error"]["code"] == "storage_busy", full
        harness.service.tick()
        assert audience.trouble(code) is None  # not yet waiting long enough to worry the host
        audience.trouble_after_s = 0
        harness.service.tick()  # the ticker tells the TV when the warning comes
        assert (last_state(tv, "/tv")["storage"] or {}).get("waiting") == 2
    finally:
        other.rollback()
        other.close()
    harness.service.tick()
    harness.service.tick()  # ... and when it goes
    assert last_state(tv, "/tv")["storage"] is None
    assert stored_answers(path) == 2
    assert send(phones["Uma"], {"choice": 0})["ok"]


def test_the_host_tv_warns_while_a_lock_keeps_answers_unsaved(browser: Any, tmp_path: Path, servers: Servers):
    from playwright.sync_api import expect

    from tests.e2e import PHONE, join, new_page, open_tv, set_setting

    db = tmp_path / "warn.db"
    # Full-length timers: on a machine busy with other tests, the spectator's three taps must still land inside the
    # question's window (a refused answer would leave nothing unsaved to warn about).
    with servers.serving("warn", timer_scale=1.0, seed=7) as live:
        tv, code = open_tv(browser, live.url)
        ana = new_page(browser, **PHONE)
        join(ana, f"{live.url}/join/{code}", "Ana")
        viewer = new_page(browser, **PHONE)
        join(viewer, f"{live.url}/join/{code}", "Vera", "#join-watch")
        tv.click("[data-game=campaign]")
        set_setting(tv, "bots", True)
        tv.click("#start")
        enabled_ok = viewer.locator("[data-key='ok']:not([disabled])")
        expect(enabled_ok).to_be_visible()
        other = hold_lock(db)
        try:
            for digit in "42":
                viewer.click(f"[data-key='{digit}']")
            enabled_ok.click()
            expect(viewer.locator("#sent")).to_be_visible()  # shown at the tap; the server's answer follows

            def audience() -> dict[str, Any]:  # the room as any screen sees it
                watcher = socketio.Client(reconnection=False)
                watcher.connect(live.url, namespaces=["/tv"], transports=["websocket"])
                try:
                    return watcher.call("watch", {"code": code}, namespace="/tv", timeout=10)["state"]["audience"]
                finally:
                    watcher.disconnect()

            # the answer was taken (the tap's "sent" comes before the server has it: ask until it does)
            # (each ask is a new connection: on a machine busy with other tests 15 s was seen to be too few)
            wait_for(lambda: (audience() or {}).get("answered") == 1, "the server to take the spectator's answer", 40)
            warning = tv.locator("#storage-warning")
            expect(warning).to_be_visible(timeout=30_000)  # after ~5 s unsaved
            expect(warning).to_contain_text("not saved yet")
            assert stored_answers_with_lock(other) == 0
        finally:
            other.rollback()
            other.close()
        expect(tv.locator("#storage-warning")).to_have_count(0, timeout=30_000)
        assert stored_answers(db) == 1
        for page in (tv, ana, viewer):
            assert page.errors == []


def stored_answers_with_lock(connection: sqlite3.Connection) -> int:
    return connection.execute("SELECT count(*) FROM audience_answer").fetchone()[0]


def test_a_tv_shows_the_storage_warning_in_every_language():
    for language in ("en", "fa", "ro"):
        catalog = json.loads((ROOT / "host" / "i18n" / f"{language}.json").read_text(encoding="utf-8"))
        assert catalog.get("tv.storage_busy"), language
        assert catalog.get("error.storage_busy"), language
    assert "tv.storage_busy" in (ROOT / "host" / "static" / "tv.js").read_text(encoding="utf-8")


# ----- finding 6: WAL and backups -----

def create_rooms(url: str, n: int) -> list[str]:
    codes = []
    for _ in range(n):
        request = urllib.request.Request(url + "/api/rooms", method="POST", data=b"",
                                          headers={"Origin": url})
        with urllib.request.urlopen(request, timeout=10) as response:
            codes.append(json.loads(response.read())["code"])
    return codes


def rooms_in(path: Path) -> set[str]:
    with sqlite3.connect(path) as check:
        return {row[0] for row in check.execute("SELECT code FROM room")}


def test_after_a_clean_stop_the_db_file_alone_holds_the_rooms(tmp_path: Path, servers: Servers):
    db = tmp_path / "live.db"
    with servers.serving("live") as live:
        codes = create_rooms(live.url, 3)
    wal = db.with_name(db.name + "-wal")
    assert not wal.exists() or wal.stat().st_size == 0, f"the -wal file still holds {wal.stat().st_size} bytes"
    alone = tmp_path / "copy" / "alone.db"
    alone.parent.mkdir()
    shutil.copyfile(db, alone)
    assert rooms_in(alone) >= set(codes)


def backup(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "host.cli", "backup", *args], cwd=ROOT, capture_output=True, check=False,
                          text=True, timeout=60)


def test_backup_copies_a_live_database_and_refuses_bad_targets(tmp_path: Path, servers: Servers):
    db = tmp_path / "live.db"
    target = tmp_path / "backup.db"
    with servers.serving("live") as live:
        codes = create_rooms(live.url, 2)
        done = backup(str(target), "--db", str(db))
        assert done.returncode == 0, done.stderr
        assert rooms_in(target) == set(codes)
        assert not Path(str(target) + "-wal").exists()
        with sqlite3.connect(target) as copy:
            assert copy.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        more = create_rooms(live.url, 1)
        exists = backup(str(target), "--db", str(db))
        assert exists.returncode == 1 and "--force" in exists.stderr, exists
        assert rooms_in(target) == set(codes)  # untouched
        forced = backup(str(target), "--db", str(db), "--force")
        assert forced.returncode == 0, forced.stderr
        assert rooms_in(target) == set(codes + more)
    nowhere = backup(str(tmp_path / "no" / "such" / "dir" / "b.db"), "--db", str(db))
    assert nowhere.returncode == 1 and "folder" in nowhere.stderr, nowhere
    folder = backup(str(tmp_path), "--db", str(db))
    assert folder.returncode == 1 and "folder" in folder.stderr, folder
    missing = backup(str(tmp_path / "m.db"), "--db", str(tmp_path / "absent.db"))
    assert missing.returncode == 1 and "no database" in missing.stderr and not (tmp_path / "absent.db").exists()
    postgres = backup(str(tmp_path / "p.db"), "--database-url", "postgresql://u@localhost/throneroom")
    assert postgres.returncode == 1 and "SQLite" in postgres.stderr, postgres


def test_a_big_pack_is_written_in_short_transactions_and_shown_only_when_whole(tmp_path: Path):
    """A 20,000-question pack held the database's write lock for its whole insert, so a room's move waiting for it
    was refused (storage_busy) or late; it is now written a thousand questions at a time, hidden until the last."""
    from questions.model import Pack, Question
    from questions.store import STORE_CHUNK, list_packs, load_pack, migrate, save_pack

    store = Store(f"sqlite:///{tmp_path / 'big.db'}")
    questions = [Question("numeric", f"How many {i}?", "general", "medium", answer=i) for i in range(2500)]
    seen: list[list[dict]] = []
    key = save_pack(store.engine, Pack("Big", "en", questions), pause=lambda: seen.append(list_packs(store.engine)))
    assert len(seen) == 2500 // STORE_CHUNK + 2  # a turn for the rooms before every transaction
    assert all(not packs for packs in seen)  # no lobby ever listed the pack half-written
    assert [p["numeric"] for p in list_packs(store.engine)] == [2500]
    assert len(load_pack(store.engine, key).questions) == 2500

    def cut_short() -> None:
        if len(cut) == 2:
            raise KeyboardInterrupt  # the process stops in the middle of writing
        cut.append(1)

    cut: list[int] = []
    with pytest.raises(KeyboardInterrupt):
        save_pack(store.engine, Pack("Cut", "en", questions), pause=cut_short)
    assert [p["name"] for p in list_packs(store.engine)] == ["Big"]  # nothing of it was left
    with Session(store.engine) as session:  # and a pack a crash left hidden goes at the next start
        session.add(PackRecord(name="Crashed", language="en", created_ms=0, ready=False))
        session.commit()
    migrate(store.engine)
    with Session(store.engine) as session:
        assert [p.name for p in session.exec(select(PackRecord))] == ["Big"]


def test_http_writes_during_a_lock_answer_503_storage_busy_and_change_nothing(tmp_path: Path):
    path = tmp_path / "http-locked.db"
    harness = Harness(DATABASE_URL=f"sqlite:///{path}")
    code, token = harness.service.create_room()
    client = harness.app.test_client()
    host = {"X-Room-Code": code, "X-Host-Token": token}
    pack = b"type,prompt,answer\nnumeric,How many legs has a spider?,8\n"

    def upload() -> Any:
        return client.post("/api/packs", headers=host, data={"file": (io.BytesIO(pack), "spiders.csv")},
                           content_type="multipart/form-data")

    kept = upload().get_json()["pack"]["id"]
    rooms_before = len(harness.service.rooms)
    other = hold_lock(path)
    try:
        for answer in (client.post("/api/rooms"), upload(), client.delete(f"/api/packs/{kept}", headers=host)):
            body = answer.get_json()
            assert answer.status_code == 503 and body["error"]["code"] == "storage_busy", (answer.status_code, body)
            assert "try again" in body["problems"][0]["message"]  # the upload form shows problems
    finally:
        other.rollback()
        other.close()
    assert len(harness.service.rooms) == rooms_before
    assert [p["id"] for p in harness.service.library.packs() if not p["builtin"]] == [kept]
    assert client.delete(f"/api/packs/{kept}", headers=host).status_code == 200

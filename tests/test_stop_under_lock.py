"""A stop (SIGTERM) while another program holds the SQLite database's write lock loses no acknowledged audience answer.
Spectators' answers wait in memory for the ticker's next batch; a stop writes the last batch, and used to try once
(a fifth of a second) and exit: every answer the lock kept out was gone (30 of 30 in the report). Now the stop waits
for the lock a few seconds (``STOP_WRITE_WAIT_S``); a lock held longer than that sends the answers to a file beside the
database, which the next start reads back and writes."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import socketio
from sqlmodel import Session, create_engine, select

from host.audience import SPILL_SUFFIX, AudienceAnswerRecord
from tests.conftest import Harness, LiveServer, Servers
from tests.live import HostedRoom, first_audience_answer
from tests.test_audience import campaign_room, open_question, send

SPECTATORS = 12


class WriteLock:
    """Another program holding the database's write lock (``BEGIN EXCLUSIVE``; in WAL mode readers still read)."""

    def __init__(self, db: Path):
        self.connection = sqlite3.connect(str(db), timeout=10, isolation_level=None)
        self.connection.execute("BEGIN EXCLUSIVE")

    def release(self) -> None:
        if self.connection is not None:
            self.connection.execute("ROLLBACK")
            self.connection.close()
            self.connection = None


def answers_under_lock(server: LiveServer) -> tuple[list[socketio.Client], WriteLock, int]:
    """A Short Campaign of bots with SPECTATORS spectators: the first answers the first question, then another program
    takes the write lock and the others answer. Returns the clients, the lock (held) and how many answers were
    acknowledged (every one)."""
    room = HostedRoom(server.url)
    viewers = room.spectators([f"S{i}" for i in range(SPECTATORS)])
    room.play("campaign", {"bots": True})
    first_audience_answer(viewers[0])
    lock = WriteLock(server.db)
    acknowledged = 1
    for viewer in viewers[1:]:
        answer = viewer.call("audience", {"action": {"answer": 7}}, namespace="/play")
        assert answer["ok"], answer
        acknowledged += 1
    return [room.host, *viewers], lock, acknowledged


def stored_answers(db: Path) -> list[int]:
    engine = create_engine(f"sqlite:///{db}")
    with Session(engine) as session:
        values = [row.value for row in session.exec(select(AudienceAnswerRecord))]
    engine.dispose()
    return values


def disconnect(clients: list[socketio.Client]) -> None:
    for client in clients:
        client.disconnect()


def test_a_stop_waits_for_a_lock_released_soon_and_writes_every_answer(servers: Servers):
    server = servers.start("brief", timer_scale=0.5)
    clients, lock, acknowledged = answers_under_lock(server)
    try:
        time.sleep(0.5)  # the ticker tries, and the lock keeps the answers out
        server.process.terminate()
        time.sleep(1.5)  # a backup that finishes a moment after the stop began
        lock.release()
        assert server.process.wait(20) == 0
    finally:
        lock.release()
        disconnect(clients)
    assert stored_answers(server.db) == [7] * acknowledged, server.log.read_text()[-3000:]
    assert not server.db.with_name(server.db.name + ".unsaved-answers.json").exists()


def test_a_lock_held_through_the_stop_sends_the_answers_to_a_file_the_next_start_writes(servers: Servers):
    server = servers.start("held", timer_scale=0.5)
    clients, lock, acknowledged = answers_under_lock(server)
    spill = server.db.with_name(server.db.name + ".unsaved-answers.json")
    try:
        time.sleep(0.5)
        server.process.terminate()
        assert server.process.wait(20) == 0  # the lock is held all along: the stop still ends
        assert len(stored_answers(server.db)) < acknowledged  # (the lock kept them out of the database)
        assert spill.exists(), server.log.read_text()[-3000:]
        assert "unsaved-answers.json" in server.log.read_text()  # the log says where they went
    finally:
        lock.release()
        disconnect(clients)
    server.start()  # the next start, once the lock is gone
    server.stop()
    assert stored_answers(server.db) == [7] * acknowledged, server.log.read_text()[-3000:]
    assert not spill.exists()


# ----- the file read back, in process -----


def spectators_answered(harness: Harness, names: tuple[str, ...]) -> tuple[str, dict[str, Any]]:
    """A Short Campaign of bots whose spectators all answered its first numeric question: (code, {name: phone})."""
    code, _tv, phones = campaign_room(harness, names)
    open_question(harness, code, "numeric")
    for phone in phones.values():
        assert send(phone, {"answer": 9}, ms=300)["ok"]
    return code, phones


def test_a_start_while_the_lock_is_still_held_counts_the_answers_and_writes_them_once_it_goes(tmp_path: Path):
    db = tmp_path / "again.db"
    first = Harness(TIMER_SCALE=0.5, DATABASE_URL=f"sqlite:///{db}")
    code, _ = spectators_answered(first, ("Sam", "Tea", "Uma"))
    lock = WriteLock(db)
    try:
        first.service.audience.save_before_stop(wait_s=0.3)
        spill = db.with_name(db.name + SPILL_SUFFIX)
        assert spill.exists() and stored_answers(db) == []
        second = Harness(TIMER_SCALE=0.5, DATABASE_URL=f"sqlite:///{db}")  # the next start, the lock still held
        audience = second.service.audience
        assert len(audience.pending) == 3 and spill.exists()  # waiting again, the file kept until they are in
        question = audience.rooms[code].question  # the restored room counts them (the replay's preload)
        assert question is not None and sorted(a.value for a in question.answers.values()) == [9, 9, 9]
    finally:
        lock.release()
    audience.retry_after_s = 0  # (the ticker's next try comes a second after the last refusal)
    second.service.tick()  # the ticker's next batch, the lock gone
    assert stored_answers(db) == [9, 9, 9] and not spill.exists() and not audience.pending
    third = Harness(TIMER_SCALE=0.5, DATABASE_URL=f"sqlite:///{db}")  # and nothing is read back twice
    assert not third.service.audience.pending and stored_answers(db) == [9, 9, 9]


def test_answers_already_stored_or_of_deleted_rooms_are_not_written_again(tmp_path: Path):
    db = tmp_path / "twice.db"
    first = Harness(TIMER_SCALE=0.5, DATABASE_URL=f"sqlite:///{db}")
    code, _ = spectators_answered(first, ("Sam", "Tea"))
    other, _ = spectators_answered(first, ("Vic",))
    rows = list(first.service.audience.pending)
    first.service.audience.flush()
    assert stored_answers(db) == [9, 9, 9]
    spill = db.with_name(db.name + SPILL_SUFFIX)  # a start that wrote them and died before deleting the file
    spill.write_text(json.dumps({"audience_answers": rows}))
    first.service.store.delete_rooms([other])  # and a room deleted since (expired)
    second = Harness(TIMER_SCALE=0.5, DATABASE_URL=f"sqlite:///{db}")
    assert not second.service.audience.pending and not spill.exists()
    assert stored_answers(db) == [9, 9]  # Sam's and Tea's once; Vic's room is gone, and its answer with it
    assert code in second.service.rooms


def test_an_unreadable_file_is_set_aside_not_deleted_and_malformed_rows_are_left_out(tmp_path: Path):
    db = tmp_path / "bad.db"
    first = Harness(TIMER_SCALE=0.5, DATABASE_URL=f"sqlite:///{db}")
    spectators_answered(first, ("Sam", "Tea"))
    good = list(first.service.audience.pending)
    spill = db.with_name(db.name + SPILL_SUFFIX)
    spill.write_text('{"audience_answers": [{"room_code"')  # cut short (a full disk)
    Harness(TIMER_SCALE=0.5, DATABASE_URL=f"sqlite:///{db}")
    aside = spill.with_name(spill.name + ".unreadable")
    assert not spill.exists() and aside.read_text() == '{"audience_answers": [{"room_code"'
    bad = [{**good[0], "seat": "one"}, {**good[0], "timing": "{not json"}, {**good[0], "extra": 1}, "row", None]
    spill.write_text(json.dumps({"audience_answers": [*bad, good[1]]}))
    Harness(TIMER_SCALE=0.5, DATABASE_URL=f"sqlite:///{db}")
    assert stored_answers(db) == [9] and not spill.exists()  # the one good row (the first harness never wrote)

"""Names and numbers a guest types (issue [11]): look-alike and invisible names, huge names, seat ids of the wrong
type, and numbers that are not finite. Each is refused with an error code, and nothing is logged or echoed."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
import websocket

from host.room import RoomError, clean_name
from host.service import FakeClock, RoomService
from host.store import Store
from tests.conftest import Harness, LiveServer, control


def emit(client: Any, event: str, data: Any) -> dict[str, Any]:
    return client.emit(event, data, namespace="/play", callback=True)


def errcode(answer: dict[str, Any]) -> str | None:
    return None if answer["ok"] else answer["error"]["code"]


def logged(harness: Harness, code: str, kind: str) -> list[dict[str, Any]]:
    return [e.data for e in harness.service.store.events(code) if e.kind == kind]


# ----- 1. look-alike and invisible names -----

@pytest.mark.parametrize("other", [
    "Аna",  # Cyrillic А
    "Ana\u2060",  # WORD JOINER
    "\u200bAna",  # ZERO WIDTH SPACE
    "Ａｎａ",  # fullwidth
    "𝐀𝐧𝐚",  # mathematical bold
    "ANA",
    "Ana\U000e0041",  # a tag character
    "An\u00ada",  # SOFT HYPHEN
    "Ana\ufe0f",  # a variation selector
    "Αna",  # Greek Α
    "Ana\u180e",  # MONGOLIAN VOWEL SEPARATOR
], ids=ascii)
def test_a_look_alike_of_a_taken_name_is_taken(other: str):
    harness = Harness()
    code, _ = harness.host_room()
    harness.join(code, "Ana")
    answer = emit(harness.phone(), "join", {"code": code, "name": other, "role": "player"})
    assert errcode(answer) in ("name_taken", "name_mixed_scripts"), answer
    assert [s.name for s in harness.service.room(code).active_seats()] == ["Ana"]


def test_whole_script_look_alikes_are_the_same_name():
    harness = Harness()
    code, _ = harness.host_room()
    harness.join(code, "Pepe")
    harness.join(code, "Bob")
    for other in ("Рере", "РЕРЕ", "ВОВ", "BOB"):  # all Cyrillic: no script is mixed, the skeleton matches
        answer = emit(harness.phone(), "join", {"code": code, "name": other, "role": "player"})
        assert errcode(answer) == "name_taken", (other, answer)


@pytest.mark.parametrize("blank", [
    "\u3164", "\u3164\u3164 \u3164", "\u115f", "\u1160", "\uffa0", "\u2800", "\u180e", "\ufe0f", "\U000e0041",
    "\u0301", "\u0301\u0308", "\u200c", "\u200d\u200c", "\u2060", "\u00ad", "\u034f", "\u3000", "..", "-_-",
], ids=ascii)
def test_a_name_without_a_visible_letter_or_digit_is_refused(blank: str):
    harness = Harness()
    code, _ = harness.host_room()
    answer = emit(harness.phone(), "join", {"code": code, "name": blank, "role": "player"})
    assert errcode(answer) in ("invalid_name", "name_invisible"), answer
    assert harness.service.room(code).active_seats() == []


@pytest.mark.parametrize("mixed", ["Аna", "Pаvel", "Ωmega", "Мaria", "Zoë Ω", "Ана Σ"], ids=ascii)
def test_a_name_mixing_latin_with_cyrillic_or_greek_is_refused_with_its_own_code(mixed: str):
    with pytest.raises(RoomError) as refused:
        clean_name(mixed)
    assert refused.value.code == "name_mixed_scripts" and refused.value.field == "name"


@pytest.mark.parametrize(("typed", "kept"), [
    ("Ștefan", "Ștefan"),
    ("Ăna Îoniță", "Ăna Îoniță"),
    ("مریم", "مریم"),
    ("علی\u200cرضا", "علی\u200cرضا"),  # the ZWNJ inside a Persian name stays
    ("\u200cعلی\u200c", "علی"),  # but not at the ends
    ("O'Brien", "O'Brien"),
    ("Anne-Marie", "Anne-Marie"),
    ("Ana 😀", "Ana 😀"),
    ("😀", "😀"),
    ("Ｚｅｄ", "Zed"),  # NFKC
    ("Алёна", "Алёна"),
    ("Σοφία", "Σοφία"),
    ("李小龙", "李小龙"),
    ("Player 2", "Player 2"),
], ids=ascii)
def test_english_romanian_persian_and_other_names_keep_working(typed: str, kept: str):
    assert clean_name(typed) == kept
    harness = Harness()
    code, _ = harness.host_room()
    _, answer = harness.join(code, typed)
    assert harness.service.room(code).seats[answer["seat"]].name == kept


def test_persian_names_differing_by_a_letter_or_a_zwnj_are_different_people():
    harness = Harness()
    code, _ = harness.host_room()
    for name in ("علی", "علی\u200cرضا", "علیرضا", "مریم", "Ali", "Alina"):
        harness.join(code, name)
    assert errcode(emit(harness.phone(), "join", {"code": code, "name": "ALI", "role": "player"})) == "name_taken"


def test_renaming_to_a_look_alike_of_another_seat_is_refused():
    harness = Harness()
    code, _ = harness.host_room()
    harness.join(code, "Ana")
    bob, _ = harness.join(code, "Bob")
    assert errcode(emit(bob, "rename", {"name": "Аna"})) in ("name_taken", "name_mixed_scripts")
    assert errcode(emit(bob, "rename", {"name": "Ａｎａ"})) == "name_taken"
    assert errcode(emit(bob, "rename", {"name": "\u3164"})) == "invalid_name"  # nothing left
    assert errcode(emit(bob, "rename", {"name": "\u0301!"})) == "name_invisible"
    assert emit(bob, "rename", {"name": "Ｂｏｂｂｙ"})["ok"]
    assert harness.service.room(code).seats[2].name == "Bobby"


# ----- 2. huge names, what is logged, renames that change nothing -----

def test_a_huge_name_is_refused_before_anything_is_logged():
    harness = Harness()
    code, _ = harness.host_room()
    huge = "\u200b" * 60_000 + "Zed"  # cleans down to "Zed"
    answer = emit(harness.phone(), "join", {"code": code, "name": huge, "role": "player"})
    assert errcode(answer) == "invalid_name", answer
    ana, _ = harness.join(code, "Ana")
    before = list(harness.service.store.events(code))
    for _ in range(5):
        assert errcode(emit(ana, "rename", {"name": huge})) == "invalid_name"
    assert list(harness.service.store.events(code)) == before
    assert harness.service.room(code).seats[1].name == "Ana"
    assert emit(ana, "rename", {"name": "\u200b" * 150 + "Zed"})["ok"]  # within the bound: cleaned and taken


def test_the_log_has_the_cleaned_name_only():
    harness = Harness()
    code, _ = harness.host_room()
    ana, _ = harness.join(code, "  \u200bＡｎａ\u2060  ")
    assert emit(ana, "rename", {"name": "\ufeffAnna\u00ad   Maria\u3164"})["ok"]
    assert [d["name"] for d in logged(harness, code, "join")] == ["Ana"]
    assert [d["name"] for d in logged(harness, code, "rename")] == ["Anna Maria"]


def test_a_rename_to_the_same_name_is_answered_ok_and_not_logged():
    harness = Harness()
    code, _ = harness.host_room()
    ana, _ = harness.join(code, "Ana")
    for same in ("Ana", " Ana ", "Ana\u200b", "Ａｎａ"):
        assert emit(ana, "rename", {"name": same})["ok"]
    assert logged(harness, code, "rename") == []
    assert emit(ana, "rename", {"name": "ana"})["ok"]  # another spelling is a change
    assert [d["name"] for d in logged(harness, code, "rename")] == ["ana"]


def test_a_renamed_seat_is_checked_by_its_new_name():
    """A seat keeps its name's keys (host/room.py ``Seat.name_keys``, so that a crowd's joins do not compute every
    name's again): after a rename the new name is taken and the old one free."""
    harness = Harness()
    code, _ = harness.host_room()
    room = harness.service.room(code)
    ana, _ = harness.join(code, "Ana")
    for i in range(300):
        harness.service.join(room, f"Fan {i}", "spectator")
    assert emit(ana, "rename", {"name": "Bob"})["ok"]
    newcomer = harness.phone()
    answer = newcomer.emit("join", {"code": code, "name": "BOB", "role": "spectator"}, namespace="/play",
                           callback=True)
    assert errcode(answer) == "name_taken", "the seat's new name was not seen"
    assert newcomer.emit("join", {"code": code, "name": "ana", "role": "spectator"}, namespace="/play",
                         callback=True)["ok"], "the seat's old name was still taken"
    assert room.is_name_taken("fan 17") and room.is_name_taken("FAN 299") and not room.is_name_taken("Fan 300")


def test_old_logs_with_raw_names_still_replay():
    store, clock = Store("sqlite://"), FakeClock()
    service = RoomService(store, clock, include_unlisted=True)
    code, _ = service.create_room()
    room = service.room(code)
    raws = ["Ana", "Аna", "\u3164", "\u200b" * 300 + "Zed", "Ana\u2060"]  # accepted by the code of old
    for seq, raw in enumerate(raws, start=room.seq + 1):
        store.append(code, seq, "join", {"name": raw, "role": "spectator", "language": None,
                                         "token_hash": f"{seq:064d}", "gt": 0}, clock.wall_ms())
    store.append(code, room.seq + len(raws) + 1, "rename", {"seat": 5, "name": "Ａｎａ\u200b", "gt": 0},
                 clock.wall_ms())
    again = RoomService(store, clock, include_unlisted=True)
    seats = again.room(code).active_seats()
    assert len(seats) == 5
    assert [s.name for s in seats][:2] == ["Ana", "Аna"] and seats[3].name == "Zed"


# ----- 4. seat ids are whole numbers -----

@pytest.mark.parametrize("bad", [1.0, True, "1", None, [1], {"id": 1}, 1.5, float("inf")], ids=repr)
def test_every_control_naming_a_seat_takes_only_a_whole_number(bad: Any):
    harness = Harness()
    code, tv = harness.host_room()
    harness.join(code, "Ana")
    harness.join(code, "Bob")
    harness.join(code, "Eve", "spectator")
    assert control(tv, "select_game", game="teamtally")["ok"]
    room = harness.service.room(code)
    before = list(harness.service.store.events(code))
    assert errcode(control(tv, "kick", seat=bad)) == "unknown_seat"
    assert errcode(control(tv, "lineup", seat=bad, play=False)) == "unknown_seat"
    if bad is not None:  # no "instead" is a swap of its own
        assert errcode(control(tv, "lineup", seat=3, play=True, instead=bad)) == "unknown_seat"
    assert errcode(control(tv, "team", seat=bad, team=0)) == "unknown_seat"
    assert list(harness.service.store.events(code)) == before
    assert all(not s.kicked and s.team is None for s in room.seats.values())
    assert control(tv, "kick", seat=1)["ok"]  # a whole number still works


# ----- 5. numbers that are not finite -----

def test_a_ping_with_nan_or_infinity_is_refused_not_echoed(server: LiveServer):
    url = f"ws://127.0.0.1:{server.port}/socket.io/?EIO=4&transport=websocket"
    raw = websocket.create_connection(url, origin=server.url, timeout=10)
    try:
        assert raw.recv().startswith("0{")  # the engine.io open packet
        raw.send("40/tv,")
        assert raw.recv().startswith("40/tv,")
        raw.send('42/tv,1["ping",{"t":1234.5}]')
        ack = raw.recv()
        assert ack.startswith("43/tv,1")
        assert json.loads(ack[len("43/tv,1"):])[0]["t"] == 1234.5  # a finite time is echoed as before
        for n, value in enumerate(("NaN", "Infinity", "-Infinity", "1e300"), start=2):
            raw.send(f'42/tv,{n}["ping",{{"t":{value}}}]')
            ack = raw.recv()
            assert ack.startswith(f"43/tv,{n}"), ack
            body = ack[len(f"43/tv,{n}"):]
            assert not any(c in body for c in ("NaN", "Infinity")), body  # the answer is valid JSON
            answer = json.loads(body)[0]
            assert answer["ok"] is False and answer["error"]["code"] == "invalid", answer
    finally:
        raw.close()


def test_a_claimed_answer_time_that_is_not_finite_is_refused_or_ignored():
    harness = Harness()
    service = harness.service
    for claimed in (math.nan, math.inf, -math.inf, 1e300):
        timing = service.connections.measure(1000, 2000, claimed, None)
        json.dumps(timing.to_json(), allow_nan=False)  # nothing non-finite is stored
        assert timing.claimed is None and timing.effective == 1000  # not believed: the server's own measure
    code, tv = harness.host_room()
    ana, _ = harness.join(code, "Ana")
    assert control(tv, "select_game", game="campaign")["ok"]
    assert control(tv, "start")["ok"]
    room = service.room(code)
    for _ in range(100):
        if room.session.game.can_act(room.session.state, 0):
            break
        harness.clock.advance(100)
        service.tick()
    for claimed in (math.nan, math.inf):
        answer = emit(ana, "action", {"action": {"answer": 5}, "ms": claimed})
        assert errcode(answer) == "invalid" and answer["error"]["field"] == "ms", answer
    eve, _ = harness.join(code, "Eve", "spectator")
    for claimed in (math.nan, math.inf):
        answer = emit(eve, "audience", {"action": {"answer": 5}, "ms": claimed})
        assert errcode(answer) == "invalid" and answer["error"]["field"] == "ms", answer
    for event in service.store.events(code):
        json.dumps(event.data, allow_nan=False)


# ----- 6. strings that cannot be text (issue [16]) -----

SURROGATE = "\ud800"  # a lone surrogate: JSON may carry it ("\ud800"), UTF-8 cannot


@pytest.mark.parametrize(("event", "data", "field"), [
    ("hello", {"code": "ABCD", "token": SURROGATE}, "token"),
    ("hello", {"code": SURROGATE, "token": "x"}, "code"),
    ("join", {"code": "ABCD", "name": "Ana" + SURROGATE, "role": "player"}, "name"),
    ("join", {"code": "ABCD", "name": "Ana", "role": "player", "language": "\udfff"}, "language"),
    ("claim", {"code": "ABCD", "name": SURROGATE}, "name"),
    ("action", {"action": {"answer": [1, {"x": SURROGATE}]}}, "action.answer.1.x"),
    ("ping", {"t": 1, SURROGATE: 2}, "\\ud800"),
], ids=lambda v: ascii(v) if isinstance(v, str) else None)
def test_a_string_utf8_cannot_carry_is_refused_as_invalid_naming_its_field(event: str, data: Any, field: str,
                                                                          caplog: pytest.LogCaptureFixture):
    harness = Harness()
    code, _ = harness.host_room()
    data = {k: (code if v == "ABCD" else v) for k, v in data.items()}
    phone = harness.phone()
    answer = emit(phone, event, data)
    assert answer["ok"] is False and answer["error"]["code"] == "invalid", answer
    assert answer["error"]["field"] == field, answer
    assert not [r for r in caplog.records if r.exc_info], "a traceback was logged"


def test_a_tv_control_or_a_seated_phone_with_a_surrogate_is_refused_and_nothing_is_logged(
        caplog: pytest.LogCaptureFixture):
    harness = Harness()
    code, tv = harness.host_room()
    ana, _ = harness.join(code, "Ana")
    before = list(harness.service.store.events(code))
    answer = control(tv, "settings", game="tally", settings={"target": SURROGATE})
    assert errcode(answer) == "invalid" and answer["error"]["field"] == "settings.target", answer
    answer = tv.emit("watch", {"code": code, "host_token": SURROGATE}, namespace="/tv", callback=True)
    assert errcode(answer) == "invalid" and answer["error"]["field"] == "host_token", answer
    answer = emit(ana, "rename", {"name": "Bob" + SURROGATE})
    assert errcode(answer) == "invalid" and answer["error"]["field"] == "name", answer
    assert list(harness.service.store.events(code)) == before
    assert not [r for r in caplog.records if r.exc_info], "a traceback was logged"


def test_a_json_body_with_a_surrogate_is_refused_with_400_naming_the_field(caplog: pytest.LogCaptureFixture):
    harness = Harness()
    code, _ = harness.host_room()
    client = harness.app.test_client()
    for body, field in (({"from": {"code": code, "host_token": SURROGATE}}, "from.host_token"),
                        ({"from": {"code": SURROGATE}}, "from.code"), ([SURROGATE], "0")):
        response = client.post("/api/rooms", data=json.dumps(body), content_type="application/json")
        assert response.status_code == 400, (body, response.status_code, response.data[:300])
        error = response.get_json()["error"]
        assert error["code"] == "invalid" and error["field"] == field, error
    assert client.post("/api/rooms", json={"from": {"code": code, "host_token": "wrong"}}).status_code == 201
    assert not [r for r in caplog.records if r.exc_info], "a traceback was logged"


# ----- 7. names that show nothing, or show as another (issue [16]) -----

@pytest.mark.parametrize("blank", [
    "\U0001d159",  # MUSICAL SYMBOL NULL NOTEHEAD: a symbol without ink
    "\ufffc",  # OBJECT REPLACEMENT CHARACTER
    "\ufdfd",  # an Arabic ligature most phones draw as nothing or a box
    "\ufdd0",  # a noncharacter
    "\uffff",  # a noncharacter
    "\u0378",  # unassigned
    "\ue000",  # private use
    "\U0010fffd",  # private use, plane 16
], ids=ascii)
def test_a_name_of_characters_that_show_nothing_or_a_box_is_refused(blank: str):
    harness = Harness()
    code, _ = harness.host_room()
    harness.join(code, "Ana")
    for name, refusals in ((blank, ("invalid_name", "name_invisible", "name_bad_character")),
                           (blank * 3, ("invalid_name", "name_invisible", "name_bad_character")),
                           ("Ana" + blank, ("name_taken", "name_bad_character"))):  # never a second "Ana"
        answer = emit(harness.phone(), "join", {"code": code, "name": name, "role": "player"})
        assert errcode(answer) in refusals, (ascii(name), answer)
        assert answer["error"]["field"] == "name"
    assert [s.name for s in harness.service.room(code).active_seats()] == ["Ana"]


@pytest.mark.parametrize("other", [
    "An\u200da",  # ZERO WIDTH JOINER between Latin letters
    "An\u200ca",  # ZERO WIDTH NON-JOINER between Latin letters
    "A\u200dn\u200da",
], ids=ascii)
def test_a_joiner_between_letters_of_a_script_that_does_not_use_it_hides_nothing(other: str):
    harness = Harness()
    code, _ = harness.host_room()
    harness.join(code, "Ana")
    answer = emit(harness.phone(), "join", {"code": code, "name": other, "role": "player"})
    assert errcode(answer) == "name_taken", answer
    assert clean_name(other) == "Ana"


@pytest.mark.parametrize("name", [
    "\U0001f469\u200d\U0001f4bb",  # woman technologist: an emoji ZWJ sequence
    "\U0001f3f3\ufe0f\u200d\U0001f308",  # rainbow flag
    "\U0001f9d1\U0001f3fd\u200d\U0001f4bb",  # technologist, medium skin tone
    "Ana \U0001f468\u200d\U0001f469\u200d\U0001f467",  # a family
    "\u0915\u094d\u200d\u0937",  # Devanagari with a ZWJ (half form)
    "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",  # Persian with a ZWNJ
    "\U0001fae8",  # SHAKING FACE, Unicode 15: newer than this Python's Unicode data, an emoji all the same
], ids=ascii)
def test_joiners_in_emoji_and_in_scripts_that_use_them_stay(name: str):
    kept = clean_name(name)
    assert "\u200d" in kept or "\u200c" in kept or name == "\U0001fae8", ascii(kept)
    harness = Harness()
    code, _ = harness.host_room()
    _, answer = harness.join(code, name)
    assert harness.service.room(code).seats[answer["seat"]].name == kept

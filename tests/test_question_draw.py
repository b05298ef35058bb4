"""How the Short Campaign draws its questions in a room (CAMP-D15, issue [12]): any pack size plays, the chosen
packs' unseen questions come first, then the built-in packs in the room's language (top-up) or, with top-up off,
the pack's questions come round again; a question counts as seen when it is asked, and a room plays every unseen
question of its chosen packs before any repeat, over the whole evening and across a restart."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from host.service import FakeClock, RoomService
from host.store import Store
from questions.library import Library
from tests.conftest import Harness, control, every_entry

SCALE = 0.05  # timers x 0.05: a whole all-bot game is a few thousand 25 ms ticks


def upload(harness: Harness, code: str, token: str, numeric: int, choice: int, name: str = "Office") -> str:
    """A small pack uploaded from the TV; returns its id."""
    rows = ["type,prompt,answer,option1,option2,option3,correct,category"]
    rows += [f"numeric,{name} number question {i}?,{i * 7 + 3},,,,,science" for i in range(numeric)]
    rows += [f"choice,{name} choice question {i}?,,yes {i},no {i},maybe {i},1,history" for i in range(choice)]
    data = ("\n".join(rows) + "\n").encode("utf-8")
    answer = harness.app.test_client().post(
        "/api/packs", headers={"X-Room-Code": code, "X-Host-Token": token},
        data={"file": (io.BytesIO(data), f"{name}.csv"), "name": name})
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()["pack"]["id"]


def room_with_tv(harness: Harness, language: str = "en") -> tuple[str, str, Any]:
    """A room watched by its host TV, the Short Campaign selected with bots: (code, host token, tv)."""
    code, token = harness.service.create_room()
    tv = harness.tv()
    assert tv.emit("watch", {"code": code, "host_token": token}, namespace="/tv", callback=True)["ok"]
    if language != "en":
        assert control(tv, "language", language=language)["ok"]
    assert control(tv, "select_game", game="campaign")["ok"]
    assert control(tv, "settings", game="campaign", settings={"bots": True})["ok"]
    return code, token, tv


def play_out(harness: Harness, code: str, limit: int = 40_000) -> list[tuple[str, str]]:
    """Let the bots play the running game to its end; returns the questions asked, in order, as (kind, id)."""
    room = harness.service.room(code)
    for _ in range(limit):
        if room.phase != "playing":
            break
        harness.clock.advance(25)
        harness.service.tick()
    assert room.phase == "finished", "the game did not end"
    return [("choice" if h["purpose"] == "duel" else "numeric", h["question"])
            for h in room.session.state.history if h["kind"] == "question"]


def kinds_of(pack_ids: list[str], harness: Harness) -> dict[str, set[str]]:
    """The question ids of these packs by kind."""
    result: dict[str, set[str]] = {"numeric": set(), "choice": set()}
    for entry in every_entry(harness.service.library, pack_ids):
        result[entry.question.type].add(entry.id)
    return result


def test_a_twelve_question_pack_starts_and_its_questions_come_first_then_built_in_ones():
    # CAMP-D15: the chosen pack's questions first, then the built-in packs in the room's language
    harness = Harness(TIMER_SCALE=SCALE)
    code, token, tv = room_with_tv(harness, "ro")
    pack = upload(harness, code, token, numeric=4, choice=8)
    assert control(tv, "packs", packs=[pack])["ok"]
    lobby = harness.service.view(harness.service.room(code), None)
    assert lobby["questions"]["numeric"] == 4 and lobby["questions"]["choice"] == 8
    campaign = next(g for g in lobby["games"] if g["id"] == "campaign")
    assert campaign["values"]["top_up"] is True  # on by default
    low, high = campaign["needs"]["numeric"]
    assert 0 < low <= high <= 48  # what a typical game asks, not the longest possible game
    started = control(tv, "start")
    assert started["ok"], started
    asked = play_out(harness, code)
    mine = kinds_of([pack], harness)
    builtin = kinds_of(Library(None).default_packs("ro"), harness)
    for kind, count in (("numeric", 4), ("choice", 8)):
        ids = [i for k, i in asked if k == kind]
        assert len(ids) > count, (kind, ids)  # a game asks more than the pack has
        assert set(ids[:count]) == mine[kind], (kind, ids)  # every question of the pack, before any other
        assert all(i in builtin[kind] for i in ids[count:]), (kind, ids)  # then Romanian built-in ones
        assert len(set(ids)) == len(ids)  # no repeat within the game
    content = next(e.data["content"] for e in harness.service.store.events(code) if e.kind == "start")
    assert len(content["numeric"]) <= 48 and len(content["choice"]) <= 48  # the log stays small


def test_without_top_up_the_packs_questions_come_round_again():
    # CAMP-D15 with top-up off: every question of the pack once, then again in the same order
    harness = Harness(TIMER_SCALE=SCALE)
    code, token, tv = room_with_tv(harness)
    pack = upload(harness, code, token, numeric=4, choice=8)
    assert control(tv, "packs", packs=[pack])["ok"]
    assert control(tv, "settings", game="campaign", settings={"top_up": False})["ok"]
    started = control(tv, "start")
    assert started["ok"], started
    asked = play_out(harness, code)
    mine = kinds_of([pack], harness)
    for kind, count in (("numeric", 4), ("choice", 8)):
        ids = [i for k, i in asked if k == kind]
        assert len(ids) > count and set(ids) == mine[kind], (kind, ids)
        assert len(set(ids[:count])) == count  # each once before any comes round again
        assert ids == [ids[i % count] for i in range(len(ids))], (kind, ids)


def test_a_pack_without_numeric_questions_and_no_top_up_is_refused_clearly():
    harness = Harness(TIMER_SCALE=SCALE)
    code, token, tv = room_with_tv(harness)
    pack = upload(harness, code, token, numeric=0, choice=12)
    assert control(tv, "packs", packs=[pack])["ok"]
    assert control(tv, "settings", game="campaign", settings={"top_up": False})["ok"]
    refused = control(tv, "start")
    assert not refused["ok"] and harness.service.room(code).phase == "lobby"
    error = refused["error"]
    assert error["code"] == "game.campaign.no_numeric", error
    assert "numeric" in error["message"] and "top-up" in error["message"], error
    assert control(tv, "settings", game="campaign", settings={"top_up": True})["ok"]
    assert control(tv, "start")["ok"]  # with top-up the built-in packs supply the numeric questions


def test_ten_all_bot_games_in_a_persian_room_repeat_no_question_while_others_are_unseen():
    # CAMP-D15: across games in the same room, unseen questions first
    harness = Harness(TIMER_SCALE=SCALE)
    code, _, tv = room_with_tv(harness, "fa")
    room = harness.service.room(code)
    pool = kinds_of(Library(None).default_packs("fa"), harness)
    assert len(pool["numeric"]) >= 100 and len(pool["choice"]) >= 100
    seen: dict[str, set[str]] = {"numeric": set(), "choice": set()}
    repeats, early, per_game = 0, [], []
    for game in range(10):
        if game:
            assert control(tv, "lobby")["ok"]
        started = control(tv, "start")
        assert started["ok"], started
        asked = play_out(harness, code)
        per_game.append((sum(k == "numeric" for k, _ in asked), sum(k == "choice" for k, _ in asked)))
        for kind, question in asked:
            assert question in pool[kind], question  # only the room's Persian pack
            if question in seen[kind]:
                repeats += 1
                if pool[kind] - seen[kind]:
                    early.append((game + 1, kind, question, len(pool[kind] - seen[kind])))
            seen[kind].add(question)
        assert room.seen_questions >= seen["numeric"] | seen["choice"]
    print(f"\nten games, questions asked per game (numeric, choice): {per_game}; "
          f"seen {len(seen['numeric'])}/{len(pool['numeric'])} numeric, "
          f"{len(seen['choice'])}/{len(pool['choice'])} choice; repeats {repeats}, "
          f"repeats while unseen ones were left {len(early)}")
    assert early == [], early  # a repeat while some question of the pack was still unseen
    assert sum(c for _, c in per_game) > len(pool["choice"])  # the evening did use the pack up


def test_a_question_counts_as_seen_when_asked_and_the_seen_set_survives_a_restart(tmp_path: Path):
    url = f"sqlite:///{tmp_path / 'draw.db'}"
    harness = Harness(TIMER_SCALE=SCALE, DATABASE_URL=url)
    code, _, tv = room_with_tv(harness)
    room = harness.service.room(code)
    assert control(tv, "start")["ok"]
    first = room.session.game.asked(room.session.state)  # the first question is on screen from the start
    assert first is not None
    assert room.seen_questions == {first}  # not the whole deck the game might ask
    assert control(tv, "end")["ok"]  # ended after one question: the rest of the deck stays unseen
    assert room.seen_questions == {first}

    again = RoomService(Store(url), FakeClock(harness.clock.now))
    assert again.restore_all() == 1
    restored = again.room(code)
    assert restored.seen_questions == {first}
    assert restored.phase == "finished"
    again.host_event(restored, "lobby", {})
    again.host_event(restored, "start", {})
    assert restored.session.state.numeric[0].id != first  # the next game starts with unseen ones
    assert first not in {q.id for q in restored.session.state.numeric[:40]}

"""Live: seats of a running Quiz over real sockets against a real server process (issue [17], docs/seats.md). Cy's
phone leaves for good at question 1: without bots Cy answers nothing more; Dan joins at question 3, plays the rest and
is in the final standings, through a server restart; in the next game, with bots on, a bot answers for Cy and the
slots and results say so."""

from __future__ import annotations

import json
import time
from typing import Any

import requests
import socketio

from tests.conftest import Servers
from tests.live import HostedRoom, client

PACK = {
    "format": "throneroom-pack/1", "name": "Latecomers", "language": "en",
    "questions": [
        {"type": "choice", "prompt": "Which planet is closest to the Sun?", "options": ["Venus", "Mercury", "Mars"],
         "correct": 1, "category": "science", "difficulty": "easy", "source": "NASA"},
        {"type": "numeric", "prompt": "How many keys does a standard piano have?", "answer": 88,
         "category": "culture", "difficulty": "medium", "source": "Britannica"},
        {"type": "choice", "prompt": "The Pacific is the largest ocean.", "options": ["True", "False"], "correct": 0,
         "category": "geography", "difficulty": "easy", "source": "NOAA"},
        {"type": "numeric", "prompt": "How many minutes are in a day?", "answer": 1440,
         "category": "general", "difficulty": "easy", "source": "arithmetic"},
    ],
}
RIGHT = {q["prompt"]: ({"choice": q["correct"]} if q["type"] == "choice" else {"answer": q["answer"]})
         for q in PACK["questions"]}
SCALE = 0.2  # 4 s questions, and a phone gone 3 s is away (the bot grace's floor)


def game_of(room: HostedRoom) -> dict[str, Any]:
    game: dict[str, Any] = room.watch()["state"]["game"]
    return game


def wait(room: HostedRoom, ready: Any, timeout: float = 30) -> dict[str, Any]:
    """The host's view of the game once ``ready(game)``."""
    deadline = time.monotonic() + timeout
    while True:
        game = game_of(room)
        if game is not None and ready(game):
            return game
        assert time.monotonic() < deadline, f"the game never got there: {json.dumps(game)[:600]}"
        time.sleep(0.1)


def asking(index: int) -> Any:
    """The question ``index`` is open for answers (its "get ready" over)."""
    return lambda g: (g["view"]["phase"] == "question" and g["view"]["index"] == index
                      and g["now_ms"] >= g["view"]["question"]["opens_ms"])


def answer(phone: socketio.Client, game: dict[str, Any]) -> None:
    """Answer the open question right."""
    taken = phone.call("action", {"action": RIGHT[game["view"]["question"]["prompt"]]}, namespace="/play", timeout=10)
    assert taken["ok"], taken


def phone_join(url: str, code: str, name: str) -> tuple[socketio.Client, dict[str, Any]]:
    phone = client(url, "/play")
    joined = phone.call("join", {"code": code, "name": name, "role": "player"}, namespace="/play", timeout=10)
    assert joined["ok"], joined
    return phone, joined


def score(game: dict[str, Any], slot: int) -> int:
    return int(next(p["score"] for p in game["view"]["players"] if p["slot"] == slot))


def test_a_gone_player_stops_scoring_a_latecomer_plays_the_rest_through_a_restart_and_bots_are_marked(
        servers: Servers) -> None:
    # QUIZ-S14, QUIZ-S15 (finding 2)
    live = servers.start(timer_scale=SCALE)
    room = HostedRoom(live.url)
    headers = {"X-Room-Code": room.code, "X-Host-Token": room.token}
    upload = requests.post(live.url + "/api/packs", headers=headers, timeout=30,
                           files={"file": ("late.json", json.dumps(PACK).encode())})
    assert upload.status_code == 201, upload.text
    assert room.control(control="seat_grace", seconds=600)["ok"]  # Cy still plays the second game
    phones, tokens = {}, {}
    for name in ("Ana", "Ben", "Cy"):
        phones[name], joined = phone_join(live.url, room.code, name)
        tokens[name] = joined["token"]
    assert room.control(control="packs", packs=[upload.json()["pack"]["id"]])["ok"]
    room.play("quiz", {"order": "pack", "paced": "host"})  # bots off: the Quiz's default
    phones.pop("Cy").disconnect()  # Cy's page closed for good at question 1

    for index in range(2):
        game = wait(room, asking(index))
        for name in ("Ana", "Ben"):
            answer(phones[name], game)
        game = wait(room, lambda g: g["view"]["phase"] == "reveal")  # Cy's answer never comes: the time runs out
        cy = game["slots"][2]
        assert cy["bot_moves"] == 0 and not cy["bot"], cy
        assert sorted(r["slot"] for r in game["view"]["reveal"]["results"] if r.get("value") is not None) == [0, 1]
        assert room.control(control="next")["ok"] and room.control(control="next")["ok"]
    game = wait(room, asking(2))
    assert game["slots"][2]["offline"] and not game["slots"][2]["away"]  # gone, and no bot plays for Cy

    phones["Dan"], joined = phone_join(live.url, room.code, "Dan")  # Dan comes in at question 3
    tokens["Dan"] = joined["token"]
    assert joined["state"]["game"]["you"] == 3
    for name in ("Dan", "Ana", "Ben"):
        answer(phones[name], game)
    game = wait(room, lambda g: g["view"]["phase"] == "reveal")
    assert score(game, 3) > 0 and score(game, 2) == 0

    before = game["slots"]
    for phone in phones.values():
        phone.disconnect()
    room.host.disconnect()
    live.stop()  # the server restarts in the middle of the quiz
    live.start()
    room.host = client(live.url, "/tv")
    game = game_of(room)
    assert [(s["name"], s["seat"]) for s in game["slots"]] == [(s["name"], s["seat"]) for s in before]
    assert game["view"]["phase"] == "reveal" and score(game, 3) > 0
    for name in ("Ana", "Ben", "Dan"):
        phones[name] = client(live.url, "/play")
        hello = phones[name].call("hello", {"code": room.code, "token": tokens[name]}, namespace="/play", timeout=10)
        assert hello["ok"] and hello["state"]["game"]["you"] == ("Ana", "Ben", "Cy", "Dan").index(name), hello
    assert room.control(control="next")["ok"] and room.control(control="next")["ok"]
    game = wait(room, asking(3))
    for name in ("Dan", "Ana", "Ben"):
        answer(phones[name], game)
    wait(room, lambda g: g["view"]["phase"] == "reveal")
    assert room.control(control="next")["ok"]
    final, _ = room.finished(30)
    game = game_of(room)
    assert final is not None and sorted(game["outcome"]["ranking"]) == [0, 1, 2, 3]
    assert game["outcome"]["ranking"][-1] == 2 and score(game, 2) == 0  # Cy: nothing since the phone left
    dan = next(p for p in final["players"] if p["slot"] == 3)
    assert dan["name"] == "Dan" and dan["answered"] == 2 and dan["score"] > 0 and dan["joined"] == 2
    assert game["outcome"]["bot"] == [False] * 4 and all(s["bot_moves"] == 0 for s in game["slots"])

    # the next game, with bots on: a bot answers for Cy, and every screen and the results can say so
    assert room.control(control="lobby")["ok"]
    assert room.control(control="settings", game="quiz", settings={"bots": True, "paced": "auto", "count": 2})["ok"]
    assert room.control(control="start")["ok"]
    game = game_of(room)
    assert [s["name"] for s in game["slots"]] == ["Ana", "Ben", "Cy", "Dan"]
    for index in range(2):
        game = wait(room, asking(index))
        for name in ("Ana", "Ben", "Dan"):
            answer(phones[name], game)
    final, _ = room.finished(30)
    game = game_of(room)
    assert final is not None
    cy = game["slots"][2]
    assert cy["bot_moves"] >= 1 and cy["away"] and cy["offline"], cy
    marked = [slot for slot, bot in zip(game["outcome"]["ranking"], game["outcome"]["bot"], strict=True) if bot]
    assert marked == [2]
    for phone in phones.values():
        phone.disconnect()
    room.close()

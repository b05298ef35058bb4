"""Screen checker, the Quiz (issue [12]): twelve players with twenty-character names (two judged phone pages, ten
robots) and a judged spectator who plays along, on a TV of 1280x720 and a phone of 360x640 in English, Persian and
Romanian. The pack has a 140-character prompt with four 60-character options, and a number question with a unit.
Every stage is judged: the "get ready" lock, the open question, answers coming in, the reveal, the leaderboard
(host-paced: it waits for the host's Next), the number question and the end with the podium and the statistics.

The server runs with long timers (x10): nothing moves by itself while a stage is judged."""

from __future__ import annotations

import json
import time
from typing import Any

import requests

from tests.conftest import LiveServer
from tests.screens.harness import Robot, StressRoom, stress_names

PROMPT = ("Which of these rivers flows through more national capitals than any other river in the world, passing "
          "Vienna, Bratislava and Budapest?")
OPTIONS = [
    "The Danube, the second longest river of Europe by its length",
    "The Rhine, which rises in the Swiss Alps not far from Chur",
    "The Volga, the longest river in all of Europe from its source",
    "The Dnieper, that flows from Russia through Belarus and Ukraine",
]
QUESTIONS = [
    {"type": "choice", "prompt": PROMPT, "options": OPTIONS, "correct": 0},
    {"type": "numeric", "prompt": "How many metres high is Mount Damavand, the highest volcano in Asia?",
     "answer": 5610, "unit": "m"},
]


def upload(room: StressRoom) -> str:
    pack = {"format": "throneroom-pack/1", "name": "Long texts", "language": "en", "questions": QUESTIONS}
    answer = requests.post(room.server.url + "/api/packs", headers={"X-Room-Code": room.code,
                                                                    "X-Host-Token": room.host_token},
                           files={"file": ("long.json", json.dumps(pack).encode())}, timeout=60)
    assert answer.status_code == 201, answer.text
    return answer.json()["pack"]["id"]


def view(robot: Robot) -> dict[str, Any]:
    return robot.game["view"]


def is_open(robot: Robot) -> bool:
    """The question is open for answers: the room's deadline is its close, no longer its "get ready" lock (both are
    one step of the game)."""
    game = robot.game
    return game["view"]["phase"] == "question" and game["deadline_ms"] == game["view"]["question"]["closes_ms"]


def play_along(robot: Robot, action: dict[str, Any], step: int) -> None:
    """A spectator's answer (the audience takes answers from the question's own opening time)."""
    deadline = time.monotonic() + 40
    while True:
        reply = robot.call("audience", {"action": action, "step": step})
        if reply["ok"]:
            return
        assert reply["error"]["code"] == "not_yet" and time.monotonic() < deadline, reply
        time.sleep(0.2)


def test_a_whole_quiz_fits_every_screen(browser: Any, slow_server: LiveServer) -> None:
    room = StressRoom(browser, slow_server, "quiz", tv_sizes=((1280, 720),), phone_sizes=((360, 640), (390, 844)))
    names = stress_names()
    robots = [room.robot(names[0])]  # seat 0: twenty wide Latin letters
    room.phone("p1", names[1])  # seat 1: a Persian name
    room.phone("p2", names[2])  # seat 2: a Romanian name with diacritics
    robots += [room.robot(name) for name in names[3:12]]  # seats 3-11
    room.phone("s1", "Spectator Alexandru-Ș", role="spectator")
    fan = room.robot("Zahra Spectator", role="spectator")
    seats = [robots[0], room.robot_of(room.phones["p1"]), room.robot_of(room.phones["p2"]), *robots[1:]]
    pack_id = upload(room)
    room.control("select_game", game="quiz")
    room.control("packs", packs=[pack_id])
    room.settings("quiz", order="pack", paced="host", bots=False)
    room.control("start")
    room.wait_until(lambda: all(r.game and view(r)["phase"] == "question" for r in seats), "the first question")
    assert len(view(seats[0])["players"]) == 12

    # ----- the first question, locked for a moment ("get ready"), then open -----
    room.wait(room.tv, "#quiz-tiles")
    room.check("get-ready", phones=["p1", "s1"])
    room.control("skip")
    room.wait_until(lambda: all(is_open(r) for r in seats), "the question to open")
    room.wait(room.phones["p1"], "[data-choice]:not([disabled])")
    room.wait(room.phones["s1"], "#answer-pad [data-choice]")  # the audience answers from the question's own time
    room.check("question-open", phones=["p1", "s1"])

    # ----- answers come in: the Persian phone and most robots; the spectator through its own tiles -----
    step = seats[0].game["step"]
    for slot, robot in enumerate(seats):
        if slot != 2:
            answer = robot.act({"choice": slot % 4})
            assert answer["ok"], (slot, answer)
    play_along(fan, {"choice": 0}, step)
    room.wait(room.phones["p1"], "#sent")
    room.wait_until(lambda: len(view(seats[0])["answered"]) == 11, "eleven answers")
    room.tv.wait_for_function("document.querySelectorAll('#quiz-answered li.done').length === 11")
    room.check("answered", phones=["p1", "s1"])

    # ----- the reveal: the last answer closes the question -----
    assert seats[2].act({"choice": 1})["ok"]
    room.wait_until(lambda: view(seats[0])["phase"] == "reveal", "the reveal")
    room.wait(room.tv, "#quiz-results")
    room.wait(room.phones["p2"], "#verdict")
    room.wait(room.phones["s1"], "#aud-result")
    room.check("reveal", phones=["p1", "p2", "s1"])

    # ----- the leaderboard, after the host's Next -----
    room.control("next")
    room.wait_until(lambda: view(seats[0])["phase"] == "standings", "the leaderboard")
    room.wait(room.tv, "#quiz-board")
    room.check("leaderboard", phones=["p1", "s1"])

    # ----- the number question: the keypad on the phones -----
    room.control("next")
    room.wait_until(lambda: view(seats[0])["phase"] == "question" and view(seats[0])["index"] == 1, "question 2")
    room.control("skip")
    room.wait_until(lambda: all(is_open(r) for r in seats), "question 2 to open")
    room.wait(room.phones["p1"], "[data-key='ok']:not([disabled])")
    room.wait(room.phones["s1"], "#answer-pad [data-key='ok']")
    room.check("number-open", phones=["p1", "s1"])
    for slot, robot in enumerate(seats):
        assert robot.act({"answer": str(5610 + slot * 37)})["ok"]
    room.wait_until(lambda: view(seats[0])["phase"] == "reveal", "the number's reveal")
    room.wait(room.tv, "#quiz-correct")
    room.check("number-reveal", phones=["p1"])

    # ----- the end: the podium and every player's statistics -----
    room.control("next")
    room.wait(room.tv, "#quiz-podium")
    for label in ("p1", "p2"):
        room.wait(room.phones[label], "#my-stats")
    room.wait(room.phones["s1"], "#audience-top")  # this spectator did not play along: the audience's top five
    room.check("end", phones=["p1", "p2", "s1"])
    room.finish()

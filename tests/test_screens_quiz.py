"""Screen checker, the Quiz (issues [12] and [17]): twelve players with twenty-character names (two judged phone
pages, ten robots) in two teams, and a judged spectator who plays along, on a TV of 1280x720 and a phone of 360x640
in English, Persian and Romanian. The pack has a 140-character prompt with four 60-character options, a number
question with a unit (its slider), six long options of which several are right (double points), six long items to
put in order, a question to type the answer to (no points) with twelve different long answers, and a poll. Every
stage is judged: the "get ready" lock, the open question, answers coming in, the reveal, the leaderboard (host-paced:
it waits for the host's Next), each new kind open on the phones and revealed on the TV, and the end with the teams'
podium (naming every member) and the statistics with a team column.

The server runs with long timers (x10): nothing moves by itself while a stage is judged."""

from __future__ import annotations

import json
import time
from typing import Any

import requests
import socketio

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
LONG_ITEMS = [
    "The Treaty of Westphalia ends the Thirty Years' War in Europe",
    "The storming of the Bastille starts the French Revolution",
    "The Congress of Vienna redraws the map of Europe after Napoleon",
    "The Suez Canal opens, joining the Mediterranean and the Red Sea",
    "The Berlin Wall falls and Germany is reunited the next year",
    "The first person walks on the Moon, from the Apollo 11 lander",
]
QUESTIONS = [
    {"type": "choice", "prompt": PROMPT, "options": OPTIONS, "correct": 0},
    {"type": "numeric", "prompt": "How many metres high is Mount Damavand, the highest volcano in Asia?",
     "answer": 5610, "unit": "m"},
    {"type": "multi", "prompt": "Which of these rivers flow into the Black Sea, directly or through its estuary?",
     "options": OPTIONS + ["The Dniester, between Ukraine and Moldova on its lower course",
                           "The Southern Bug, the longest river entirely within Ukraine"],
     "rights": [0, 3, 4, 5], "points": 2},
    {"type": "order", "prompt": "Put these events in the order they happened, the earliest first.",
     "options": LONG_ITEMS[:3] + [LONG_ITEMS[3], LONG_ITEMS[5], LONG_ITEMS[4]]},
    {"type": "text", "prompt": "Which city is the capital of Romania? Type its name as you would write it.",
     "accepted": ["București", "Bucharest", "Bukarest"], "points": 0},
    {"type": "poll", "prompt": "Which of these rivers would you most like to sail down on a long summer holiday?",
     "options": OPTIONS},
]
# What the twelve seats type to the text question: long, different, in three scripts (the reveal groups them).
TYPED = ["Bucharest", "bucuresti", "București", "Budapest, which is the capital of Hungary and not of Romania",
         "بخارست، پایتخت رومانی", "Bucureşti (with a cedilla)", "Cluj-Napoca in Transylvania, a lovely city",
         "بوخارست", "Iași, the old capital of Moldavia before the union", "Bukarest", "Constanța by the Black Sea",
         "I do not know, but it starts with B"]
# The reveal lists the groups in the order typed (among equals): the longest first is where they take most rows.
TYPED_LONGEST_FIRST = sorted(TYPED, key=len, reverse=True)


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
    # the TV at 1280x720 and the phone at 360x640: where a screen is tightest (what fits them fits larger ones); one
    # size each keeps the walkthrough's time as it was before the new kinds' stages came
    room = StressRoom(browser, slow_server, "quiz", tv_sizes=((1280, 720),), phone_sizes=((360, 640),))
    names = stress_names()
    robots = [room.robot(names[0])]  # seat 0: twenty wide Latin letters
    room.phone("p1", names[1])  # seat 1: a Persian name
    room.phone("p2", names[2])  # seat 2: a Romanian name with diacritics
    robots += [room.robot(name) for name in names[3:12]]  # seats 3-11
    room.phone("s1", "Spectator Alexandr-Ș", role="spectator")  # 20 characters: a longer name is refused
    fan = room.robot("Zahra Spectator", role="spectator")
    seats = [robots[0], room.robot_of(room.phones["p1"]), room.robot_of(room.phones["p2"]), *robots[1:]]
    pack_id = upload(room)
    room.control("select_game", game="quiz")
    room.control("packs", packs=[pack_id])
    room.settings("quiz", order="pack", paced="host", bots=False, teams="2")
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
    # The two widest names claim 50 ms, here and on the next question: no person answers so fast, so from the
    # third question on the host's TV names them in its header (tv.timing_doubt), a notice of several lines that
    # takes its height from the stage, which must still fit (issue [16]; style.css --tv-u)
    step = seats[0].game["step"]
    for slot, robot in enumerate(seats):
        if slot != 2:
            answer = robot.act({"choice": slot % 4}, ms=50 if slot in LIARS else None)
            assert answer["ok"], (slot, answer)
    play_along(fan, {"choice": 0}, step)
    room.wait(room.phones["p1"], "#sent")
    # who answered: the spectators' view lists them (a player's lists only its own answer)
    room.wait_until(lambda: len(view(fan)["answered"] or ()) == 11, "eleven answers")
    room.tv.wait_for_function("() => document.querySelectorAll('#quiz-answered li.done').length === 11")
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
        assert robot.act({"answer": str(5610 + slot * 37)}, ms=50 if slot in LIARS else None)["ok"]
    room.wait_until(lambda: view(seats[0])["phase"] == "reveal", "the number's reveal")
    room.wait(room.tv, "#quiz-correct")
    room.check("number-reveal", phones=["p1"])

    # ----- several right (double points): the toggles and Send on the phone; the right ones and the counts -----
    def ask(index: int, kind: str) -> None:
        room.control("next")
        room.wait_until(lambda: view(seats[0])["phase"] == "standings", "the leaderboard")
        room.control("next")
        room.wait_until(lambda: view(seats[0])["phase"] == "question" and view(seats[0])["index"] == index, f"question {index + 1}")
        room.control("skip")
        room.wait_until(lambda: all(is_open(r) for r in seats), f"question {index + 1} to open")
        room.tv.wait_for_selector(f"#question[data-kind='{kind}']")

    def everyone(action: Any, but: tuple[int, ...] = (1,)) -> None:
        for slot, robot in enumerate(seats):
            if slot not in but:
                reply = robot.act(action(slot))
                assert reply["ok"], (slot, reply)

    ask(2, "multi")
    room.wait(room.tv, "#timing-warning")
    p1 = room.phones["p1"]
    p1.wait_for_selector("[data-pick]:not([disabled])")
    p1.click("[data-pick='0']")
    p1.click("[data-pick='3']")
    room.wait(room.phones["s1"], "#watch-tv")  # the audience does not answer several right: it watches
    room.check("multi-open", phones=["p1", "s1"])
    p1.click("#quiz-send")
    everyone(lambda slot: {"multi": [slot % 6, (slot + 3) % 6]})
    room.wait_until(lambda: view(seats[0])["phase"] == "reveal", "the reveal of several right")
    room.wait(p1, "#verdict")
    room.check("multi-reveal", phones=["p1"])

    # ----- an order of six long items: tapped in part on the phone; the right order on the TV -----
    ask(3, "order")
    p1.wait_for_selector("[data-item]:not([disabled])")
    for item in view(seats[1])["question"]["shown"][:3]:
        p1.click(f"[data-item='{item}']")
    room.check("order-open", phones=["p1"])
    # a "that's me" for a seat whose phone died: the host's line at the foot of the TV takes part of the stage, which
    # shrinks its type to the height left rather than spill the tiles' text over their edges (a notice in the header
    # does the same); the host refuses, and the seat's own phone comes back
    gone = seats[11]
    gone.close()
    claimer = socketio.Client(reconnection=False)
    claimer.connect(room.server.url, namespaces=["/play"], transports=["websocket"], wait_timeout=10)
    claim = claimer.call("claim", {"code": room.code, "name": names[11]}, namespace="/play", timeout=10)
    assert claim["ok"], claim
    room.wait(room.tv, "#claims")
    room.check("order-open-claim", phones=[])
    room.control("claim", claim=claim["claim"], accept=False)
    claimer.disconnect()
    seats[11] = Robot(room.server.url, room.code, None, token=gone.token)
    room.robots.append(seats[11])
    for item in view(seats[1])["question"]["shown"][3:5]:
        p1.click(f"[data-item='{item}']")  # five tapped: the sixth goes last by itself
    p1.click("#quiz-send")
    everyone(lambda slot: {"order": [(k + slot) % 6 for k in range(6)]})
    room.wait_until(lambda: view(seats[0])["phase"] == "reveal", "the order's reveal")
    room.wait(p1, "#verdict")
    room.check("order-reveal", phones=["p1"])

    # ----- a typed answer (no points): a long text on the phone; twelve answers grouped on the TV -----
    ask(4, "text")
    p1.wait_for_selector("#quiz-text:not([disabled])")
    p1.fill("#quiz-text", TYPED_LONGEST_FIRST[1])
    room.check("text-open", phones=["p1", "s1"])
    p1.click("#quiz-send")
    everyone(lambda slot: {"text": TYPED_LONGEST_FIRST[slot]})
    room.wait_until(lambda: view(seats[0])["phase"] == "reveal", "the text's reveal")
    room.wait(room.tv, "#quiz-groups")
    room.wait(p1, "#verdict")
    room.check("text-reveal", phones=["p1"])

    # ----- a poll: the votes -----
    ask(5, "poll")
    everyone(lambda slot: {"choice": slot % 4}, but=())
    room.wait_until(lambda: view(seats[0])["phase"] == "reveal", "the poll's reveal")
    room.wait(p1, "#verdict")
    room.check("poll-reveal", phones=["p1"])

    # ----- the end: the teams' podium naming their members and every player's statistics -----
    room.control("next")
    room.wait(room.tv, "#quiz-podium")
    for label in ("p1", "p2"):
        room.wait(room.phones[label], "#my-stats")
    room.wait(room.phones["s1"], "#audience-top")  # this spectator did not play along: the audience's top five
    room.check("end", phones=["p1", "p2", "s1"])
    room.finish()


LIARS = (0, 6)  # the seats of the twenty W and the twenty M: they claim answer times no person could have

SMALL_QUESTIONS = [
    {"type": "choice", "prompt": "Which river flows through Vienna?", "options": ["Danube", "Rhine", "Volga", "Seine"],
     "correct": 0},
    {"type": "choice", "prompt": "Which planet is the largest?", "options": ["Mars", "Jupiter", "Venus", "Earth"],
     "correct": 1},
]


def test_a_small_quiz_fills_the_stage(browser: Any, slow_server: LiveServer) -> None:
    """Issue [18]: the emptiness was seen in a typical small game, four friends with short names. Robots play; the TV
    alone is judged, at both sizes, in English and Persian, through the question, the reveal, the leaderboard and the
    end: every stage's content fills its panel (empty-stage) at the sofa's sizes (small-role)."""
    room = StressRoom(browser, slow_server, "quiz-small", languages=("en", "fa"), tv_sizes=((1920, 1080), (1280, 720)))
    seats = [room.robot(name) for name in ("Ana", "Radu", "Mia", "Tom")]
    pack = {"format": "throneroom-pack/1", "name": "Small", "language": "en", "questions": SMALL_QUESTIONS}
    answer = requests.post(room.server.url + "/api/packs", headers={"X-Room-Code": room.code, "X-Host-Token": room.host_token},
                           files={"file": ("small.json", json.dumps(pack).encode())}, timeout=60)
    assert answer.status_code == 201, answer.text
    room.control("select_game", game="quiz")
    room.control("packs", packs=[answer.json()["pack"]["id"]])
    room.settings("quiz", order="pack", paced="host", bots=False, count=2)
    room.control("start")
    room.wait_until(lambda: all(r.game and view(r)["phase"] == "question" for r in seats), "the first question")
    room.control("skip")
    room.wait_until(lambda: all(is_open(r) for r in seats), "the question to open")
    room.wait(room.tv, "#quiz-tiles")
    assert seats[0].act({"choice": 0})["ok"]
    room.tv.wait_for_function("() => document.querySelectorAll('#quiz-answered li.done').length === 1")
    room.check("question", phones=[])

    for slot, robot in enumerate(seats[1:], start=1):
        assert robot.act({"choice": slot % 2})["ok"]
    room.wait_until(lambda: view(seats[0])["phase"] == "reveal", "the reveal")
    room.wait(room.tv, "#quiz-results")
    room.check("reveal", phones=[])

    room.control("next")
    room.wait_until(lambda: view(seats[0])["phase"] == "standings", "the leaderboard")
    room.wait(room.tv, "#quiz-board")
    room.check("leaderboard", phones=[])

    room.control("next")
    room.wait_until(lambda: view(seats[0])["phase"] == "question" and view(seats[0])["index"] == 1, "question 2")
    room.control("skip")
    room.wait_until(lambda: all(is_open(r) for r in seats), "question 2 to open")
    for robot in seats:
        assert robot.act({"choice": 1})["ok"]
    room.wait_until(lambda: view(seats[0])["phase"] == "reveal", "the last reveal")
    room.control("next")
    room.wait(room.tv, "#quiz-podium")
    room.check("end", phones=[])
    room.finish()

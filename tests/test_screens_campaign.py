"""Screen checker, the Short Campaign (issue [9]): a room of twelve people with twenty-character names, three of them
playing (two judged phone pages and a "know-it-all" robot that looks every question up in the built-in packs and
answers it exactly and first), the rest watching and playing along as the audience. Every stage of a whole game is
judged on every TV and phone size in every language, from the first quick question to the results with the highest
score the know-it-all can reach; then a second game on the 19-territory map reaches the last battle round, where a
player with nothing but a castle may attack every other territory, and the host ends it early.

The server runs with long timers (x10): nothing moves by itself while a stage is judged. The host's *Skip timer*
ends a preview or a reveal, and the robots act for every seat (the phone pages' own seats through robot_of)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from questions.library import builtin_packs
from tests.conftest import LiveServer
from tests.screens.harness import Robot, StressRoom, stress_names

PACKS = builtin_packs()
MAX_INPUT = 999_999_999_999  # the largest number a keypad accepts (CAMP-D14)


def truth(question: dict[str, Any]) -> int:
    """The correct answer of a question in play, looked up in the built-in pack it came from (its id is
    "<pack id>:<index>")."""
    pack_id, index = question["id"].rsplit(":", 1)
    q = PACKS[pack_id].questions[int(index)]
    return q.answer if question["kind"] == "numeric" else q.correct


SERVER_SEED = 7  # a reproducible deal (the slow_server fixture, tests/conftest.py)


class Table:
    """The three seats of a Short Campaign and the host, driven step by step.

    ``seats`` maps a game seat to the robot acting for it. A policy decides every answer, pick and target; ``run``
    plays until a stop condition holds on the view of the step about to be played."""

    def __init__(self, room: StressRoom, seats: dict[int, Robot]):
        self.room = room
        self.seats = seats

    def view(self) -> dict[str, Any]:
        return self.seats[0].game["view"]

    def settle(self, step: int) -> dict[str, Any]:
        """Wait until every seat's robot has seen the game at ``step`` or later; the view."""
        self.room.wait_until(lambda: all(r.game is not None and (r.game["step"] or 0) >= step
                                         for r in self.seats.values()), f"step {step}")
        return self.view()

    def skip(self) -> dict[str, Any]:
        step = self.view()["step"]
        self.room.control("skip")
        return self.settle(step + 1)

    def act(self, seat: int, action: dict[str, Any]) -> None:
        answer = self.seats[seat].act(action)
        assert answer["ok"], (seat, action, answer)

    def answered(self, seats: set[int]) -> None:
        """Wait until each of these seats' phones shows its answer as taken (or the question has closed). (A phone's
        view lists no one else's answers: only the TV's does.)"""
        def done() -> bool:
            q = self.view()["question"]
            return q is None or q["revealed"] or all(
                self.seats[s].game["view"]["question"].get("yours") is not None for s in seats)
        self.room.wait_until(done, f"answers of {sorted(seats)}")

    def play(self, policy: Policy) -> dict[str, Any]:
        """Play the current step by the policy; the view of the next step."""
        view = self.view()
        step, phase = view["step"], view["phase"]
        if phase in ("preview", "reveal"):
            return self.skip()
        if phase == "answer":
            q = view["question"]
            silent = False
            for seat in q["seats"]:
                value = policy.answer(view, seat)
                if value is None:
                    silent = True
                    continue
                self.act(seat, {"answer": str(value)} if q["kind"] == "numeric" else {"choice": value})
            if silent:
                self.answered({s for s in q["seats"] if policy.answer(view, s) is not None})
                return self.skip()
            return self.settle(step + 1)
        if phase == "pick":
            seat = view["picks"][0]
            self.act(seat, {"pick": policy.pick(view, seat)})
            return self.settle(step + 1)
        if phase == "target":
            seat = view["attack"]["attacker"]
            self.act(seat, {"target": policy.target(view, seat)})
            return self.settle(step + 1)
        raise AssertionError(f"nothing to play in phase {phase}")

    def run(self, policy: Policy, until: Callable[[dict[str, Any]], bool], limit: int = 400) -> dict[str, Any]:
        view = self.view()
        for _ in range(limit):
            if until(view):
                return view
            assert view["phase"] != "over", "the game ended before the stage wanted"
            view = self.play(policy)
        raise AssertionError("the stage wanted never came")


class Policy:
    """Seat 0 knows every answer and answers exactly (it answers first, so it is also the fastest); the others follow
    a script: who comes second in each expansion round, who is right in each duel, what to pick and attack."""

    KNOWER = 0

    def __init__(self, second: Callable[[int], int], right: Callable[[dict[str, Any], int], bool],
                 target: Callable[[dict[str, Any], int], str], far: int = 1000):
        self.second = second  # expansion round -> the seat that comes second
        self.right = right  # (view, seat) -> whether that seat answers a duel or tiebreak right
        self.choose_target = target
        self.far = far

    def answer(self, view: dict[str, Any], seat: int) -> int | None:
        q = view["question"]
        correct = truth(q)
        if seat == self.KNOWER:
            return correct
        if q["purpose"] == "expansion":
            return correct + 1 if seat == self.second(view["round"]) else correct + self.far
        if q["purpose"] == "duel":
            options = len(q["options"])
            return correct if self.right(view, seat) else (correct + 1) % options
        return correct + 3 if self.right(view, seat) else None  # tiebreak, final: close, or silent

    def pick(self, view: dict[str, Any], seat: int) -> str:
        return view["options"][0]

    def target(self, view: dict[str, Any], seat: int) -> str:
        return self.choose_target(view, seat)


def play_along(robot: Robot, answer: int, step: int) -> None:
    """A spectator's answer to the open question (the host's skip of the preview opened it for the audience too)."""
    reply = robot.call("audience", {"action": {"answer": str(answer)}, "step": step})
    assert reply["ok"], reply


def owned(view: dict[str, Any], seat: int, value: int | None = None, castle: bool | None = None) -> list[str]:
    """The territories a seat owns, optionally of one value, castles or not."""
    return [t["id"] for t in view["territories"] if t["owner"] == seat and (value is None or t["value"] == value)
            and (castle is None or (t["castle"] is not None and not t["demolished"]) == castle)]


def test_a_whole_campaign_fits_every_screen(browser: Any, slow_server: LiveServer) -> None:
    room = StressRoom(browser, slow_server, "campaign")
    names = stress_names()
    # The players, in joining order: the first three people who join as players play (seats 0, 1, 2).
    knower = room.robot(names[0])  # seat 0: twenty wide Latin letters, the know-it-all
    room.phone("p1", names[1])  # seat 1: a Persian name
    room.phone("p2", names[2])  # seat 2: a Romanian name with diacritics
    for name in names[3:7]:
        room.robot(name)  # four more players in the room, who do not play this game
    room.phone("s1", names[7], role="spectator")  # plays along with the audience
    audience = [room.robot(name, role="spectator") for name in names[8:12]]
    seats = {0: knower, 1: room.robot_of(room.phones["p1"]), 2: room.robot_of(room.phones["p2"])}
    table = Table(room, seats)
    room.control("select_game", game="campaign")
    room.control("start")
    view = table.settle(1)

    # ----- the start: the first quick question, previewed (phones locked, "get ready") -----
    assert view["stage"] == "expansion" and view["phase"] == "preview"
    room.wait(room.tv, "#question .ring")
    room.check("start", phones=["p1", "s1"])

    # ----- the question open: the keypad on every phone, the audience's too -----
    view = table.skip()
    assert view["phase"] == "answer"
    for label in ("p1", "s1"):
        room.wait(room.phones[label], "[data-key='ok']:not([disabled])")
    room.check("expansion-open", phones=["p1", "s1"])

    # ----- someone answered: the know-it-all first and exactly, then the Persian phone -----
    q = view["question"]
    correct = truth(q)
    table.act(0, {"answer": str(correct)})
    table.act(1, {"answer": str(correct + 1)})
    step = view["step"]
    for i, robot in enumerate(audience):  # the audience: one exact, the others further off
        play_along(robot, correct + i * 7, step)
    phone = room.phones["s1"]  # the judged spectator answers through its own keypad
    for digit in str(correct + 2):
        phone.click(f"[data-key='{digit}']")
    phone.click("[data-key='ok']")
    table.answered({0, 1})
    room.wait(room.phones["p1"], "#sent")
    room.wait(room.phones["s1"], "#sent")
    room.check("expansion-answered", phones=["s1"])

    # ----- the reveal: every answer with its distance and time; the largest answer a keypad takes -----
    table.act(2, {"answer": str(MAX_INPUT)})
    view = table.settle(step + 1)
    assert view["phase"] == "reveal"
    room.wait(room.tv, "#audience-top")
    room.wait(room.phones["s1"], "#aud-result")
    room.check("expansion-reveal", phones=["p1", "s1"])

    # ----- the pick: the know-it-all first, then the Persian phone's map chooser; the others watch -----
    view = table.skip()
    assert view["phase"] == "pick" and view["picks"] == [0, 1, 0]
    table.act(0, {"pick": view["options"][0]})
    view = table.settle(view["step"] + 1)
    assert view["picks"][0] == 1
    p1 = room.phones["p1"]
    room.wait(p1, "#chooser .territory-button")
    p1.evaluate("document.getElementById('chooser').dataset.kept = 'yes'")
    p1.locator(".territory-button").nth(1).click()
    room.wait(p1, ".territory-button.selected")
    # A tap updates the selection in place: the same chooser, no new fade-in, the whole phone does not blink.
    assert p1.evaluate("document.getElementById('chooser').dataset.kept") == "yes"
    room.check("pick", phones=["p1", "p2"])
    p1.click("#confirm")
    view = table.settle(view["step"] + 1)

    # ----- the rest of the expansion: the know-it-all wins every round; second place alternates -----
    def duel_right(view: dict[str, Any], seat: int) -> bool:
        attack = view["attack"]
        if attack["attacker"] == Policy.KNOWER:
            return seat == tiebreak_defender  # one defender is right once: a tiebreak
        return seat == attack["attacker"]  # the two phones take each other's territories

    def target_a(view: dict[str, Any], seat: int) -> str:
        legal = view["options"]
        if seat == Policy.KNOWER:
            if tiebreak_defender >= 0:
                theirs = [t for t in legal if t in owned(view, tiebreak_defender, castle=False)]
                if theirs:
                    return theirs[0]
            if view["round"] >= 3:  # the castles: each assault knocks all three towers down at once
                castles = [t for t in legal if t in owned(view, 1, castle=True) + owned(view, 2, castle=True)]
                if castles:
                    return castles[0]
            cheap = [t for t in legal if t in owned(view, 1, 200, castle=False) + owned(view, 2, 200, castle=False)]
            return (cheap or [t for t in legal if t not in owned(view, 1, castle=True) + owned(view, 2, castle=True)]
                    or legal)[0]
        other = 3 - seat
        cheap = [t for t in legal if t in owned(view, other, 200, castle=False)]
        return (cheap or [t for t in legal if t in owned(view, Policy.KNOWER)] or legal)[0]

    tiebreak_defender = -1
    policy = Policy(second=lambda r: 1 if r % 2 else 2, right=duel_right, target=target_a)
    view = table.run(policy, lambda v: v["stage"] == "battle")
    assert view["phase"] == "target"
    expansion_scores = [p["score"] for p in view["players"]]

    # ----- the battle: the first duel between the two phones, its options on the TV and both phones -----
    view = table.run(policy, lambda v: v["phase"] == "answer" and v["question"]["purpose"] == "duel"
                     and v["attack"]["attacker"] != Policy.KNOWER)
    room.wait(room.tv, "#question .options")
    room.wait(room.phones["p1"], "[data-choice]:not([disabled])")
    room.check("duel", phones=["p1", "s1"])
    attacker = view["attack"]["attacker"]
    view = table.play(policy)
    assert view["phase"] == "reveal"
    room.wait(room.tv, "#question.revealed")
    room.check("duel-reveal", phones=["p1", "s1"])

    # ----- a late joiner: a phone that arrives during the battle watches it -----
    room.phone("late", "Alexandru-Ștefan Pop")
    room.wait(room.phones["late"], "#not-playing")
    room.check("late-joiner", phones=["late"], tv=False)

    # ----- a tiebreak: both right in a duel (a phone against the know-it-all, or the know-it-all against a phone that
    # is right too): a quick question between the two -----
    tiebreak_defender = 2 if attacker == 1 else 1
    view = table.run(policy, lambda v: v["phase"] == "answer" and v["question"]["purpose"] == "tiebreak")
    tiebreak_defender = -1
    label = "p1" if 1 in view["question"]["seats"] else "p2"
    room.wait(room.phones[label], "[data-key='ok']:not([disabled])")
    room.check("tiebreak", phones=[label])

    # ----- the end: the know-it-all knocks both castles down and holds the whole map -----
    view = table.run(policy, lambda v: v["phase"] == "over")
    best = max(p["score"] for p in view["players"])
    assert view["final_ranking"][0] == Policy.KNOWER and best == view["players"][0]["score"]
    assert all(t["owner"] == Policy.KNOWER for t in view["territories"]), "the know-it-all holds the whole map"
    room.wait(room.tv, "#ranking")
    for label in ("p1", "p2", "s1"):
        room.wait(room.phones[label], "#result")
    room.check("end", phones=["p1", "p2", "s1"])
    shown = room.tv.locator("#stats").inner_text()  # the room's language is now the last one judged, Romanian
    assert f"{best:,}".replace(",", ".") in shown, (best, shown)
    print(f"after the expansion: {expansion_scores}; the know-it-all's final score: {best}")

    # ----- a second game, on the 19-territory map: the last battle round of a player with a castle alone -----
    room.control("lobby")
    room.settings("campaign", map="archipelago")
    room.control("start")
    room.wait_until(lambda: all(r.game and r.game["view"]["stage"] == "expansion" and r.game["view"]["round"] == 1
                                and r.game["view"]["phase"] == "preview" for r in seats.values()), "the second game")

    def target_b(view: dict[str, Any], seat: int) -> str:
        legal = view["options"]
        if seat == Policy.KNOWER:  # takes the Persian phone's land, never the castle of the phone with nothing
            return ([t for t in legal if t in owned(view, 1, castle=False)] or [t for t in legal if t in owned(view, 1)]
                    or legal)[0]
        return ([t for t in legal if t in owned(view, Policy.KNOWER, castle=False)] or legal)[0]

    policy_b = Policy(second=lambda r: 1, right=lambda v, s: s != v["attack"]["attacker"], target=target_b,
                      far=10_000)
    view = table.run(policy_b, lambda v: v["phase"] == "target" and v["round"] == 4 and v["attack"]["attacker"] == 2)
    assert len(owned(view, 2)) == 1 and len(view["options"]) == 18, view["options"]
    p2 = room.phones["p2"]
    room.wait(p2, "#chooser .territory-button")
    p2.evaluate("document.getElementById('chooser').dataset.kept = 'yes'")
    p2.locator(".territory-button").last.click()
    room.wait(p2, ".territory-button.selected")
    assert p2.evaluate("document.getElementById('chooser').dataset.kept") == "yes"
    room.wait(room.phones["s1"], "#camp-watching")
    room.check("round-4-target", phones=["p2", "s1"])  # the attacker with nothing but a castle, and a spectator

    # ----- the host ends the game early -----
    room.control("end")
    room.wait(room.tv, ".finished")
    for label in ("p1", "p2"):
        room.wait(room.phones[label], "#result")
    room.check("ended-early", phones=["p2"])
    room.finish()

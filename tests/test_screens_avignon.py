"""Screen checker, Avignon 1378 (issue [9]): every stage of a game night on every TV and phone size in every
language, with twenty-character names in a room of twelve people.

Two judged phones play (Rome and Avignon are drawn at random, AVIG-D7); ten more people watch: robot players (a
two-player game leaves them out of it), robot spectators and one judged spectator phone. The stages: the start (the
player to move chooses an action type, the other waits), each step of composing an action on the phone (the
petition's characters with their texts, the petition's extra choice, the Confirm / Change step, the choices the
no-undo rule removes with the reason, AVIG-D4 and AVIG-R14's own example), a board with two characters in each
conclave (AVIG-R15) and cards on the discard pile, the win (AVIG-D5, R19; results on the TV and on each phone), a
phone that joins during the next game, and that game ended early by the host (no one is to play any more).

Moves are made by robots on the players' own seats with the engine's payloads (engine/avignon/game.py); the server
runs with long timers (--timer-scale 10), so nothing moves by itself while a stage is judged.
"""

from __future__ import annotations

from typing import Any

from tests.conftest import LiveServer
from tests.screens.harness import StressRoom, stress_names

SERVER_SEED = 28  # a reproducible deal (the slow_server fixture, tests/conftest.py)


class Table:
    """The two seats of the game: a robot on each judged phone's seat, to act for it."""

    def __init__(self, room: StressRoom, labels: tuple[str, str]):
        self.room = room
        self.labels = labels
        self.robots = {label: room.robot_of(room.phones[label]) for label in labels}

    @property
    def view(self) -> dict[str, Any]:
        return self.robots[self.labels[0]].game["view"]

    def mover(self) -> str:
        """The label of the phone whose player is to move."""
        for label, robot in self.robots.items():
            game = robot.game
            if game and game["view"].get("legal"):
                return label
        raise AssertionError("no one is to move")

    def step(self) -> int:
        return max(r.game["step"] for r in self.robots.values())

    def act(self, action: dict[str, Any]) -> None:
        """One action of the player to move; waits until both seats and every judged page show the new step."""
        robot = self.robots[self.mover()]
        before = self.step()
        answer = robot.act(action)
        assert answer["ok"], (action, answer)
        self.room.wait_until(lambda: all(r.game["step"] > before for r in self.robots.values()), "the move")
        self.drawn()

    def drawn(self) -> None:
        """Every judged page shows the newest step."""
        step = self.step()
        for page in (self.room.tv, *self.room.phones.values()):
            page.wait_for_function("(step) => { const el = document.querySelector('[data-step]');"
                                   " return el && Number(el.dataset.step) >= step; }", arg=step)

    def plans(self) -> list[dict[str, Any]]:
        return self.robots[self.mover()].game["view"]["plans"]


def score(view: dict[str, Any], plan: dict[str, Any], want: dict[str, int], discards: int) -> float:
    """How much a plan brings the board toward ``want`` characters in each conclave and ``discards`` on the discard
    pile, without anyone winning (a plan that wins scores lowest)."""
    effects = plan["effects"]
    if any(e["kind"] == "win" for e in effects):
        return -1000
    have = {role: len(cards) for role, cards in view["conclaves"].items()}
    value = 0.0
    for e in effects:
        if e["kind"] == "conclave":
            value += 100 if have[e["role"]] < want[e["role"]] else -300
            have[e["role"]] += 1
        elif e["kind"] == "move":
            order = ["avignon", "nice", "genoa", "florence", "rome"]
            toward = order.index(e["location"]) - order.index(e["from"])
            need = {role: want[role] - have[role] for role in want}
            if need["rome"] > 0 or need["avignon"] > 0:
                value += toward * (1 if need["rome"] >= need["avignon"] else -1)
        elif e["kind"] == "banish" and len(view["discard"]) < discards:
            value += 3
    return value + 0.01 * (plan["action"]["lane"])


def play_until(table: Table, done: Any, want: dict[str, int], discards: int = 0, moves: int = 120) -> None:
    """Play the best plans for ``want`` until ``done(view)``."""
    for _ in range(moves):
        if done(table.view):
            return
        view = table.robots[table.mover()].game["view"]
        best = max(view["plans"], key=lambda p: score(view, p, want, discards))
        table.act(best["action"])
    raise AssertionError(f"the board never got there: {table.view['conclaves']}")


def click(page: Any, selector: str) -> None:
    page.locator(selector).first.click()


def test_avignon_fits_every_screen(browser: Any, slow_server: LiveServer) -> None:
    room = StressRoom(browser, slow_server, "avignon")
    names = stress_names()
    room.phone("p1", names[0])
    room.phone("p2", names[1])
    for name in names[2:8]:
        room.robot(name)  # players the two-player game leaves out: they watch
    for name in names[8:11]:
        room.robot(name, role="spectator")
    room.phone("spectator", names[11], role="spectator")
    room.control("select_game", game="avignon")
    room.settings("avignon", bots=False)
    room.control("start")
    room.tv.wait_for_selector(".a-tv")
    table = Table(room, ("p1", "p2"))
    table.drawn()
    first = table.mover()
    rome = room.phones[first]

    # The start: Rome chooses an action type, Avignon waits, the spectator sees the TV's board.
    rome.wait_for_selector("#a-choices [data-action]")
    room.check("start")
    room.control("language", language="en")
    room.tv.wait_for_function("() => document.documentElement.lang === 'en'")
    assert "1 action left" in room.tv.inner_text("#a-to-play") and "(s)" not in room.tv.inner_text("body")

    # The petition: every character whose petition can be used, with its text.
    click(rome, "#a-choices [data-action=petition]:not(.ruled-out)")
    rome.wait_for_selector("#a-choices [data-lane]")
    room.check("petition-character", phones=[first], tv=False)
    texts = rome.inner_text("#a-choices")
    assert not any(word in texts for word in ("column", "coloan", "ستون")), texts  # a lane is a lane in the card texts

    # Its extra choice (a lane, a direction) for the character with the most options.
    plans = [p for p in table.plans() if p["action"]["action"] == "petition"]
    lanes = [p["action"]["lane"] for p in plans]
    lane = max(set(lanes), key=lanes.count)
    assert lanes.count(lane) > 1, plans
    click(rome, f"#a-choices [data-lane='{lane}']")
    rome.wait_for_selector("#a-choices [data-option]")
    room.check("petition-option", phones=[first], tv=False)

    # Confirm or change, with what will happen and that the turn ends.
    click(rome, "#a-choices [data-option]")
    rome.wait_for_selector("#a-confirm")
    room.check("confirm", phones=[first], tv=False)
    click(rome, "#a-change")
    rome.wait_for_selector("#a-choices [data-action]")

    # AVIG-R14's example (AVIG-D4): after Rome pulls lane 1, Avignon pulls lane 2 and pushes lane 3; Rome pulls
    # lane 2 back, so pushing lane 3 back would undo Avignon's whole turn: that choice is removed, with the reason.
    table.act({"action": "pull", "lane": 1})
    table.act({"action": "pull", "lane": 2})
    table.act({"action": "push", "lane": 3})
    table.act({"action": "pull", "lane": 2})
    click(rome, "#a-choices [data-action=push]")
    rome.wait_for_selector("[data-removed='push-3']")
    room.check("removed", phones=[first], tv=False)
    click(rome, "#a-back")

    # Two characters in each conclave and several on the discard pile: the fullest board before a win.
    play_until(table, lambda v: all(len(c) >= 2 for c in v["conclaves"].values()) and len(v["discard"]) >= 3,
               {"rome": 2, "avignon": 2}, discards=3)
    room.check("full-board", phones=[table.mover(), "spectator"])

    # The win: the player to move takes a winning action as soon as there is one.
    for _ in range(60):
        if table.view["winner"] is not None:
            break
        wins = [p for p in table.plans() if any(e["kind"] == "win" for e in p["effects"])]
        view = table.robots[table.mover()].game["view"]
        table.act((wins or [max(view["plans"], key=lambda p: score(view, p, {"rome": 3, "avignon": 3}, 0))])[0]["action"])
    winner = table.view["winner"]
    assert winner is not None
    room.tv.wait_for_selector("#ranking")
    room.check("win", phones=[next(k for k, r in table.robots.items() if r.game["you"] == winner), "spectator"])

    # The next game: a phone joins while it runs (it watches), then the host ends it early.
    room.control("lobby")
    room.control("start")
    room.tv.wait_for_selector(".a-tv")
    table = Table(room, ("p1", "p2"))
    table.drawn()
    table.act({"action": "push", "lane": 4})
    late = room.phone("late", "Radu-Constantin Pană")
    late.wait_for_selector(".a-tv")
    room.check("late-joiner", phones=["late"], tv=False)
    room.control("end")
    room.tv.wait_for_selector(".finished")
    room.check("ended-early", phones=["p1", "late"])
    # No one is to play in a game the host ended: the TV says so, and no phone offers a move.
    assert room.tv.locator("#a-ended").count() == 1 and room.tv.locator("#a-to-play").count() == 0
    assert all(page.locator("#a-choices").count() == 0 for page in room.phones.values())
    room.finish()

"""Screen checker, Hierarchy (issue [9]): a room of twelve people with the longest names, two of them playing, every
stage of a game judged on the TV and the phones at every size in English, Persian and Romanian (tests/screens/).

The game is driven by robots on the two players' seats with a plan searched in advance on the real engine
(engine/hierarchy), so that one game shows every stage: a tap on an unplayable card, the Impostor's copy choice, the
Tower's burn choice, the Surgeon's return choice, a line of 11 cards or more, and the winner. A second game shows a
timed-out move (the host's *Skip timer*) and the host's *End game*.
"""

from __future__ import annotations

from typing import Any

from engine.hierarchy.game import HierarchyGame, HierarchyState
from tests.conftest import LiveServer
from tests.screens.harness import LANGUAGES, PHONE_SIZES, TV_SIZES, Robot, StressRoom, stress_names

GAME = HierarchyGame()
LONG_LINE = 11  # the screenshot: a line of eleven cards or more
WANTED = {"copy", "burn", "return", "long"}


SERVER_SEED = 6  # a reproducible deal (the slow_server fixture, tests/conftest.py)


def state_of(view: dict[str, Any]) -> HierarchyState:
    """The engine's position behind a view (everything in Hierarchy is public, HIER-D7)."""
    pending = view["pending"]
    return HierarchyState(
        names=("A", "B"), bots=(False, False), colours=tuple(p["colour"] for p in view["players"]),
        first=view["first"], hands=tuple(tuple(c["id"] for c in p["hand"]) for p in view["players"]),
        line=tuple((e["card"], e["owner"], e["copy"]) for e in view["line"]),
        burned=tuple((b["card"], b["owner"]) for b in view["burned"]), turn=view["turn"],
        pending=None if pending is None else (pending["stage"], pending["chooser"], pending["surgeon_player"]),
        turn_ms=60_000, deadline_ms=None, bot_level="random", winner=view["winner"])


def features(state: HierarchyState, legal: list[tuple], action: tuple) -> set[str]:
    """Which stage a move shows on the phone of the seat that makes it (a real choice among copies, burns or
    returns); ``legal`` is every move of that seat now."""
    found = set()
    if action[0] == "play":
        same = [a for a in legal if a[0] == "play" and a[1] == action[1]]
        if action[2] is not None and len({a[2] for a in same}) >= 2:
            found.add("copy")
        if action[3] is not None and len(same) >= 2:
            found.add("burn")
    elif state.pending is not None and state.pending[0] == 1 and len(legal) >= 2:
        found.add("return")
    return found


def plan(state: HierarchyState) -> list[tuple[int, tuple]]:
    """Moves to the end of the game that show every stage in WANTED, plays before burns (a long line); a depth-first
    search that remembers the positions it has seen fail."""
    failed: set[tuple] = set()

    def search(st: HierarchyState, seen: frozenset[str]) -> list[tuple[int, tuple]] | None:
        if st.winner is not None:
            return [] if WANTED <= seen else None
        key = (st.hands, st.line, st.burned, st.pending, st.turn, seen)
        if key in failed:
            return None
        seat = st.actor
        legal = GAME.legal_actions(st, seat)
        for action in sorted(legal, key=lambda a: a[0] == "play" and a[3] is not None):
            after = GAME.apply(st, seat, action, 0)
            long = len(after.line) >= LONG_LINE and after.winner is None  # a game still being played
            more = features(st, legal, action) | ({"long"} if long else set())
            rest = search(after, seen | more)
            if rest is not None:
                return [(seat, action), *rest]
        failed.add(key)
        return None

    found = search(state, frozenset())
    assert found, "no game from this deal shows every stage; change the --seed"
    return found


def payload(action: tuple) -> dict[str, Any]:
    return GAME.action_to_json(action)


TOP_CARD_SEEN = """() => {
    const top = document.querySelector(".h-card.top");
    if (!top) return "no top card";
    const r = top.getBoundingClientRect();
    for (let a = top.parentElement; a && a !== document.body; a = a.parentElement) {
        if (getComputedStyle(a).overflowY === "visible") continue;
        const box = a.getBoundingClientRect();
        if (r.top < box.top - 1 || r.bottom > box.bottom + 1) return "scrolled out of " + a.className;
    }
    if (r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth) return "off the screen";
    return "";
}"""


BOARD_FITS = """() => {
    const board = document.querySelector(".h-tv-wide .h-board");
    if (!board) return "no board";
    const box = board.getBoundingClientRect();
    for (const el of board.querySelectorAll(".h-card, .h-last p, .h-burned, .h-count")) {
        const r = el.getBoundingClientRect();
        if (r.bottom > box.bottom + 4 || r.top < box.top - 4) return el.className + " sticks out of the board";
    }
    return "";
}"""


def board_fits(room: StressRoom) -> None:
    """On the TV the line, the last play and the burned pile stay inside their place beside the move log, above the
    hands, at every TV size in every language."""
    for lang in LANGUAGES:
        room._set_language(lang, [])  # the harness's own language switch
        for width, height in TV_SIZES:
            room.tv.set_viewport_size({"width": width, "height": height})
            room.tv.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
            assert room.tv.evaluate(BOARD_FITS) == "", (lang, width, height, room.tv.evaluate(BOARD_FITS))
    room.tv.set_viewport_size({"width": TV_SIZES[0][0], "height": TV_SIZES[0][1]})


def top_card_in_view(room: StressRoom, labels: list[str]) -> None:
    """The line's top card (what the next card must beat) is on screen on every phone size, never scrolled away
    (the screen checker does not judge what a scroll region has scrolled out of view)."""
    for label in labels:
        page = room.phones[label]
        for width, height in PHONE_SIZES:
            page.set_viewport_size({"width": width, "height": height})
            page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
            assert page.evaluate(TOP_CARD_SEEN) == "", (label, width, height, page.evaluate(TOP_CARD_SEEN))
        page.set_viewport_size({"width": PHONE_SIZES[1][0], "height": PHONE_SIZES[1][1]})


def sheets(room: StressRoom, label: str) -> None:
    """The sheets of issue [13], each opened in each language: a line card's text on a phone (its ⓘ) and the TV's
    how-to with all fourteen cards."""
    page = room.phones[label]

    def card_sheet(lang: str) -> None:
        page.keyboard.press("Escape")
        room._set_language(lang, [page])  # the harness's own language switch
        page.click(".h-card.top [data-info]")
        room.wait(page, "#sheet .h-sheet-card")

    def how_to(lang: str) -> None:
        room.tv.keyboard.press("Escape")
        room._set_language(lang, [])
        room.tv.click("#how-to-play")
        room.wait(room.tv, "#sheet #h-rules-cards")

    room.check_page("card-sheet", label, page, card_sheet)
    page.keyboard.press("Escape")
    room.check_page("how-to", "tv", room.tv, how_to, kind="tv")
    room.tv.keyboard.press("Escape")


def test_a_game_of_hierarchy_fits_every_screen(browser: Any, slow_server: LiveServer) -> None:
    room = StressRoom(browser, slow_server, "hierarchy")
    names = stress_names()
    room.phone("first", names[0])  # the first two players in the room take the game's two seats
    room.phone("second", names[1])
    room.phone("spectator", names[2], role="spectator")
    for name in names[3:10]:
        room.robot(name)
    for name in names[10:12]:
        room.robot(name, role="spectator")
    room.control("select_game", game="hierarchy")
    room.settings("hierarchy", bots=False)
    room.control("start")
    robots: dict[int, Robot] = {}
    labels: dict[int, str] = {}
    for label in ("first", "second"):
        robot = room.robot_of(room.phones[label])
        room.wait_until(lambda r=robot: bool(r.game and r.game.get("you") is not None), "the game on " + label)
        robots[robot.game["you"]] = robot
        labels[robot.game["you"]] = label
    watcher = robots[0]

    def view() -> dict[str, Any]:
        return watcher.game["view"]

    def drawn(step: int, pages_: list[str] | None = None) -> None:
        """Every page (or the named ones) shows the game at this step."""
        room.wait_until(lambda: all(r.game["step"] >= step for r in robots.values()), f"step {step} on the robots")
        for label in ["tv", *(pages_ if pages_ is not None else list(room.phones))]:
            page = room.tv if label == "tv" else room.phones[label]
            page.wait_for_function("""(step) => [...document.querySelectorAll('[data-hier-step]')]
                .some((el) => Number(el.dataset.hierStep) >= step)""", arg=step)

    drawn(view()["step"])
    room.check("start")  # one phone to play (its hand lit), the other waiting, the spectator, the TV
    moves = plan(state_of(view()))
    done: set[str] = set()
    while moves:
        seat, action = moves.pop(0)
        state = state_of(view())
        actor = labels[seat]
        page = room.phones[actor]
        other = labels[1 - seat]
        shows = features(state, GAME.legal_actions(state, seat), action)
        robot_view = robots[seat].game["view"]
        if action[0] == "play" and "turn" not in done and len(state.line) >= 3 and robot_view.get("blocked"):
            done.add("turn")
            room.check("turn", phones=[actor, other], tv=False)  # the hand lit, the other phone waiting with its own
            page.click("#h-my-hand .h-chip.blocked")
            room.wait(page, "#h-why")
            room.check("why-not", phones=[actor], tv=False)
        if "copy" in shows and "copy" not in done:
            done.add("copy")
            page.click(f"#h-my-hand [data-card='{action[1]}']")
            room.wait(page, "#h-options")
            room.check("impostor-copy", phones=[actor], tv=False)
        if "burn" in shows and "burn" not in done:
            done.add("burn")
            page.click(f"#h-my-hand [data-card='{action[1]}']")
            room.wait(page, "#h-options")
            room.check("tower-burn", phones=[actor], tv=False)
        if "return" in shows and "return" not in done:
            done.add("return")
            room.wait(page, "[data-return]")
            room.check("surgeon-return", phones=[actor, other])
            page.click(f"[data-return='{action[1]}']")  # the choice, then its confirm (the robot acts for the phone)
            room.wait(page, "#h-return-confirm")
            room.check("surgeon-return-confirm", phones=[actor], tv=False)
        step = view()["step"]
        answer = robots[seat].act(payload(action))
        assert answer["ok"], (action, answer)
        drawn(step + 1)
        if len(view()["line"]) >= LONG_LINE and view()["winner"] is None and "long" not in done:
            done.add("long")
            room.check("long-line")  # the screenshot: eleven cards or more, the top card in view
            board_fits(room)
            sheets(room, "spectator")  # a card's text on a phone, the how-to with every card on the TV
            room.phone("late", "Întârziată Ștefania")
            room.wait(room.phones["late"], "#game-area")
            room.check("late-joiner", phones=["late"], tv=False)
            top_card_in_view(room, ["first", "second", "spectator", "late"])
    room.wait_until(lambda: watcher.state["phase"] == "finished", "the winner")
    room.tv.wait_for_selector("#ranking")
    assert done == {"turn"} | WANTED, done
    assert room.tv.locator("#h-winner").count() == 1
    room.check("winner", phones=["first", "second", "spectator"])
    board_fits(room)

    room.control("lobby")
    room.control("start")
    room.wait_until(lambda: watcher.state["phase"] == "playing" and watcher.game["step"] >= 0, "the second game")
    step = view()["step"]
    room.control("skip")  # time runs out for the first player: a random move, marked as such
    drawn(step + 1, ["first", "second"])
    room.control("end")
    room.wait_until(lambda: watcher.state["phase"] == "finished", "the end of the second game")
    room.tv.wait_for_selector(".finished")
    for label in ("first", "second"):
        room.phones[label].wait_for_selector("#result")
        # the game was ended: nobody is to play, nobody waits for anyone
        assert not room.phones[label].locator("#h-your-turn, #h-waiting, #h-options").count(), label
    assert room.tv.locator("#h-ended").count() == 1 and not room.tv.locator(".h-status [data-countdown]").count()
    room.check("ended-early", phones=["first", "second"])
    room.finish()

"""The card games' plays move on the board (issue [18]), once: a Hierarchy card played flies in from its owner's hand
(hierarchy.js moveCards), a Crown attack lands on its target's card (crown.js freshPlays); a redraw of the same state
(the room's language changes) replays nothing; with reduced motion or the TV's Motion off (the class motion-off on
<html>) nothing moves. Judged by the classes and the computed animation, never by time (the harness finishes
animations anyway). Two robot players (socket clients) play; the server runs with long timers (slow_server)."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page

from engine.hierarchy.game import HierarchyGame
from tests.conftest import LiveServer
from tests.screens.harness import StressRoom
from tests.test_screens_hierarchy import state_of

SERVER_SEED = 6
GAME = HierarchyGame()
# Every animation that starts on the page, by name, from now on (an event, so nothing here waits on a clock).
LISTEN = """() => { window.started = []; window.ended = [];
    document.addEventListener('animationstart', (e) => window.started.push(e.animationName));
    document.addEventListener('animationend', (e) => window.ended.push(e.animationName)); }"""
TWO_FRAMES = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"
TOP = """() => { const top = document.querySelector('.h-tv .h-card.top');
    return top ? {moved: top.dataset.moved || null, dy: top.style.getPropertyValue('--dy'),
                  running: top.getAnimations().length} : null; }"""


def drawn(page: Page, step: int) -> None:
    page.wait_for_function("""(step) => [...document.querySelectorAll('[data-hier-step]')]
        .some((el) => Number(el.dataset.hierStep) >= step)""", arg=step)
    page.evaluate(TWO_FRAMES)  # an animation of the new board has started by then, if there is one


def started(page: Page) -> list[str]:
    return page.evaluate("() => window.started.slice()")


def test_a_hierarchy_play_moves_once_and_not_without_motion(browser: Any, slow_server: LiveServer) -> None:
    room = StressRoom(browser, slow_server, "card-motion")
    ana, bob = room.robot("Ana"), room.robot("Bob")
    room.control("select_game", game="hierarchy")
    room.settings("hierarchy", bots=False)
    room.control("start")
    room.wait_until(lambda: all(r.game and r.game.get("you") is not None for r in (ana, bob)), "the seats")
    seats = {r.game["you"]: r for r in (ana, bob)}
    tv = room.tv
    tv.emulate_media(reduced_motion="no-preference")  # the harness's pages reduce motion: this TV does not
    tv.evaluate(LISTEN)

    def play() -> None:
        view = ana.game["view"]
        state = state_of(view)
        seat = state.actor
        action = next(a for a in GAME.legal_actions(state, seat) if a[0] == "play")
        tv.evaluate("() => { window.started.length = 0; window.ended.length = 0; }")
        assert seats[seat].act(GAME.action_to_json(action))["ok"]
        room.wait_until(lambda: ana.game["view"]["step"] > view["step"], "the play")
        drawn(tv, ana.game["view"]["step"])

    drawn(tv, ana.game["view"]["step"])
    assert tv.evaluate(TOP) is None  # nothing in the line yet
    play()
    top = tv.evaluate(TOP)
    assert top["moved"] == "played" and "h-played" in started(tv), (top, started(tv))
    assert float(top["dy"].removesuffix("px")) > 0, top  # it came from its owner's hand, under the line
    tv.wait_for_function("() => window.ended.includes('h-played')")  # the move is over
    tv.evaluate("() => { window.started.length = 0; }")
    room.control("language", language="ro")  # the same state drawn again: nothing replays
    tv.wait_for_function("() => document.documentElement.lang === 'ro'")
    tv.evaluate(TWO_FRAMES)
    top = tv.evaluate(TOP)
    assert top["moved"] == "played" and top["running"] == 0 and "h-played" not in started(tv), (top, started(tv))

    # the TV's Motion off, as its Display sheet sets it (TR.motion keeps the class motion-off in step with it)
    tv.evaluate("() => { localStorage.setItem('throneroom.tv.motion', 'off'); window.dispatchEvent(new Event('tr-motion')); }")
    tv.wait_for_function("() => document.documentElement.classList.contains('motion-off')")
    play()
    top = tv.evaluate(TOP)
    assert top["moved"] == "played" and top["running"] == 0 and "h-played" not in started(tv), (top, started(tv))
    # the person's reduced motion, before the TV's Motion is on again: the card just played would otherwise finish
    # its move once the class goes, after play() below has begun to listen
    tv.emulate_media(reduced_motion="reduce")
    tv.evaluate("() => { localStorage.setItem('throneroom.tv.motion', 'on'); window.dispatchEvent(new Event('tr-motion')); }")
    tv.evaluate(TWO_FRAMES)
    play()
    top = tv.evaluate(TOP)
    assert top["moved"] == "played" and top["running"] == 0 and "h-played" not in started(tv), (top, started(tv))
    assert not tv.errors, tv.errors  # type: ignore[attr-defined]
    room.finish()


def test_a_crown_attack_lands_on_its_target_once(browser: Any, slow_server: LiveServer) -> None:
    room = StressRoom(browser, slow_server, "card-motion-crown")
    room.control("select_game", game="crown")
    robots = [room.robot(f"P{i}") for i in range(5)]
    for i, robot in enumerate(robots):
        assert robot.call("team", {"team": i})["ok"]
    room.control("start")
    room.tv.wait_for_selector(".c-tv")
    room.tv.emulate_media(reduced_motion="no-preference")
    room.wait_until(lambda: all(r.game and r.game["view"]["phase"] == "initial" for r in robots), "the first council")
    for robot in robots:
        assert robot.act({"kind": "vote", "choice": 2 if robot is not robots[2] else 1})["ok"]
    room.wait_until(lambda: robots[0].game["view"]["phase"] == "day", "day 1")
    room.tv.wait_for_selector("#c-phase")
    room.tv.evaluate(LISTEN)
    assert robots[0].act({"kind": "attack", "target": 3})["ok"]
    room.tv.wait_for_selector("#c-attacks .c-attack")
    room.tv.evaluate(TWO_FRAMES)
    assert room.tv.locator(".c-card.c-struck").evaluate_all("(els) => els.map((e) => e.dataset.house)") == ["3"]
    assert "c-struck" in started(room.tv) and room.tv.locator("#c-attacks .c-attack.c-new").count() == 1
    room.tv.wait_for_function("() => window.ended.includes('c-struck')")
    room.tv.evaluate("() => { window.started.length = 0; }")
    room.control("language", language="fa")  # the same state drawn again: the attack does not land twice
    room.tv.wait_for_function("() => document.documentElement.lang === 'fa'")
    room.tv.evaluate(TWO_FRAMES)
    assert room.tv.locator(".c-card.c-struck, #c-attacks .c-attack.c-new").count() == 0
    assert started(room.tv) == [], started(room.tv)
    assert not room.tv.errors, room.tv.errors  # type: ignore[attr-defined]
    room.finish()

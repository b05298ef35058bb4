"""Seizing the Crown: a house's phone says what the house is trying to achieve and what happened overnight (issue
[18]: "the phone never states what the house is trying to achieve"), and tells a house only what it may know
(CROWN-D4, D5).

Alin's phone plays the Falcon, Cy's the Tower; robot phones (socket clients) play the Rose, the Serpent and the Sun.
The first council makes the Tower the ruler (CROWN-A1); on day 1 the Falcon spies on the Rose and the Rose on the
Serpent (both secret, each result told at PRE to the spy only, CROWN-R46, M8); the Sun votes to condemn the Falcon and
everyone else the Sun, who is condemned (CROWN-R17); the ruler uses no veto. On day 2 each phone tells its own night:
the Falcon its spy's report, the public verdict and the vote against it, never the Rose's report nor the ruler's
crowns of the day (the Tower's chronicle); the Tower its crowns. The server runs with long timers (slow_server):
nothing moves unless a house acts or the host skips."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import Page, expect

from tests.conftest import LiveServer
from tests.e2e import shot
from tests.screens.harness import StressRoom
from tests.test_e2e_crown_learn import EN, FALCON, ROSE, SERPENT, SUN, TOWER, act, house, phase_of, text

SMALL = {"width": 360, "height": 640}


def goal_start(key: str) -> str:
    """The words of a goal message before its first parameter (the page fills in the numbers)."""
    return EN[key].split("{")[0].strip()


def keys_in(page: Page, selector: str) -> list[str]:
    return page.locator(f"{selector} [data-key]").evaluate_all("(els) => els.map((e) => e.dataset.key)")


def test_a_house_phone_states_its_goal_and_its_night(browser: Any, slow_server: LiveServer) -> None:
    room = StressRoom(browser, slow_server, "crown-goal")
    room.control("select_game", game="crown")
    alin = room.phone("alin", "Alin")
    cy = room.phone("cy", "Cy")
    for page, team in ((alin, FALCON), (cy, TOWER)):
        page.set_viewport_size(SMALL)
        page.click(f"[data-team='{team}']")
        room.wait(page, f"[data-team='{team}'].chosen")
    robots = {}
    for name, team in (("Rosa", ROSE), ("Sam", SERPENT), ("Sol", SUN)):
        robots[team] = room.robot(name)
        assert robots[team].call("team", {"team": team})["ok"]
    rose, serpent, sun = robots[ROSE], robots[SERPENT], robots[SUN]
    room.wait_until(lambda: sum(p["team"] is not None for p in sun.state["players"]) == 5, "the picks")
    room.control("start")
    room.tv.wait_for_selector(".c-tv")
    falcon, tower = room.robot_of(alin), room.robot_of(cy)
    room.wait_until(lambda: phase_of(rose)[0] == "initial", "the first council")

    # Before any ruler: the goal is the throne, from the first council on.
    expect(alin.locator("#c-goal")).to_contain_text(goal_start("crownui.goal.initial"))
    for robot in (falcon, rose, serpent, sun):
        act(robot, kind="vote", choice=TOWER)
    act(tower, kind="vote", choice=ROSE)
    room.wait_until(lambda: phase_of(rose) == ("day", 1), "day 1")

    # Day 1: each phone says what its house is after, by its status (CROWN-R73, R74, R76); no night has passed yet.
    expect(alin.locator("#c-goal")).to_contain_text(goal_start("crownui.goal.loyal"))
    expect(cy.locator("#c-goal")).to_contain_text(goal_start("crownui.goal.ruler"))
    expect(alin.locator("#c-goal")).to_be_visible()
    for page in (alin, cy):
        expect(page.locator("#c-overnight")).to_have_count(0)
    shot(alin, "crown-goal-loyal-day1")

    act(falcon, kind="spy", target=ROSE)  # secret: only the Falcon learns the Rose's prestige, at PRE
    act(rose, kind="spy", target=SERPENT)  # secret: only the Rose learns the Serpent's
    act(tower, kind="aid", target=FALCON)  # CROWN-R59: the ruler aids (public, in the day)
    room.control("skip")
    room.wait_until(lambda: phase_of(rose) == ("judgment", 1), "the Council of Judgment")
    for robot in (falcon, rose, serpent, tower):
        act(robot, kind="vote", choice=SUN)
    act(sun, kind="vote", choice=FALCON)
    room.wait_until(lambda: phase_of(tower)[0] == "veto", "the veto window")
    act(tower, kind="pass")
    room.wait_until(lambda: phase_of(rose) == ("day", 2), "day 2")

    # Day 2: the Falcon's night, on its phone: the verdict, the vote against it and its own spy's report.
    night = alin.locator("#c-overnight")
    expect(night).to_be_visible()
    expect(night).to_contain_text(text("crown.log.condemned", house=house(SUN)))
    expect(night).to_contain_text(text("crown.log.vote.judgment", voter=house(SUN), choice=house(FALCON)))
    expect(night.locator("[data-key='crown.log.spy_result']")).to_have_count(1)
    expect(night.locator("[data-key='crown.log.spy_result']")).to_contain_text(house(ROSE))
    # Never what another house alone knows: the Rose's report on the Serpent, the ruler's crowns of the day.
    falcon_keys = keys_in(alin, "#c-overnight")
    assert "crown.log.crown_reign" not in falcon_keys, falcon_keys
    assert house(SERPENT) not in night.locator("[data-key='crown.log.spy_result']").inner_text()
    rose_report = [e for e in rose.game["view"]["chronicle"] if e["key"] == "crown.log.spy_result"]
    assert rose_report and rose_report[0]["params"]["target"] == SERPENT  # the Rose did learn it: the Falcon did not
    # The day's own doings are not the night's: the ruler's aid was given in the day.
    assert "crown.log.aid" not in falcon_keys, falcon_keys
    # The Tower's night: its crowns at dawn (CROWN-R73), and not the Falcon's report.
    tower_keys = keys_in(cy, "#c-overnight")
    assert "crown.log.crown_reign" in tower_keys and "crown.log.spy_result" not in tower_keys, tower_keys
    expect(cy.locator("#c-goal")).to_contain_text(goal_start("crownui.goal.ruler"))
    shot(alin, "crown-goal-overnight-falcon")
    shot(cy, "crown-goal-overnight-tower")
    for page in (room.tv, alin, cy):
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    room.finish()

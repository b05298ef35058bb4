"""Seizing the Crown learnable from the screens (issue 15, [13]), in a real browser on a real server: the illustrated
rules from a phone (English and Persian), the ⓘ beside an action, each council's own vote wording (feed, TV panel,
phone buttons), the treason warning before an attack on the ruler, a confirm step (with a way back) for the one-tap
answers, the ruler's aid marked required and a Banquet an attack voided, "your house today", a teammate's action
told by name on the other phone of the house, and the council panel after a veto (the final house large, the veto as
the story).

Two phones play the Falcon (a team), one phone the Tower; robot phones (socket clients) play the other three
houses. The server runs with long timers (slow_server): nothing moves unless a house acts or the host skips."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

from tests.conftest import LiveServer
from tests.e2e import shot
from tests.screens.harness import Robot, StressRoom

FALCON, ROSE, TOWER, SERPENT, SUN = range(5)
ROOT = Path(__file__).resolve().parent.parent
SMALL = {"width": 360, "height": 640}


def catalog(lang: str) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for name in ("crown", "crownui", "cards"):
        result |= json.loads((ROOT / "host" / "i18n" / f"{name}.{lang}.json").read_text(encoding="utf-8"))
    return result


EN, FA = catalog("en"), catalog("fa")
ISO = "\u2068{}\u2069"  # a name isolated in a sentence (TR.iso)


def text(key: str, lang: dict[str, Any] = EN, **names: str) -> str:
    """A catalog message with house names filled in, as the page writes them (isolated)."""
    message = lang[key]
    for name, value in names.items():
        message = message.replace("{" + name + "}", ISO.format(value))
    return message


def house(i: int, lang: dict[str, Any] = EN) -> str:
    return lang["crown.house." + ("falcon", "rose", "tower", "serpent", "sun")[i]]


def act(robot: Robot, **payload: Any) -> None:
    answer = robot.act(payload)
    assert answer["ok"], (payload, answer)


def phase_of(robot: Robot) -> tuple[str, int]:
    view = robot.game["view"] if robot.game else {"phase": None, "day": None}
    return view["phase"], view["day"]


def set_language(page: Page, lang: str) -> None:
    page.select_option("#phone-language", lang)
    page.wait_for_function("(lang) => document.documentElement.lang === lang", arg=lang)


def test_the_crown_teaches_itself_on_the_phones_and_the_tv(browser: Any, slow_server: LiveServer) -> None:
    room = StressRoom(browser, slow_server, "crown-learn")
    room.control("select_game", game="crown")
    alin = room.phone("alin", "Alin")
    bea = room.phone("bea", "Bea")
    cy = room.phone("cy", "Cy")
    for page, team in ((alin, FALCON), (bea, FALCON), (cy, TOWER)):
        page.set_viewport_size(SMALL)
        page.click(f"[data-team='{team}']")
        room.wait(page, f"[data-team='{team}'].chosen")
    robots = {}
    for name, team in (("Rosa", ROSE), ("Sam", SERPENT), ("Sol", SUN)):
        robots[team] = room.robot(name)
        assert robots[team].call("team", {"team": team})["ok"]
    rose, serpent, sun = robots[ROSE], robots[SERPENT], robots[SUN]
    room.wait_until(lambda: sum(p["team"] is not None for p in sun.state["players"]) == 6, "the picks")
    room.control("start")
    room.tv.wait_for_selector(".c-tv")
    room.tv.set_viewport_size({"width": 1280, "height": 720})
    tower = room.robot_of(cy)
    room.wait_until(lambda: phase_of(rose)[0] == "initial", "the first council")

    # ----- the first council: the buttons support a house; Bea composes, Alin votes first: Bea is told by whom -----
    for robot in (rose, serpent, sun):
        act(robot, kind="vote", choice=TOWER)
    act(tower, kind="vote", choice=ROSE)
    room.wait(bea, "[data-prompt=vote]")
    expect(bea.locator(f"[data-prompt=vote] [data-target='{TOWER}'] .c-verb")).to_have_text(EN["crownui.vote_button.initial"])
    expect(bea.locator("[data-prompt=vote] [data-target=none]")).to_have_text(EN["crownui.vote_none.initial"])
    bea.click(f"[data-prompt=vote] [data-target='{TOWER}']")
    expect(bea.locator("#c-confirm")).to_contain_text(text("crownui.do.vote.initial", house=house(TOWER)))
    alin.click(f"[data-prompt=vote] [data-target='{TOWER}']")
    alin.click("#c-send")
    teammate = bea.locator("#c-teammate")
    expect(teammate).to_have_text(text("crownui.teammate_did", name="Alin"))  # issue 15: not a silent vanishing
    expect(bea.locator("#c-confirm")).to_have_count(0)
    expect(bea.locator("#c-actions")).to_be_visible()  # and then the new state: the day's actions
    expect(alin.locator("#c-teammate")).to_have_count(0)  # Alin did it herself
    shot(bea, "crown-learn-teammate-did")
    # The TV's feed says each first-council vote in that council's words (crown.log.vote.initial).
    feed = room.tv.locator("#c-feed")
    expect(feed).to_contain_text(text("crown.log.vote.initial", voter=house(ROSE), choice=house(TOWER)))
    expect(feed.locator("[data-key='crown.log.vote.initial']")).to_have_count(5)

    # ----- the rules from a phone, in English, then in Persian -----
    bea.click("#phone-rules")
    sheet = bea.locator("#sheet[data-rules=crown]")
    expect(sheet.locator("#c-rules")).to_be_visible()
    for part in ("statuses", "fronts", "attacks", "feasts", "treason", "councils", "crowns", "actions"):
        expect(sheet.locator(f"#c-rules-{part} h3")).to_have_count(1)
    expect(sheet.locator("#c-rules-attacks")).to_contain_text(EN["crownui.rules.attack_treason"])  # CROWN-R34
    expect(sheet.locator("#c-rules-feasts")).to_contain_text(EN["crownui.rules.feast_b"])  # CROWN-R43
    expect(sheet.locator("#c-rules-statuses svg.c-shield")).to_have_count(3)  # drawn: ruler, loyal, enemy
    sheet.locator("#c-rules-attacks").scroll_into_view_if_needed()
    shot(bea, "crown-learn-rules-en")
    bea.click("#sheet-close")
    set_language(bea, "fa")
    bea.click("#phone-rules")
    expect(sheet.locator("#c-rules-statuses h3")).to_have_text(FA["crownui.rules.statuses_title"])
    expect(sheet.locator("#c-rules-councils")).to_contain_text(FA["crownui.rules.veto"])
    expect(sheet).to_have_attribute("data-rules", "crown")
    shot(bea, "crown-learn-rules-fa")
    bea.click("#sheet-close")
    set_language(bea, "en")

    # ----- day 1: the ⓘ beside an action; the treason warning before an attack on the ruler; a way back -----
    room.wait_until(lambda: phase_of(rose) == ("day", 1), "day 1")
    alin.click("#c-actions [data-info=attack]")
    expect(alin.locator("#sheet-body")).to_have_text(EN["crownui.info.attack"])
    alin.click("#sheet-close")
    alin.click("#c-actions [data-kind=attack]")
    alin.click(f"#c-compose [data-target='{TOWER}']")
    warning = alin.locator("#c-confirm [data-warning=treason_attack]")
    expect(warning).to_have_text(EN["crownui.warn.treason_attack"])  # CROWN-R34: a loyal attacker becomes an enemy
    shot(alin, "crown-learn-treason-warning")
    alin.click("#c-change")  # back: the target is asked again, nothing was sent
    alin.click(f"#c-compose [data-target='{ROSE}']")
    expect(alin.locator("#c-confirm [data-warning]")).to_have_count(0)  # attacking a loyal house is no treason
    alin.click("#c-send")
    room.wait_until(lambda: "attack" in house_view(room, alin)["used"], "the attack")

    # The ruler's phone: the aid is required (CROWN-R59); an attack on the ruler voids a Banquet (CROWN-R45, A16).
    expect(cy.locator("#c-actions [data-kind=aid] #c-required")).to_have_text(EN["crownui.required"])
    expect(cy.locator("#c-actions [data-kind=banquet]")).to_be_enabled()
    act(serpent, kind="attack", target=TOWER)
    banquet = cy.locator("#c-actions [data-kind=banquet]")
    expect(banquet).to_be_disabled()
    expect(banquet).to_contain_text(EN["crownui.banquet_void"])
    cy.locator("#c-actions [data-kind=banquet]").scroll_into_view_if_needed()
    shot(cy, "crown-learn-ruler-actions")

    # ----- an alliance offer: Accept asks to confirm and tells what follows; Back returns to the question -----
    act(rose, kind="propose_alliance", target=FALCON)
    room.wait(alin, "[data-prompt=alliance]")
    alin.click("[data-prompt=alliance] [data-answer=yes]")
    confirm = alin.locator("[data-prompt=alliance] #c-confirm")
    expect(confirm).to_contain_text(text("crownui.do.alliance_accept", house=house(ROSE)))
    expect(confirm.locator("[data-effect=alliance_accept]")).to_be_visible()
    expect(confirm).to_contain_text(EN["crownui.final"])
    shot(alin, "crown-learn-confirm-accept")
    alin.click("#c-change")
    expect(alin.locator("[data-prompt=alliance] [data-answer=no]")).to_be_visible()
    assert rose_proposal_open(rose), "Back sent an answer"
    alin.click("[data-prompt=alliance] [data-answer=no]")
    expect(alin.locator("[data-prompt=alliance] #c-confirm")).to_contain_text(text("crownui.effect.alliance_reject", house=house(ROSE)))
    alin.click("#c-send")
    expect(alin.locator("[data-prompt=alliance]")).to_have_count(0)

    # ----- "your house today", without opening the announcements -----
    today = alin.locator("#c-today-public")
    expect(today).to_contain_text(text("crown.log.attack", attacker=house(FALCON), target=house(ROSE)))
    expect(today).to_contain_text(text("crown.log.alliance_rejected", proposer=house(ROSE), target=house(FALCON)))
    assert alin.locator("#c-section-feed").get_attribute("open") is None  # the announcements stay closed
    act(rose, kind="done")
    shot(alin, "crown-learn-today")

    # ----- the Council of Judgment: each vote condemns; the Serpent is condemned, the ruler vetoes for the Sun -----
    room.control("skip")
    room.wait_until(lambda: phase_of(rose) == ("judgment", 1), "the Council of Judgment")
    room.wait(alin, "[data-prompt=vote]")
    expect(alin.locator(f"[data-prompt=vote] [data-target='{SERPENT}'] .c-verb")).to_have_text(EN["crownui.vote_button.judgment"])
    expect(alin.locator("[data-prompt=vote] [data-target=none]")).to_have_text(EN["crownui.vote_none.judgment"])
    act(rose, kind="vote", choice=SERPENT)
    act(sun, kind="vote", choice=SERPENT)
    act(serpent, kind="vote", choice=None)
    council = room.tv.locator("#c-council[data-council=judgment]")
    expect(council.locator(".c-vote[data-voter='1'] .c-verb")).to_have_text(EN["crownui.verb.judgment"])
    expect(council.locator(".c-vote[data-voter='3'] .c-verb")).to_have_text(EN["crownui.verb_none.judgment"])
    expect(feed).to_contain_text(text("crown.log.vote.judgment", voter=house(ROSE), choice=house(SERPENT)))
    expect(feed).to_contain_text(text("crown.log.vote_abstain.judgment", voter=house(SERPENT)))
    alin.click(f"[data-prompt=vote] [data-target='{SERPENT}']")
    expect(alin.locator("#c-confirm")).to_contain_text(text("crownui.do.vote.judgment", house=house(SERPENT)))
    alin.click("#c-send")
    act(tower, kind="vote", choice=SERPENT)
    room.wait_until(lambda: phase_of(tower)[0] == "veto", "the veto window")
    expect(room.tv.locator("#c-verdict")).to_contain_text(house(SERPENT))
    act(tower, kind="veto", replacement=SUN)  # CROWN-R60, A33: the Sun is condemned instead
    room.wait_until(lambda: phase_of(rose)[0] == "reactions", "the reactions")
    verdict = room.tv.locator("#c-verdict")
    expect(verdict).to_contain_text(house(SUN))
    expect(verdict).not_to_contain_text(house(SERPENT))
    expect(verdict.locator(".c-house")).to_have_attribute("data-house", str(SUN))
    expect(room.tv.locator("#c-veto-story")).to_have_text(
        text("crownui.veto_story", ruler=house(TOWER), vetoed=house(SERPENT)))
    shot(room.tv, "crown-learn-tv-after-veto")
    room.tv.click("#how-to-play")  # the TV's How to play holds the same illustrated rules
    expect(room.tv.locator("#sheet[data-rules=crown] #c-rules-councils")).to_contain_text(EN["crownui.rules.veto"])
    shot(room.tv, "crown-learn-tv-rules")
    room.tv.keyboard.press("Escape")

    # ----- the reaction to the veto: "Become an enemy" asks to confirm, with what follows -----
    room.wait(alin, "[data-prompt=reaction]")
    alin.click("[data-prompt=reaction] [data-answer=yes]")
    expect(alin.locator("[data-prompt=reaction] [data-warning=defect]")).to_have_text(EN["crownui.effect.defect"])
    shot(alin, "crown-learn-confirm-defect")
    expect(alin.locator("#c-status")).to_have_text(EN["crown.status.loyal"])  # nothing sent yet
    alin.click("#c-send")
    expect(alin.locator("#c-status")).to_have_text(EN["crown.status.enemy"])
    for page in (room.tv, alin, bea, cy):
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    room.finish()


def house_view(room: StressRoom, page: Page) -> dict[str, Any]:
    """The house's view as a phone of it sees it now (its robot twin on the same seat)."""
    robot = getattr(page, "_twin", None)
    if robot is None:
        robot = room.robot_of(page)
        page._twin = robot  # type: ignore[attr-defined]
    assert robot.game is not None
    return robot.game["view"]


def rose_proposal_open(rose: Robot) -> bool:
    """Whether the Rose's alliance proposal is still unanswered (the public feed has no answer to it yet)."""
    keys = [e["key"] for e in rose.game["view"]["feed"]]
    return "crown.log.alliance_proposed" in keys and not any(
        k in keys for k in ("crown.log.alliance_accepted", "crown.log.alliance_rejected"))

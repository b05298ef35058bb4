"""End to end, Hierarchy learnable from the screens (issue [13]): on a phone an ⓘ (or a tap-and-hold) on any card opens
its full text from cards.json in the phone's language; the sides are named (Gold / Purple) and drawn in their own
colours; the TV keeps a move log, newest first, that tells a Tower's burn and the Surgeon's returns; a Surgeon return
is chosen, then confirmed (with a Change button), never sent on the first tap; the TV's how-to lists every card.

The game is driven through the phones' real buttons along a plan searched on the real engine from the dealt
position (the server's --seed makes the deal reproducible)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from playwright.sync_api import expect

from engine.hierarchy.game import HierarchyGame, HierarchyState
from tests.conftest import LiveServer
from tests.e2e import PHONE, join, new_page, open_tv, set_setting, shot
from tests.screens.harness import Robot
from tests.test_screens_hierarchy import state_of

SERVER_SEED = 5  # the slow_server fixture (tests/conftest.py): a reproducible deal, timers ten times slower
GAME = HierarchyGame()
ROOT = Path(__file__).resolve().parent.parent
CARDS = {c["id"]: c for c in json.loads((ROOT / "engine/hierarchy/cards.json").read_text(encoding="utf-8"))["cards"]}
CATALOGS = {lang: json.loads((ROOT / f"host/i18n/hierarchy.{lang}.json").read_text(encoding="utf-8"))
            for lang in ("en", "fa", "ro")}
SIDE_RGB = {"gold": "rgb(217, 160, 0)", "purple": "rgb(142, 68, 216)"}  # host/static/games/hierarchy.css
ROOM_SKY_BLUE = "rgb(86, 180, 233)"  # TR.COLOURS[1], the room colour purple was drawn in before


def text_of(card: str, lang: str) -> str:
    return CARDS[card]["text"][lang]


def room(browser: Any, server: LiveServer, tv_size: tuple[int, int] = (1280, 720)) -> tuple[Any, dict[int, Any], dict[int, Robot]]:
    """A TV, an English phone (Ana) and a Persian one (شیرین) in a started game of Hierarchy: (tv, phone of each seat,
    a robot on each seat's token to read the engine's view)."""
    tv, code = open_tv(browser, server.url, *tv_size)
    ana = new_page(browser, **PHONE)
    join(ana, f"{server.url}/join/{code}", "Ana")
    shirin = new_page(browser, locale="fa-IR", **PHONE)
    join(shirin, f"{server.url}/join/{code}", "شیرین")
    tv.click("[data-game=hierarchy]")
    set_setting(tv, "bots", False)
    tv.click("#start")
    expect(tv.locator(".h-tv")).to_be_visible()
    phones: dict[int, Any] = {}
    robots: dict[int, Robot] = {}
    for page in (ana, shirin):
        expect(page.locator(".h-phone")).to_be_visible()
        token = page.evaluate(f"JSON.parse(localStorage.getItem('throneroom.seat.{code}'))")
        robot = Robot(server.url, code, None, token=token)
        deadline_ok = robot.game and robot.game.get("you") is not None
        assert deadline_ok, robot.state
        phones[robot.game["you"]] = page
        robots[robot.game["you"]] = robot
    return tv, phones, robots


def view_of(robots: dict[int, Robot]) -> dict[str, Any]:
    return robots[0].game["view"]


def wait_step(robots: dict[int, Robot], pages: list[Any], step: int) -> None:
    """Every robot and page shows the game at this step or later."""
    for robot in robots.values():
        for _ in range(400):
            if robot.game["step"] >= step:
                break
            robot.client.sleep(0.05)
        assert robot.game["step"] >= step, (robot.game["step"], step)
    for page in pages:
        page.wait_for_function("""(step) => [...document.querySelectorAll('[data-hier-step]')]
            .some((el) => Number(el.dataset.hierStep) >= step)""", arg=step)


def plan(state: HierarchyState) -> list[tuple[int, tuple]]:
    """The shortest moves from this position to a Tower burn and a Surgeon return chosen among two cards or more
    (then any second return still pending), by a depth-first search on the real engine."""
    best: list[tuple[int, tuple]] | None = None

    def search(st: HierarchyState, burn: bool, choice: bool, path: list[tuple[int, tuple]]) -> None:
        nonlocal best
        if best is not None and len(path) >= len(best):
            return
        if burn and choice and st.pending is None:
            best = list(path)
            return
        if st.winner is not None or len(path) >= 10:
            return
        seat = st.actor
        legal = GAME.legal_actions(st, seat)
        for action in legal:
            burned = burn or (action[0] == "play" and action[3] is not None)
            chose = choice or (action[0] == "return" and st.pending[0] == 1 and len(legal) >= 2)
            search(GAME.apply(st, seat, action, 0), burned, chose, [*path, (seat, action)])

    search(state, False, False, [])
    assert best, "no short game from this deal burns and returns; change SERVER_SEED"
    return best


def play_through_phone(phone: Any, state: HierarchyState, seat: int, action: tuple) -> None:
    """A play through the phone's buttons: tap the card in the own hand, then its option (a copy, a burn, or Play)."""
    card = action[1]
    options = [a for a in GAME.legal_actions(state, seat) if a[0] == "play" and a[1] == card]
    phone.click(f"#h-my-hand .h-chip[data-card='{card}']")
    phone.click(f"#h-options [data-option='{options.index(action)}']")


def return_through_phone(phone: Any, card: str) -> None:
    """A Surgeon return through the phone's buttons: the choice, then the confirm."""
    phone.click(f"#h-returns [data-return='{card}']")
    phone.click(f"#h-return-confirm[data-confirm-return='{card}']")


def test_card_text_on_a_phone_in_english_and_persian_and_the_sides_named(browser: Any, slow_server: LiveServer) -> None:
    tv, phones, robots = room(browser, slow_server)
    view = view_of(robots)
    sides = {p["seat"]: p["colour"] for p in view["players"]}
    assert sorted(sides.values()) == ["gold", "purple"]  # HIER-R5 HIER-D3
    ana, shirin = phones[0], phones[1]  # Ana joined first: seat 0
    assert robots[0].game["view"]["players"][0]["name"] == "Ana"

    # the sides, named on each phone ("You play Purple") and on the TV, each in its own colour (purple is purple)
    expect(ana.locator("#h-you-side")).to_contain_text(CATALOGS["en"]["hier.side." + sides[0]])
    expect(ana.locator("#h-you-side")).to_contain_text(CATALOGS["en"]["hier.you_play"])
    expect(shirin.locator("#h-you-side")).to_contain_text(CATALOGS["fa"]["hier.side." + sides[1]])
    for seat, side in sides.items():
        row = tv.locator(f".h-hand-row[data-seat='{seat}']")
        expect(row.locator(".h-side")).to_have_text(re.compile(CATALOGS["en"]["hier.side." + side]))
        chip = row.locator(".h-chip").first
        colour = chip.evaluate("(el) => getComputedStyle(el).borderTopColor")
        assert colour == SIDE_RGB[side], (side, colour)
        assert colour != ROOM_SKY_BLUE
        mark = row.locator(".h-side .h-side-mark").inner_text()
        assert mark == {"gold": "◆", "purple": "●"}[side]  # a cue that is not a colour
    shot(tv, "hierarchy-learn-tv-start")

    # an ⓘ on a card of the own hand: the sheet shows its number, name and full text from cards.json, in English
    mine = view["players"][0]["hand"][-1]["id"]
    ana.click(f".h-hand.mine .h-chip[data-card='{mine}'] [data-info]")
    sheet = ana.locator("#sheet")
    expect(sheet).to_be_visible()
    expect(sheet.locator("#sheet-body")).to_contain_text(text_of(mine, "en"))
    expect(sheet.locator("#sheet-title")).to_have_text(CARDS[mine]["name"]["en"])
    number = CARDS[mine]["number"]
    expect(sheet.locator(".h-sheet-number")).to_have_text(str(number))
    if CARDS[mine]["royal"]:
        expect(sheet.locator(".h-sheet-royal")).to_contain_text(CATALOGS["en"]["hier.royal"])
    shot(ana, "hierarchy-learn-phone-card-en")
    ana.click("#sheet-close")
    expect(sheet).to_have_count(0)
    # the tap on the ⓘ did not pick the card (no options opened)
    expect(ana.locator("#h-options")).to_have_count(0)

    # on the Persian phone: the opponent's card, in Persian (its text, its name, Persian digits only)
    theirs = view["players"][0]["hand"][0]["id"]
    shirin.click(f"#h-opponent .h-chip[data-card='{theirs}'] [data-info]")
    body = shirin.locator("#sheet #sheet-body")
    expect(body).to_contain_text(text_of(theirs, "fa"))
    expect(shirin.locator("#sheet-title")).to_have_text(CARDS[theirs]["name"]["fa"])
    assert not re.search(r"[0-9]", body.inner_text()), body.inner_text()
    shot(shirin, "hierarchy-learn-phone-card-fa")
    shirin.keyboard.press("Escape")
    expect(shirin.locator("#sheet")).to_have_count(0)

    # a tap-and-hold on a card of the own hand opens the same sheet
    held = view["players"][1]["hand"][0]["id"]
    box = shirin.locator(f".h-hand.mine .h-chip[data-card='{held}']").bounding_box()
    shirin.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] * 0.7)
    shirin.mouse.down()
    expect(shirin.locator("#sheet #sheet-body")).to_contain_text(text_of(held, "fa"))  # opens while held
    shirin.mouse.up()
    shirin.keyboard.press("Escape")
    # the phone's "?" (how to play) lists every card too, in the phone's language
    shirin.click("#phone-rules")
    expect(shirin.locator("#sheet #h-rules-cards .h-sheet-card")).to_have_count(14)
    expect(shirin.locator("#sheet [data-sheet-card='surgeon']")).to_contain_text(text_of("surgeon", "fa"))
    expect(shirin.locator("#sheet #h-rules-story")).to_have_text(CATALOGS["fa"]["hier.rules.story"])  # HIER-R0
    shirin.keyboard.press("Escape")

    # the TV: the how-to lists every card with its number, name and full text; the card reference is on screen
    tv.click("#how-to-play")
    rules = tv.locator("#sheet #h-rules-cards .h-sheet-card")
    expect(rules).to_have_count(14)
    expect(tv.locator("#sheet #h-rules-story")).to_contain_text("Darkhill")  # HIER-R0: the story opens the rules
    for card in CARDS.values():
        expect(tv.locator(f"#sheet [data-sheet-card='{card['id']}']")).to_contain_text(card["text"]["en"])
    shot(tv, "hierarchy-learn-tv-howto")
    tv.keyboard.press("Escape")
    expect(tv.locator("#h-ref .h-ref-card")).to_have_count(14)  # the card reference, on screen while the game runs
    assert tv.locator("#h-ref .h-ref-name").all_inner_texts() == [c["name"]["en"] for c in CARDS.values()]
    for page in (tv, ana, shirin):
        assert not page.errors, page.errors  # type: ignore[attr-defined]


def test_the_tv_logs_a_burn_and_the_surgeon_returns_confirmed_on_the_phone(browser: Any, slow_server: LiveServer) -> None:
    tv, phones, robots = room(browser, slow_server)
    pages = [tv, *phones.values()]
    moves = plan(state_of(view_of(robots)))
    changed = False
    for seat, action in moves:
        view = robots[seat].game["view"]
        state = state_of(view)
        phone = phones[seat]
        step = robots[seat].game["step"]
        if action[0] == "play":
            play_through_phone(phone, state, seat, action)
        else:
            card = action[1]
            options = GAME.legal_actions(state, seat)
            if not changed and len(options) >= 2:
                # the first tap only chooses: the confirm says what happens, nothing is sent yet
                other = next(a[1] for a in options if a[1] != card)
                phone.click(f"#h-returns [data-return='{other}']")
                confirm = phone.locator("#h-return-confirm-text")
                entry = next(e for e in view["line"] if e["card"] == other)
                owner = view["players"][entry["owner"]]["name"]
                name = CARDS[other]["name"]["en" if seat == 0 else "fa"]
                expect(confirm).to_contain_text(name)
                expect(confirm).to_contain_text(owner)
                expect(confirm).to_contain_text(CATALOGS["en" if seat == 0 else "fa"]["hier.cannot_undo"])
                shot(phone, "hierarchy-learn-phone-return-confirm")
                assert robots[seat].game["step"] == step and robots[seat].game["view"]["pending"] is not None
                phone.click("#h-return-change")  # back to the choice, then the planned card
                expect(phone.locator("#h-returns [data-return]")).to_have_count(len(options))
                changed = True
            return_through_phone(phone, card)
        wait_step(robots, pages, step + 1)
    assert changed, "the plan had no return chosen among two cards"
    view = view_of(robots)
    assert view["pending"] is None and view["burned"]

    # the TV's move log: newest first, every play, the burn and the returns in words, with the side of who did it
    log = tv.locator("#h-log .h-log-entry")
    history = view["history"]
    expect(log).to_have_count(len(history))
    texts = log.all_inner_texts()
    kinds = [e.get_attribute("data-kind") for e in log.all()]
    assert kinds == [e["kind"] for e in reversed(history)], kinds
    burn = next(e for e in history if e.get("burn"))
    burned_name = CARDS[burn["burn"]]["name"]["en"]
    assert any(f"burning the {burned_name}" in t for t in texts), texts
    returns = [e for e in history if e["kind"] == "return"]
    assert returns and all(any(f"{CARDS[r['card']]['name']['en']} returns to" in t for t in texts) for r in returns), texts
    newest = history[-1]
    assert newest["kind"] == "return" and CARDS[newest["card"]]["name"]["en"] in texts[0], texts[0]
    sides = {p["seat"]: p["colour"] for p in view["players"]}
    for entry, item in zip(reversed(history), log.all()):
        assert "side-" + sides[entry["seat"]] in item.get_attribute("class")
    expect(tv.locator(f"#h-ref [data-ref='{burn['burn']}']")).to_have_class(re.compile(r"\bburned\b"))
    shot(tv, "hierarchy-learn-tv-log")
    tv.set_viewport_size({"width": 1920, "height": 1080})
    shot(tv, "hierarchy-learn-tv-log-1080")
    for page in pages:
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    for robot in robots.values():
        robot.close()

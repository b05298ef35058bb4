"""End to end, every outcome of a Short Campaign told (issue [18]): on the real server, a TV at 1280x720 and two phone
pages (Ana and Radu) whose seats are played through their own tokens, a robot as the third player (Cy).

The game is steered so that each outcome happens once: Ana wins the first quick question by being closest without
being exact ("Closest!"); Radu takes a territory from Ana, then Ana takes one back, so they finish level on points
(the defence bonus is paid only for a right answer, and every other duel has both sides wrong); Ana keeps a territory
Cy attacks; and the final quick question between the two decides the tie. The server runs with slow timers (x10) and
the host's Skip timer moves on, so nothing changes by itself while a screen is read."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect

from tests.conftest import LiveServer
from tests.e2e import shot
from tests.screens.harness import StressRoom
from tests.test_screens_campaign import Table, owned, truth

SERVER_SEED = 7
ANA, RADU, CY = 0, 1, 2
MAPS = Path(__file__).resolve().parent.parent / "engine" / "campaign" / "maps"


def place_name(map_id: str, territory: str) -> str:
    """A territory's English name, from the map's own file."""
    drawing = json.loads((MAPS / f"{map_id}.json").read_text(encoding="utf-8"))
    return next(t["name"]["en"] for t in drawing["territories"] if t["id"] == territory)


class Script:
    """Who answers what, picks what and attacks what."""

    def __init__(self) -> None:
        self.radu_took = False  # Radu has taken a territory from Ana
        self.ana_took = False  # Ana has taken one back from Radu

    def winner(self, view: dict[str, Any]) -> bool:
        """Whether this duel's attacker should win it (the defender is wrong either way)."""
        attack = view["attack"]
        if attack["attacker"] == RADU and attack["defender"] == ANA and not self.radu_took:
            return True
        return attack["attacker"] == ANA and attack["defender"] == RADU and self.radu_took and not self.ana_took

    def answer(self, view: dict[str, Any], seat: int) -> int | None:
        q = view["question"]
        correct = truth(q)
        if q["purpose"] == "expansion":  # Ana and Radu take turns winning; Ana is never exact, only closest
            first, second = (ANA, RADU) if view["round"] % 2 else (RADU, ANA)
            return correct + (649 if seat == first else 900 if seat == second else 5000)
        if q["purpose"] == "duel":
            right = seat == view["attack"]["attacker"] and self.winner(view)
            return correct if right else (correct + 1) % len(q["options"])
        return correct if seat == RADU else correct + 5  # the final question: Radu exact, Ana close

    def pick(self, view: dict[str, Any], seat: int) -> str:
        return view["options"][0]

    def target(self, view: dict[str, Any], seat: int) -> str:
        legal = view["options"]
        if seat == RADU and not self.radu_took:
            wanted = owned(view, ANA, 200, castle=False)
        elif seat == ANA and self.radu_took and not self.ana_took:
            wanted = owned(view, RADU, 200, castle=False)
        elif seat == CY:
            wanted = owned(view, ANA, castle=False)  # Cy attacks Ana, and fails
        else:
            wanted = []
        return ([t for t in legal if t in wanted] or [t for t in legal if t not in owned(view, CY, castle=True)]
                or legal)[0]


def words(text: str) -> str:
    """A regular expression for a text as a page shows it: the players' names isolated (U+2068 … U+2069)."""
    pattern = re.escape(text)
    for name in ("Ana", "Radu", "Cy"):
        pattern = pattern.replace(name, f"\u2068?{name}\u2069?")
    return pattern


def sentence(text: str) -> re.Pattern[str]:
    """The whole text of an element, names isolated."""
    return re.compile(f"^\\s*{words(text)}\\s*$")


def said(page: Page, text: str) -> None:
    expect(page.locator("#duel-result")).to_have_text(sentence(text))


def test_every_outcome_is_told_on_the_tv_and_on_both_phones(browser: Any, slow_server: LiveServer) -> None:
    room = StressRoom(browser, slow_server, "campaign-outcomes", languages=("en",))
    tv = room.tv
    tv.set_viewport_size({"width": 1280, "height": 720})
    ana = room.phone("ana", "Ana")
    radu = room.phone("radu", "Radu")
    cy = room.robot("Cy")
    seats = {ANA: room.robot_of(ana), RADU: room.robot_of(radu), CY: cy}
    table = Table(room, seats)
    room.control("select_game", game="campaign")
    room.settings("campaign", bonus_needs_correct=True)
    room.control("start")
    view = table.settle(1)
    assert [s["name"] for s in view["players"]] == ["Ana", "Radu", "Cy"]
    script = Script()

    # ----- the first quick question: Ana is closest, 649 away: "Closest!", not "Right!" -----
    view = table.skip()
    q = view["question"]
    correct = truth(q)
    for seat in (ANA, RADU, CY):
        table.act(seat, {"answer": str(script.answer(view, seat))})
    view = table.settle(view["step"] + 1)
    assert view["phase"] == "reveal" and view["question"]["ranking"][0] == ANA and correct + 649 != correct
    expect(ana.locator("#my-result")).to_have_text("Closest!")
    expect(radu.locator("#my-result")).to_have_text("Not this time")

    # ----- the battle: Radu takes a territory from Ana -----
    def duel_of(attacker: int, defender: int) -> Any:
        return lambda v: (v["phase"] == "answer" and v["question"]["purpose"] == "duel"
                          and v["attack"]["attacker"] == attacker and v["attack"]["defender"] == defender)

    view = table.run(script, duel_of(RADU, ANA))
    target = view["attack"]["target"]
    place = place_name(view["map"], target)
    expect(ana.locator("#answer-pad .q-purpose")).to_have_text(sentence("Radu attacks you"))
    expect(radu.locator("#answer-pad .q-purpose")).to_have_text(sentence("You attack Ana"))
    board = tv.locator("#duel-board")
    expect(board).to_have_attribute("data-target", target)
    expect(board.locator("[data-role=map-label]")).to_contain_text([place])  # the fought-over territory, named
    shot(tv, "campaign-duel-tv-1280x720")
    assert script.winner(view)
    view = table.play(script)  # Radu right, Ana wrong: the reveal
    assert view["phase"] == "reveal"
    view = table.skip()
    script.radu_took = True
    assert view["result"]["kind"] == "taken"
    said(tv, f"Radu took {place} from Ana")
    said(ana, f"Radu took {place} from you")
    said(radu, f"You took {place} from Ana")
    shot(tv, "campaign-duel-result-tv-1280x720")
    shot(ana, "campaign-duel-result-phone")

    # ----- Ana takes one back; Cy's attacks on Ana fail: "You kept …" -----
    kept_seen = False

    def watch(v: dict[str, Any]) -> bool:
        nonlocal kept_seen
        r = v.get("result")
        if r and r["kind"] == "held" and r["defender"] == ANA and r["attacker"] == CY and not kept_seen \
                and (v["question"] is None or v["phase"] == "preview"):
            kept = place_name(v["map"], r["territory"])
            said(tv, f"Ana kept {kept}")
            said(ana, f"You kept {kept}")
            kept_seen = True
        return v["phase"] == "answer" and duel_of(ANA, RADU)(v) and script.winner(v)

    view = table.run(script, watch)
    back = place_name(view["map"], view["attack"]["target"])
    view = table.skip() if table.play(script)["phase"] == "reveal" else table.view()
    script.ana_took = True
    said(tv, f"Ana took {back} from Radu")
    said(ana, f"You took {back} from Radu")
    said(radu, f"Ana took {back} from you")

    # ----- to the end: Ana and Radu level, the final quick question decides -----
    view = table.run(script, lambda v: watch(v) or v["question"] is not None and v["question"]["purpose"] == "final")
    scores = [p["score"] for p in view["players"]]
    assert scores[ANA] == scores[RADU], scores
    expect(tv.locator("#question .q-purpose")).to_contain_text(re.compile("\u2068?(Ana|Radu)\u2069? and \u2068?(Ana|Radu)\u2069? are tied on"))
    view = table.run(script, lambda v: watch(v) or v["phase"] == "over")
    assert kept_seen, "Cy never attacked Ana"
    assert view["final_ranking"][:2] == [RADU, ANA]
    note = tv.locator("#tiebreak-note")
    expect(note).to_contain_text(f"finished on {scores[ANA]:,} each: the final quick question decided it")
    expect(note).to_contain_text(re.compile(words("Radu came out ahead")))
    expect(tv.locator(f"#stats tr[data-seat='{ANA}'] .right-closest")).to_contain_text(re.compile(r"Right 1 · Closest 2 of \d+"))
    shot(tv, "campaign-results-tiebreak-tv-1280x720")
    for page in room.pages:
        assert not page.errors, page.errors  # type: ignore[attr-defined]
    room.finish()

"""Hierarchy's explanations are data (an i18n key and params), rendered in English, Persian and Romanian: every key
the engine can produce exists in all three catalogs with exactly the params the engine passes, and reads as a
sentence in each language (HIER-D2: the phone's "why not"; the TV's explanation of the last play)."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

from engine import simulate
from engine.core import Rng
from engine.hierarchy import rules
from engine.hierarchy.game import NAMES
from engine.hierarchy.rules import CARDS, IMPOSTOR, ORDER, Reason, card_param, why
from host.i18n import catalog
from host.room import LANGUAGES
from tests.hierarchy.fixtures import GAME, play, pos, refusal, render

ROOT = Path(__file__).resolve().parents[2]
PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")
PERSIAN_NAMES = ("آنا", "بابک")
LATIN = re.compile(r"[A-Za-z]")


def c(card: str, copy: str | None = None, bare: bool = False) -> dict:
    """A card param, short."""
    return card_param(card, copy, bare)


def keys_in_engine() -> set[str]:
    """Every explanation key the engine's source names: literal keys and ``why("name")`` calls."""
    keys: set[str] = set()
    for path in (ROOT / "engine/hierarchy").glob("*.py"):
        text = path.read_text(encoding="utf-8")
        keys |= set(re.findall(r'"(hier\.[a-z_]+\.[a-z_]+)"', text))
        keys |= {"hier.why." + name for name in re.findall(r'\bwhy\("([a-z_]+)"', text)}
    return keys


def keys_in_script() -> set[str]:
    """Every hier.* key host/static/games/hierarchy.js names."""
    return set(re.findall(r'"(hier\.[a-z_]+(?:\.[a-z_]+)?)"', (ROOT / "host/static/games/hierarchy.js").read_text()))


def walk(message: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The message and every reason nested in its params, as (key, params)."""
    found = [(message["key"], message["params"])]
    for value in message["params"].values():
        if isinstance(value, dict) and "reason" in value:
            found += walk(value["reason"])
    return found


@cache
def produced(games: int = 120) -> list[dict[str, Any]]:
    """Every explanation a set of random games produces: the history, the phone's "why not" of each card in hand, and
    the rules' answer to plays a phone never sends (wrong copies, burns that are not due or not one's own)."""
    messages: list[dict[str, Any]] = []
    for seed in range(games):
        state = simulate.setup(GAME, 2, seed, {"turn_seconds": 5}).state
        rng = Rng(seed)
        while state.winner is None:
            seat = state.actor
            view = GAME.view(state, seat)
            messages += view.get("blocked", {}).values()
            if state.pending is None:
                hand, line = state.hands[seat], state.line
                others = [card for card in ORDER if card not in hand]
                for card in hand:
                    for copy in (None, *rules.copy_targets(line, seat)[:1], others[0] if others else None):
                        for burn in (None, card, *[b for b in hand if b != card][:1], *others[:1]):
                            ok, reason = rules.check(hand, line, seat, card, copy, burn)
                            if not ok:  # an allowance gets its card and top in the history (below)
                                messages.append(reason.to_json())
            state = GAME.apply(state, seat, rng.choice(GAME.legal_actions(state, seat)), 0)
        messages += [entry["message"] for entry in state.history]
    return messages


def special() -> list[dict[str, Any]]:
    """What only a page out of step, or a hand-made payload, can ask."""
    reasons = [
        GAME.explain(pos("king", "queen", "b:dragon"), 0, "queen"),  # not held
        GAME.explain(pos("king", "queen", "b:dragon"), 1, "queen"),  # not your turn
        GAME.explain(pos("king", "queen", "b:dragon"), 0, "joker"),  # no such card
        GAME.explain(play(pos("king assassin", "queen peasant", "b:dragon"), "king"), 0, "assassin"),  # game over
        GAME.explain(play(pos("surgeon king", "queen", "a:assassin b:leper"), "surgeon"), 0, "king"),  # a return first
        refusal(pos("king", "x", "b:dragon"), "king", copy="dragon"),  # only the Impostor copies
        refusal(pos("tower", "x", "b:dragon"), "tower"),  # the last card cannot burn
    ]
    return [r.to_json() for r in reasons]


def all_messages() -> list[dict[str, Any]]:
    return produced() + special()


def test_every_explanation_key_is_in_all_three_catalogs_with_the_same_placeholders():
    # the keys the engine and the page name, and every key the fragment files define for Hierarchy's explanations
    fragment = json.loads((ROOT / "host/i18n/hierarchy.en.json").read_text(encoding="utf-8"))
    needed = keys_in_engine() | keys_in_script() | set(fragment)
    assert {"hier.why.lower_than", "hier.log.ability", "hier.ref.copy", "hier.join.or"} <= needed
    for language in LANGUAGES:
        messages = catalog(language)
        missing = needed - set(messages)
        assert not missing, (language, missing)
        for key in needed:
            assert sorted(PLACEHOLDER.findall(messages[key])) == sorted(PLACEHOLDER.findall(catalog("en")[key])), \
                (language, key)
    for language in ("fa", "ro"):  # each a fragment of its own, with the same keys as the English one
        other = json.loads((ROOT / f"host/i18n/hierarchy.{language}.json").read_text(encoding="utf-8"))
        assert set(other) == set(fragment), language


def test_every_reason_the_engine_gives_has_exactly_the_params_its_sentence_names():
    english = catalog("en")
    seen = set()
    for key, params in (pair for message in all_messages() for pair in walk(message)):
        seen.add(key)
        assert set(params) == set(PLACEHOLDER.findall(english[key])), (key, params)
    # and every explanation key of the fragment is reachable: none is dead, every one was checked here
    defined = {k for k in json.loads((ROOT / "host/i18n/hierarchy.en.json").read_text(encoding="utf-8"))
               if k.startswith(("hier.why.", "hier.log."))}
    assert defined - seen == set(), defined - seen


def test_the_reasons_render_as_sentences_in_every_language():
    assert len(produced()) > 5000
    distinct = {json.dumps(m, sort_keys=True): m for m in all_messages()}
    for message in distinct.values():
        for language in LANGUAGES:
            names = PERSIAN_NAMES if language == "fa" else ("Ann", "Bob")
            text = render(message, language, names)
            assert "{" not in text and "hier." not in text, (language, text)
            if language == "fa":
                assert not LATIN.search(text), text  # no English word, no Latin digit left in a Persian sentence
            if language == "ro":
                assert not re.search(r"\b(the|on|and|or|is)\b", text), text


def test_the_english_wording_is_kept():
    # HIER-R18 HIER-R19 HIER-D2 HIER-D9 HIER-D10
    cases = [
        (("sorcerer", "", "king", "b:usurper", {}),
            "The Usurper on top: the next card must be lower than 7 (the Sorcerer is 8)"),
        (("high_priest", "", "king", "b:dragon", {}), "The High Priest can only be played on the Queen or the King"),
        (("queen", "", "x", "b:dragon", {}), "The Queen needs the Prince in the line"),
        (("assassin", "", "x", "b:leper", {}), "The Assassin can be played on any card except the Leper and the Tower"),
        (("impostor", "king", "x", "b:tower a:assassin b:dragon", {"copy": "tower"}),
            "The Impostor as the Tower on a higher card: burn one other card from your hand"),
        (("knight", "", "x", "a:sorcerer b:impostor=sorcerer", {}),
            "The Impostor as the Sorcerer on top: only numbers count, and the Knight (6) is not higher than 8"),
    ]
    for (card, more, other, line, extra), expected in cases:
        assert render(refusal(pos(f"{card} {more}", other, line), card, **extra)) == expected


def test_persian_and_romanian_read_naturally():
    # HIER-R19 HIER-R18 HIER-D9: the phone's "why not" and the TV's last play, in Persian and Romanian
    usurper = refusal(pos("sorcerer", "king", "b:usurper"), "sorcerer")
    assert render(usurper, "fa") == "غاصب کارت رویی است: کارت بعدی باید کمتر از ۷ باشد (جادوگر ۸ است)"
    assert render(usurper, "ro") == "Uzurpatorul e sus: următoarea carte trebuie să fie mai mică de 7 (Vrăjitorul are 8)"
    knight = play(pos("knight", "king", "b:dragon"), "knight").history[-1]["message"]
    assert render(knight, "fa") == "شوالیه روی اژدها: با قابلیت شوالیه"
    assert render(knight, "ro") == "Cavalerul pe Dragon: permis de Cavaler"  # "pe" and "de" take the bare name
    priest = refusal(pos("high_priest", "king", "b:dragon"), "high_priest")
    assert render(priest, "ro") == "Marele Preot se poate juca doar pe Regină sau Rege"
    copy = play(pos("impostor king", "x", "b:tower a:assassin b:dragon"), "impostor", copy="tower", burn="king")
    message = copy.history[-2]["message"]
    assert render(message, "fa") == "بدل در نقش برج روی اژدها: با قابلیت برج و سوزاندن پادشاه"
    assert render(message, "ro") == "Impostorul ca Turn pe Dragon: permis de Turn, iar Regele arde"
    lost = play(pos("king assassin", "queen peasant", "b:dragon"), "king").history[-1]["message"]
    assert render(lost, "fa", PERSIAN_NAMES) == "بابک نمی‌تواند بازی کند (هیچ حرکت مجازی ندارد): آنا برنده است"
    assert render(lost, "ro") == "Bob nu mai poate juca (nicio mutare permisă): câștigă Ann"


def test_explain_for_the_impostor_says_no_copy_works():
    # HIER-D1 Impostor HIER-D9: two copies possible, neither playable under the Usurper (the King 13, the Dragon 9)
    state = pos("impostor", "x", "b:king b:dragon b:usurper")
    reason = GAME.explain(state, 0, IMPOSTOR)
    assert reason == why("no_other_copy", why={"reason": why(
        "lower_than", top=c("usurper"), limit=7, card=c("impostor", "king"), number=13).to_json()})
    assert render(reason) == ("The Usurper on top: the next card must be lower than 7 (the Impostor as the King is 13) "
                              "(and no other copy is playable either)")


def test_views_carry_the_reasons_and_the_card_names_to_render_them():
    state = pos("impostor tower knight king", "x", "b:usurper")
    view = GAME.view(state, 0)
    assert view["blocked"]["knight"] == {"key": "hier.why.not_higher", "params": {
        "card": {"card": "knight"}, "number": 6, "top": {"card": "usurper"}, "top_number": 7}}
    assert set(view["blocked"]) == {"impostor", "knight", "king"}
    json.dumps(view)  # plain data
    assert view["names"] == NAMES and set(NAMES) == set(CARDS)
    assert NAMES["queen"] == {"name": {"en": "Queen", "fa": "ملکه", "ro": "Regina"}, "bare": {"ro": "Regină"}}
    assert str(Reason("hier.why.lower_than", {"card": c("impostor", "king"), "limit": 7})) == \
        "hier.why.lower_than card=impostor=king limit=7"

"""Compact Hierarchy positions from short strings.

``pos("knight prince", "dragon", "a:tower b:dragon")``: seat a (0) holds the Knight and the Prince, seat b (1) the
Dragon; the line is the Tower played by a, then the Dragon played by b (top). An Impostor in the line is written
``a:impostor=dragon``. ``x`` in a hand stands for any card not otherwise in the position. ``turn`` is "a" or "b"; by default, the seat that did not play the top card.
"""

from __future__ import annotations

from typing import Any

from engine.core import Context, IllegalAction, Slot
from engine.hierarchy.game import HierarchyGame, HierarchyState, IllegalPlay, replace
from engine.hierarchy.rules import CARDS, ORDER, Reason, sort_hand

GAME = HierarchyGame()
SEATS = {"a": 0, "b": 1}


def start(seed: int = 1, now: int = 0, **settings: Any) -> HierarchyState:
    """A freshly dealt game."""
    chosen = GAME.info.parse_settings(settings)
    return GAME.setup([Slot(0, "Ann"), Slot(1, "Bob")], Context(seed, chosen), now)


def pos(a: str = "", b: str = "", line: str = "", turn: str | None = None, burned: str = "") -> HierarchyState:
    """A position: hands of a and b, the line bottom first, whose turn."""
    entries = []
    for token in line.split():
        seat, card = token.split(":")
        copy = None
        if "=" in card:
            card, copy = card.split("=")
        entries.append((card, SEATS[seat], copy))
    used = set(a.split()) | set(b.split()) | {e[0] for e in entries} | set(burned.split())
    filler = next((c for c in reversed(ORDER) if c not in used), None)  # "x": any card not otherwise in the position
    a, b = (" ".join(filler if c == "x" else c for c in hand.split() if filler or c != "x") for hand in (a, b))
    if turn is None:
        turn = "b" if entries and entries[-1][1] == 0 else "a"
    state = start()
    return replace(state, hands=(sort_hand(a.split()), sort_hand(b.split())), line=tuple(entries),
                   burned=tuple((c, 0) for c in burned.split()), turn=SEATS[turn], pending=None, winner=None,
                   first=0, deadline_ms=60_000, history=())


def play(state: HierarchyState, card: str, seat: str | None = None, **extra: str) -> HierarchyState:
    """The current (or given) seat plays a card, through the payload a phone sends."""
    who = state.turn if seat is None else SEATS[seat]
    return GAME.apply(state, who, GAME.parse_action({"play": card, **extra}), 1000)


def give_back(state: HierarchyState, card: str) -> HierarchyState:
    """The pending Surgeon return's chooser returns this card."""
    return GAME.apply(state, state.pending[1], GAME.parse_action({"return": card}), 1000)


def can(state: HierarchyState, card: str, **extra: str) -> bool:
    """Whether the seat to move may play this card (with these choices)."""
    try:
        play(state, card, **extra)
    except IllegalAction:
        return False
    return True


def refusal(state: HierarchyState, card: str, **extra: str) -> Reason:
    """The reason of the IllegalPlay refusing this play (fails if it is allowed, or refused for another cause)."""
    try:
        play(state, card, **extra)
    except IllegalPlay as error:
        assert error.message == str(error.reason)  # the developer form, for logs
        return error.reason
    raise AssertionError(f"{card} {extra} was allowed")


def render(message: Reason | dict[str, Any], lang: str = "en", names: tuple[str, ...] = ("Ann", "Bob")) -> str:
    """An explanation as a page shows it, through the catalogs: the same steps as host/static/games/hierarchy.js
    (cards by name, the bare form where asked, Persian digits, player names, nested reasons, a capital first)."""
    from host.i18n import translate

    def card_name(card: str, form: str | None) -> str:
        return (CARDS[card].bare.get(lang) if form == "bare" else None) or CARDS[card].name[lang]

    def phrase(param: dict[str, Any]) -> str:
        if param.get("copy"):
            return translate(lang, "hier.ref.copy", name=card_name(param["copy"], "bare"))
        return translate(lang, "hier.ref.card", name=card_name(param["card"], param.get("form")))

    def value(param: Any) -> Any:
        if not isinstance(param, dict):
            return param
        if "card" in param:
            return phrase(param)
        if "cards" in param:
            texts = [phrase({"card": c, "form": param.get("form")}) for c in param["cards"]]
            text = texts[0]
            for other in texts[1:]:
                text = translate(lang, "hier.join." + param["join"], a=text, b=other)
            return text
        if "seat" in param:
            return names[param["seat"]]
        return sentence(param["reason"])

    def sentence(reason: dict[str, Any]) -> str:
        return translate(lang, reason["key"], **{k: value(v) for k, v in reason["params"].items()})

    text = sentence(message.to_json() if isinstance(message, Reason) else message)
    return text[:1].upper() + text[1:]


def plays(state: HierarchyState) -> set[str]:
    """The cards the seat to move may play in some way."""
    return {a[1] for a in GAME.legal_actions(state, state.turn) if a[0] == "play"}


def line_ids(state: HierarchyState) -> list[str]:
    """The line as card ids, bottom first."""
    return [e[0] for e in state.line]

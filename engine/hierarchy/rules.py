"""Hierarchy's rules as pure functions over plain tuples (docs/rules/hierarchy.md, its decisions override the seed rules).

The engine (game.py) and the bots' search (bots.py) share these, so every card's condition and ability is
implemented once, here, from the data in cards.json.

A position is made of:

- ``hand``: a tuple of card ids in card order (the Impostor first);
- ``line``: a tuple of ``(card, owner seat, copied card or None)``, bottom first; its last entry is the top card;
- ``pending``: ``None`` or a Surgeon return still to be chosen, ``(stage, chooser, surgeon seat)`` with stage 1
  (the Surgeon's player returns an opponent's card) or 2 (the opponent returns one of the Surgeon player's cards).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

IMPOSTOR = "impostor"
SURGEON = "surgeon"
SORCERER = "sorcerer"

ABILITIES = {"copy", "play_on_except", "play_on_odd", "burn_for_higher", "surgeon_returns", "play_on_names",
             "play_on_higher", "play_on_royal"}
CONDITIONS = {"line_count_at_most", "only_on", "needs_in_line"}
RESTRICTIONS = {"odd_only", "lower_than", "silence"}

Entry = tuple[str, int, str | None]  # a line card: (card, owner seat, the card an Impostor copies or None)
Line = tuple[Entry, ...]  # bottom first
Hand = tuple[str, ...]  # in card order
Hands = tuple[Hand, Hand]  # by seat
Pending = tuple[int, int, int]  # a Surgeon return to choose: (stage, chooser, surgeon seat)
Play = tuple[str, str | None, str | None]  # a legal play: (card, copy, burn)
# An action of the engine (HierarchyGame.parse_action) and a move of the bots' search: a Surgeon return of a line
# card, or a play with its copy and burn.
Action = tuple[Literal["return"], str] | tuple[Literal["play"], str, str | None, str | None]


@dataclass(frozen=True)
class Card:
    """One card as the data file describes it."""

    id: str
    number: int | None  # None: the Impostor ("?")
    line_number: int | None  # its number once in the line (the Peasant: 7)
    royal: bool
    weight: int  # how many cards it counts as in the line (the Tower: 2)
    ability: str | None
    ability_cards: tuple[str, ...]
    condition: str | None
    condition_cards: tuple[str, ...]
    condition_number: int | None
    restriction: str | None
    restriction_number: int | None
    starts: bool
    name: dict[str, str]
    text: dict[str, str]
    bare: dict[str, str]  # the name without its article where a language has such a form (Romanian "Cavaler")

    @property
    def en(self) -> str:
        """The English name."""
        return self.name["en"]


def load_cards(path: Path | None = None) -> dict[str, Card]:
    """The cards of the data file, checked: 14 distinct ids, known kinds, one Impostor that starts."""
    data = json.loads((path or Path(__file__).with_name("cards.json")).read_text(encoding="utf-8"))
    cards: dict[str, Card] = {}
    for raw in data["cards"]:
        ability = raw.get("ability") or {}
        condition = raw.get("condition") or {}
        restriction = raw.get("restriction") or {}
        number = raw["number"]
        card = Card(
            id=raw["id"], number=None if number == "?" else int(number),
            line_number=None if number == "?" else int(raw.get("line_number", number)),
            royal=bool(raw.get("royal")), weight=int(raw.get("line_weight", 1)),
            ability=ability.get("kind"), ability_cards=tuple(ability.get("cards", ())),
            condition=condition.get("kind"), condition_cards=tuple(condition.get("cards", ())),
            condition_number=condition.get("number"),
            restriction=restriction.get("kind"), restriction_number=restriction.get("number"),
            starts=bool(raw.get("starts")), name=dict(raw["name"]), text=dict(raw["text"]),
            bare=dict(raw.get("bare", {})))
        if card.id in cards:
            raise ValueError(f"card {card.id} twice")
        for kind, known in ((card.ability, ABILITIES), (card.condition, CONDITIONS),
                            (card.restriction, RESTRICTIONS)):
            if kind is not None and kind not in known:
                raise ValueError(f"card {card.id}: unknown kind {kind}")
        if (card.condition == "line_count_at_most" and card.condition_number is None) or \
                (card.restriction == "lower_than" and card.restriction_number is None):
            raise ValueError(f"card {card.id}: its condition or restriction needs a number")
        for lang in ("en", "fa", "ro"):
            if not card.name.get(lang) or not card.text.get(lang):
                raise ValueError(f"card {card.id}: no {lang} name or text")
        if not set(card.bare) <= {"en", "fa", "ro"} or not all(card.bare.values()):
            raise ValueError(f"card {card.id}: a bare name must be a non-empty en, fa or ro name")
        cards[card.id] = card
    if len(cards) != 14 or [c.id for c in cards.values() if c.starts] != [IMPOSTOR] or cards[IMPOSTOR].number is not None:
        raise ValueError("Hierarchy needs 14 cards and the Impostor, numbered ?, as the one that starts")
    for card in cards.values():
        for other in card.ability_cards + card.condition_cards:
            if other not in cards:
                raise ValueError(f"card {card.id} names an unknown card {other}")
    return cards


CARDS = load_cards()
ORDER = tuple(CARDS)  # the data file's order: ?, 1, 2, ... 13
INDEX = {c: i for i, c in enumerate(ORDER)}


def name(card: str) -> str:
    """A card's English name (for logs and the simulator; players see names in their own language)."""
    return CARDS[card].en


def ident(entry: Entry) -> str:
    """What a line card is: its copy for the Impostor (HIER-D9), else itself. Only an Impostor carries a copy, and
    always one (``check``: must_copy, only_impostor_copies)."""
    return entry[2] or entry[0]


# ----- explanations as data -----


@dataclass(frozen=True)
class Reason:
    """An explanation as data: an i18n key (host/i18n/hierarchy.<lang>.json) and its params.

    A param is a number, a card (``card_param``), a list of cards (``cards_param``), a seat (``seat_param``) or a
    nested reason (``reason_param``); the pages render cards by their names in the page's language, numbers in its
    digits and seats by the players' names.
    """

    key: str
    params: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The form carried in views and history: ``{"key": ..., "params": {...}}``."""
        return {"key": self.key, "params": dict(self.params)}

    def with_params(self, **params: Any) -> Reason:
        """The same key with more params."""
        return Reason(self.key, {**self.params, **params})

    def __str__(self) -> str:
        """A compact developer form for logs and IllegalAction messages: ``hier.why.x card=king number=13``."""
        return " ".join([self.key, *(f"{k}={_param_text(v)}" for k, v in self.params.items())])


def _param_text(value: Any) -> str:
    if isinstance(value, dict):
        if "card" in value:
            return str(value["card"]) + (f"={value['copy']}" if value.get("copy") else "")
        if "cards" in value:
            return f" {value['join']} ".join(value["cards"])
        if "seat" in value:
            return f"seat{value['seat']}"
        if "reason" in value:
            reason = value["reason"]
            return "(" + str(Reason(reason["key"], reason["params"])) + ")"
    return str(value)


def why(name: str, **params: Any) -> Reason:
    """A reason a play is not allowed: the key ``hier.why.<name>``."""
    return Reason("hier.why." + name, params)


def card_param(card: str, copy: str | None = None, bare: bool = False) -> dict[str, Any]:
    """A card as a param: ``{"card": id}``, with ``"copy"`` for an Impostor that copies a card (HIER-D9) and
    ``"form": "bare"`` where a language needs the name without its article (Romanian after "pe" and "de")."""
    param: dict[str, Any] = {"card": card}
    if card == IMPOSTOR and copy is not None:
        param["copy"] = copy
    if bare:
        param["form"] = "bare"
    return param


def entry_param(entry: Entry, bare: bool = False) -> dict[str, Any]:
    """A line card as a param, the Impostor with its copy."""
    return card_param(entry[0], entry[2], bare)


def cards_param(cards: tuple[str, ...], join: str, bare: bool = False) -> dict[str, Any]:
    """Several cards as one param, joined by ``hier.join.and`` or ``hier.join.or``."""
    param: dict[str, Any] = {"cards": list(cards), "join": join}
    if bare:
        param["form"] = "bare"
    return param


def seat_param(seat: int) -> dict[str, int]:
    """A player as a param, shown by the name in their seat."""
    return {"seat": seat}


def reason_param(reason: Reason) -> dict[str, Any]:
    """A reason inside another one."""
    return {"reason": reason.to_json()}


def line_count(line: Line) -> int:
    """Cards in the line now, the Tower (or its copy) as two (HIER-D5)."""
    return sum(CARDS[ident(e)].weight for e in line)


def in_line(line: Line, card: str) -> bool:
    """Whether the card, or an Impostor copying it, is in the line (HIER-D9)."""
    return any(ident(e) == card for e in line)


def copy_targets(line: Line, seat: int) -> list[str]:
    """The cards the seat's Impostor may copy: the opponent's colour, in the line (HIER-D1)."""
    return [e[0] for e in line if e[1] != seat]


def check(hand: Hand, line: Line, seat: int, card: str, copy: str | None = None,
          burn: str | None = None) -> tuple[bool, Reason]:
    """(True, why it is allowed) or (False, why not), the checks in HIER-D2's order.

    A refusal is a complete ``hier.why.*`` reason. An allowance is one of ``hier.log.opens``, ``hier.log.higher``,
    ``hier.log.ability`` or ``hier.log.burn``, whose ``card`` and ``top`` params the engine adds when it writes
    the play into the history.
    """
    if card not in hand:
        return False, why("not_held", card=card_param(card))
    top = line[-1] if line else None
    top_id = ident(top) if top is not None else None
    silenced = top_id is not None and CARDS[top_id].restriction == "silence"  # HIER-R26, D11
    if card == IMPOSTOR:
        if silenced and top is not None:
            return False, why("silenced_impostor", top=entry_param(top))
        targets = copy_targets(line, seat)
        if not targets:
            return False, why("nothing_to_copy")
        if copy is None:
            return False, why("must_copy")
        if copy not in targets:
            return False, why("not_copyable", card=card_param(copy))
    elif copy is not None:
        return False, why("only_impostor_copies")
    as_ = card_param(card, copy)
    played = CARDS[card if copy is None else copy]  # an Impostor has its copy by now, any other card none
    if burn is not None and (burn == card or burn not in hand):
        return False, why("burn_own")
    # (1) the new card's condition, unless the Sorcerer silences it
    if not silenced and played.condition is not None:
        if played.condition == "line_count_at_most":
            limit = played.condition_number
            assert limit is not None  # load_cards checks every "line_count_at_most" has its number
            if line_count(line) > limit:
                return False, why("line_too_long", card=as_, limit=limit, count=line_count(line))
        if played.condition == "only_on" and top_id not in played.condition_cards:
            return False, why("only_on", card=as_, cards=cards_param(played.condition_cards, "or", bare=True))
        if played.condition == "needs_in_line" and not all(in_line(line, c) for c in played.condition_cards):
            return False, why("needs_in_line", card=as_, cards=cards_param(played.condition_cards, "and"))
    if top is None or top_id is None:
        if burn is not None:
            return False, why("no_burn")
        return True, Reason("hier.log.opens")
    number = played.number
    top_number = CARDS[top_id].line_number
    # only the Impostor has no number, and it is played as the card it copies and lies in the line as that card
    assert number is not None and top_number is not None
    # (2) the top card's restriction always wins (HIER-R15)
    restriction = CARDS[top_id].restriction
    if restriction == "odd_only" and number % 2 == 0:
        return False, why("odd_only", top=entry_param(top), card=as_, number=number)
    if restriction == "lower_than":
        limit = CARDS[top_id].restriction_number
        assert limit is not None  # load_cards checks every "lower_than" has its number
        if not number < limit:
            return False, why("lower_than", top=entry_param(top), limit=limit, card=as_, number=number)
    # (3) a higher number, or an unsuppressed ability or condition naming this top card
    if number > top_number:
        if burn is not None:
            return False, why("no_burn")
        return True, Reason("hier.log.higher", {"number": number, "top_number": top_number})
    if silenced:
        return False, why("silenced", top=entry_param(top), card=as_, number=number, top_number=top_number)
    ability = played.ability
    allowed = False
    if played.condition == "only_on" and top_id in played.condition_cards:
        allowed = True
    elif ability == "play_on_except":
        allowed = top_id not in played.ability_cards
        if not allowed:
            return False, why("except", card=as_, cards=cards_param(played.ability_cards, "and", bare=True))
    elif ability == "play_on_odd":
        allowed = top_number % 2 == 1
    elif ability == "play_on_names":
        allowed = top_id in played.ability_cards
    elif ability == "play_on_royal":
        allowed = CARDS[top_id].royal
    elif ability == "play_on_higher":
        allowed = top_number > number
    elif ability == "burn_for_higher" and top_number > number:  # HIER-D10
        if burn is None:
            if len(hand) < 2:
                return False, why("last_card", card=as_)
            return False, why("needs_burn", card=as_)
        return True, Reason("hier.log.burn", {"by": card_param(played.id, bare=True), "burn": card_param(burn)})
    if allowed:
        if burn is not None:
            return False, why("no_burn")
        return True, Reason("hier.log.ability", {"by": card_param(played.id, bare=True)})
    return False, why("not_higher", card=as_, number=number, top=entry_param(top), top_number=top_number)


def _above(top: Entry, card: str) -> bool:
    """Whether the top card's number in the line is higher than the card's (neither is the Impostor itself)."""
    top_number, number = CARDS[ident(top)].line_number, CARDS[card].number
    assert top_number is not None and number is not None
    return top_number > number


def plays(hand: Hand, line: Line, seat: int) -> list[Play]:
    """Every legal (card, copy, burn) for the seat, in card order."""
    result: list[Play] = []
    for card in hand:
        copies: Sequence[str | None] = copy_targets(line, seat) if card == IMPOSTOR else (None,)
        for copy in copies:
            played = card if copy is None else copy  # the Impostor's copies are cards, any other card has none
            if CARDS[played].ability == "burn_for_higher" and line and _above(line[-1], played):
                for burn in hand:
                    if burn != card and check(hand, line, seat, card, copy, burn)[0]:
                        result.append((card, copy, burn))
            elif check(hand, line, seat, card, copy, None)[0]:
                result.append((card, copy, None))
    return result


def has_play(hand: Hand, line: Line, seat: int) -> bool:
    """Whether the seat has any legal play (HIER-D4)."""
    for card in hand:
        copies: Sequence[str | None] = copy_targets(line, seat) if card == IMPOSTOR else (None,)
        for copy in copies:
            if check(hand, line, seat, card, copy, None)[0]:
                return True
            played = card if copy is None else copy
            if CARDS[played].ability == "burn_for_higher" and any(
                    check(hand, line, seat, card, copy, b)[0] for b in hand if b != card):
                return True
    return False


def sort_hand(cards: Iterable[str]) -> Hand:
    """Cards in card order."""
    return tuple(sorted(cards, key=INDEX.__getitem__))


def _remove(hand: Hand, *cards: str | None) -> Hand:
    return tuple(c for c in hand if c not in cards)


def _set(pair: Hands, seat: int, value: Hand) -> Hands:
    return (value, pair[1]) if seat == 0 else (pair[0], value)


def do_play(hands: Hands, line: Line, seat: int, card: str, copy: str | None, burn: str | None
            ) -> tuple[Hands, Line, Pending | None]:
    """(hands, line, pending) after a legal play; a Surgeon (or its copy) opens its returns (HIER-R25)."""
    hands = _set(hands, seat, _remove(hands[seat], card, burn))
    line = line + ((card, seat, copy),)
    pending = None
    if (copy if card == IMPOSTOR else card) == SURGEON:
        pending = next_pending(line, (0, seat, seat))
    return hands, line, pending


def return_options(line: Line, pending: Pending) -> list[str]:
    """The line cards the chooser may return now: the opponent's at stage 1, the Surgeon player's other than the
    Surgeon itself (the top card) at stage 2."""
    stage, _chooser, surgeon_seat = pending
    if stage == 1:
        return [e[0] for e in line if e[1] != surgeon_seat]
    return [e[0] for e in line[:-1] if e[1] == surgeon_seat]


def next_pending(line: Line, pending: Pending) -> Pending | None:
    """The next Surgeon return that has an eligible card, or None (each return is skipped if none exists)."""
    stage, _chooser, surgeon_seat = pending
    for next_stage in range(stage + 1, 3):
        candidate = (next_stage, surgeon_seat if next_stage == 1 else 1 - surgeon_seat, surgeon_seat)
        if return_options(line, candidate):
            return candidate
    return None


def do_return(hands: Hands, line: Line, pending: Pending, card: str) -> tuple[Hands, Line, Pending | None]:
    """(hands, line, next pending) after returning a card to its owner's hand; an Impostor forgets its copy and the
    line closes up, keeping its order."""
    index = next(i for i, e in enumerate(line) if e[0] == card)
    owner = line[index][1]
    line = line[:index] + line[index + 1:]
    hands = _set(hands, owner, sort_hand(hands[owner] + (card,)))
    return hands, line, next_pending(line, pending)

"""Hierarchy's rules as pure functions over plain tuples (../shared/rules/hierarchy.md, section A overrides B).

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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

IMPOSTOR = "impostor"
SURGEON = "surgeon"
SORCERER = "sorcerer"

ABILITIES = {"copy", "play_on_except", "play_on_odd", "burn_for_higher", "surgeon_returns", "play_on_names",
             "play_on_higher", "play_on_royal"}
CONDITIONS = {"line_count_at_most", "only_on", "needs_in_line"}
RESTRICTIONS = {"odd_only", "lower_than", "silence"}


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
            starts=bool(raw.get("starts")), name=dict(raw["name"]), text=dict(raw["text"]))
        if card.id in cards:
            raise ValueError(f"card {card.id} twice")
        for kind, known in ((card.ability, ABILITIES), (card.condition, CONDITIONS),
                            (card.restriction, RESTRICTIONS)):
            if kind is not None and kind not in known:
                raise ValueError(f"card {card.id}: unknown kind {kind}")
        for lang in ("en", "fa", "ro"):
            if not card.name.get(lang) or not card.text.get(lang):
                raise ValueError(f"card {card.id}: no {lang} name or text")
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
    """A card's English name."""
    return CARDS[card].en


def ident(entry: tuple[str, int, str | None]) -> str:
    """What a line card is: its copy for the Impostor (HIER-D9), else itself."""
    return entry[2] if entry[0] == IMPOSTOR else entry[0]


def entry_name(entry: tuple[str, int, str | None]) -> str:
    """"the Dragon", or "the Impostor (as the Dragon)"."""
    if entry[0] == IMPOSTOR:
        return f"the Impostor (as the {name(entry[2])})"
    return f"the {name(entry[0])}"


def line_count(line: tuple) -> int:
    """Cards in the line now, the Tower (or its copy) as two (HIER-D5)."""
    return sum(CARDS[ident(e)].weight for e in line)


def in_line(line: tuple, card: str) -> bool:
    """Whether the card, or an Impostor copying it, is in the line (HIER-D9)."""
    return any(ident(e) == card for e in line)


def copy_targets(line: tuple, seat: int) -> list[str]:
    """The cards the seat's Impostor may copy: the opponent's colour, in the line (HIER-D1)."""
    return [e[0] for e in line if e[1] != seat]


def check(hand: tuple[str, ...], line: tuple, seat: int, card: str, copy: str | None = None,
          burn: str | None = None) -> tuple[bool, str]:
    """(True, why it is allowed) or (False, why not), the checks in HIER-D2's order."""
    if card not in hand:
        return False, f"you do not hold the {name(card)}"
    top = line[-1] if line else None
    top_id = ident(top) if top is not None else None
    silenced = top_id is not None and CARDS[top_id].restriction == "silence"  # HIER-R26, D11
    if card == IMPOSTOR:
        if silenced:
            return False, (f"the {name(top_id)} on top: the Impostor has no number in hand, so it cannot be played")
        if copy is None:
            return False, "the Impostor must copy an opponent's card in the line"
        if copy not in copy_targets(line, seat):
            if not copy_targets(line, seat):
                return False, "the Impostor needs an opponent's card in the line to copy"
            return False, f"the Impostor can only copy an opponent's card in the line, and the {name(copy)} is not one"
        as_ = f"the Impostor as the {name(copy)}"
    elif copy is not None:
        return False, "only the Impostor copies a card"
    else:
        as_ = f"the {name(card)}"
    played = CARDS[copy if card == IMPOSTOR else card]
    if burn is not None and (burn == card or burn not in hand):
        return False, "burn one other card from your own hand"
    # (1) the new card's condition, unless the Sorcerer silences it
    if not silenced and played.condition is not None:
        if played.condition == "line_count_at_most" and line_count(line) > played.condition_number:
            return False, (f"{as_} needs {played.condition_number} or fewer cards in the line "
                           f"(there are {line_count(line)}; the Tower counts as two)")
        if played.condition == "only_on" and top_id not in played.condition_cards:
            return False, f"{as_} can only be played on " + " or ".join(f"the {name(c)}" for c in played.condition_cards)
        if played.condition == "needs_in_line" and not all(in_line(line, c) for c in played.condition_cards):
            return False, f"{as_} needs " + " and ".join(f"the {name(c)}" for c in played.condition_cards) + " in the line"
    if top is None:
        if burn is not None:
            return False, "no burn: the Tower burns a card only when it is played on a higher card"
        return True, "opens the line"
    number = played.number
    top_number = CARDS[top_id].line_number
    top_name = entry_name(top)
    # (2) the top card's restriction always wins (HIER-R15)
    restriction = CARDS[top_id].restriction
    if restriction == "odd_only" and number % 2 == 0:
        return False, f"{top_name} on top: only odd-numbered cards may be played ({as_} is {number})"
    if restriction == "lower_than" and not number < CARDS[top_id].restriction_number:
        return False, (f"{top_name} on top: the next card must be lower than {CARDS[top_id].restriction_number} "
                       f"({as_} is {number})")
    # (3) a higher number, or an unsuppressed ability or condition naming this top card
    if number > top_number:
        if burn is not None:
            return False, "no burn: the Tower burns a card only when it is played on a higher card"
        return True, f"higher number ({number} > {top_number})"
    if silenced:
        return False, f"{top_name} on top: only numbers count, and {as_} ({number}) is not higher than {top_number}"
    by = f"allowed by the {played.en}"
    ability = played.ability
    allowed = False
    if played.condition == "only_on" and top_id in played.condition_cards:
        allowed = True
    elif ability == "play_on_except":
        allowed = top_id not in played.ability_cards
        if not allowed:
            return False, f"{as_} can be played on any card except " + " and ".join(
                f"the {name(c)}" for c in played.ability_cards)
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
                return False, f"{as_} is your last card, so it cannot be played on a higher card (nothing to burn)"
            return False, f"{as_} on a higher card: burn one other card from your hand"
        return True, f"allowed by the {played.en}, burning the {name(burn)}"
    if allowed:
        if burn is not None:
            return False, "no burn: the Tower burns a card only when it is played on a higher card"
        return True, by
    return False, f"{as_} ({number}) is not higher than {top_name} ({top_number}), and no ability allows it"


def plays(hand: tuple[str, ...], line: tuple, seat: int) -> list[tuple[str, str | None, str | None]]:
    """Every legal (card, copy, burn) for the seat, in card order."""
    result = []
    for card in hand:
        copies = copy_targets(line, seat) if card == IMPOSTOR else [None]
        for copy in copies:
            played = copy if card == IMPOSTOR else card
            if CARDS[played].ability == "burn_for_higher" and line and \
                    CARDS[ident(line[-1])].line_number > CARDS[played].number:
                for burn in hand:
                    if burn != card and check(hand, line, seat, card, copy, burn)[0]:
                        result.append((card, copy, burn))
            elif check(hand, line, seat, card, copy, None)[0]:
                result.append((card, copy, None))
    return result


def has_play(hand: tuple[str, ...], line: tuple, seat: int) -> bool:
    """Whether the seat has any legal play (HIER-D4)."""
    for card in hand:
        for copy in (copy_targets(line, seat) if card == IMPOSTOR else [None]):
            if check(hand, line, seat, card, copy, None)[0]:
                return True
            played = copy if card == IMPOSTOR else card
            if CARDS[played].ability == "burn_for_higher" and any(
                    check(hand, line, seat, card, copy, b)[0] for b in hand if b != card):
                return True
    return False


def sort_hand(cards: Any) -> tuple[str, ...]:
    """Cards in card order."""
    return tuple(sorted(cards, key=INDEX.__getitem__))


def _remove(hand: tuple[str, ...], *cards: str | None) -> tuple[str, ...]:
    return tuple(c for c in hand if c not in cards)


def _set(pair: tuple, seat: int, value: Any) -> tuple:
    return (value, pair[1]) if seat == 0 else (pair[0], value)


def do_play(hands: tuple, line: tuple, seat: int, card: str, copy: str | None, burn: str | None
            ) -> tuple[tuple, tuple, tuple | None]:
    """(hands, line, pending) after a legal play; a Surgeon (or its copy) opens its returns (HIER-R25)."""
    hands = _set(hands, seat, _remove(hands[seat], card, burn))
    line = line + ((card, seat, copy),)
    pending = None
    if (copy if card == IMPOSTOR else card) == SURGEON:
        pending = next_pending(line, (0, seat, seat))
    return hands, line, pending


def return_options(line: tuple, pending: tuple) -> list[str]:
    """The line cards the chooser may return now: the opponent's at stage 1, the Surgeon player's other than the
    Surgeon itself (the top card) at stage 2."""
    stage, _chooser, surgeon_seat = pending
    if stage == 1:
        return [e[0] for e in line if e[1] != surgeon_seat]
    return [e[0] for e in line[:-1] if e[1] == surgeon_seat]


def next_pending(line: tuple, pending: tuple) -> tuple | None:
    """The next Surgeon return that has an eligible card, or None (each return is skipped if none exists)."""
    stage, _chooser, surgeon_seat = pending
    for next_stage in range(stage + 1, 3):
        candidate = (next_stage, surgeon_seat if next_stage == 1 else 1 - surgeon_seat, surgeon_seat)
        if return_options(line, candidate):
            return candidate
    return None


def do_return(hands: tuple, line: tuple, pending: tuple, card: str) -> tuple[tuple, tuple, tuple | None]:
    """(hands, line, next pending) after returning a card to its owner's hand; an Impostor forgets its copy and the
    line closes up, keeping its order."""
    index = next(i for i, e in enumerate(line) if e[0] == card)
    owner = line[index][1]
    line = line[:index] + line[index + 1:]
    hands = _set(hands, owner, sort_hand(hands[owner] + (card,)))
    return hands, line, next_pending(line, pending)

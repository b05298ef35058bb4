"""Compact Avignon 1378 positions.

A board is one short string, one token per lane 1-5: a class letter and a location digit (0 Avignon .. 4 Rome), or
``.`` for an empty lane. Letters: M Monk, A Archbishop, B Bishop, K Knight, N Noble, P Peasant; upper case is the
first card of the class, lower case the second. ``board("M2 a0 B4 . N3", rome="K", avignon="p")``: conclaves are
strings of letters too. The deck defaults to every other card in id order (top first).
"""

from __future__ import annotations

from typing import Any

from engine.avignon.game import AVIGNON, ROME, AvignonGame, AvignonState, position_of, replace
from engine.core import Context, Slot

GAME = AvignonGame()
LETTERS = {"M": 0, "A": 2, "B": 4, "K": 6, "N": 8, "P": 10}


def card(letter: str) -> int:
    """The card id a letter names."""
    return LETTERS[letter.upper()] + (1 if letter.islower() else 0)


def cards(text: str) -> tuple[int, ...]:
    return tuple(card(ch) for ch in text.replace(" ", ""))


def start(seed: int = 1, **settings: Any) -> AvignonState:
    """A new game for seats 0 and 1."""
    chosen = GAME.info.parse_settings(settings)
    return GAME.setup([Slot(0, "Ann"), Slot(1, "Bob")], Context(seed, chosen), 0)


def board(lanes: str, avignon: str = "", rome: str = "", deck: str | None = None, discard: str = "",
          to_move: int = ROME, used: tuple[str, ...] = (), allowed: int = 2, prev: str | None = None,
          **changes: Any) -> AvignonState:
    """A position: seat 0 plays Avignon and seat 1 Rome; ``prev`` is the board at the start of the opponent's
    previous turn (AVIG-D4), written like ``lanes`` with the same conclaves."""
    cells = []
    for token in lanes.split():
        cells.append(None if token == "." else (card(token[0]), int(token[1])))
    assert len(cells) == 5, lanes
    conclaves = (cards(avignon), cards(rome))
    placed = {c[0] for c in cells if c is not None} | set(conclaves[0]) | set(conclaves[1]) | set(cards(discard))
    assert len(placed) == sum(1 for c in cells if c) + len(conclaves[0]) + len(conclaves[1]) + len(discard), "dup"
    deck_cards = cards(deck) if deck is not None else tuple(c for c in range(12) if c not in placed)
    lanes_t = tuple(cells)
    pos = position_of(lanes_t, conclaves)
    prev_pos = None
    if prev is not None:
        prev_pos = position_of(tuple(None if t == "." else (card(t[0]), int(t[1])) for t in prev.split()), conclaves)
    base = start()
    state = replace(base, seat_of=(0, 1), lanes=lanes_t, conclaves=conclaves, deck=deck_cards,
                    discard=cards(discard), to_move=to_move, used=used, allowed=allowed, turn_no=5,
                    turn_start=pos, prev_start=prev_pos, seen={(pos, to_move): 1}, history=())
    return replace(state, **changes) if changes else state


def act(state: AvignonState, *payloads: dict[str, Any], seat: int | None = None) -> AvignonState:
    """Apply payloads in order for the player to move (parsed like a client's)."""
    for payload in payloads:
        who = state.seat_of[state.to_move] if seat is None else seat
        state = GAME.apply(state, who, GAME.parse_action(payload), 0)
    return state


def lanes_of(state: AvignonState) -> str:
    """The board back in the compact form."""
    names = {v + i: (k if i == 0 else k.lower()) for k, v in LETTERS.items() for i in (0, 1)}
    return " ".join("." if c is None else f"{names[c[0]]}{c[1]}" for c in state.lanes)


def conclave(state: AvignonState, role: int) -> str:
    names = {v + i: (k if i == 0 else k.lower()) for k, v in LETTERS.items() for i in (0, 1)}
    return "".join(names[c] for c in state.conclaves[role])


__all__ = ["AVIGNON", "GAME", "ROME", "act", "board", "card", "cards", "conclave", "lanes_of", "start"]


def pull(lane):
    """The payload of a Pull on a lane (likewise push and banish)."""
    return {"action": "pull", "lane": lane}


def push(lane):
    return {"action": "push", "lane": lane}


def banish(lane):
    return {"action": "banish", "lane": lane}

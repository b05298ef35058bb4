"""Extended time in Hierarchy (HIER-X1): the mover's turn lasts its factor x the turn time."""

from __future__ import annotations

import pytest

from engine.core import Context, InvalidAction, Slot
from engine.hierarchy.game import HierarchyState
from tests.hierarchy.fixtures import GAME

TURN = 60_000  # turn_seconds default


def start_x(factors: tuple[float, ...], seed: int = 1) -> HierarchyState:
    chosen = GAME.info.parse_settings({})
    return GAME.setup([Slot(0, "Ann"), Slot(1, "Bob")], Context(seed, chosen, 1.0, None, factors), 0)


def test_the_extended_movers_turn_is_longer_and_only_its_own_screen_shows_it():
    # HIER-X1: seat with x2 moves: its turn ends at 2 x the turn time; the TV and the opponent see the standard turn
    state = start_x((2.0, 2.0))
    mover = state.actor
    assert GAME.deadline(state) == 2 * TURN
    assert GAME.clock(state, mover) == 2 * TURN == GAME.view(state, mover)["deadline_ms"]
    assert GAME.clock(state, None) == TURN == GAME.view(state, 1 - mover)["deadline_ms"] == GAME.view(state, None)[
        "deadline_ms"]


def test_a_move_after_the_standard_turn_is_taken_and_the_next_turn_has_the_next_movers_factor():
    # HIER-X1: the x1.5 seat plays 80 s into its turn; then the standard opponent has a standard turn
    first = start_x((1.0, 1.0)).actor
    factors = (1.5, 1.0) if first == 0 else (1.0, 1.5)
    state = start_x(factors)
    assert GAME.deadline(state) == 90_000
    state = GAME.apply(state, first, GAME.legal_actions(state, first)[0], 80_000)
    if state.winner is None and state.actor == 1 - first:
        assert GAME.deadline(state) == 80_000 + TURN
        assert GAME.clock(state, None) == GAME.clock(state, first) == 80_000 + TURN


def test_a_timeout_after_the_extended_turn_plays_for_the_seat_and_replays_the_same():
    # HIER-X1: the timeout fires at the end of the longer turn; deterministic like every timeout
    def play() -> HierarchyState:
        state = start_x((2.0, 2.0), seed=4)
        return GAME.on_timeout(state, GAME.deadline(state))

    assert play() == play()
    assert play().plays == 1


def test_a_factor_set_during_a_turn_counts_from_the_next_move_and_bad_ones_are_refused():
    # HIER-X1
    state = start_x((1.0, 1.0))
    mover = state.actor
    state = GAME.set_time_factor(state, mover, 2, 1_000)
    assert GAME.deadline(state) == TURN
    with pytest.raises(InvalidAction) as error:
        GAME.set_time_factor(state, mover, 3, 1_000)
    assert error.value.field == "factor"

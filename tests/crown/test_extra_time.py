"""Extended time in Seizing the Crown (CROWN-X1): every window stretched by the largest factor of the houses people
play, the same for every house."""

from __future__ import annotations

from engine.core import Context, Slot
from engine.crown.game import CrownState
from tests.crown.fixtures import GAME


def start_x(factors: tuple[float, ...], bots: tuple[bool, ...] = (False,) * 5) -> CrownState:
    chosen = GAME.info.parse_settings({})
    return GAME.setup([Slot(i, f"P{i}", bots[i]) for i in range(5)], Context(1, chosen, 1.0, None, factors), 0)


def test_a_house_with_more_time_stretches_the_window_for_every_house():
    # CROWN-X1: the initial council's voting window grows by x1.5, one clock for the TV and every phone
    plain = start_x(())
    state = start_x((1.0, 1.0, 1.5, 1.0, 1.0))
    assert GAME.deadline(state) == plain.council_ms * 3 // 2
    assert {GAME.clock(state, s) for s in (None, 0, 2)} == {GAME.deadline(state)}


def test_a_bots_factor_does_not_count_and_a_change_counts_from_the_next_window():
    # CROWN-X1: only houses people play stretch the windows; a change during a window leaves it as it is
    plain = start_x(())
    assert GAME.deadline(start_x((2.0,) + (1.0,) * 4, bots=(True, False, False, False, False))) == plain.council_ms
    state = GAME.set_time_factor(plain, 3, 2, 10)
    assert GAME.deadline(state) == plain.council_ms
    state = GAME.on_timeout(state, GAME.deadline(state))  # the council's window ends: the next one is stretched
    assert GAME.deadline(state) is not None
    assert state.window_ms in (2 * state.day_ms, 2 * state.council_ms, 2 * state.react_ms)


def test_a_replay_with_factors_gives_the_same_game():
    # CROWN-X1: deterministic
    def play() -> CrownState:
        state = start_x((1.0, 2.0, 1.0, 1.0, 1.0))
        return GAME.on_timeout(state, GAME.deadline(state))

    assert play() == play()

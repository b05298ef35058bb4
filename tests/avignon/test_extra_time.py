"""Extended time in Avignon 1378 (AVIG-X1): the mover's turn lasts its factor x the turn time."""

from __future__ import annotations

from engine.avignon.game import ROME, AvignonState
from engine.core import Context, Slot
from tests.avignon.fixtures import GAME


def start_x(factors: tuple[float, ...], seed: int = 1) -> AvignonState:
    chosen = GAME.info.parse_settings({})
    return GAME.setup([Slot(0, "Ann"), Slot(1, "Bob")], Context(seed, chosen, 1.0, None, factors), 0)


def test_the_extended_movers_turn_is_longer_and_only_its_own_screen_shows_it():
    # AVIG-X1: Rome moves first; with x1.5 its turn lasts 1.5 x the turn time, the TV and Avignon see the standard
    plain = start_x((1.0, 1.0))
    turn = plain.turn_ms
    rome = plain.seat_of[ROME]
    state = start_x(tuple(1.5 if s == rome else 1.0 for s in range(2)))
    assert GAME.deadline(state) == turn * 3 // 2
    assert GAME.view(state, rome)["deadline_ms"] == turn * 3 // 2
    assert GAME.view(state, None)["deadline_ms"] == turn == GAME.view(state, 1 - rome)["deadline_ms"]


def test_the_next_turn_takes_the_next_movers_factor_and_a_timeout_replays_the_same():
    # AVIG-X1: the timeout at the end of the longer turn plays for the seat; the opponent's turn is standard
    plain = start_x((1.0, 1.0))
    rome = plain.seat_of[ROME]
    factors = tuple(2.0 if s == rome else 1.0 for s in range(2))

    def play() -> AvignonState:
        state = start_x(factors)
        return GAME.on_timeout(state, GAME.deadline(state))

    after = play()
    assert after == play()
    if after.winner is None:
        now = 2 * plain.turn_ms
        assert after.seat_of[after.to_move] == 1 - rome and GAME.deadline(after) == now + plain.turn_ms
    later = GAME.set_time_factor(after, 1 - rome, 2, 0)  # counts from that seat's next turn
    assert GAME.deadline(later) == GAME.deadline(after)

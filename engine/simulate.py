"""Headless games of any engine, driven exactly as a room drives them (host/service.py ``_tick_room``).

``setup`` builds a game as a room starts one: slots, a ``Context`` (seed, settings, timer scale, the content the game
``prepare``s) and the initial state. ``play`` then runs it on a simulated clock: each seat a bot plays is asked for
its move whenever the game's ``step`` changed (``bot_action``, or a per-seat policy callable in its place), the move
is applied when its delay is due, the current deadline fires ``on_timeout``, and a game that waits for its host
(nothing timed, no bot with a move) gets the host's Next (``host_next``). Every event goes into a log of
(kind, seat, action JSON, game ms), the form the room logs, and ``replay`` rebuilds the state from it.

The game-specific parts of ``throneroom simulate`` (settings, bot levels, summary figures) live in host/cli.py; the
engine contract test (tests/test_engine_contract.py) plays every registered game through here with random policies.
Pure Python like the engines: no clock, no global ``random``; bot choices come from seeded generators.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from engine.core import Context, Game, IllegalAction, Rng, Slot

S = TypeVar("S")

ACTION, TIMEOUT, NEXT = "action", "timeout", "next"
Event = tuple[str, int | None, Any, int]  # (kind, seat or None, action JSON or None, game ms)
Policy = Callable[[Any, int, Rng], tuple[Any, int] | None]  # (state, seat, rng) -> (action JSON, delay ms) or None
MAX_EVENTS = 100_000


class GameDidNotEnd(RuntimeError):
    """A simulated game went past its event cap, or got stuck (nothing timed, no move, no host's Next)."""


@dataclass(frozen=True)
class Table(Generic[S]):
    """A game as a room starts it: the game, its seats, the context it was set up with and the initial state."""

    game: Game[S, Any]
    slots: tuple[Slot, ...]
    ctx: Context
    state: S
    now_ms: int = 0


@dataclass
class Played(Generic[S]):
    """A game played by ``play``: the table it started from, the state it reached and the log that leads there."""

    table: Table[S]
    state: S
    log: list[Event] = field(default_factory=list)
    refused: int = 0  # bot moves the rules refused when they came due (the room drops them and asks again)
    finished: bool = False  # False: ``stop`` ended the simulation before the game was over

    @property
    def actions(self) -> int:
        """Actions applied (timeouts and the host's Nexts not counted)."""
        return sum(1 for kind, *_ in self.log if kind == ACTION)

    @property
    def timeouts(self) -> int:
        """Deadlines that fired."""
        return sum(1 for kind, *_ in self.log if kind == TIMEOUT)

    @property
    def attempts(self) -> int:
        """Every event tried: the logged ones and the refused moves (a room's sequence number advances the same)."""
        return len(self.log) + self.refused

    @property
    def game_ms(self) -> int:
        """The game time of the last event."""
        return self.log[-1][3] if self.log else self.table.now_ms


def bot_slots(count: int) -> tuple[Slot, ...]:
    """``count`` seats, all played by bots named Bot 1, Bot 2..."""
    return tuple(Slot(i, f"Bot {i + 1}", True) for i in range(count))


def setup(game: Game[Any, Any], seats: int | Sequence[Slot], seed: int, settings: Mapping[str, Any] | None = None,
          timer_scale: float = 1.0, supply: Any = None, now_ms: int = 0) -> Table[Any]:
    """A game set up as a room sets it up: ``settings`` over the game's defaults (not validated, so a simulation may
    name a map registered at run time), the content ``prepare`` draws (from ``supply`` if given), then ``setup``.
    ``seats``: a number of bot seats, or the slots themselves."""
    slots = bot_slots(seats) if isinstance(seats, int) else tuple(seats)
    chosen = {**game.info.default_settings(), **dict(settings or {})}
    ctx = Context(seed, chosen, timer_scale, game.prepare(chosen, seed, supply))
    return Table(game, slots, ctx, game.setup(slots, ctx, now_ms), now_ms)


def room_rng(seed: int, attempts: int, seat: int) -> Rng:
    """The generator a room gives a bot for one decision, at its ``attempts``-th event (host/room.py
    ``new_bot_rng``): a simulation draws exactly as a room does."""
    return Rng(seed ^ (attempts * 1_000_003) ^ (seat * 7919))


def play(table: Table[S], policies: Mapping[int, Policy] | None = None, rng: Rng | None = None,
         max_events: int = MAX_EVENTS, stop: Callable[[S, Played[S]], bool] | None = None,
         on_event: Callable[[S, Event], None] | None = None) -> Played[S]:
    """Play the table's game to its end on a simulated clock and return it with its log.

    A seat with a policy in ``policies`` is played by it; any other bot seat by the game's ``bot_action``; a human
    seat without a policy does nothing (its timeouts fire). Each bot is asked whenever the game's ``step`` changed
    (every event when the game has none), with ``rng`` shared by every decision when given, else a fresh generator
    per decision as a room draws it (``room_rng``). The earliest due move (the lower seat on a tie) is applied if it
    comes before the deadline; otherwise the deadline fires; with nothing timed and no move planned, the host's Next.
    A move the rules refuse when it comes due is dropped and counted, as a room drops it.

    ``stop(state, played)`` may end the simulation early (``finished`` stays False); ``on_event(state, event)`` sees
    each state after its event. A game still running after ``max_events`` events raises ``GameDidNotEnd``."""
    game = table.game
    policy_of = dict(policies or {})
    played: Played[S] = Played(table, table.state)
    state = table.state
    now = table.now_ms
    plans: dict[int, tuple[int, Any, Any]] = {}  # seat -> (due ms, step it was made at, action JSON)
    for _ in range(max_events):
        if game.is_over(state):
            played.state, played.finished = state, True
            return played
        if stop is not None and stop(state, played):
            played.state = state
            return played
        step = game.step(state)
        mark = step if step is not None else played.attempts
        for slot in table.slots:
            seat = slot.index
            decide = policy_of.get(seat) or (game.bot_action if slot.is_bot else None)
            if decide is None or not game.can_act(state, seat):
                plans.pop(seat, None)
                continue
            plan = plans.get(seat)
            if plan is not None and plan[1] == mark:
                continue
            decision = decide(state, seat, rng if rng is not None else room_rng(table.ctx.seed, played.attempts, seat))
            if decision is None:
                plans.pop(seat, None)
                continue
            payload, delay = decision
            plans[seat] = (now + max(0, int(delay)), mark, payload)
        deadline = game.deadline(state)
        due = min(plans.items(), key=lambda item: (item[1][0], item[0]), default=None)
        event: Event
        if due is not None and (deadline is None or due[1][0] < deadline):
            seat, (at, _mark, payload) = due
            del plans[seat]
            now = max(now, at)
            try:
                state = game.apply(state, seat, game.parse_action(payload), now)
            except IllegalAction:
                played.refused += 1
                continue
            event = (ACTION, seat, payload, now)
        elif deadline is not None:
            now = max(now, deadline)
            state = game.on_timeout(state, now)
            event = (TIMEOUT, None, None, now)
        else:
            try:
                state = game.host_next(state, now)
            except IllegalAction as error:
                raise GameDidNotEnd(f"{game.info.id} game {table.ctx.seed} is stuck at {now} ms: nothing is timed, "
                                    f"no bot has a move and the host cannot go on ({error.message})") from None
            event = (NEXT, None, None, now)
        played.log.append(event)
        played.state = state
        if on_event is not None:
            on_event(state, event)
    raise GameDidNotEnd(f"{game.info.id} game {table.ctx.seed} did not end in {max_events} events")


def apply_event(game: Game[S, Any], state: S, event: Event) -> S:
    """The state after one logged event."""
    kind, seat, payload, at = event
    after: S
    if kind == TIMEOUT:
        after = game.on_timeout(state, at)
    elif kind == NEXT:
        after = game.host_next(state, at)
    elif kind == ACTION and seat is not None:
        after = game.apply(state, seat, game.parse_action(payload), at)
    else:
        raise ValueError(f"not an event of a game's log: {event!r}")
    return after


def replay(table: Table[S], log: Sequence[Event]) -> S:
    """The state a log leads to from the table's initial state."""
    state = table.state
    for event in log:
        state = apply_event(table.game, state, event)
    return state

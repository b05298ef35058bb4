"""Tally: a tiny game for tests of the room; it lives with the tests and never ships (tests/games/__init__.py).

Players take turns in a random order adding 1 or 2 to a shared total; whoever brings it to the target wins.
Each turn has a timer; a timeout adds a random amount. It exercises every part of the engine contract: the
seeded RNG, deadlines, timeouts as actions, bots, per-seat views and an outcome.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from engine.core import (
    BOTS_SETTING,
    ENDED_BY_HOST,
    Context,
    Game,
    GameInfo,
    IllegalAction,
    InvalidAction,
    Outcome,
    Rng,
    SettingSpec,
    Slot,
    Timing,
)

AMOUNTS = (1, 2)


@dataclass(frozen=True)
class TallyState:
    """One position: the order of play, the total, whose turn, its deadline and the history."""

    names: tuple[str, ...]
    order: tuple[int, ...]
    target: int
    turn_ms: int
    total: int = 0
    turn: int = 0  # index into order
    deadline_ms: int | None = None
    history: tuple[tuple[int, int, bool], ...] = ()  # (seat, amount, timed_out)
    winner: int | None = None
    rng_state: int = 0

    @property
    def current(self) -> int:
        """The seat whose turn it is."""
        return self.order[self.turn]


class TallyGame(Game):
    """The test game's rules."""

    info = GameInfo(
        "tally",
        "game.tally.name",
        "game.tally.blurb",
        2,
        4,
        (
            BOTS_SETTING,
            SettingSpec("target", "int", 10, "setting.target", 3, 50),
            SettingSpec("turn_seconds", "int", 10, "setting.turn_seconds", 1, 120, unit="s"),
        ),
        listed=False,
    )

    def setup(self, slots: Sequence[Slot], ctx: Context, now_ms: int) -> TallyState:
        """Seat the players in a random order and start the first turn."""
        rng = Rng(ctx.seed)
        order = [s.index for s in slots]
        rng.shuffle(order)
        turn_ms = ctx.timer_ms(ctx.settings["turn_seconds"])
        return TallyState(
            names=tuple(s.name for s in slots),
            order=tuple(order),
            target=ctx.settings["target"],
            turn_ms=turn_ms,
            deadline_ms=now_ms + turn_ms,
            rng_state=rng.state,
        )

    def parse_action(self, payload: Any) -> int:
        """``{"add": 1}`` or ``{"add": 2}``."""
        if not isinstance(payload, dict) or set(payload) != {"add"}:
            raise InvalidAction('an action is {"add": 1} or {"add": 2}', "action")
        amount = payload["add"]
        if isinstance(amount, bool) or amount not in AMOUNTS:
            raise InvalidAction("add must be 1 or 2", "add")
        return amount

    def action_to_json(self, action: int) -> dict[str, int]:
        """The logged form of an action."""
        return {"add": action}

    def legal_actions(self, state: TallyState, seat: int) -> list[int]:
        """1 and 2 for the current seat while the game runs."""
        if state.winner is not None or seat != state.current:
            return []
        return list(AMOUNTS)

    def apply(self, state: TallyState, seat: int, action: int, now_ms: int, timing: Timing | None = None
              ) -> TallyState:
        """Add to the total; a timeout is logged with the flag set by ``timeout_action``."""
        return self._add(state, seat, action, now_ms, timed_out=False)

    def _add(self, state: TallyState, seat: int, amount: int, now_ms: int, timed_out: bool) -> TallyState:
        if state.winner is not None:
            raise IllegalAction("the game is over")
        if seat != state.current:
            raise IllegalAction("it is not your turn")
        if amount not in AMOUNTS:
            raise IllegalAction("add must be 1 or 2")
        total = min(state.target, state.total + amount)
        history = state.history + ((seat, amount, timed_out),)
        if total >= state.target:
            return replace(state, total=total, history=history, winner=seat, deadline_ms=None)
        turn = (state.turn + 1) % len(state.order)
        return replace(state, total=total, history=history, turn=turn, deadline_ms=now_ms + state.turn_ms)

    def view(self, state: TallyState, seat: int | None) -> dict[str, Any]:
        """Everything is public; a seat also learns whether it may act."""
        result: dict[str, Any] = {
            "total": state.total,
            "target": state.target,
            "current": state.current,
            "order": list(state.order),
            "names": list(state.names),
            "deadline_ms": state.deadline_ms,
            "history": [list(h) for h in state.history],
            "winner": state.winner,
        }
        if seat is not None:
            result["you"] = seat
            result["legal"] = self.legal_actions(state, seat)
        return result

    def step(self, state: TallyState) -> int:
        """The number of moves so far."""
        return len(state.history)

    def deadline(self, state: TallyState) -> int | None:
        """The end of the current turn."""
        return state.deadline_ms

    def on_timeout(self, state: TallyState, now_ms: int) -> TallyState:
        """The seat that ran out of time adds a random amount, drawn from the state's RNG."""
        rng = Rng(state.rng_state)
        amount = rng.choice(AMOUNTS)
        after = self._add(state, state.current, amount, now_ms, timed_out=True)
        return replace(after, rng_state=rng.state)

    def bot_action(self, state: TallyState, seat: int, rng: Rng) -> tuple[Any, int] | None:
        """Take the win when it is in reach, else a random amount, after a human-looking pause."""
        if not self.legal_actions(state, seat):
            return None
        need = state.target - state.total
        amount = need if need in AMOUNTS else rng.choice(AMOUNTS)
        return {"add": amount}, 400 + rng.randbelow(800)

    def outcome(self, state: TallyState) -> Outcome | None:
        """The winner first, then the others in turn order."""
        if state.winner is None:
            return None
        rest = tuple(s for s in state.order if s != state.winner)
        return Outcome((state.winner,) + rest, "outcome.reached_target", {"total": state.total})

    def standings(self, state: TallyState, seats: int) -> Outcome:
        """Ended by the host: the total is shared and only reaching the target wins, so all share first place."""
        outcome = self.outcome(state)
        if outcome is not None:
            return outcome
        return Outcome(state.order, ENDED_BY_HOST, {"total": state.total}, (1,) * len(state.order))



class TeamTallyGame(TallyGame):
    """Tally played by three teams (never listed): a test of team play, where a team is one game seat that any
    of its phones may move, and a bot moves a team no one joined."""

    info = GameInfo(
        "teamtally",
        "game.tally.name",
        "game.tally.blurb",
        1,
        12,
        TallyGame.info.settings,
        teams=True,
        team_keys=("tally.team.red", "tally.team.green", "tally.team.blue"),
        team_colours=("#D55E00", "#009E73", "#56B4E9"),
        listed=False,
    )

"""Buzz: a game of pure speed, the bench for fair timing (bench/fairness.py, tests/test_fair_timing.py). It is never
offered to a room unless a server is started with ``--games-module bench.games``.

Each round shows a prompt for a short preview, then unlocks; every player answers with any number as fast as they
can; the answers are ranked by their effective time (the room's fair measure) and shown with every timing figure.
It uses the same answer path as the Short Campaign (``answer_window``, ``Timing``), with nothing else around it,
so a test can run hundreds of timed answers in seconds.
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
    TooLate,
    shared_places,
)


@dataclass(frozen=True)
class BuzzState:
    """Round number, phase, the open window and the answers so far."""

    names: tuple[str, ...]
    rounds: int
    preview_ms: int
    answer_ms: int
    reveal_ms: int
    round: int = 1
    phase: str = "preview"  # preview, answer, reveal, over
    opens_ms: int = 0
    deadline_ms: int | None = None
    answers: tuple[tuple[int, int, dict[str, Any] | None], ...] = ()  # (seat, effective ms, timing)
    results: tuple[tuple[tuple[int, int, dict[str, Any] | None], ...], ...] = ()
    wins: tuple[int, ...] = ()
    step: int = 0


class BuzzGame(Game):
    """The speed bench's rules."""

    info = GameInfo(
        "buzz", "game.buzz.name", "game.buzz.blurb", 1, 12,
        (BOTS_SETTING, SettingSpec("rounds", "int", 5, "setting.rounds", 1, 500),
         SettingSpec("preview_ms", "int", 400, "setting.preview_ms", 100, 10_000),
         SettingSpec("answer_ms", "int", 1500, "setting.answer_ms", 200, 60_000),
         SettingSpec("reveal_ms", "int", 200, "setting.reveal_ms", 50, 10_000)),
        listed=False,
    )

    def setup(self, slots: Sequence[Slot], ctx: Context, now_ms: int) -> BuzzState:
        """The first round's preview starts now."""
        s = ctx.settings
        preview = s["preview_ms"]
        return BuzzState(tuple(x.name for x in slots), s["rounds"], preview, s["answer_ms"], s["reveal_ms"],
                         opens_ms=now_ms + preview, deadline_ms=now_ms + preview, wins=(0,) * len(slots))

    def parse_action(self, payload: Any) -> int:
        """``{"answer": n}``: any whole number (only the time counts)."""
        if not isinstance(payload, dict) or set(payload) != {"answer"}:
            raise InvalidAction('an action is {"answer": n}', "action")
        value = payload["answer"]
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidAction("answer must be a whole number", "answer")
        return value

    def legal_actions(self, state: BuzzState, seat: int) -> list[Any]:
        """An answer while the window is open and the seat has not answered."""
        return [("answer", None)] if self.answer_window(state, seat) else []

    def answer_window(self, state: BuzzState, seat: int) -> tuple[int, int] | None:
        """The open window, for a seat that has not answered."""
        if state.phase == "answer" and all(a[0] != seat for a in state.answers):
            return state.opens_ms, state.opens_ms + state.answer_ms
        return None

    def apply(self, state: BuzzState, seat: int, action: int, now_ms: int, timing: Timing | None = None) -> BuzzState:
        """Record the answer with its effective time."""
        answered = any(a[0] == seat for a in state.answers)
        if state.phase == "reveal" and not answered:
            raise TooLate("too late: the round has closed")
        if state.phase != "answer":
            raise IllegalAction("no round is open")
        if answered:
            raise IllegalAction("you have already answered")
        ms = timing.effective if timing else max(0, now_ms - state.opens_ms)
        state = replace(state, answers=state.answers + ((seat, ms, timing.to_json() if timing else None),))
        if len(state.answers) == len(state.names):
            return self._close(state, now_ms)
        return state

    def _close(self, state: BuzzState, now_ms: int) -> BuzzState:
        ranked = tuple(sorted(state.answers, key=lambda a: (a[1], a[0])))
        wins = state.wins
        if ranked:
            wins = tuple(w + (1 if i == ranked[0][0] else 0) for i, w in enumerate(wins))
        return replace(state, phase="reveal", results=state.results + (ranked,), answers=(), wins=wins,
                       deadline_ms=now_ms + state.reveal_ms, step=state.step + 1)

    def view(self, state: BuzzState, seat: int | None) -> dict[str, Any]:
        """Everything but the open round's answers (those show at its close)."""
        result = {"round": state.round, "rounds": state.rounds, "phase": state.phase, "opens_ms": state.opens_ms,
                  "answered": [a[0] for a in state.answers], "wins": list(state.wins),
                  "last": [{"seat": a[0], "ms": a[1], "timing": a[2]} for a in (state.results[-1] if state.results
                                                                              else ())],
                  "results": [[{"seat": a[0], "ms": a[1], "timing": a[2]} for a in r] for r in state.results]}
        if seat is not None:
            result["you"] = seat
        return result

    def deadline(self, state: BuzzState) -> int | None:
        """The end of the preview, of the answer window, or of the reveal."""
        if state.phase == "answer":
            return state.opens_ms + state.answer_ms
        return state.deadline_ms

    def on_timeout(self, state: BuzzState, now_ms: int) -> BuzzState:
        """Unlock, close, or start the next round."""
        if state.phase == "preview":
            return replace(state, phase="answer", step=state.step + 1)
        if state.phase == "answer":
            return self._close(state, now_ms)
        if state.phase == "reveal":
            if state.round >= state.rounds:
                return replace(state, phase="over", deadline_ms=None, step=state.step + 1)
            opens = now_ms + state.preview_ms
            return replace(state, round=state.round + 1, phase="preview", opens_ms=opens, deadline_ms=opens,
                           step=state.step + 1)
        raise IllegalAction("nothing is timed now")

    def bot_action(self, state: BuzzState, seat: int, rng: Rng) -> tuple[Any, int] | None:
        """Bots press after 150-600 ms."""
        if not self.answer_window(state, seat):
            return None
        return {"answer": 1}, 150 + rng.randbelow(450)

    def outcome(self, state: BuzzState) -> Outcome | None:
        """Most round wins first."""
        if state.phase != "over":
            return None
        return Outcome(tuple(sorted(range(len(state.names)), key=lambda s: (-state.wins[s], s))), "outcome.finished")

    def standings(self, state: BuzzState, seats: int) -> Outcome:
        """Ended by the host: the round wins so far, equal counts sharing a place."""
        outcome = self.outcome(state)
        if outcome is not None:
            return outcome
        ranking = tuple(sorted(range(len(state.names)), key=lambda s: (-state.wins[s], s)))
        return Outcome(ranking, ENDED_BY_HOST, {"wins": list(state.wins)},
                       shared_places(ranking, state.wins.__getitem__))

    def step(self, state: BuzzState) -> int:
        """Changes with every phase."""
        return state.step

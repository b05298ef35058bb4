"""Hierarchy, a two-player card game: the engine (docs/rules/hierarchy.md; its decisions override the seed rules).

A pure state machine over a frozen state. The rules themselves (legality in HIER-D2's order, every card's
condition and ability, the Surgeon's returns) are in rules.py, driven by cards.json. Every turn, and every pending
Surgeon return, has a deadline; ``on_timeout`` is an action of its own that plays a random legal move (or return)
drawn from the state's RNG. Everything is public (HIER-D7), so every seat and the TV see the same view.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
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
    Payload,
    Rng,
    SettingSpec,
    Slot,
    Timing,
    evolve,
    factor_of,
    stretched,
    with_factor,
)
from engine.hierarchy import rules
from engine.hierarchy.rules import CARDS, IMPOSTOR, ORDER, Action, Hands, Line, Pending, Reason

PLAYERS = 2
HAND_SIZE = 7  # HIER-R4
COLOURS = ("gold", "purple")  # HIER-R5, D3
LOG_CAP = 64  # the move log kept in the state (a game has some 20 plays and returns, HIER-D6): bounded all the same
NAMES = {c.id: {"name": c.name, "bare": c.bare} for c in CARDS.values()}  # to render the explanations' cards

# The card reference (HIER-R2, R3: each player's reference card): every card's number, royal mark and full text in
# every language, straight from cards.json, so the phones' card sheets and the TV's how-to never copy the text.
CARD_TABLE = {c.id: {"number": "?" if c.number is None else c.number, "royal": c.royal, "text": c.text}
              for c in CARDS.values()}


class IllegalPlay(IllegalAction):
    """A play the rules refuse; ``reason`` says why as data (its message is the reason's developer form)."""

    def __init__(self, reason: Reason):
        super().__init__(str(reason))
        self.reason = reason


@dataclass(frozen=True)
class HierarchyState:
    """One position of a game of Hierarchy."""

    names: tuple[str, ...]
    bots: tuple[bool, ...]
    colours: tuple[str, str]  # seat -> colour
    first: int  # the seat that was dealt the Impostor
    hands: Hands
    line: Line  # (card, owner, copy), bottom first
    burned: tuple[tuple[str, int], ...]  # (card, owner), oldest first
    turn: int  # the seat to play (after any pending return)
    pending: Pending | None  # Surgeon return: (stage, chooser, surgeon seat)
    turn_ms: int
    deadline_ms: int | None
    bot_level: str
    winner: int | None = None
    step: int = 0
    rng_state: int = 0
    history: tuple[dict[str, Any], ...] = ()  # the move log, oldest first, its last LOG_CAP entries
    plays: int = 0  # cards played so far (the log is bounded, this count is not)
    factors: tuple[float, ...] = ()  # HIER-X1: each seat's extended time as the host set it
    clock_ms: int | None = None  # HIER-X1: the standard end of the current turn (what everyone else's clock shows)

    @property
    def actor(self) -> int | None:
        """The seat that must act now: the chooser of a pending return, else the seat to play."""
        if self.winner is not None:
            return None
        return self.pending[1] if self.pending is not None else self.turn


replace = evolve  # the shared fast replace of engine.core


def _card_field(payload: dict[str, Any], key: str) -> str | None:
    """The card a payload's field names, or None when the field is absent (or null)."""
    value = payload.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or value not in CARDS:
        raise InvalidAction(f"{key} must be one of {', '.join(ORDER)}", key)
    return value


def _card(payload: dict[str, Any], key: str) -> str:
    """The card a payload's required field names."""
    value = _card_field(payload, key)
    if value is None:
        raise InvalidAction(f"{key} must name a card", key)
    return value


class HierarchyGame(Game[HierarchyState, Action]):
    """Hierarchy: build the Line of Power; whoever cannot play loses."""

    info = GameInfo(
        "hierarchy", "game.hierarchy.name", "game.hierarchy.blurb", 2, 2,
        (
            BOTS_SETTING,
            SettingSpec("bot_level", "choice", "strong", "setting.bot_level", choices=("random", "greedy", "strong")),
            SettingSpec("turn_seconds", "int", 60, "setting.turn_seconds", 5, 600, unit="s"),
        ),
        ready=True,
    )

    # ----- setup -----

    def setup(self, slots: Sequence[Slot], ctx: Context, now_ms: int) -> HierarchyState:
        """Deal 7 cards each (HIER-R4), colours at random (HIER-D3), the Impostor's holder plays first (HIER-R8)."""
        if len(slots) != PLAYERS:
            raise IllegalAction("Hierarchy needs exactly 2 players")
        settings = {**self.info.default_settings(), **dict(ctx.settings)}
        rng = Rng(ctx.seed)
        deck = list(ORDER)
        rng.shuffle(deck)
        hands = (rules.sort_hand(deck[:HAND_SIZE]), rules.sort_hand(deck[HAND_SIZE:]))
        colours = COLOURS if rng.randbelow(2) == 0 else COLOURS[::-1]
        first = 0 if IMPOSTOR in hands[0] else 1
        turn_ms = ctx.timer_ms(settings["turn_seconds"])
        state = HierarchyState(
            names=tuple(s.name for s in slots), bots=tuple(s.is_bot for s in slots), colours=colours, first=first,
            hands=hands, line=(), burned=(), turn=first, pending=None, turn_ms=turn_ms,
            deadline_ms=now_ms + turn_ms, bot_level=settings["bot_level"], rng_state=rng.state,
            factors=(factor_of(ctx.time_factors, 0), factor_of(ctx.time_factors, 1)))
        return self._start_turn(state, now_ms)

    # ----- actions -----

    def parse_action(self, payload: Payload) -> Action:
        """``{"play": card}`` with ``"copy"`` (the Impostor) or ``"burn"`` (the Tower on a higher card) when needed,
        or ``{"return": card}`` to answer a pending Surgeon return."""
        if not isinstance(payload, dict):
            raise InvalidAction('an action is {"play": "card"} or {"return": "card"}', "action")
        if "return" in payload:
            if set(payload) != {"return"}:
                extra = min(map(str, set(payload) - {"return"}))
                raise InvalidAction(f"a return takes no {extra}", extra)
            return ("return", _card(payload, "return"))
        if "play" not in payload:
            raise InvalidAction('an action is {"play": "card"} or {"return": "card"}', "action")
        unknown = set(payload) - {"play", "copy", "burn"}
        if unknown:
            first = min(map(str, unknown))
            raise InvalidAction(f"a play takes no {first}", first)
        return ("play", _card(payload, "play"), _card_field(payload, "copy"), _card_field(payload, "burn"))

    def action_to_json(self, action: Action) -> dict[str, Any]:
        """The logged (and payload) form of an action."""
        if action[0] == "return":
            return {"return": action[1]}
        result: dict[str, Any] = {"play": action[1]}
        if action[2] is not None:
            result["copy"] = action[2]
        if action[3] is not None:
            result["burn"] = action[3]
        return result

    def legal_actions(self, state: HierarchyState, seat: int) -> list[Action]:
        """The seat's legal plays or returns now (HIER-D2); empty when it is not the seat's move."""
        if state.actor != seat:
            return []
        if state.pending is not None:
            return [("return", c) for c in rules.return_options(state.line, state.pending)]
        return [("play", *p) for p in rules.plays(state.hands[seat], state.line, seat)]

    def apply(self, state: HierarchyState, seat: int, action: Action, now_ms: int,
              timing: Timing | None = None) -> HierarchyState:
        """The state after the seat's action; IllegalAction if not allowed (IllegalPlay, carrying the reason as
        data, when the rules refuse a play)."""
        return self._act(state, seat, action, now_ms, timed_out=False)

    def explain(self, state: HierarchyState, seat: int, card_id: str) -> Reason | None:
        """Why the seat cannot play this card now (a ``hier.why.*`` reason), or None if it can (some copy or burn
        makes it legal)."""
        if state.winner is not None:
            return rules.why("game_over")
        if state.pending is not None:
            return rules.why("pending_return")
        if state.turn != seat:
            return rules.why("not_your_turn")
        if card_id not in CARDS:
            return rules.why("no_such_card")
        hand, line = state.hands[seat], state.line
        if card_id not in hand:
            return rules.why("not_held", card=rules.card_param(card_id))
        if any(p[0] == card_id for p in rules.plays(hand, line, seat)):
            return None
        copies = rules.copy_targets(line, seat) if card_id == IMPOSTOR else [None]
        first_copy = copies[0] if copies else None
        played = first_copy if card_id == IMPOSTOR else card_id
        burn = None
        if played is not None and CARDS[played].ability == "burn_for_higher":
            burn = next((c for c in hand if c != card_id), None)
        ok, reason = rules.check(hand, line, seat, card_id, first_copy, burn)
        if ok:  # a burn that is not due: explain without it
            reason = rules.check(hand, line, seat, card_id, first_copy, None)[1]
        if card_id == IMPOSTOR and len(copies) > 1:
            reason = rules.why("no_other_copy", why=rules.reason_param(reason))
        return reason

    def _act(self, state: HierarchyState, seat: int, action: Action, now_ms: int, timed_out: bool
             ) -> HierarchyState:
        if state.winner is not None:
            raise IllegalAction("the game is over")
        if action[0] == "return":
            if state.pending is None:
                raise IllegalAction("there is no Surgeon return to choose now")
            stage, chooser, surgeon_seat = state.pending
            if seat != chooser:
                raise IllegalAction("the other player chooses this Surgeon return")
            card = action[1]
            options = rules.return_options(state.line, state.pending)
            if card not in options:
                if stage == 1:
                    raise IllegalAction("return one of your opponent's cards from the line")
                raise IllegalAction("return one of the Surgeon player's cards from the line, other than the Surgeon")
            entry = next(e for e in state.line if e[0] == card)
            hands, line, pending = rules.do_return(state.hands, state.line, state.pending, card)
            message = Reason("hier.log.return", {"card": rules.entry_param(entry),
                                                 "name": rules.seat_param(entry[1])})
            state = self._note(state, seat=seat, kind="return", card=card, owner=entry[1], timed_out=timed_out,
                               message=message.to_json())
            state = self._clocked(replace(state, hands=hands, line=line, pending=pending, step=state.step + 1,
                                          deadline_ms=now_ms + state.turn_ms), now_ms)
            if pending is None:
                state = replace(state, turn=1 - surgeon_seat)
                return self._start_turn(state, now_ms)
            return state
        if action[0] != "play":
            raise IllegalAction(f"unknown action {action[0]!r}")
        if state.pending is not None:
            raise IllegalAction("a Surgeon return must be chosen first")
        if seat != state.turn:
            raise IllegalAction("it is not your turn")
        _, card, copy, burn = action
        ok, reason = rules.check(state.hands[seat], state.line, seat, card, copy, burn)
        if not ok:
            raise IllegalPlay(reason)
        top = state.line[-1] if state.line else None
        message = reason.with_params(card=rules.card_param(card, copy))  # hier.log.opens / higher / ability / burn
        if top is not None:
            message = message.with_params(top=rules.entry_param(top, bare=True))
        hands, line, pending = rules.do_play(state.hands, state.line, seat, card, copy, burn)
        burned = state.burned + (((burn, seat),) if burn is not None else ())
        state = self._note(state, seat=seat, kind="play", card=card, copy=copy, burn=burn,
                           on=None if top is None else rules.ident(top), timed_out=timed_out,
                           message=message.to_json())
        state = self._clocked(replace(state, hands=hands, line=line, burned=burned, pending=pending,
                                      step=state.step + 1, deadline_ms=now_ms + state.turn_ms, plays=state.plays + 1),
                              now_ms)
        if pending is not None:
            return state
        return self._start_turn(replace(state, turn=1 - seat), now_ms)

    def _start_turn(self, state: HierarchyState, now_ms: int) -> HierarchyState:
        """HIER-D4: a player with no legal play at the start of their turn loses."""
        seat = state.turn
        if rules.has_play(state.hands[seat], state.line, seat):
            return self._clocked(replace(state, deadline_ms=now_ms + state.turn_ms), now_ms)
        why, key = ("no_cards", "hier.log.lost_no_cards") if not state.hands[seat] else \
            ("no_play", "hier.log.lost_no_play")
        message = Reason(key, {"name": rules.seat_param(seat), "winner": rules.seat_param(1 - seat)})
        state = self._note(state, seat=seat, kind="lost", reason=why, message=message.to_json())
        return replace(state, winner=1 - seat, deadline_ms=None, step=state.step + 1)

    def _note(self, state: HierarchyState, **entry: Any) -> HierarchyState:
        """Write one entry into the move log (every play, with its copy and burn, every Surgeon return and the end),
        keeping only the last LOG_CAP: the log is part of the state, so a restart's replay rebuilds it."""
        return replace(state, history=(state.history + (entry,))[-LOG_CAP:])

    # ----- time -----

    @staticmethod
    def _clocked(state: HierarchyState, now_ms: int) -> HierarchyState:
        """HIER-X1: the move now due lasts the turn time x the factor of the seat that must make it; everyone else's
        clock shows the standard turn."""
        seat = state.actor
        if state.deadline_ms is None or seat is None:
            return state
        return replace(state, clock_ms=now_ms + state.turn_ms,
                       deadline_ms=now_ms + stretched(state.turn_ms, factor_of(state.factors, seat)))

    def set_time_factor(self, state: HierarchyState, seat: int, factor: float, now_ms: int) -> HierarchyState:
        """HIER-X1: the host gives a seat extended time; it counts from its next move."""
        return replace(state, factors=with_factor(state.factors, seat, factor, PLAYERS))

    def clock(self, state: HierarchyState, seat: int | None) -> int | None:
        """HIER-X1: the seat that must move counts down to its own end; every other screen to the standard one."""
        if state.deadline_ms is None or state.clock_ms is None or seat is not None and seat == state.actor:
            return state.deadline_ms
        return state.clock_ms

    def deadline(self, state: HierarchyState) -> int | None:
        """The end of the current turn or pending return (turn_seconds x timer_scale)."""
        return state.deadline_ms

    def on_timeout(self, state: HierarchyState, now_ms: int) -> HierarchyState:
        """The seat that ran out of time makes a random legal move (or return), drawn from the state's RNG."""
        seat = state.actor
        if seat is None:
            raise IllegalAction("nothing is timed now")
        rng = Rng(state.rng_state)
        action = rng.choice(self.legal_actions(state, seat))
        return self._act(replace(state, rng_state=rng.state), seat, action, now_ms, timed_out=True)

    # ----- views -----

    def view(self, state: HierarchyState, seat: int | None) -> dict[str, Any]:
        """Everything is public (HIER-D7): both hands, the line, the burned pile, whose move and the history."""
        result: dict[str, Any] = {
            "step": state.step,
            "deadline_ms": self.clock(state, seat),  # HIER-X1
            "players": [{"seat": s, "name": state.names[s], "bot": state.bots[s], "colour": state.colours[s],
                         "hand": [self._card_view(c) for c in state.hands[s]]} for s in range(PLAYERS)],
            "first": state.first,
            "line": [{**self._card_view(rules.ident(e)), "card": e[0], "copy": e[2], "owner": e[1],
                      "colour": state.colours[e[1]], "number": CARDS[rules.ident(e)].line_number}
                     for e in state.line],
            "top": None if not state.line else rules.ident(state.line[-1]),
            "line_count": rules.line_count(state.line),
            "burned": [{**self._card_view(c), "card": c, "owner": o, "colour": state.colours[o]} for c, o in state.burned],
            "turn": state.turn,
            "actor": state.actor,
            "pending": None if state.pending is None else {
                "kind": "surgeon_return", "stage": state.pending[0], "chooser": state.pending[1],
                "surgeon_player": state.pending[2], "options": rules.return_options(state.line, state.pending)},
            "history": [{k: v for k, v in h.items()} for h in state.history],  # the whole (bounded) move log
            "winner": state.winner,
            "names": NAMES,
            "cards": CARD_TABLE,
        }
        if seat is not None:
            result["you"] = seat
            result["legal"] = [self.action_to_json(a) for a in self.legal_actions(state, seat)]
            if state.actor == seat and state.pending is None:
                reasons = {c: self.explain(state, seat, c) for c in state.hands[seat]}
                result["blocked"] = {c: r.to_json() for c, r in reasons.items() if r is not None}
        return result

    @staticmethod
    def _card_view(card: str) -> dict[str, Any]:
        data = CARDS[card]
        return {"id": card, "name": data.name, "number": "?" if data.number is None else data.number,
                "royal": data.royal}

    # ----- bots, outcome -----

    def bot_action(self, state: HierarchyState, seat: int, rng: Rng) -> tuple[Payload, int] | None:
        """The settings' bot level picks a move; the delay looks human (engine.hierarchy.bots)."""
        from engine.hierarchy.bots import decide

        return decide(self, state, seat, rng, state.bot_level)

    def outcome(self, state: HierarchyState) -> Outcome | None:
        """The winner first (HIER-R21, D4)."""
        if state.winner is None:
            return None
        return Outcome((state.winner, 1 - state.winner), "outcome.hierarchy.no_play",
                       {"plays": state.plays})

    def standings(self, state: HierarchyState, seats: int) -> Outcome:
        """When the host ends the game: only a player who cannot play loses (HIER-R21, D4) and nothing else is
        counted, so an unfinished game is a draw: both players share first place."""
        outcome = self.outcome(state)
        if outcome is not None:
            return outcome
        return Outcome((0, 1), ENDED_BY_HOST, {"plays": state.plays},
                       (1, 1))

    def step(self, state: HierarchyState) -> int:
        """Changes with every move."""
        return state.step

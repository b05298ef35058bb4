"""The Avignon 1378 rules engine (docs/rules/avignon.md; its decisions override the seed rules).

Two players, Rome and Avignon, move characters along five lanes of five locations (0 Avignon .. 4 Rome). A turn is
two actions of different types (AVIG-D3); a character moved past either end goes into that end's conclave and a new
card is drawn into its lane at Genoa (AVIG-D2); the game is won at once when a win condition holds (AVIG-D5).

The pure board mechanics live in ``Table`` (a small mutable scratch board) and the module functions that act on it,
so the bots can search with exactly the same rules. The game state is a frozen dataclass; ``apply`` copies the
board into a ``Table``, resolves the action there and freezes the result, so the given state is never changed.
Card data (classes, petitions, texts) comes from cards.json: the petitions are house rules (AVIG-D1).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
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
    shared_places,
    stretched,
    with_factor,
)

AVIGNON, ROME = 0, 1  # roles; also the index of each role's conclave
ROLE_NAMES = ("avignon", "rome")
TOWARD = (-1, 1)  # the step "toward" each role's end (AVIG-D1)
LOCATIONS = ("avignon", "nice", "genoa", "florence", "rome")  # AVIG-R1, D1
GENOA = 2
LANES = 5
KINDS = ("pull", "push", "banish", "petition")  # AVIG-R9..R12
DIRECTIONS = {"avignon": -1, "rome": 1}
WIN_COUNT = 3  # AVIG-R19
LOG_ACTIONS = 16  # the move log in the state: the newest actions, each with the events it caused (bounded)

CARDS_FILE = Path(__file__).with_name("cards.json")

Cell = tuple[int, int] | None  # a lane: (card, location), or empty
Lanes = tuple[Cell, ...]
Conclaves = tuple[tuple[int, ...], tuple[int, ...]]  # by role
Position = tuple[Lanes, Conclaves]  # the board and both conclaves, sorted (what AVIG-D4 and D9 compare)
Seen = dict[tuple[Position, int], int]  # (position, role to move) -> times it occurred at a turn boundary (AVIG-D9)
Option = tuple[int | None, int | None]  # a petition's (target lane index, direction step), each None if it takes none
# An action: (kind, lane 1-5, a petition's target lane 1-5 or None, a petition's direction step -1/+1 or None).
AvignonAction = tuple[str, int, int | None, int | None]


def load_cards(path: Path = CARDS_FILE) -> tuple[dict[str, Any], ...]:
    """The 12 character cards (AVIG-D1) in a fixed order; a card's index is its id in the engine."""
    data = json.loads(path.read_text(encoding="utf-8"))
    cards = tuple(data["cards"])
    for card in cards:
        if card["petition"] not in PETITIONS:
            raise ValueError(f"card {card['id']} names an unknown petition {card['petition']!r}")
    return cards


# ----- the board mechanics -----


class Table:
    """A scratch board: lanes (card, location) or None, conclaves by role, deck (top first), discard, RNG, winner."""

    __slots__ = ("active", "classes", "conclaves", "deck", "discard", "events", "lanes", "reason", "rng", "winner")

    def __init__(self, lanes: Iterable[Cell], conclaves: Sequence[Iterable[int]], deck: Iterable[int],
                 discard: Iterable[int], rng_state: int, active: int, classes: Sequence[str],
                 events: list[dict[str, Any]] | None = None):
        self.lanes: list[Cell] = list(lanes)
        self.conclaves: list[list[int]] = [list(conclaves[0]), list(conclaves[1])]
        self.deck: list[int] = list(deck)
        self.discard: list[int] = list(discard)
        self.rng = Rng(rng_state)
        self.active = active
        self.winner: int | None = None
        self.reason = ""
        self.events = events
        self.classes = classes

    def copy(self) -> Table:
        """An independent scratch board in the same position (no event log)."""
        t = Table.__new__(Table)
        t.lanes = self.lanes[:]
        t.conclaves = [self.conclaves[0][:], self.conclaves[1][:]]
        t.deck = self.deck[:]
        t.discard = self.discard[:]
        t.rng = Rng(self.rng.state)
        t.active = self.active
        t.winner = self.winner
        t.reason = self.reason
        t.events = None
        t.classes = self.classes
        return t

    def note(self, **entry: Any) -> None:
        """Log an event, if this board keeps a log."""
        if self.events is not None:
            self.events.append(entry)

    def position(self) -> Position:
        """The board and both conclaves (what AVIG-D4 and D9 compare)."""
        return position_of(tuple(self.lanes), self.conclaves)

    def cell(self, lane: int) -> tuple[int, int]:
        """The (card, location) of a lane the caller knows is occupied."""
        cell = self.lanes[lane]
        assert cell is not None, f"lane {lane + 1} is empty"
        return cell


def position_of(lanes: Lanes, conclaves: Sequence[Sequence[int]]) -> Position:
    """A position: the lanes and both conclaves, each conclave sorted (its order does not matter)."""
    return lanes, (tuple(sorted(conclaves[0])), tuple(sorted(conclaves[1])))


def winner_of(conclaves: Sequence[Sequence[int]], classes: Sequence[str], active: int) -> tuple[int | None, str]:
    """Who wins with these conclaves (AVIG-D5, R19, R21, R22): (role, reason) or (None, "")."""
    reasons: list[str | None] = [None, None]
    for me in (AVIGNON, ROME):
        opp = 1 - me
        mine = {classes[c] for c in conclaves[me]}
        theirs = {classes[c] for c in conclaves[opp]}
        if len(conclaves[me]) >= WIN_COUNT:
            reasons[me] = reasons[me] or "three"
        if "noble" in mine and "knight" in theirs:
            if "peasant" in mine:
                reasons[opp] = reasons[opp] or "peasant"  # the Peasant reversal: the opponent wins instead
            else:
                reasons[me] = reasons[me] or "noble"
    active_reason, other_reason = reasons[active], reasons[1 - active]
    if active_reason is not None:  # AVIG-R22, D5: the active player wins
        return active, ("simultaneous" if other_reason is not None else active_reason)
    if other_reason is not None:
        return 1 - active, other_reason
    return None, ""


def check_win(t: Table) -> None:
    """Check the win conditions after one move (AVIG-D5)."""
    if t.winner is None:
        t.winner, t.reason = winner_of(t.conclaves, t.classes, t.active)


def draw_into(t: Table, lane: int, location: int) -> None:
    """Draw the top card into a lane; an empty deck is refilled from the shuffled discards (AVIG-R11, R17, D2)."""
    if not t.deck and t.discard:
        t.deck = t.discard
        t.discard = []
        t.rng.shuffle(t.deck)
        t.note(kind="reshuffle", cards=len(t.deck))
    if t.deck:
        card = t.deck.pop(0)
        t.lanes[lane] = (card, location)
        t.note(kind="draw", lane=lane + 1, card=card, location=LOCATIONS[location])
    else:
        t.lanes[lane] = None  # AVIG-D2: both empty, the lane stays empty
        t.note(kind="empty", lane=lane + 1)


def move(t: Table, lane: int, step: int) -> None:
    """Move a lane's character one location; past an end it goes to that end's conclave and a card is drawn at Genoa
    (AVIG-R15, R16, D2, A5). Wins are checked after the move."""
    card, loc = t.cell(lane)
    new = loc + step
    if 0 <= new < len(LOCATIONS):
        t.lanes[lane] = (card, new)
        t.note(kind="move", lane=lane + 1, card=card, location=LOCATIONS[new], **{"from": LOCATIONS[loc]})
        return
    role = ROME if new > 0 else AVIGNON
    t.conclaves[role].append(card)
    t.lanes[lane] = None
    t.note(kind="conclave", lane=lane + 1, card=card, role=ROLE_NAMES[role], **{"from": LOCATIONS[loc]})
    check_win(t)
    if t.winner is None:
        draw_into(t, lane, GENOA)


def banish(t: Table, lane: int) -> None:
    """Discard the lane's character and draw a replacement into the same place (AVIG-R11, A2)."""
    card, loc = t.cell(lane)
    t.discard.append(card)
    t.lanes[lane] = None
    t.note(kind="banish", lane=lane + 1, card=card, location=LOCATIONS[loc])
    draw_into(t, lane, loc)


def adjacent(lane: int) -> list[int]:
    """The lane indices beside a lane."""
    return [n for n in (lane - 1, lane + 1) if 0 <= n < LANES]


# ----- petitions (AVIG-D1 house rules, AVIG-D8) -----
# options(t, lane, role) lists the (target lane index or None, direction step or None) choices that change something;
# resolve(t, lane, role, target, direction) carries one out, stopping as soon as someone has won.


def _monk_options(t: Table, lane: int, role: int) -> list[Option]:
    targets: list[Option] = [(n, None) for n in adjacent(lane) if t.lanes[n] is not None]
    return targets or [(None, None)]  # the pull alone still changes the board


def _monk(t: Table, lane: int, role: int, target: int | None, direction: int | None) -> None:
    move(t, lane, TOWARD[role])
    if t.winner is None and target is not None and t.lanes[target] is not None:
        move(t, target, TOWARD[1 - role])


def _archbishop_options(t: Table, lane: int, role: int) -> list[Option]:
    return [(None, None)] if any(c is not None and t.classes[c[0]] in ("bishop", "monk") for c in t.lanes) else []


def _gather(t: Table, role: int, classes: Sequence[str], step: int) -> None:
    """Move every character of these classes on the board at the start, in lane order 1-5 (AVIG-D8)."""
    chosen = [(i, c[0]) for i, c in enumerate(t.lanes) if c is not None and t.classes[c[0]] in classes]
    for i, card in chosen:
        if t.winner is not None:
            return
        cell = t.lanes[i]
        if cell is not None and cell[0] == card:  # a card drawn during the petition is not moved
            move(t, i, step)


def _archbishop(t: Table, lane: int, role: int, target: int | None, direction: int | None) -> None:
    _gather(t, role, ("bishop", "monk"), TOWARD[role])


def _bishop_options(t: Table, lane: int, role: int) -> list[Option]:
    return [(n, d) for n in adjacent(lane) if t.lanes[n] is not None for d in (-1, 1)]


def _bishop(t: Table, lane: int, role: int, target: int | None, direction: int | None) -> None:
    assert target is not None and direction is not None  # its options always name both
    move(t, target, direction)


def _knight_options(t: Table, lane: int, role: int) -> list[Option]:
    return [(None, None)]


def _knight(t: Table, lane: int, role: int, target: int | None, direction: int | None) -> None:
    card = t.cell(lane)[0]
    move(t, lane, TOWARD[1 - role])
    cell = t.lanes[lane]
    if t.winner is None and cell is not None and cell[0] == card:
        move(t, lane, TOWARD[1 - role])  # if it left the board, the second step is lost


def _noble_options(t: Table, lane: int, role: int) -> list[Option]:
    here = t.cell(lane)[1]
    return [(n, None) for n, c in enumerate(t.lanes) if n != lane and c is not None and c[1] != here]


def _noble(t: Table, lane: int, role: int, target: int | None, direction: int | None) -> None:
    assert target is not None  # its options always name the other lane
    (a, la), (b, lb) = t.cell(lane), t.cell(target)
    t.lanes[lane], t.lanes[target] = (a, lb), (b, la)
    t.note(kind="swap", lane=lane + 1, target=target + 1, card=a, other=b, location=LOCATIONS[lb],
           other_location=LOCATIONS[la])
    check_win(t)


def _peasant_options(t: Table, lane: int, role: int) -> list[Option]:
    return [(None, None)] if any(c is not None and t.classes[c[0]] == "noble" for c in t.lanes) else []


def _peasant(t: Table, lane: int, role: int, target: int | None, direction: int | None) -> None:
    _gather(t, role, ("noble",), TOWARD[1 - role])


# a petition's choices that change something, and carrying one out (see above)
PETITIONS: dict[str, tuple[Callable[[Table, int, int], list[Option]],
                           Callable[[Table, int, int, int | None, int | None], None]]] = {
    "monk_pull_push": (_monk_options, _monk),
    "archbishop_gather": (_archbishop_options, _archbishop),
    "bishop_nudge": (_bishop_options, _bishop),
    "knight_charge": (_knight_options, _knight),
    "noble_swap": (_noble_options, _noble),
    "peasant_revolt": (_peasant_options, _peasant),
}

CARDS = load_cards()
CLASSES = tuple(c["class"] for c in CARDS)
PETITION_OF = tuple(c["petition"] for c in CARDS)


def basic_actions(t: Table, role: int, used: Sequence[str]) -> list[AvignonAction]:
    """Every action the basic rules allow (types not used this turn, petitions that change something)."""
    result: list[AvignonAction] = []
    occupied = [i for i, c in enumerate(t.lanes) if c is not None]
    for kind in ("pull", "push", "banish"):
        if kind not in used:
            result.extend((kind, i + 1, None, None) for i in occupied)
    if "petition" not in used:
        for i in occupied:
            options = PETITIONS[PETITION_OF[t.cell(i)[0]]][0](t, i, role)
            result.extend(("petition", i + 1, None if n is None else n + 1, d) for n, d in options)
    return result


def resolve(t: Table, role: int, action: AvignonAction) -> None:
    """Carry out one basic-legal action on the scratch board."""
    kind, lane, target, direction = action
    i = lane - 1
    if kind == "pull":
        t.note(kind="pull", lane=lane)
        move(t, i, TOWARD[role])
    elif kind == "push":
        t.note(kind="push", lane=lane)
        move(t, i, TOWARD[1 - role])
    elif kind == "banish":
        banish(t, i)
    else:
        card = t.cell(i)[0]
        t.note(kind="petition", lane=lane, card=card, petition=PETITION_OF[card], target=target,
               direction=None if direction is None else ("rome" if direction > 0 else "avignon"))
        PETITIONS[PETITION_OF[card]][1](t, i, role, None if target is None else target - 1, direction)


def public_effects(t: Table) -> list[dict[str, Any]]:
    """What the moves noted on a scratch board did, as a player may be told before choosing: every move, swap,
    arrival in a conclave and discard, a draw only by its lane and place (the card is secret, AVIG-D6), and the win
    if one follows."""
    result: list[dict[str, Any]] = []
    for event in t.events or ():
        kind = event["kind"]
        if kind == "draw":
            result.append({"kind": "draw", "lane": event["lane"], "location": event["location"]})
        elif kind in ("move", "conclave", "banish", "swap", "reshuffle", "empty"):
            result.append(dict(event))
    if t.winner is not None:
        result.append({"kind": "win", "role": ROLE_NAMES[t.winner], "reason": t.reason})
    return result


# ----- the game state -----


@dataclass(frozen=True)
class AvignonState:
    """One position of Avignon 1378."""

    names: tuple[str, ...]
    bots: tuple[bool, ...]
    seat_of: tuple[int, int]  # seat_of[AVIGNON], seat_of[ROME] (AVIG-D7)
    bot_level: str
    turn_ms: int
    lanes: Lanes  # per lane (card, location) or None
    conclaves: Conclaves  # by role, in arrival order
    deck: tuple[int, ...]  # top first; secret (AVIG-D6)
    discard: tuple[int, ...]
    to_move: int  # role
    turn_no: int = 1
    used: tuple[str, ...] = ()  # action types used in this turn
    allowed: int = 1  # actions in this turn (AVIG-R8: Rome's first turn has one)
    banished: bool = False  # this turn included a Banish (AVIG-D4)
    turn_start: Position | None = None  # the position at the start of this turn
    prev_start: Position | None = None  # the position at the start of the opponent's previous turn (AVIG-D4)
    seen: Seen = field(default_factory=dict)  # (position, role to move) -> times it occurred at a turn boundary (D9)
    deadline_ms: int | None = None
    winner: int | None = None  # role
    reason: str = ""
    step: int = 0
    rng_state: int = 0
    history: tuple[dict[str, Any], ...] = ()  # the move log: the newest LOG_ACTIONS actions and their events (bounded)
    factors: tuple[float, ...] = ()  # AVIG-X1: each game seat's extended time as the host set it (none: all x1)
    clock_ms: int | None = None  # AVIG-X1: the standard end of the current turn (what everyone else's clock shows)

    def role_of(self, seat: int) -> int | None:
        """The role a seat plays."""
        if seat == self.seat_of[ROME]:
            return ROME
        if seat == self.seat_of[AVIGNON]:
            return AVIGNON
        return None

    def table(self, events: list[dict[str, Any]] | None = None) -> Table:
        """A scratch copy of the board."""
        return Table(self.lanes, self.conclaves, self.deck, self.discard, self.rng_state, self.to_move, CLASSES,
                     events)


replace = evolve  # the shared fast replace of engine.core


def bounded(history: tuple[dict[str, Any], ...]) -> tuple[dict[str, Any], ...]:
    """The move log kept in the state: its newest LOG_ACTIONS actions, each with the events it caused (the TV's move
    log and the account of the last turn are drawn from it; a restart replays the actions and rebuilds it)."""
    starts = [i for i, e in enumerate(history) if e["kind"] == "action"]
    return history[starts[-LOG_ACTIONS]:] if len(starts) > LOG_ACTIONS else history


# Why a turn is refused: the code turn_ok returns, and the message an illegal action carries (the phone shows the
# translated "avig.why.<code>" instead, from the view's "removed" list).
REFUSALS = {
    "undo": ("that would exactly undo your opponent's last turn (every lane and both conclaves back as they were "
             "before it); you may undo part of it, not all of it"),
    "repeat": "that would bring back a position that has already occurred twice; choose another move",
    "repeat_banish": ("that Banish could bring back a position that has already occurred twice (whatever card is "
                      "drawn must not allow it); choose another move"),
}


def turn_ok(state: AvignonState, t: Table, banished: bool, banish_lane: int | None) -> str:
    """Why a turn ending on this board is refused, as a code of REFUSALS ("" when it is allowed). ``banish_lane``:
    the lane (index) of a Banish that was the turn's last action, whose draw the player could not know."""
    pos = t.position()
    # AVIG-D4, R13, R14: no undoing the opponent's previous turn; a turn with a Banish never counts as an undo.
    if not banished and state.prev_start is not None and pos == state.prev_start:
        return "undo"
    # AVIG-D9: no position (board, conclaves, player to move) a third time.
    nxt = 1 - state.to_move
    if banish_lane is None:
        if state.seen.get((pos, nxt), 0) >= 2:
            return "repeat"
        return ""
    # A Banish ending the turn draws a secret card: refused if any card it could draw (the unseen ones, public as a
    # set) would bring back a position that has occurred twice, so the draw itself never decides legality.
    lanes, conclaves = pos
    card, loc = t.cell(banish_lane)  # the Banish drew a card: at least the banished one is there to draw
    for c in set(t.deck) | {card}:
        maybe = lanes[:banish_lane] + ((c, loc),) + lanes[banish_lane + 1:]
        if state.seen.get(((maybe, conclaves), nxt), 0) >= 2:
            return "repeat_banish"
    return ""


class AvignonGame(Game[AvignonState, AvignonAction]):
    """Avignon 1378: two claimants pull characters into their conclaves."""

    info = GameInfo(
        "avignon", "game.avignon.name", "game.avignon.blurb", 2, 2,
        (
            BOTS_SETTING,
            SettingSpec("bot_level", "choice", "strong", "setting.bot_level", choices=("random", "greedy", "strong")),
            SettingSpec("turn_seconds", "int", 60, "setting.turn_seconds", 5, 600, unit="s"),
        ),
        ready=True,
    )

    cards = CARDS

    # ----- setup -----

    def setup(self, slots: Sequence[Slot], ctx: Context, now_ms: int) -> AvignonState:
        """Roles at random (AVIG-D7), 12 shuffled characters, one per lane at Genoa, the rest the deck (AVIG-R2, D1)."""
        if len(slots) != 2:
            raise IllegalAction("Avignon 1378 needs exactly 2 players")
        settings = {**self.info.default_settings(), **dict(ctx.settings)}
        rng = Rng(ctx.seed)
        seats = [s.index for s in slots]
        rng.shuffle(seats)
        cards = list(range(len(CARDS)))
        rng.shuffle(cards)
        lanes = tuple((c, GENOA) for c in cards[:LANES])
        turn_ms = ctx.timer_ms(settings["turn_seconds"])
        start = position_of(lanes, ((), ()))
        factors = ctx.factors(len(slots))
        return AvignonState(
            names=tuple(s.name for s in slots), bots=tuple(s.is_bot for s in slots), seat_of=(seats[0], seats[1]),
            bot_level=settings["bot_level"], turn_ms=turn_ms, lanes=lanes, conclaves=((), ()),
            deck=tuple(cards[LANES:]), discard=(), to_move=ROME, allowed=1, turn_start=start,
            seen={(start, ROME): 1}, rng_state=rng.state, factors=factors, clock_ms=now_ms + turn_ms,
            deadline_ms=now_ms + stretched(turn_ms, factor_of(factors, seats[ROME])),  # AVIG-X1
            history=({"kind": "start", "rome": seats[1], "avignon": seats[0]},))

    # ----- actions -----

    def parse_action(self, payload: Payload) -> AvignonAction:
        """``{"action": "pull"|"push"|"banish"|"petition", "lane": 1-5}``; a petition may add ``"target": 1-5``
        (the other lane it acts on) and ``"direction": "rome"|"avignon"`` (the Bishop's)."""
        if not isinstance(payload, dict):
            raise InvalidAction('an action is an object like {"action": "pull", "lane": 3}', "action")
        kind = payload.get("action")
        if kind not in KINDS:
            raise InvalidAction("action must be one of pull, push, banish, petition", "action")
        allowed = {"action", "lane"} | ({"target", "direction"} if kind == "petition" else set())
        for key in payload:
            if key not in allowed:
                raise InvalidAction(f"{str(key)[:20]!r} is not a field of a {kind}", str(key)[:20])
        lane = payload.get("lane")
        if isinstance(lane, bool) or not isinstance(lane, int) or not 1 <= lane <= LANES:
            raise InvalidAction("lane must be a lane number from 1 to 5", "lane")
        target = payload.get("target")
        if target is not None and (isinstance(target, bool) or not isinstance(target, int) or not 1 <= target <= LANES):
            raise InvalidAction("target must be a lane number from 1 to 5", "target")
        direction = payload.get("direction")
        if direction is not None and direction not in DIRECTIONS:
            raise InvalidAction('direction must be "rome" or "avignon"', "direction")
        return kind, lane, target, None if direction is None else DIRECTIONS[direction]

    def action_to_json(self, action: AvignonAction) -> dict[str, Any]:
        """The payload form of an action."""
        kind, lane, target, direction = action
        result: dict[str, Any] = {"action": kind, "lane": lane}
        if target is not None:
            result["target"] = target
        if direction is not None:
            result["direction"] = "rome" if direction > 0 else "avignon"
        return result

    def legal_actions(self, state: AvignonState, seat: int) -> list[AvignonAction]:
        """Every action the seat may take now, the turn-level rules included (AVIG-D3, D4, D9)."""
        if state.winner is not None or state.role_of(seat) != state.to_move:
            return []
        return self._legal(state)

    def _legal(self, state: AvignonState) -> list[AvignonAction]:
        t = state.table()
        role = state.to_move
        result = []
        for action in basic_actions(t, role, state.used):
            work = t.copy()
            resolve(work, role, action)
            if not self._verdict(state, work, action)[0]:
                result.append(action)
        return result

    def _verdict(self, state: AvignonState, work: Table, action: AvignonAction) -> tuple[str, bool]:
        """(why the turn-level rules refuse this basic action, "" if they allow it; whether it ends the turn), with
        ``work`` the board after it (AVIG-D3, D4, D9). Refusals: the codes of REFUSALS, or "dead_end" for a first
        action after which no second action completes an allowed turn and the turn may not end either."""
        banished = state.banished or action[0] == "banish"
        if work.winner is not None:
            return "", True  # AVIG-D5: a win ends the game at once, whatever the board looks like
        if len(state.used) + 1 >= state.allowed:
            return self._refusal(state, work, action, banished), True
        if self._seconds(state, work, (action[0],), banished, first=True):
            return "", False
        # no second action completes an allowed turn: the turn ends after this one if that turn is allowed (AVIG-D3:
        # only one legal action type left)
        return ("dead_end" if self._refusal(state, work, action, banished) else ""), True

    def _dead_end_rule(self, state: AvignonState, work: Table, action: AvignonAction) -> str:
        """Which rule closes every way to finish the turn after this first action: "undo" (AVIG-D4), "repeat" (D9) or
        "both"."""
        role = state.to_move
        banished = state.banished or action[0] == "banish"
        codes = {self._refusal(state, work, action, banished)}
        for second in basic_actions(work, role, (action[0],)):
            end = work.copy()
            resolve(end, role, second)
            if end.winner is None:
                codes.add(self._refusal(state, end, second, banished or second[0] == "banish"))
        codes.discard("")
        kinds = {"undo" if c == "undo" else "repeat" for c in codes}
        return kinds.pop() if len(kinds) == 1 else "both"

    def choices(self, state: AvignonState) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """For the player to move: each legal action with what it would do and whether it ends the turn, and each
        action the basic rules allow but the turn-level rules remove (AVIG-D4 no undo, AVIG-D9 no third repetition),
        with the reason as an i18n key and its parameters. Effects never name a card drawn from the deck (AVIG-D6).
        """
        if state.winner is not None:
            return [], []
        t = state.table()
        role = state.to_move
        plans: list[dict[str, Any]] = []
        removed: list[dict[str, Any]] = []
        for action in basic_actions(t, role, state.used):
            work = t.copy()
            work.events = []
            resolve(work, role, action)
            effects = public_effects(work)
            why, ends = self._verdict(state, work, action)
            payload = self.action_to_json(action)
            if not why:
                plans.append({"action": payload, "ends_turn": ends, "effects": effects})
                continue
            params = {"opponent": ROLE_NAMES[1 - role]}
            key = f"avig.why.{why}"
            if why == "dead_end":
                rule = self._dead_end_rule(state, work, action)
                params["rule"] = rule
                key = f"avig.why.dead_end_{rule}"
            removed.append({"action": payload, "reason": why, "key": key, "params": params, "effects": effects})
        return plans, removed

    @staticmethod
    def _refusal(state: AvignonState, work: Table, action: AvignonAction, banished: bool) -> str:
        return turn_ok(state, work, banished, action[1] - 1 if action[0] == "banish" else None)

    def _seconds(self, state: AvignonState, t: Table, used: tuple[str, ...], banished: bool,
                 first: bool = False) -> list[AvignonAction]:
        """The second actions that complete a legal turn on this board (``first``: stop at the first found)."""
        role = state.to_move
        result = []
        for action in basic_actions(t, role, used):
            work = t.copy()
            resolve(work, role, action)
            if work.winner is not None or not self._refusal(state, work, action, banished or action[0] == "banish"):
                result.append(action)
                if first:
                    break
        return result

    def _resolve_choice(self, state: AvignonState, action: AvignonAction) -> AvignonAction:
        """Fill a petition's target when only one lane fits, so {"action": "petition", "lane": 1,
        "direction": "rome"} works for a Bishop in lane 1."""
        kind, lane, target, direction = action
        if kind != "petition" or target is not None or state.lanes[lane - 1] is None:
            return action
        t = state.table()
        options = PETITIONS[PETITION_OF[t.cell(lane - 1)[0]]][0](t, lane - 1, state.to_move)
        targets = {n for n, _ in options}
        only = targets.pop() if len(targets) == 1 else None
        if only is not None:
            return kind, lane, only + 1, direction
        return action

    def apply(self, state: AvignonState, seat: int, action: AvignonAction, now_ms: int, timing: Timing | None = None
              ) -> AvignonState:
        """One action of the seat's turn; the turn ends after its second (or only) action."""
        return self._act(state, seat, action, now_ms, timed_out=False)

    def _act(self, state: AvignonState, seat: int, action: AvignonAction, now_ms: int, timed_out: bool
             ) -> AvignonState:
        if state.winner is not None:
            raise IllegalAction("the game is over")
        role = state.role_of(seat)
        if role is None:
            raise IllegalAction("you are not playing in this game")
        if role != state.to_move:
            raise IllegalAction("it is not your turn")
        action = self._resolve_choice(state, action)
        kind, lane, target, direction = action
        if kind in state.used:
            raise IllegalAction(f"you already used {kind} this turn: your second action must be of another type")
        if state.lanes[lane - 1] is None:
            raise IllegalAction(f"lane {lane} has no character")
        t = state.table(events=[])
        if kind == "petition":
            self._check_petition(t, role, action)
        elif target is not None or direction is not None:
            raise IllegalAction("only a petition takes a target or a direction")
        resolve(t, role, action)
        used = state.used + (kind,)
        banished = state.banished or kind == "banish"
        note = {"kind": "action", "seat": seat, "role": ROLE_NAMES[role], "turn": state.turn_no,
                **self.action_to_json(action)}
        if timed_out:
            note["timeout"] = True
        history = bounded(state.history + (note,) + tuple(t.events or ()))
        if t.winner is not None:  # AVIG-D5: the game ends at once, even in the middle of a turn
            history += ({"kind": "over", "winner": state.seat_of[t.winner], "reason": t.reason},)
            return self._frozen(state, t, used=used, banished=banished, winner=t.winner, reason=t.reason,
                                deadline_ms=None, history=history)
        if len(used) < state.allowed:
            after = self._frozen(state, t, used=used, banished=banished, history=history)
            if self._seconds(state, t, used, banished, first=True):
                return after
            # AVIG-D3: no legal action type left, the turn ends after one action (if that turn is itself allowed)
            why = self._refusal(state, t, action, banished)
            if why:
                raise IllegalAction(REFUSALS[why])
            return self._end_turn(after, now_ms)
        why = self._refusal(state, t, action, banished)
        if why:
            raise IllegalAction(REFUSALS[why])
        return self._end_turn(self._frozen(state, t, used=used, banished=banished, history=history), now_ms)

    def _check_petition(self, t: Table, role: int, action: AvignonAction) -> None:
        _kind, lane, target, direction = action
        card = t.cell(lane - 1)[0]
        name = CARDS[card]["name"]["en"]
        options = PETITIONS[PETITION_OF[card]][0](t, lane - 1, role)
        if not options:
            raise IllegalAction(f"the {name}'s petition would change nothing now, so it cannot be used (AVIG-D8)")
        choice = (None if target is None else target - 1, direction)
        if choice not in options:
            needs_target = any(n is not None for n, _ in options)
            needs_dir = any(d is not None for _, d in options)
            wanted = " and ".join(w for w, need in (("a target lane", needs_target), ("a direction", needs_dir))
                                  if need) or "no target or direction"
            raise IllegalAction(f"the {name}'s petition needs {wanted} that change something; "
                                f"choose among {sorted(options, key=str)}")

    def _frozen(self, state: AvignonState, t: Table, **changes: Any) -> AvignonState:
        return replace(state, lanes=tuple(t.lanes), conclaves=(tuple(t.conclaves[0]), tuple(t.conclaves[1])),
                       deck=tuple(t.deck), discard=tuple(t.discard), rng_state=t.rng.state, step=state.step + 1,
                       **changes)

    def _end_turn(self, state: AvignonState, now_ms: int) -> AvignonState:
        """Hand the turn over, remembering positions for AVIG-D4 and D9; a player with no legal turn loses (D9)."""
        pos = position_of(state.lanes, state.conclaves)
        nxt = 1 - state.to_move
        seen = type(state.seen)(state.seen)  # a copy (of the same mapping type)
        seen[(pos, nxt)] = seen.get((pos, nxt), 0) + 1
        after = replace(state, to_move=nxt, turn_no=state.turn_no + 1, used=(), allowed=2, banished=False,
                        prev_start=state.turn_start, turn_start=pos, seen=seen, clock_ms=now_ms + state.turn_ms,
                        deadline_ms=now_ms + stretched(state.turn_ms, factor_of(state.factors, state.seat_of[nxt])))
        if not self._legal(after):
            return replace(after, winner=1 - nxt, reason="stuck", deadline_ms=None,
                           history=after.history + ({"kind": "over", "winner": state.seat_of[1 - nxt],
                                                      "reason": "stuck"},))
        return after

    # ----- time -----

    def deadline(self, state: AvignonState) -> int | None:
        """The end of the current turn."""
        return state.deadline_ms

    def set_time_factor(self, state: AvignonState, seat: int, factor: float, now_ms: int) -> AvignonState:
        """AVIG-X1: the host gives a seat extended time; it counts from that seat's next turn."""
        return replace(state, factors=with_factor(state.factors, seat, factor, len(state.names)))

    def clock(self, state: AvignonState, seat: int | None) -> int | None:
        """AVIG-X1: the seat to move counts down to its own turn's end; every other screen to the standard one."""
        if state.deadline_ms is None or state.clock_ms is None or state.winner is not None:
            return state.deadline_ms
        return state.deadline_ms if seat is not None and seat == state.seat_of[state.to_move] else state.clock_ms

    def on_timeout(self, state: AvignonState, now_ms: int) -> AvignonState:
        """The player out of time finishes the turn with random legal actions drawn from the state's RNG."""
        if state.winner is not None:
            raise IllegalAction("nothing is timed now")
        seat = state.seat_of[state.to_move]
        turn = state.turn_no
        while state.winner is None and state.turn_no == turn:
            rng = Rng(state.rng_state)
            action = rng.choice(self._legal(state))
            state = self._act(replace(state, rng_state=rng.state), seat, action, now_ms, timed_out=True)
        return state

    # ----- views -----

    def card_view(self, card: int) -> dict[str, Any]:
        """A card as the views show it."""
        data = CARDS[card]
        return {"card": card, "id": data["id"], "class": data["class"], "petition": data["petition"]}

    def view(self, state: AvignonState, seat: int | None) -> dict[str, Any]:
        """Everything public (AVIG-D6): the board, conclaves, discard pile; of the deck only its size."""
        lanes: list[dict[str, Any]] = []
        for i, cell in enumerate(state.lanes):
            if cell is None:
                lanes.append({"lane": i + 1, "card": None})
            else:
                lanes.append({"lane": i + 1, **self.card_view(cell[0]), "location": cell[1],
                              "location_name": LOCATIONS[cell[1]]})
        result: dict[str, Any] = {
            "names": list(state.names),
            "roles": {ROLE_NAMES[r]: state.seat_of[r] for r in (AVIGNON, ROME)},
            "locations": list(LOCATIONS),
            "lanes": lanes,
            "deck_count": len(state.deck),
            "discard": [self.card_view(c) for c in state.discard],
            "conclaves": {ROLE_NAMES[r]: [self.card_view(c) for c in state.conclaves[r]] for r in (AVIGNON, ROME)},
            "to_move": state.seat_of[state.to_move] if state.winner is None else None,
            "to_move_role": ROLE_NAMES[state.to_move] if state.winner is None else None,
            "turn": state.turn_no,
            "used": list(state.used),
            "actions_allowed": state.allowed,
            "deadline_ms": self.clock(state, seat),  # AVIG-X1
            "winner": None if state.winner is None else state.seat_of[state.winner],
            "reason": state.reason or None,
            "history": list(state.history),  # the move log: bounded in the state (LOG_ACTIONS)
            "classes": list(CLASSES),  # a card's class by its number (the card data is public)
            "texts": [CARDS[c]["text"] for c in range(len(CARDS))],  # each card's petition, to read (AVIG-A11)
        }
        if seat is not None:
            role = state.role_of(seat)
            result["you"] = seat
            result["role"] = None if role is None else ROLE_NAMES[role]
            mine = role is not None and role == state.to_move and state.winner is None
            plans, removed = self.choices(state) if mine else ([], [])
            result["legal"] = [p["action"] for p in plans]
            result["plans"] = plans  # per legal action: what it does, whether it ends the turn
            result["removed"] = removed  # what the no-undo and repetition rules take away, and why (AVIG-D4, D9)
        return result

    def step(self, state: AvignonState) -> int:
        """The number of actions so far."""
        return state.step

    # ----- bots, outcome -----

    def bot_action(self, state: AvignonState, seat: int, rng: Rng) -> tuple[Payload, int] | None:
        """The bot's next action at the seat's level (engine.avignon.bots), after a human-looking pause."""
        from engine.avignon.bots import decide

        if not self.legal_actions(state, seat):
            return None
        action = decide(self, state, state.bot_level, rng)
        return self.action_to_json(action), 600 + rng.randbelow(1201)

    def outcome(self, state: AvignonState) -> Outcome | None:
        """The winner first (AVIG-D5, D9)."""
        if state.winner is None:
            return None
        return Outcome((state.seat_of[state.winner], state.seat_of[1 - state.winner]), f"outcome.avignon.{state.reason}",
                       {"winner_role": ROLE_NAMES[state.winner], "turns": state.turn_no,
                        "conclaves": {ROLE_NAMES[r]: [CARDS[c]["id"] for c in state.conclaves[r]] for r in (0, 1)}})

    def standings(self, state: AvignonState, seats: int) -> Outcome:
        """When the host ends the game: the players by the characters in their conclave, the count that wins at
        three (AVIG-D5, public by AVIG-D6); equal conclaves share a place."""
        outcome = self.outcome(state)
        if outcome is not None:
            return outcome
        size = {state.seat_of[r]: len(state.conclaves[r]) for r in (AVIGNON, ROME)}
        ranking = tuple(sorted(size, key=lambda seat: (-size[seat], seat)))
        return Outcome(ranking, ENDED_BY_HOST,
                       {"turns": state.turn_no,
                        "conclaves": {ROLE_NAMES[r]: [CARDS[c]["id"] for c in state.conclaves[r]] for r in (0, 1)}},
                       shared_places(ranking, size.__getitem__))

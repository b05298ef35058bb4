"""The Seizing the Crown rules engine (docs/rules/crown.md: the decisions CROWN-D1..D7 override the seed
rules; the adopted proposals CROWN-A1..A40; the implementation model CROWN-M1..M8).

Five houses, one seat each (a seat may be a team of phones, CROWN-D2). The game is a phase machine (M2):

    initial council -> [day window -> PRE -> council of judgment (-> veto -> reactions) -> (transfer council)
                        -> POST -> end of day]*

A phase that waits has a deadline; everything between two waiting phases happens inside ``apply`` or
``on_timeout``. Prestige deltas are queued and applied only at the calculation points PRE, the inter-council point
and POST (CROWN-R15, A9). Every announcement is an entry ``{"key": "crown.log.*", "params": {...}, "day": d}``:
public entries go to the feed, private ones to the chronicle of each house entitled to them (M8). ``apply`` copies
the state into a mutable ``Work``, acts there and freezes the result, so the given state is never changed.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict, TypeVar

from engine.core import (
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
from engine.crown.rules import (
    ENEMY,
    HOUSES,
    LOYAL,
    PRESTIGE_START,
    RULER,
    VETO_COST,
    WIN_CROWNS,
    clamp,
    crowns_for_reign_day,
    ranks,
    resolve_attacks,
    same_front,
)

HOUSES_FILE = Path(__file__).with_name("houses.json")
HOUSE_DATA: tuple[dict[str, Any], ...] = tuple(json.loads(HOUSES_FILE.read_text(encoding="utf-8"))["houses"])

REACT_SECONDS = 20  # CROWN-D1: the veto decision and the R61 reactions
FEED_SHOWN = 120  # the newest public entries in a view (the whole feed stays in the state)

# phases
INITIAL, DAY, JUDGMENT, VETO, REACTIONS, TRANSFER, OVER = (
    "initial", "day", "judgment", "veto", "reactions", "transfer", "over")
VOTING = (INITIAL, JUDGMENT, TRANSFER)
COUNCIL_PHASES = (INITIAL, JUDGMENT, VETO, REACTIONS, TRANSFER)
NOVOTE, ABSTAIN = -2, -1

# actions: tuples, first item the kind (see parse_action and docs/crown-engine.md)
KINDS = ("attack", "spy", "feast", "banquet", "aid", "propose_alliance", "answer_alliance", "propose_conspiracy",
         "answer_conspiracy", "demand_hush", "answer_hush", "debt_attack", "debt_take", "debt_vote", "vote",
         "veto", "pass", "react", "done")
FIELDS = {
    "attack": ("target",), "spy": ("target",), "feast": ("option", "when"), "banquet": ("when",),
    "aid": ("target",), "propose_alliance": ("target",), "answer_alliance": ("proposer", "accept"),
    "propose_conspiracy": ("target",), "answer_conspiracy": ("offer", "accept"), "demand_hush": ("target",),
    "answer_hush": ("demander", "pay"), "debt_attack": ("debtor", "target"), "debt_take": ("debtor",),
    "debt_vote": ("debtor", "choice"), "vote": ("choice",), "veto": ("replacement",), "pass": (),
    "react": ("defect",), "done": (),
}
HOUSE_FIELDS = ("target", "proposer", "demander", "debtor", "replacement")
# An action: its kind (a str of KINDS), then the kind's fields in FIELDS order: house numbers, true/false, "a"/"b",
# "pre"/"post", a vote's choice a house number or ABSTAIN. The kind decides the shape, which a type cannot follow here
# (apply dispatches on it by name), so the items are Any.
CrownAction = tuple[Any, ...]
BOOL_FIELDS = ("accept", "pay", "defect")

BOT_LEVELS = ("strong", "simple")  # engine/crown/strong.py, engine/crown/bots.py
SETTINGS = (
    SettingSpec("day_minutes", "int", 4, "setting.crown.day_minutes", 1, 20, group="timers", unit="min"),  # CROWN-D1
    SettingSpec("council_seconds", "int", 60, "setting.crown.council_seconds", 20, 300, group="timers", unit="s"),
    SettingSpec("last_day", "int", 0, "setting.crown.last_day", 0, 50),  # CROWN-D6 (0: off)
    SettingSpec("bot_level", "choice", "strong", "setting.crown.bot_level", choices=BOT_LEVELS),  # CROWN-D7
)


class Refusal(IllegalAction):
    """An action the rules refuse now; ``code`` is an i18n key ``crown.error.*``."""

    def __init__(self, reason: str, message: str, field: str | None = None):
        super().__init__(message, field)
        self.code = f"crown.error.{reason}"


def check(condition: bool, reason: str, message: str, field: str | None = None) -> None:
    """Raise a Refusal unless the condition holds."""
    if not condition:
        raise Refusal(reason, message, field)


T = TypeVar("T")


def found(value: T | None, reason: str, message: str) -> T:
    """The value, or a Refusal if there is none (an answer to a proposal that is not open, say)."""
    if value is None:
        raise Refusal(reason, message)
    return value


def entry(key: str, day: int, **params: Any) -> dict[str, Any]:
    """A feed or chronicle entry: an i18n key, its parameters (houses as indices) and the day."""
    return {"key": f"crown.log.{key}", "params": params, "day": day}


def _copy(value: Any) -> Any:
    """A copy of nested dicts and lists (tuples and scalars are shared)."""
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


class House(TypedDict):
    """One house's standing (M1)."""

    prestige: int
    status: str  # loyal, enemy or ruler
    crowns: int
    streak: int  # loyal days in a row
    enemy_days: int  # days as an enemy under this ruler (CROWN-A20)
    nlt: bool  # a non-loyal moment today (M2, CROWN-A5)
    pending_enemy: bool  # becomes an enemy at the next day start (CROWN-R21)


def new_house() -> House:
    """One house at the start (M1)."""
    return {"prestige": PRESTIGE_START, "status": LOYAL, "crowns": 0, "streak": 0, "enemy_days": 0,
            "nlt": False, "pending_enemy": False}


def new_today() -> dict[str, Any]:
    """The day's declared actions and daily-use flags (M1 "Day"), cleared at each day boundary."""
    return {"attacks": [], "spies": [], "feasts": [], "banquet": None, "aid": None, "alliances": [],
            "conspiracies": [], "hush": [], "done": [False] * HOUSES, "used": [[] for _ in range(HOUSES)]}


@dataclass(frozen=True)
class CrownState:
    """One moment of a game. Dicts and lists inside are never changed once the state exists."""

    names: tuple[str, ...]
    bots: tuple[bool, ...]
    day_ms: int
    council_ms: int
    react_ms: int
    last_day: int
    houses: tuple[House, ...]
    debts: tuple[tuple[int, ...], ...]  # debts[debtor][creditor] (CROWN-A38)
    pacts: tuple[tuple[int, int], ...] = ()  # no-attack pairs (CROWN-R52, R53), until the ruler changes
    ruler: int | None = None
    reign_day: int = 0
    day: int = 0
    phase: str = INITIAL
    deadline_ms: int | None = None
    window_ms: int = 0
    step: int = 0
    rng_state: int = 0
    today: dict[str, Any] = field(default_factory=dict)  # new_today(): the day's declared actions and daily uses
    council: dict[str, Any] | None = None  # the council sitting now (kind, voters, candidates, votes...), if any
    pending: tuple[tuple[int, int], ...] = ()  # queued prestige deltas (house, amount) for the next calculation point
    feed: tuple[dict[str, Any], ...] = ()
    chron: tuple[tuple[dict[str, Any], ...], ...] = ((),) * HOUSES
    rulers: tuple[tuple[int, int], ...] = ()  # (house, day installed)
    crowns_announced: Any = None  # the last CROWN-R75 announcement {"day", "crowns"}
    winner: int | None = None
    reason: str = ""
    ranking: tuple[int, ...] | None = None
    bot_levels: tuple[str, ...] = ("strong",) * HOUSES  # each house's bot level when a bot plays it (CROWN-D7)
    # Where the last night began and ended (issue [18], a house's "overnight"): the length of the feed and of each
    # house's chronicle when the last day window closed (dusk) and when the next one opened (dawn); () before any.
    dusk: tuple[int, ...] = ()
    dawn: tuple[int, ...] = ()
    factors: tuple[float, ...] = ()  # CROWN-X1: each house's extended time as the host set it (none: all x1)

    def stretch(self) -> float:
        """CROWN-X1: the factor every window opened now is stretched by: the largest of the houses people play."""
        return max((factor_of(self.factors, h) for h in range(len(self.bots)) if not self.bots[h]), default=1.0)

    def sitting(self) -> dict[str, Any]:
        """The council sitting now: every phase but the day and the end has one."""
        assert self.council is not None, f"no council sits in phase {self.phase}"
        return self.council


class Work:
    """A mutable copy of a state for one apply or timeout."""

    def __init__(self, state: CrownState, now_ms: int):
        self.s = state
        self.now = now_ms
        self.houses = [h.copy() for h in state.houses]
        self.debts = [list(row) for row in state.debts]
        self.pacts = set(state.pacts)
        self.ruler = state.ruler
        self.reign_day = state.reign_day
        self.day = state.day
        self.phase = state.phase
        self.deadline_ms = state.deadline_ms
        self.window_ms = state.window_ms
        self.step = state.step
        self.rng = Rng(state.rng_state)
        self.today: dict[str, Any] = _copy(state.today)
        self.council: dict[str, Any] | None = _copy(state.council)
        self.pending = list(state.pending)
        self.feed_new: list[dict[str, Any]] = []
        self.chron_new: list[list[dict[str, Any]]] = [[] for _ in range(HOUSES)]
        self.rulers = list(state.rulers)
        self.crowns_announced = state.crowns_announced
        self.winner = state.winner
        self.reason = state.reason
        self.ranking = state.ranking
        self.dusk = state.dusk
        self.dawn = state.dawn

    # ----- small helpers -----

    def marks(self) -> tuple[int, ...]:
        """How long the feed and each house's chronicle are now (a dusk or dawn mark)."""
        return (len(self.s.feed) + len(self.feed_new),
                *(len(c) + len(n) for c, n in zip(self.s.chron, self.chron_new, strict=True)))

    def sitting(self) -> dict[str, Any]:
        """The council sitting now: every phase but the day and the end has one."""
        assert self.council is not None, f"no council sits in phase {self.phase}"
        return self.council

    def status(self, h: int) -> str:
        """A house's status."""
        return self.houses[h]["status"]

    def set_status(self, h: int, status: str) -> None:
        """Change a status; any non-loyal moment spoils the day's loyalty (M2, CROWN-A5)."""
        self.houses[h]["status"] = status
        if status != LOYAL:
            self.houses[h]["nlt"] = True

    def public(self, key: str, **params: Any) -> None:
        """A public feed entry."""
        self.feed_new.append(entry(key, self.day, **params))

    def tell(self, h: int, key: str, **params: Any) -> None:
        """A private entry in one house's chronicle."""
        self.chron_new[h].append(entry(key, self.day, **params))

    def queue(self, h: int, amount: int) -> None:
        """A prestige delta for the next calculation point."""
        self.pending.append((h, amount))

    def open_window(self, phase: str, ms: int) -> None:
        """A new waiting phase: a new step, so phones holding the old one are refused as stale."""
        self.phase = phase
        ms = stretched(ms, self.s.stretch())  # CROWN-X1: one window for all houses, as long as the longest needs
        self.window_ms = ms
        self.deadline_ms = self.now + ms
        self.step += 1

    def add_debt(self, debtor: int, creditor: int) -> None:
        """A new debt, then automatic cancellation of mutual debts (CROWN-R72, A38)."""
        self.debts[debtor][creditor] += 1
        cancelled = min(self.debts[debtor][creditor], self.debts[creditor][debtor])
        if cancelled:
            self.debts[debtor][creditor] -= cancelled
            self.debts[creditor][debtor] -= cancelled
            self.tell(debtor, "debts_cancelled", house=creditor, count=cancelled)
            self.tell(creditor, "debts_cancelled", house=debtor, count=cancelled)

    def freeze(self) -> CrownState:
        """The state this work ends in."""
        s = self.s
        feed = s.feed + tuple(self.feed_new) if self.feed_new else s.feed
        chron = tuple(c + tuple(n) if n else c for c, n in zip(s.chron, self.chron_new, strict=True))
        return evolve(
            s, houses=tuple(self.houses), debts=tuple(tuple(r) for r in self.debts), pacts=tuple(sorted(self.pacts)),
            ruler=self.ruler, reign_day=self.reign_day, day=self.day, phase=self.phase, deadline_ms=self.deadline_ms,
            window_ms=self.window_ms, step=self.step, rng_state=self.rng.state, today=self.today,
            council=self.council, pending=tuple(self.pending), feed=feed, chron=chron, rulers=tuple(self.rulers),
            crowns_announced=self.crowns_announced, winner=self.winner, reason=self.reason, ranking=self.ranking,
            dusk=self.dusk, dawn=self.dawn)


def pact(pacts: Any, a: int, b: int) -> bool:
    """Whether two houses may not attack each other (CROWN-R52, R53)."""
    return (min(a, b), max(a, b)) in pacts


class CrownGame(Game[CrownState, CrownAction]):
    """Seizing the Crown: five houses, loyalty and treason, hidden prestige."""

    info = GameInfo("crown", "game.crown.name", "game.crown.blurb", 1, 12, SETTINGS, teams=True,
                    team_keys=tuple(h["name_key"] for h in HOUSE_DATA),
                    team_colours=tuple(h["colour"] for h in HOUSE_DATA))

    # ----- setup -----

    def setup(self, slots: Sequence[Slot], ctx: Context, now_ms: int) -> CrownState:
        """Five houses at 50 prestige and the initial council that chooses the first ruler (CROWN-R3, A1, A34)."""
        if len(slots) != HOUSES:
            raise IllegalAction("Seizing the Crown is played by exactly 5 houses")
        settings = {**self.info.default_settings(), **dict(ctx.settings)}
        state = CrownState(
            names=tuple(s.name for s in slots), bots=tuple(s.is_bot for s in slots),
            day_ms=ctx.timer_ms(60 * settings["day_minutes"]), council_ms=ctx.timer_ms(settings["council_seconds"]),
            react_ms=ctx.timer_ms(REACT_SECONDS), last_day=settings["last_day"],
            houses=tuple(new_house() for _ in range(HOUSES)), debts=((0,) * HOUSES,) * HOUSES,
            rng_state=Rng(ctx.seed).state, today=new_today(), bot_levels=(settings["bot_level"],) * HOUSES,
            factors=ctx.factors(len(slots)))
        w = Work(state, now_ms)
        self._open_power_council(w, INITIAL, former=None)
        return w.freeze()

    # ----- parsing -----

    def parse_action(self, payload: Payload) -> CrownAction:
        """``{"kind": ..., fields}``; see docs/crown-engine.md for every kind and its fields."""
        if not isinstance(payload, dict):
            raise InvalidAction('an action is an object like {"kind": "attack", "target": 2}', "kind")
        kind = payload.get("kind")
        if kind not in KINDS:
            raise InvalidAction(f"kind must be one of {', '.join(KINDS)}", "kind")
        fields = FIELDS[kind]
        for key in payload:
            if key != "kind" and key not in fields:
                raise InvalidAction(f"{str(key)[:20]!r} is not a field of {kind}", str(key)[:20])
        values: list[Any] = []
        for name in fields:
            value = payload.get(name)
            if name in HOUSE_FIELDS:
                if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < HOUSES:
                    raise InvalidAction(f"{name} must be a house number from 0 to 4", name)
            elif name == "choice":
                if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                          or not 0 <= value < HOUSES):
                    raise InvalidAction("choice must be a house number from 0 to 4, or null to abstain", name)
                value = ABSTAIN if value is None else value
            elif name in BOOL_FIELDS:
                if not isinstance(value, bool):
                    raise InvalidAction(f"{name} must be true or false", name)
            elif name == "option":
                if value not in ("a", "b"):
                    raise InvalidAction('option must be "a" (learn your prestige) or "b" (gain by your front)', name)
            elif name == "when":
                if value not in ("pre", "post"):
                    raise InvalidAction('when must be "pre" (before the council) or "post" (after it)', name)
            elif name == "offer" and (isinstance(value, bool) or not isinstance(value, int)
                                      or not 0 <= value < HOUSES):
                raise InvalidAction("offer must be the number of a conspiracy offer you received", name)
            values.append(value)
        return (kind, *values)

    def action_to_json(self, action: CrownAction) -> dict[str, Any]:
        """The payload form of an action."""
        kind = action[0]
        result: dict[str, Any] = {"kind": kind}
        for name, value in zip(FIELDS[kind], action[1:], strict=True):
            result[name] = None if name == "choice" and value == ABSTAIN else value
        return result

    # ----- legality -----

    def legal_actions(self, state: CrownState, seat: int) -> list[CrownAction]:
        """Every action the house may take now (the veto is listed whenever it may be tried, CROWN-A10)."""
        if state.phase == OVER or not 0 <= seat < HOUSES:
            return []
        h = seat
        result: list[CrownAction] = []
        others = [x for x in range(HOUSES) if x != h]
        non_rulers = [x for x in others if x != state.ruler]
        debtors = [x for x in range(HOUSES) if state.debts[x][h] > 0]
        if state.phase == DAY:
            today = state.today
            used = today["used"][h]
            status = state.houses[h]["status"]
            if not today["done"][h]:
                result.append(("done",))
            if "attack" not in used:
                result += [("attack", t) for t in others if not pact(state.pacts, h, t)]
            if "spy" not in used:
                result += [("spy", t) for t in others]
            if status != RULER and "feast" not in used:
                result += [("feast", o, w) for o in ("a", "b") for w in ("pre", "post")]
            if status == RULER and "banquet" not in used:
                result += [("banquet", w) for w in ("pre", "post")]
            if status == RULER and today["aid"] is None:
                result += [("aid", t) for t in non_rulers]
            if "alliance" not in used:
                result += [("propose_alliance", t) for t in others]
            for prop in today["alliances"]:
                if prop["t"] == h and prop["ans"] is None:
                    result += [("answer_alliance", prop["p"], True), ("answer_alliance", prop["p"], False)]
            if status != RULER and "conspiracy" not in used:
                result += [("propose_conspiracy", t) for t in non_rulers]
            for offer in today["conspiracies"]:
                if offer["t"] == h and offer["ans"] is None:
                    result += [("answer_conspiracy", offer["n"], True), ("answer_conspiracy", offer["n"], False)]
            if status == LOYAL and "hush" not in used:
                result += [("demand_hush", t) for t in non_rulers]
            for demand in today["hush"]:
                if demand["t"] == h and demand["enemy"] and demand["ans"] is None:
                    result += [("answer_hush", demand["d"], True), ("answer_hush", demand["d"], False)]
            for x in debtors:
                if x != state.ruler and "attack" not in today["used"][x]:
                    result += [("debt_attack", x, t) for t in range(HOUSES)
                               if t not in (x, h) and not pact(state.pacts, x, t)]
            result += [("debt_take", x) for x in debtors]
            return result
        council = state.sitting()
        if state.phase in VOTING:
            if h in council["voters"] and council["votes"][h] == NOVOTE:
                result += [("vote", c) for c in self._choices(state, h)]
            result += [("debt_take", x) for x in debtors]
            for x in debtors:
                if x in council["voters"] and x != state.ruler and council["forced"][x] is None:
                    result += [("debt_vote", x, c) for c in self._choices(state, x)]
            return result
        if state.phase == VETO:
            if h == state.ruler:
                if not council.get("veto_refused"):
                    result += [("veto", r) for r in range(HOUSES) if r not in (h, council["condemned"])]
                result.append(("pass",))
        elif state.phase == REACTIONS and h in council["react"] and council["answers"][h] is None:
            result += [("react", True), ("react", False)]
        result += [("debt_take", x) for x in debtors]
        return result

    @staticmethod
    def _choices(state: CrownState, voter: int) -> list[int]:
        """A voter's choices: every candidate but itself, or abstain (CROWN-A29, A37)."""
        return [c for c in state.sitting()["candidates"] if c != voter] + [ABSTAIN]

    # ----- applying -----

    def apply(self, state: CrownState, seat: int, action: CrownAction, now_ms: int, timing: Timing | None = None
              ) -> CrownState:
        """One house's action; the window closes by itself when everyone is done or has voted."""
        check(state.phase != OVER, "game_over", "the game is over")
        check(0 <= seat < HOUSES, "not_a_house", "no such house")
        check(isinstance(action, tuple) and bool(action) and action[0] in KINDS, "unknown", "unknown action")
        w = Work(state, now_ms)
        kind = action[0]
        handler = getattr(self, f"_do_{kind}")
        handler(w, seat, *action[1:])
        return w.freeze()

    def _need_phase(self, w: Work, *phases: str) -> None:
        check(w.phase in phases, "not_now", f"this cannot be done now (phase {w.phase})")

    def _need_house(self, h: int, target: int, field: str = "target") -> None:
        check(0 <= target < HOUSES, "not_a_house", "no such house", field)
        check(target != h, "self_target", "a house cannot target itself (CROWN-A15)", field)

    def _use(self, w: Work, h: int, kind: str, message: str) -> None:
        check(kind not in w.today["used"][h], f"already_{kind}", message)
        w.today["used"][h].append(kind)

    # day actions

    def _do_done(self, w: Work, h: int) -> None:
        self._need_phase(w, DAY)
        check(not w.today["done"][h], "already_done", "your house has already said it is done for today")
        w.today["done"][h] = True
        self._maybe_close_day(w)

    def _maybe_close_day(self, w: Work) -> None:
        """CROWN-D1: the window ends early when every house with people is done (bot houses are never waited for;
        in a game of bots only, every house) and no prompt is left unanswered, a bot's included (so a house that
        pressed done still gets to answer a proposal that reaches it afterwards, CROWN-D7)."""
        today = w.today
        waited = [h for h in range(HOUSES) if not w.s.bots[h]] or range(HOUSES)
        if all(today["done"][h] for h in waited) \
                and not any(x["ans"] is None for x in today["alliances"] + today["conspiracies"]) \
                and not any(x["enemy"] and x["ans"] is None for x in today["hush"]):
            self._close_day(w)

    def _declare_attack(self, w: Work, a: int, t: int, forced_by: int | None) -> None:
        sa, st = w.status(a), w.status(t)
        w.today["attacks"].append({"a": a, "t": t, "sa": sa, "st": st, "forced_by": forced_by})
        w.today["used"][a].append("attack")
        if forced_by is None:
            w.public("attack", attacker=a, target=t)
        else:
            w.public("attack_forced", creditor=forced_by, attacker=a, target=t)
        if sa == LOYAL and st == RULER:  # CROWN-R34, M5 T1 (a forced attack counts too, A21)
            w.set_status(a, ENEMY)
            w.tell(a, "treason_attack")

    def _do_attack(self, w: Work, h: int, t: int) -> None:
        self._need_phase(w, DAY)
        self._need_house(h, t)
        check("attack" not in w.today["used"][h], "already_attack", "your house has already attacked today (CROWN-R29)")
        check(not pact(w.pacts, h, t), "pact", "an alliance forbids attacking this house (CROWN-R52, R53, A24)")
        self._declare_attack(w, h, t, None)

    def _do_spy(self, w: Work, h: int, t: int) -> None:
        self._need_phase(w, DAY)
        self._need_house(h, t)
        self._use(w, h, "spy", "your house has already spied today (CROWN-A15)")
        w.today["spies"].append({"s": h, "t": t})
        w.queue(h, -5)  # CROWN-R47
        w.tell(h, "spy_sent", target=t)
        if t == w.ruler and w.status(h) == LOYAL:  # CROWN-R48, M5 T2
            w.set_status(h, ENEMY)
            w.tell(h, "treason_spy")

    def _do_feast(self, w: Work, h: int, option: str, when: str) -> None:
        self._need_phase(w, DAY)
        check(w.status(h) != RULER, "ruler_feast", "the ruling house holds a banquet, not a feast (CROWN-R41)")
        self._use(w, h, "feast", "your house has already held a feast today (CROWN-R41)")
        w.today["feasts"].append({"h": h, "option": option, "when": when})
        w.queue(h, -5)  # CROWN-R41: the cost, counted at PRE (M2 step 3)
        w.public("feast", house=h)
        w.tell(h, "feast_held", option=option, when=when)  # CROWN-A13: option and timing stay secret

    def _do_banquet(self, w: Work, h: int, when: str) -> None:
        self._need_phase(w, DAY)
        check(w.status(h) == RULER, "not_ruler", "only the ruling house holds a banquet (CROWN-R45)")
        self._use(w, h, "banquet", "your house has already announced a banquet today (CROWN-A15)")
        w.today["banquet"] = {"h": h, "when": when}
        w.public("banquet", house=h)
        w.tell(h, "banquet_held", when=when)

    def _do_aid(self, w: Work, h: int, t: int) -> None:
        self._need_phase(w, DAY)
        check(w.status(h) == RULER, "not_ruler", "only the ruling house gives aid (CROWN-R59)")
        self._need_house(h, t)
        check(w.today["aid"] is None, "already_aid", "the ruler aids exactly one house a day (CROWN-R59)")
        w.today["aid"] = t
        w.queue(h, -5)
        w.queue(t, 5)
        w.public("aid", ruler=h, target=t)

    def _do_propose_alliance(self, w: Work, h: int, t: int) -> None:
        self._need_phase(w, DAY)
        self._need_house(h, t)
        self._use(w, h, "alliance", "your house has already proposed an alliance today (CROWN-A15)")
        w.today["alliances"].append({"p": h, "t": t, "ans": None})
        w.public("alliance_proposed", proposer=h, target=t)  # CROWN-R51

    def _do_answer_alliance(self, w: Work, h: int, p: int, accept: bool) -> None:
        self._need_phase(w, DAY)
        prop = found(next((x for x in w.today["alliances"] if x["p"] == p and x["t"] == h and x["ans"] is None), None),
                     "no_proposal", "there is no open alliance proposal from that house to yours")
        prop["ans"] = "accept" if accept else "reject"
        if not accept:
            w.queue(p, -5)  # CROWN-R54
            w.public("alliance_rejected", proposer=p, target=h)
        else:
            self._accept_alliance(w, p, h)
        self._maybe_close_day(w)

    def _accept_alliance(self, w: Work, p: int, h: int) -> None:
        w.public("alliance_accepted", proposer=p, target=h)
        sp, st = w.status(p), w.status(h)  # CROWN-A19: judged at the response
        if same_front(sp, st):  # CROWN-R52
            w.queue(p, 5)
            w.queue(h, 5)
        elif sp == RULER:  # CROWN-R53, A18: the non-ruling party changes sides
            w.set_status(h, LOYAL)
        elif st == RULER:
            w.set_status(p, LOYAL)
            w.tell(p, "alliance_status", status=LOYAL)
        else:
            w.set_status(h, sp)
        w.tell(h, "alliance_status", status=w.status(h))  # CROWN-A19: the acceptor is told its status
        w.pacts.add((min(p, h), max(p, h)))

    def _do_propose_conspiracy(self, w: Work, h: int, t: int) -> None:
        self._need_phase(w, DAY)
        check(w.status(h) != RULER, "ruler_conspiracy", "the ruling house cannot conspire (CROWN-R55)")
        self._need_house(h, t)
        check(t != w.ruler, "target_ruler", "a conspiracy cannot be offered to the ruler (CROWN-A18)")
        self._use(w, h, "conspiracy", "your house has already proposed a conspiracy today (CROWN-A15)")
        n = sum(1 for x in w.today["conspiracies"] if x["t"] == t)
        w.today["conspiracies"].append({"p": h, "t": t, "n": n, "ans": None})
        w.tell(h, "conspiracy_sent", target=t)
        w.tell(t, "conspiracy_offer", offer=n)  # CROWN-R55: without the proposer's name

    def _conspiracy_result(self, w: Work, offer: dict[str, Any], accept: bool, expired: bool = False) -> None:
        p, t = offer["p"], offer["t"]
        offer["ans"] = "accept" if accept else "reject"
        if accept:  # CROWN-R56, A39, M5 T5
            w.set_status(p, ENEMY)
            w.set_status(t, ENEMY)
            w.tell(p, "conspiracy_accepted", partner=t)
            w.tell(t, "conspiracy_accepted", partner=p)
            return
        if same_front(w.status(p), w.status(t)):  # CROWN-R58
            w.queue(p, -5)
            w.queue(t, -5)
        else:  # CROWN-R57
            w.queue(p, -5)
        w.tell(p, "conspiracy_rejected", target=t)
        w.tell(t, "conspiracy_expired" if expired else "conspiracy_declined", offer=offer["n"])

    def _do_answer_conspiracy(self, w: Work, h: int, n: int, accept: bool) -> None:
        self._need_phase(w, DAY)
        offer = found(next((x for x in w.today["conspiracies"] if x["t"] == h and x["n"] == n and x["ans"] is None),
                           None), "no_proposal", "there is no open conspiracy offer with that number")
        self._conspiracy_result(w, offer, accept)
        self._maybe_close_day(w)

    def _do_demand_hush(self, w: Work, h: int, t: int) -> None:
        self._need_phase(w, DAY)
        check(w.status(h) == LOYAL, "not_loyal", "only a loyal house may demand hush money (CROWN-R62, A22)")
        self._need_house(h, t)
        check(t != w.ruler, "target_ruler", "hush money cannot be demanded from the ruler (CROWN-R62)")
        self._use(w, h, "hush", "your house has already demanded hush money today (CROWN-A15)")
        enemy = w.status(t) == ENEMY  # CROWN-A22: judged at the demand
        w.today["hush"].append({"d": h, "t": t, "enemy": enemy, "ans": None})
        w.tell(h, "hush_sent", target=t)
        if enemy:
            w.tell(t, "hush_demand", demander=h)  # CROWN-R63, A22: the demander is named
        else:
            w.queue(h, -10)  # CROWN-R66: nobody is told

    def _do_answer_hush(self, w: Work, h: int, d: int, pay: bool) -> None:
        self._need_phase(w, DAY)
        demand = found(next((x for x in w.today["hush"] if x["d"] == d and x["t"] == h and x["enemy"]
                             and x["ans"] is None), None),
                       "no_proposal", "there is no open hush-money demand from that house")
        demand["ans"] = "pay" if pay else "refuse"
        if pay:  # CROWN-R65, M5 T4
            w.tell(h, "hush_paid", demander=d)
            w.tell(d, "hush_collected", payer=h)
            if w.status(d) == LOYAL:
                w.set_status(d, ENEMY)
            w.add_debt(h, d)
        else:
            w.tell(h, "hush_refused", demander=d)
        self._maybe_close_day(w)

    # debts (CROWN-R67..R72, M6)

    def _need_debt(self, w: Work, h: int, x: int) -> None:
        check(0 <= x < HOUSES and x != h, "not_a_house", "no such debtor", "debtor")
        check(w.debts[x][h] > 0, "no_debt", "that house owes yours nothing", "debtor")

    def _settle(self, w: Work, debtor: int, creditor: int) -> None:
        w.debts[debtor][creditor] -= 1  # CROWN-R71

    def _do_debt_attack(self, w: Work, h: int, x: int, t: int) -> None:
        self._need_phase(w, DAY)  # CROWN-R68, A35
        self._need_debt(w, h, x)
        check(x != w.ruler, "debtor_ruler", "the ruling house cannot repay a debt this way (CROWN-R68)")
        check("attack" not in w.today["used"][x], "debtor_attacked", "that house has already attacked today")
        check(0 <= t < HOUSES and t not in (x, h), "bad_target", "the target must be neither the debtor nor you")
        check(not pact(w.pacts, x, t), "pact", "an alliance forbids the debtor to attack that house")
        self._settle(w, x, h)
        self._declare_attack(w, x, t, h)

    def _do_debt_take(self, w: Work, h: int, x: int) -> None:
        self._need_phase(w, DAY, *COUNCIL_PHASES)  # CROWN-R69, A36: any time
        self._need_debt(w, h, x)
        self._settle(w, x, h)
        w.queue(x, -10)
        w.queue(h, 10)
        w.public("debt_take", creditor=h, debtor=x)

    def _do_debt_vote(self, w: Work, h: int, x: int, choice: int) -> None:
        self._need_phase(w, *VOTING)  # CROWN-R70, A37
        self._need_debt(w, h, x)
        c = w.sitting()
        check(x in c["voters"], "not_voter", "that house does not vote in this council")
        check(x != w.ruler, "debtor_ruler", "the ruling house's vote cannot be changed (CROWN-R70, A37)")
        check(c["forced"][x] is None, "already_forced", "that house's vote has already been changed")
        check(choice == ABSTAIN or (choice in c["candidates"] and choice != x), "bad_choice",
              "not a choice that house may vote for", "choice")
        self._settle(w, x, h)
        if c["votes"][x] == NOVOTE:
            c["order"].append(x)
        c["votes"][x] = choice
        c["forced"][x] = h
        if choice == ABSTAIN:
            w.public("debt_vote_abstain", creditor=h, debtor=x)
        else:
            w.public("debt_vote", creditor=h, debtor=x, choice=choice)
        self._maybe_close_council(w)

    # councils

    def _do_vote(self, w: Work, h: int, choice: int) -> None:
        self._need_phase(w, *VOTING)
        c = w.sitting()
        check(h in c["voters"], "not_voter", "your house does not vote in this council (CROWN-R25)")
        check(c["votes"][h] == NOVOTE, "already_voted", "your house has already voted in this council")
        check(choice == ABSTAIN or (choice in c["candidates"] and choice != h), "bad_choice",
              "you may vote for another candidate or abstain (CROWN-A29)", "choice")
        c["votes"][h] = choice
        c["order"].append(h)
        if choice == ABSTAIN:  # CROWN-A29: choices are public, weights are not
            w.public("vote_abstain", voter=h)
        else:
            w.public("vote", voter=h, choice=choice)
        self._maybe_close_council(w)

    def _maybe_close_council(self, w: Work) -> None:
        c = w.sitting()
        if all(c["votes"][v] != NOVOTE for v in c["voters"]):
            self._close_council(w)

    def _do_veto(self, w: Work, h: int, r: int) -> None:
        self._need_phase(w, VETO)
        c = w.sitting()
        check(h == w.ruler, "not_ruler", "only the ruling house may veto (CROWN-R60)")
        check(not c.get("veto_refused"), "veto_refused", "your veto was already refused in this council")
        check(0 <= r < HOUSES and r not in (h, c["condemned"]), "bad_replacement",
              "the replacement must be neither your house nor the condemned one (CROWN-A33)", "replacement")
        if w.houses[h]["prestige"] < VETO_COST:  # CROWN-A10: refused, which tells the ruler only that it has < 20
            c["veto_refused"] = True
            w.tell(h, "veto_refused")
            return
        w.queue(h, -VETO_COST)
        w.public("veto", ruler=h, vetoed=c["condemned"], replacement=r)
        c["vetoed"] = True
        self._condemn(w, r)  # CROWN-A33: the replacement bears the full effects, the original nothing
        loyal = [x for x in range(HOUSES) if w.status(x) == LOYAL]
        if loyal:  # CROWN-R61: the reactions window (only loyal houses are asked, A33)
            c["react"] = loyal
            c["answers"] = [None] * HOUSES
            w.open_window(REACTIONS, w.s.react_ms)
        else:
            self._after_judgment(w)

    def _do_pass(self, w: Work, h: int) -> None:
        self._need_phase(w, VETO)
        check(h == w.ruler, "not_ruler", "only the ruling house decides on a veto")
        w.public("no_veto", ruler=h)
        self._condemn(w, w.sitting()["condemned"])
        self._after_judgment(w)

    def _do_react(self, w: Work, h: int, defect: bool) -> None:
        self._need_phase(w, REACTIONS)
        c = w.sitting()
        check(h in c["react"], "not_prompted", "your house is not asked to react")
        check(c["answers"][h] is None, "already_answered", "your house has already answered")
        c["answers"][h] = defect
        if defect and w.status(h) == LOYAL:  # CROWN-R61, M5 T7: secret (A33)
            w.set_status(h, ENEMY)
            w.tell(h, "defected")
        else:
            w.tell(h, "stayed_loyal")
        # CROWN-A33 + secrecy: the window always runs to its deadline, so its length tells nobody who answered

    # ----- the phase machine (M2) -----

    def _open_power_council(self, w: Work, kind: str, former: int | None) -> None:
        """A power-transfer council (or the initial one): crowns announced first (CROWN-R75, A34)."""
        crowns = [h["crowns"] for h in w.houses]
        w.crowns_announced = {"day": w.day, "crowns": crowns}
        w.public("crowns_announced", crowns=crowns)
        voters = [x for x in range(HOUSES) if x != former]  # CROWN-R25
        weights = [h["prestige"] // 10 for h in w.houses]  # CROWN-R24, A32
        w.council = {"kind": kind, "round": 1, "former": former, "voters": voters, "candidates": list(voters),
                     "votes": [NOVOTE] * HOUSES, "forced": [None] * HOUSES, "order": [], "weights": weights}
        w.public("transfer_opened" if kind == TRANSFER else "initial_opened", former=former)
        w.open_window(kind, w.s.council_ms)

    def _close_day(self, w: Work) -> None:
        """End of the day window and the PRE calculation (M2 step 3)."""
        w.dusk = w.marks()  # the night begins (a house's "overnight", issue [18])
        today = w.today
        # (1) defaults
        for prop in today["alliances"]:
            if prop["ans"] is None:
                prop["ans"] = "reject"
                w.queue(prop["p"], -5)  # CROWN-R51, R54
                w.public("alliance_expired", proposer=prop["p"], target=prop["t"])
        for offer in today["conspiracies"]:
            if offer["ans"] is None:
                self._conspiracy_result(w, offer, False, expired=True)  # CROWN-R55
        for demand in today["hush"]:
            if demand["enemy"] and demand["ans"] is None:
                demand["ans"] = "refuse"  # CROWN-A22: no answer is a refusal
                w.tell(demand["t"], "hush_expired", demander=demand["d"])
        if w.ruler is not None and today["aid"] is None:
            w.queue(w.ruler, -10)  # CROWN-R59, A23
            w.public("no_aid", ruler=w.ruler)
        # (2) attacks
        deltas, deposed, _notes = resolve_attacks(today["attacks"], w.ruler)
        for h, d in enumerate(deltas):
            if d:
                w.queue(h, d)
        # (3)-(8)
        self._calculate(w, "pre")
        # (9) public announcements
        for demand in today["hush"]:
            if demand["enemy"] and demand["ans"] == "refuse" and w.status(demand["t"]) == ENEMY:
                w.public("hush_refusal", house=demand["t"])  # CROWN-R64, M5 T9
        if deposed:  # CROWN-R37, A28: no council of judgment today
            former = w.ruler
            w.public("deposed_war", ruler=former)
            self._vacate(w)
            self._open_power_council(w, TRANSFER, former=former)
        else:
            self._open_judgment(w)

    def _calculate(self, w: Work, point: str) -> None:
        """A calculation point (CROWN-A9, A10, A11, A12): queued deltas, Feasts (b) and Banquets of this point, clamp;
        then ranks, refunds, clamp again and the private disclosures. ``point`` is "pre", "mid" or "post"."""
        deltas = [0] * HOUSES
        for h, amount in w.pending:
            deltas[h] += amount
        w.pending = []
        today = w.today
        feasts = [f for f in today["feasts"] if f["when"] == point]
        for f in feasts:
            if f["option"] == "b":  # CROWN-R43, A17
                h = f["h"]
                front = sum(1 for x in range(HOUSES)
                            if x not in (h, w.ruler) and same_front(w.status(h), w.status(x)))
                deltas[h] += 5 * front
        banquet = today["banquet"]
        banquet_ok = False
        if banquet is not None and banquet["when"] == point:
            h = banquet["h"]
            touched = any(a["a"] == h or a["t"] == h for a in today["attacks"])
            if w.ruler == h and not touched:  # CROWN-R45, A16
                banquet_ok = True
                deltas[h] += 5 * sum(1 for x in range(HOUSES) if w.status(x) == LOYAL)
            else:
                w.tell(h, "banquet_void")
        for h in range(HOUSES):
            w.houses[h]["prestige"] = clamp(w.houses[h]["prestige"] + deltas[h])
        if point == "mid":
            return
        rank = ranks([x["prestige"] for x in w.houses])
        refunds = [0] * HOUSES
        spy_refunds = []
        if point == "pre":
            for spy in today["spies"]:
                r = rank[spy["t"]]
                amount = 10 if r == 1 else 5 if r == 2 else 0  # CROWN-R49, R50, A14
                spy_refunds.append(amount)
                refunds[spy["s"]] += amount
        feast_refunds = []
        for f in feasts:
            amount = 5 if f["option"] == "a" and rank[f["h"]] >= 4 else 0  # CROWN-R42
            feast_refunds.append(amount)
            refunds[f["h"]] += amount
        for h in range(HOUSES):
            w.houses[h]["prestige"] = clamp(w.houses[h]["prestige"] + refunds[h])
        # disclosures (CROWN-R15, A9, A12): the values after everything at this point
        if point == "pre":
            for spy, amount in zip(today["spies"], spy_refunds, strict=True):
                w.tell(spy["s"], "spy_result", target=spy["t"], prestige=w.houses[spy["t"]]["prestige"], point=point)
                if amount:
                    w.tell(spy["s"], "spy_refund", target=spy["t"], amount=amount)
        for f, amount in zip(feasts, feast_refunds, strict=True):
            if f["option"] == "a":
                if amount:
                    w.tell(f["h"], "feast_refund", amount=amount)
                w.tell(f["h"], "feast_value", prestige=w.houses[f["h"]]["prestige"], point=point)
        if banquet_ok:
            h = banquet["h"]
            w.tell(h, "banquet_value", prestige=w.houses[h]["prestige"], point=point)

    def _open_judgment(self, w: Work) -> None:
        """The council of judgment (M2 step 4)."""
        for x in w.houses:
            if x["status"] == ENEMY:
                x["enemy_days"] += 1  # CROWN-A20
        weights = [h["prestige"] // 10 for h in w.houses]  # CROWN-R16, A32
        everyone = list(range(HOUSES))
        w.council = {"kind": JUDGMENT, "round": 1, "former": None, "voters": everyone, "candidates": everyone,
                     "votes": [NOVOTE] * HOUSES, "forced": [None] * HOUSES, "order": [], "weights": weights}
        w.public("judgment_opened")
        w.open_window(JUDGMENT, w.s.council_ms)

    def _tally(self, c: dict[str, Any]) -> list[int]:
        totals = [0] * HOUSES
        for v in c["voters"]:
            choice = c["votes"][v]
            if choice >= 0:
                totals[choice] += c["weights"][v]
        return totals

    def _close_council(self, w: Work) -> None:
        c = w.sitting()
        for v in c["voters"]:
            if c["votes"][v] == NOVOTE:
                c["votes"][v] = ABSTAIN  # no vote in time: abstained
        totals = self._tally(c)
        if c["kind"] == JUDGMENT:
            ruler = w.ruler
            assert ruler is not None  # a council of judgment sits under a ruler (a deposition opens a transfer)
            for v in c["voters"]:  # CROWN-R21, A21, M5 T3: a forced vote counts too
                if c["votes"][v] == w.ruler and w.status(v) == LOYAL and not w.houses[v]["pending_enemy"]:
                    w.houses[v]["pending_enemy"] = True
                    w.tell(v, "vote_treason")
            top = max(totals)
            leaders = [x for x in range(HOUSES) if totals[x] == top]
            if top == 0 or len(leaders) > 1:  # CROWN-A30
                w.public("no_condemnation")
                w.queue(ruler, 10)  # CROWN-R22
                c["condemned"] = None
                self._after_judgment(w)
                return
            c["condemned"] = leaders[0]  # CROWN-R17
            w.public("condemned", house=leaders[0])
            w.open_window(VETO, w.s.react_ms)  # CROWN-R60, A33: the ruler may veto
            return
        # a power council (CROWN-R26, A31)
        cands = c["candidates"]
        top = max(totals[x] for x in cands)
        leaders = [x for x in cands if totals[x] == top]
        if len(leaders) > 1 and c["round"] == 1:
            w.council = {**c, "round": 2, "candidates": leaders, "votes": [NOVOTE] * HOUSES,
                         "forced": [None] * HOUSES, "order": []}
            w.public("revote", candidates=leaders)
            w.open_window(c["kind"], w.s.council_ms)
            return
        if len(leaders) > 1:
            best = max(w.houses[x]["prestige"] for x in leaders)
            leaders = [x for x in leaders if w.houses[x]["prestige"] == best]
        winner = leaders[0] if len(leaders) == 1 else w.rng.choice(leaders)
        self._install(w, winner, c)

    def _condemn(self, w: Work, x: int) -> None:
        """The condemnation effects on one house (CROWN-R17..R20), with the statuses of this moment."""
        c = w.sitting()
        w.queue(x, -10)  # CROWN-R17
        status = w.status(x)
        if status == LOYAL:  # CROWN-R18
            for y in range(HOUSES):
                if w.status(y) == ENEMY:
                    w.queue(y, 5)
        elif status == ENEMY:  # CROWN-R19
            for y in range(HOUSES):
                if w.status(y) in (LOYAL, RULER):
                    w.queue(y, 5)
        else:  # CROWN-R20: the ruler is removed; the enemy-day bonus
            c["removed"] = True
            for y in range(HOUSES):
                if w.houses[y]["enemy_days"]:
                    w.queue(y, 5 * w.houses[y]["enemy_days"])
        c["final"] = x

    def _after_judgment(self, w: Work) -> None:
        """After the council of judgment: the transfer council if the ruler was removed, else POST."""
        c = w.sitting()
        if c.get("removed"):
            former = w.ruler
            w.public("ruler_removed", ruler=former)
            self._calculate(w, "mid")  # M2 step 4b
            self._vacate(w)
            self._open_power_council(w, TRANSFER, former=former)
        else:
            self._post(w)

    def _vacate(self, w: Work) -> None:
        w.ruler = None

    def _install(self, w: Work, winner: int, c: dict[str, Any]) -> None:
        """A new ruler (CROWN-R26, R27, A3, A7, T8)."""
        w.ruler = winner
        w.reign_day = 0
        w.rulers.append((winner, w.day))
        for x in range(HOUSES):
            house = w.houses[x]
            house["enemy_days"] = 0
            house["pending_enemy"] = False
            if x == winner:
                w.set_status(x, RULER)
            else:
                house["status"] = LOYAL  # CROWN-A3: everyone else loyal; today's earlier enmity still counts (A5)
        w.pacts = set()
        w.public("new_ruler", house=winner)
        for v in c["voters"]:  # CROWN-R27, A1, A37: voluntary votes only
            if c["votes"][v] == winner and c["forced"][v] is None:
                w.tell(v, "debt_vote_owed", debtor=winner)
                w.tell(winner, "debt_vote_owing", creditor=v)
                w.add_debt(winner, v)
        if self._win_check(w):
            return
        if c["kind"] == INITIAL:
            self._start_day(w, 1)
        else:
            self._post(w)

    def _win_check(self, w: Work) -> bool:
        """CROWN-R76, A7: the ruler wins with 10 crowns or more."""
        if w.ruler is not None and w.houses[w.ruler]["crowns"] >= WIN_CROWNS:
            w.winner = w.ruler
            w.reason = "throne"
            w.public("won", house=w.ruler, crowns=w.houses[w.ruler]["crowns"])
            self._finish(w)
            return True
        return False

    def _finish(self, w: Work) -> None:
        """The game is over: the ranking (CROWN-D6) and the final crown totals, made public."""
        keys = {x: w.rng.next_u64() for x in range(HOUSES)}
        order = sorted(range(HOUSES), key=lambda x: (x != w.winner, -w.houses[x]["crowns"],
                                                     -w.houses[x]["prestige"], keys[x]))
        w.ranking = tuple(order)
        if w.winner is None:
            w.winner = order[0]
        crowns = [h["crowns"] for h in w.houses]
        w.crowns_announced = {"day": w.day, "crowns": crowns}
        w.public("final_crowns", crowns=crowns)
        w.phase = OVER
        w.deadline_ms = None
        w.window_ms = 0
        w.step += 1
        w.council = None

    def _post(self, w: Work) -> None:
        """POST (M2 step 6), the end of the day (step 7) and the next day (step 1)."""
        self._calculate(w, "post")
        for x in w.houses:  # CROWN-R74, A5
            if x["status"] == LOYAL and not x["nlt"]:
                x["streak"] += 1
            else:
                x["streak"] = 0
        for h, x in enumerate(w.houses):
            if x["streak"] >= 2:
                x["crowns"] += 1
                w.tell(h, "crown_loyal", crowns=x["crowns"])
        if w.s.last_day and w.day >= w.s.last_day:  # CROWN-D6
            w.reason = "last_day"
            w.public("last_day_over")
            self._finish(w)
            return
        self._start_day(w, w.day + 1)

    def _start_day(self, w: Work, day: int) -> None:
        """Day start (M2 step 1): R21 flips, the ruler's crowns, the win check, then the day window."""
        w.day = day
        w.today = new_today()
        w.council = None
        for h, x in enumerate(w.houses):
            x["nlt"] = False
            if x["pending_enemy"]:
                x["pending_enemy"] = False
                if x["status"] == LOYAL:
                    x["status"] = ENEMY  # CROWN-R21
                    w.tell(h, "became_enemy")
        w.public("day_started", number=day)
        if w.ruler is not None:
            w.reign_day += 1
            gain = crowns_for_reign_day(w.reign_day)  # CROWN-R73
            w.houses[w.ruler]["crowns"] += gain
            w.tell(w.ruler, "crown_reign", amount=gain, crowns=w.houses[w.ruler]["crowns"], reign_day=w.reign_day)
            if self._win_check(w):
                return
        for x in w.houses:
            if x["status"] != LOYAL:
                x["nlt"] = True
        w.dawn = w.marks()  # the night ends: the day window opens
        w.open_window(DAY, w.s.day_ms)

    # ----- who plays the houses (CROWN-D1, D2) -----

    def seats_changed(self, state: CrownState, bots: frozenset[int], now_ms: int) -> CrownState:
        """The houses a bot plays changed during the game: a latecomer took a bot's house (it is waited for from
        now on, and a "done" its bot pressed today no longer counts: the people decide when they are done), or the
        last member of a house was kicked (it is no longer waited for, so the day may end at once, CROWN-D1)."""
        new_bots = tuple(h in bots for h in range(HOUSES))
        if new_bots == state.bots:
            return state
        changed = evolve(state, bots=new_bots)
        if state.phase != DAY:
            return changed
        w = Work(changed, now_ms)
        for h in range(HOUSES):
            if state.bots[h] and not new_bots[h]:
                w.today["done"][h] = False
        self._maybe_close_day(w)
        return w.freeze()

    # ----- time -----

    def set_time_factor(self, state: CrownState, seat: int, factor: float, now_ms: int) -> CrownState:
        """CROWN-X1: the host gives a house extended time; it counts from the next window opened."""
        return evolve(state, factors=with_factor(state.factors, seat, factor, len(state.names)))

    def deadline(self, state: CrownState) -> int | None:
        """The end of the current window."""
        return state.deadline_ms

    def on_timeout(self, state: CrownState, now_ms: int) -> CrownState:
        """The window closes with the defaults of M2 (unanswered = rejected/refused, no vote = abstain, no veto)."""
        check(state.phase != OVER and state.deadline_ms is not None, "not_now", "nothing is timed now")
        w = Work(state, now_ms)
        if w.phase == DAY:
            self._close_day(w)
        elif w.phase in VOTING:
            self._close_council(w)
        elif w.phase == VETO:
            w.public("no_veto", ruler=w.ruler)
            self._condemn(w, w.sitting()["condemned"])
            self._after_judgment(w)
        elif w.phase == REACTIONS:
            self._after_judgment(w)
        return w.freeze()

    def step(self, state: CrownState) -> int:
        """Changes only when a window opens or closes, never on a house's action inside a window."""
        return state.step

    # ----- views (CROWN-D3, D4, D5, M8) -----

    def _public_council(self, state: CrownState) -> dict[str, Any] | None:
        c = state.council
        if c is None:
            return None
        result: dict[str, Any] = {
            "kind": c["kind"], "round": c["round"], "former": c["former"], "voters": list(c["voters"]),
            "candidates": list(c["candidates"]),
            "votes": [{"voter": v, "choice": None if c["votes"][v] == ABSTAIN else c["votes"][v],
                       "forced_by": c["forced"][v]} for v in c["order"]],
            "condemned": c.get("condemned"),
            "vetoed": bool(c.get("vetoed")),
            "final": c.get("final"),
        }
        return result

    def _public(self, state: CrownState) -> dict[str, Any]:
        ruler = state.ruler
        today = state.today
        return {
            "game": "crown",
            "day": state.day,
            "phase": state.phase,
            "phase_key": f"crown.phase.{state.phase}",
            "deadline_ms": state.deadline_ms,
            "window_ms": state.window_ms,
            "ruler": ruler,
            "reign_day": state.reign_day if ruler is not None else 0,
            "ruler_crowns": state.houses[ruler]["crowns"] if ruler is not None else None,  # CROWN-R75
            "houses": [{"index": i, "name_key": d["name_key"], "colour": d["colour"], "crest": d["crest"],
                        "player": state.names[i], "bot": state.bots[i],
                        "done": state.phase == DAY and today["done"][i]} for i, d in enumerate(HOUSE_DATA)],
            "pacts": [list(p) for p in state.pacts],
            "attacks": [{"attacker": a["a"], "target": a["t"], "forced_by": a["forced_by"]}
                        for a in today["attacks"]] if state.phase == DAY else [],
            "council": self._public_council(state),
            "crowns_announced": state.crowns_announced,
            "rulers": [{"house": h, "day": d} for h, d in state.rulers],
            "feed": with_councils(state.feed, max(0, len(state.feed) - FEED_SHOWN)),
            "feed_total": len(state.feed),
            "winner": state.winner,
            "reason": state.reason or None,
            "last_day": state.last_day,  # the room's setting (CROWN-D6): public, 0 when off
        }

    def view(self, state: CrownState, seat: int | None) -> dict[str, Any]:
        """The TV (``None``): public information only. A house: its own status, crowns, debts, disclosures,
        chronicle, prompts and actions, plus the public part."""
        result = self._public(state)
        if seat is None or not 0 <= seat < HOUSES:
            return result
        h = seat
        house = state.houses[h]
        chron = list(state.chron[h])
        result.update({
            "you": h,
            "status": house["status"],
            "crowns": house["crowns"],
            "debts": {
                "owed_to_you": [{"house": x, "count": state.debts[x][h]} for x in range(HOUSES)
                                if state.debts[x][h]],
                "you_owe": [{"house": x, "count": state.debts[h][x]} for x in range(HOUSES) if state.debts[h][x]],
            },
            "disclosures": disclosures(chron, h),
            "chronicle": chron,
            "done": state.phase == DAY and state.today["done"][h],
            "used": list(state.today["used"][h]) if state.phase == DAY else [],
            "today_log": house_today(state, h),
            "overnight": house_overnight(state, h),
        })
        prompts, actions = self._menus(state, h)
        result["prompts"] = prompts
        result["actions"] = actions
        return result

    def _menus(self, state: CrownState, h: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """What the house must answer (with deadlines) and what it may do, grouped from legal_actions."""
        legal = self.legal_actions(state, h)
        prompts: list[dict[str, Any]] = []
        actions: list[dict[str, Any]] = []
        deadline = state.deadline_ms
        groups: dict[tuple[Any, ...], dict[str, Any]] = {}
        meta = {"attack": (0, True), "spy": (5, False), "feast": (5, True), "banquet": (0, True), "aid": (5, True),
                "propose_alliance": (0, True), "propose_conspiracy": (0, False), "demand_hush": (0, False),
                "debt_attack": (0, True), "debt_take": (0, True), "debt_vote": (0, True), "done": (0, True)}
        for a in legal:
            kind = a[0]
            if kind == "answer_alliance":
                if a[2]:
                    prompts.append({"kind": "alliance", "proposer": a[1], "deadline_ms": deadline,
                                    "public": True})
            elif kind == "answer_conspiracy":
                if a[2]:
                    prompts.append({"kind": "conspiracy", "offer": a[1], "deadline_ms": deadline, "public": False})
            elif kind == "answer_hush":
                if a[2]:
                    prompts.append({"kind": "hush", "demander": a[1], "deadline_ms": deadline, "public": False})
            elif kind == "vote":
                key: tuple[Any, ...] = ("vote",)
                if key not in groups:
                    groups[key] = {"kind": "vote", "council": state.sitting()["kind"], "choices": [],
                                   "deadline_ms": deadline, "public": True}
                    prompts.append(groups[key])
                groups[key]["choices"].append(None if a[1] == ABSTAIN else a[1])
            elif kind in ("veto", "pass"):
                key = ("veto",)
                if key not in groups:
                    groups[key] = {"kind": "veto", "condemned": state.sitting()["condemned"], "replacements": [],
                                   "cost": VETO_COST, "refused": bool(state.sitting().get("veto_refused")),
                                   "deadline_ms": deadline, "public": True}
                    prompts.append(groups[key])
                if kind == "veto":
                    groups[key]["replacements"].append(a[1])
            elif kind == "react":
                if a[1]:
                    prompts.append({"kind": "reaction", "deadline_ms": deadline, "public": False})
            elif kind == "feast":
                key = ("feast",)
                if key not in groups:
                    groups[key] = {"kind": "feast", "options": ["a", "b"], "when": ["pre", "post"], "cost": 5,
                                   "public": True, "secret": ["option", "when"]}
                    actions.append(groups[key])
            elif kind == "banquet":
                key = ("banquet",)
                if key not in groups:
                    groups[key] = {"kind": "banquet", "when": ["pre", "post"], "cost": 0, "public": True,
                                   # CROWN-R45, A16: an attack by or on the ruler today (public) voids it for sure
                                   "void": any(x["a"] == h or x["t"] == h for x in state.today["attacks"])}
                    actions.append(groups[key])
            elif kind in ("debt_attack", "debt_vote"):
                key = (kind, a[1])
                if key not in groups:
                    groups[key] = {"kind": kind, "debtor": a[1], "cost": 0, "public": True,
                                   ("targets" if kind == "debt_attack" else "choices"): []}
                    actions.append(groups[key])
                if kind == "debt_attack":
                    groups[key]["targets"].append(a[2])
                else:
                    groups[key]["choices"].append(None if a[2] == ABSTAIN else a[2])
            elif kind == "debt_take":
                key = ("debt_take",)
                if key not in groups:
                    groups[key] = {"kind": "debt_take", "debtors": [], "cost": 0, "public": True}
                    actions.append(groups[key])
                groups[key]["debtors"].append(a[1])
            elif kind == "done":
                actions.append({"kind": "done", "cost": 0, "public": True})
            else:  # one target
                key = (kind,)
                if key not in groups:
                    cost, public = meta[kind]
                    groups[key] = {"kind": kind, "targets": [], "cost": cost, "public": public}
                    if kind == "attack":
                        groups[key]["irreversible"] = True  # CROWN-R40
                    if kind == "aid":
                        groups[key]["mandatory"] = True  # CROWN-R59: without it the ruler loses 10
                    actions.append(groups[key])
                groups[key]["targets"].append(a[1])
        return prompts, actions

    # ----- bots, outcome -----

    def bot_action(self, state: CrownState, seat: int, rng: Rng) -> tuple[Payload, int] | None:
        """The bot's next action, decided from its house's view only (CROWN-D7), after a short pause."""
        from engine.crown import bots, strong

        if state.phase == OVER:
            return None
        decide = strong.decide if state.bot_levels[seat] == "strong" else bots.decide
        payload = decide(self.view(state, seat), rng)
        if payload is None:
            return None
        delay = min(700 + rng.randbelow(1800), max(50, state.window_ms // 12))
        return payload, delay

    def outcome(self, state: CrownState) -> Outcome | None:
        """The ruler with 10 crowns (CROWN-R76), or the most crowns after the last day (CROWN-D6)."""
        if state.phase != OVER or state.ranking is None:
            return None
        return Outcome(state.ranking, f"outcome.crown.{state.reason}",
                       {"winner": state.winner, "days": state.day, "crowns": [h["crowns"] for h in state.houses],
                        "rulers": [h for h, _ in state.rulers]})

    def standings(self, state: CrownState, seats: int) -> Outcome:
        """The houses by their public crowns when the host ends the game: the totals last announced (CROWN-R75)
        and the ruler's own, which is always public; never a secret (CROWN-D5): no prestige breaks a tie, tied
        houses share a place."""
        outcome = self.outcome(state)
        if outcome is not None:
            return outcome
        crowns = public_crowns(state)
        ranking = tuple(sorted(range(HOUSES), key=lambda h: -crowns[h]))
        return Outcome(ranking, ENDED_BY_HOST, {"crowns": crowns, "ruler": state.ruler},
                       shared_places(ranking, crowns.__getitem__))


def public_crowns(state: CrownState) -> list[int]:
    """Every house's crowns as everyone may know them: the last announcement (CROWN-R75, 0 before any), the
    ruler's current total (CROWN-R75: always known)."""
    announced = state.crowns_announced
    crowns = list(announced["crowns"]) if announced else [0] * HOUSES
    if state.ruler is not None:
        crowns[state.ruler] = state.houses[state.ruler]["crowns"]
    return crowns


VOTE_KEYS = ("crown.log.vote", "crown.log.vote_abstain", "crown.log.debt_vote", "crown.log.debt_vote_abstain")
COUNCIL_OPENERS = {"crown.log.initial_opened": INITIAL, "crown.log.judgment_opened": JUDGMENT,
                   "crown.log.transfer_opened": TRANSFER}
ENTRY_HOUSES = ("attacker", "target", "house", "ruler", "proposer", "voter", "choice", "creditor", "debtor", "former",
                "vetoed", "replacement")  # the parameters of a public entry that name a house
TODAY_SHOWN = 40  # the newest entries of each half of a house's "today" list


def with_councils(feed: Sequence[dict[str, Any]], start: int = 0) -> list[dict[str, Any]]:
    """The public feed from ``start`` on, each vote told which council it was cast in (``params.council``: initial,
    judgment or transfer), so that each council's votes read in its own words: a vote condemns in the Council of
    Judgment and supports a candidate in the others (issue 15). The council is the one opened last before the vote
    (looked for back from ``start`` only as far as the last opening, so a long game costs no more)."""
    kind = None
    for i in range(start - 1, -1, -1):
        kind = COUNCIL_OPENERS.get(feed[i]["key"])
        if kind is not None:
            break
    result = []
    for e in feed[start:]:
        kind = COUNCIL_OPENERS.get(e["key"], kind)
        if kind is not None and e["key"] in VOTE_KEYS:
            e = {**e, "params": {**e["params"], "council": kind}}
        result.append(e)
    return result


def house_today(state: CrownState, h: int) -> dict[str, list[dict[str, Any]]]:
    """What a house did today and what was done to it (issue 15: "your house today" on its phone), from what it is
    entitled to know (CROWN-D4, D5): the public entries of the day that name it, and its private chronicle of the
    day. Two lists, each in order and bounded; the two cannot be interleaved (the state keeps them apart)."""
    start = len(state.feed)
    while start and state.feed[start - 1]["day"] == state.day:
        start -= 1
    public = [e for e in with_councils(state.feed, start) if any(e["params"].get(name) == h for name in ENTRY_HOUSES)]
    secret = [e for e in state.chron[h] if e["day"] == state.day]
    return {"public": public[-TODAY_SHOWN:], "secret": secret[-TODAY_SHOWN:]}


# The public entries of a night every house is told of on its phone (issue [18]): its outcomes. The others a house is
# told of only when they name it (a vote against it, a debt it paid); the openers and the tables are left out.
NIGHT_OUTCOMES = frozenset(f"crown.log.{key}" for key in (
    "no_aid", "hush_refusal", "deposed_war", "no_condemnation", "condemned", "veto", "no_veto", "ruler_removed",
    "new_ruler"))
NIGHT_SKIPPED = frozenset(f"crown.log.{key}" for key in (
    "day_started", "judgment_opened", "transfer_opened", "crowns_announced", "revote"))


def house_overnight(state: CrownState, h: int) -> dict[str, Any] | None:
    """What happened to a house overnight (issue [18]: the phone says so after a night), from what it is entitled to
    know (CROWN-D4, D5): from the close of the last day window (PRE, the councils, POST, the end of the day) to the
    opening of this one (the day start's crowns and R21 changes). The public outcomes of the night and its public
    entries that name the house, and the house's own chronicle of the night; two lists, each in order and bounded.
    Only during a day window after a night (day 2 on); None otherwise."""
    if state.phase != DAY or state.day < 2 or not state.dusk or not state.dawn or state.dawn[0] < state.dusk[0]:
        return None
    night = with_councils(state.feed[:state.dawn[0]], state.dusk[0])
    public = [e for e in night if e["key"] in NIGHT_OUTCOMES
              or (e["key"] not in NIGHT_SKIPPED and any(e["params"].get(name) == h for name in ENTRY_HOUSES))]
    secret = list(state.chron[h][state.dusk[h + 1]:state.dawn[h + 1]])
    return {"day": state.day, "public": public[-TODAY_SHOWN:], "secret": secret[-TODAY_SHOWN:]}


DISCLOSURE_SOURCES = {"crown.log.spy_result": "spy", "crown.log.feast_value": "feast",
                      "crown.log.banquet_value": "banquet"}


def disclosures(chron: Sequence[dict[str, Any]], h: int) -> list[dict[str, Any]]:
    """The prestige values disclosed to a house, with when and how (CROWN-D4), read from its chronicle."""
    result = []
    for e in chron:
        source = DISCLOSURE_SOURCES.get(e["key"])
        if source is not None:
            p = e["params"]
            result.append({"house": p.get("target", h), "prestige": p["prestige"], "day": e["day"],
                           "point": p["point"], "source": source})
    return result


def view_payloads(view: dict[str, Any]) -> list[dict[str, Any]]:
    """Every action payload a house view offers (its prompts and actions), as a phone or a bot would send them."""
    result: list[dict[str, Any]] = []
    for p in view.get("prompts", []):
        kind = p["kind"]
        if kind == "alliance":
            result += [{"kind": "answer_alliance", "proposer": p["proposer"], "accept": b} for b in (True, False)]
        elif kind == "conspiracy":
            result += [{"kind": "answer_conspiracy", "offer": p["offer"], "accept": b} for b in (True, False)]
        elif kind == "hush":
            result += [{"kind": "answer_hush", "demander": p["demander"], "pay": b} for b in (True, False)]
        elif kind == "vote":
            result += [{"kind": "vote", "choice": c} for c in p["choices"]]
        elif kind == "veto":
            result += [{"kind": "veto", "replacement": r} for r in p["replacements"]] + [{"kind": "pass"}]
        elif kind == "reaction":
            result += [{"kind": "react", "defect": b} for b in (True, False)]
    for a in view.get("actions", []):
        kind = a["kind"]
        if kind == "feast":
            result += [{"kind": "feast", "option": o, "when": w} for o in a["options"] for w in a["when"]]
        elif kind == "banquet":
            result += [{"kind": "banquet", "when": w} for w in a["when"]]
        elif kind == "debt_attack":
            result += [{"kind": kind, "debtor": a["debtor"], "target": t} for t in a["targets"]]
        elif kind == "debt_vote":
            result += [{"kind": kind, "debtor": a["debtor"], "choice": c} for c in a["choices"]]
        elif kind == "debt_take":
            result += [{"kind": kind, "debtor": x} for x in a["debtors"]]
        elif kind == "done":
            result.append({"kind": "done"})
        else:
            result += [{"kind": kind, "target": t} for t in a["targets"]]
    return result

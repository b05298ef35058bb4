"""The Short Campaign rules engine (docs/rules/campaign.md; its decisions override the seed rules).

A pure state machine: castles, expansion rounds, four battle rounds, duels, tiebreaks, castle assaults,
eliminations and the final ranking. Every timed step has a deadline (``deadline``); when it passes the room calls
``on_timeout``, which is an action of its own (a random pick or target is drawn from the state's RNG). Scores change
only through ``_score``, which also records the change, so the score log always sums to the scores (CAMP-A13).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from engine.campaign.maps import CampaignMap, builtin_map, builtin_map_ids
from engine.campaign.questions import ChoiceQuestion, NumericQuestion, parse_content
from engine.core import (
    BOTS_SETTING,
    ENDED_BY_HOST,
    AudienceQuestion,
    Context,
    Draw,
    Game,
    GameInfo,
    IllegalAction,
    InvalidAction,
    InvalidSettings,
    Needs,
    Outcome,
    Payload,
    Rng,
    SettingSpec,
    Slot,
    Timing,
    TooLate,
    evolve,
    factor_of,
    scaled_back,
    shared_places,
    stretched,
    with_factor,
)
from engine.questions import builtin_questions, parse_number

PLAYERS = 3
CASTLE_VALUE = 1000  # CAMP-R5
TOWERS = 3  # CAMP-R6
PICK_VALUE = 200  # CAMP-R11
CONQUEST_GAIN = 400  # CAMP-R18, R19
DEFENCE_BONUS = 100  # CAMP-R20
DEMOLISHED_VALUE = 1000  # CAMP-R22, D8
BATTLE_ROUNDS = 4  # CAMP-R13
FINAL_REVEAL_FACTOR = 2  # the final tiebreak's answers stay twice the reveal time (CAMP-D12, docs/games.md)
DECK_SIZE = 48  # at most this many questions of each kind fixed at the start (the longest possible game asks fewer)
# What a game asks: the 10th-90th percentiles of 1200 all-bot games, 400 per bot level (`throneroom simulate campaign`,
# seeds 0-399): numeric 7-15 (easy 6-11, normal 9-13, hard 12-17; 4-19 at the extremes), multiple choice 12-14
# (6-17 at the extremes). A numeric tiebreak follows every duel both sides get right, so better players ask more.
TYPICAL = {"numeric": (7, 15), "choice": (12, 14)}
KIND_NAMES = {"numeric": "numeric", "choice": "multiple-choice"}
HISTORY_SHOWN = 12

# An action: a numeric answer, an option, a territory picked or attacked (by id). legal_actions lists the numeric
# answer as ("answer", None), a kind without its value; apply refuses that as no answer at all.
CampaignAction = tuple[Literal["answer", "choice"], int | None] | tuple[Literal["pick", "target"], str]


@dataclass(frozen=True)
class Answer:
    """One seat's answer, the ms it took from the unlock (the fair effective time), and how that was measured."""

    seat: int
    value: int
    ms: int
    timing: Timing | None = None

    def figures(self) -> dict[str, Any]:
        """Every timing figure, for the answer log."""
        base = {"seat": self.seat, "value": self.value, "ms": self.ms}
        return {**base, **({"timing": self.timing.to_json()} if self.timing else {})}


@dataclass(frozen=True)
class Asking:
    """A question in play: why it is asked, to whom, its window, and once closed its result."""

    purpose: str  # expansion, duel, tiebreak, final
    kind: str  # numeric or choice
    question: int  # index in its deck
    seats: tuple[int, ...]
    opens_ms: int
    closes_ms: int
    answers: tuple[Answer, ...] = ()
    revealed: bool = False
    ranking: tuple[int, ...] = ()  # numeric: every asked seat, best first (CAMP-D5)
    drawn: bool = False  # the RNG settled a tie that mattered
    factors: tuple[float, ...] = ()  # CAMP-X1: each game seat's extended time, fixed when the question is asked
    shut: tuple[int, ...] = ()  # CAMP-X1: asked seats whose own window passed unanswered while a longer one runs

    def window_end(self, seat: int) -> int:
        """When the question closes for this seat: the unlock plus its answer time x the seat's factor (CAMP-X1)."""
        return self.opens_ms + stretched(self.closes_ms - self.opens_ms, factor_of(self.factors, seat))

    def next_deadline(self) -> int:
        """The earliest window end of the asked seats that may still answer (CAMP-X1); with nobody extended, the
        close."""
        waiting = [s for s in self.seats if self.answer_of(s) is None and s not in self.shut]
        return min((self.window_end(s) for s in waiting), default=self.closes_ms)

    def answer_of(self, seat: int) -> Answer | None:
        """The seat's answer, if it gave one."""
        for answer in self.answers:
            if answer.seat == seat:
                return answer
        return None


@dataclass(frozen=True)
class Attack:
    """The attack in progress."""

    attacker: int
    target: int | None = None
    defender: int | None = None
    castle: bool = False  # an assault on an intact castle (CAMP-R21)
    towers_down: int = 0  # towers knocked down in this assault

    def sides(self) -> tuple[int, int, int]:
        """(attacker, defender, target) once the target is chosen (every duel of the attack comes after that)."""
        assert self.defender is not None and self.target is not None, "the attack has no target yet"
        return self.attacker, self.defender, self.target


@dataclass(frozen=True)
class Timers:
    """Every timed step in ms, after the scale factors (CAMP-D2)."""

    preview: int
    numeric: int
    choice: int
    pick: int
    target: int
    reveal: int


@dataclass(frozen=True)
class CampaignState:
    """One position of a Short Campaign."""

    map_id: str
    names: tuple[str, ...]
    bots: tuple[bool, ...]
    timers: Timers
    numeric: tuple[NumericQuestion, ...]
    choice: tuple[ChoiceQuestion, ...]
    bonus_needs_correct: bool
    bot_level: str
    speed_tiebreaks: bool
    owner: tuple[int | None, ...]
    value: tuple[int, ...]
    castle_of: tuple[int, ...]
    towers: tuple[int, ...]
    demolished: frozenset[int]
    score: tuple[int, ...]
    eliminated: tuple[int, ...]  # seats in the order they fell
    stage: str  # expansion, battle, final, over
    round: int  # expansion round (1, 2, ...) or battle round (1-4)
    orders: tuple[tuple[int, ...], ...]  # battle orders, rounds 1-3 drawn up front, round 4 when reached
    turn: int
    phase: str  # preview, answer, reveal, pick, target, over
    deadline_ms: int | None
    asking: Asking | None = None
    picks: tuple[int, ...] = ()
    attack: Attack | None = None
    final_ranking: tuple[int, ...] = ()
    settled: tuple[tuple[int, ...], ...] = ()  # tie groups already ordered by a final question
    step: int = 0
    rng_state: int = 0
    next_numeric: int = 0
    next_choice: int = 0
    scores_log: tuple[tuple[int, int, str], ...] = ()  # (seat, change, reason)
    history: tuple[dict[str, Any], ...] = ()
    factors: tuple[float, ...] = ()  # CAMP-X1: each seat's extended time as the host set it (none: all x1)
    clock_ms: int | None = None  # CAMP-X1: the standard deadline of a pick or target turn (the TV's clock)

    @property
    def game_map(self) -> CampaignMap:
        """The map being played."""
        return builtin_map(self.map_id)

    def alive(self) -> tuple[int, ...]:
        """Seats not eliminated."""
        return tuple(s for s in range(len(self.names)) if s not in self.eliminated)

    def empire(self, seat: int) -> tuple[int, ...]:
        """The territories a seat owns."""
        return tuple(t for t, o in enumerate(self.owner) if o == seat)

    def is_intact_castle(self, territory: int) -> bool:
        """Whether a territory is a castle with towers standing."""
        owner = self.owner[territory]
        return owner is not None and self.castle_of[owner] == territory and territory not in self.demolished


def mixed(entries: list[Any], seen: set[str], rng: Rng) -> list[Any]:
    """Unseen questions first, then seen ones; within each, categories take turns in a shuffled order."""
    result = []
    for group in ([e for e in entries if e.id not in seen], [e for e in entries if e.id in seen]):
        by_category: dict[str, list[Any]] = {}
        for entry in group:
            by_category.setdefault(entry.question.category, []).append(entry)
        lists = [by_category[c] for c in sorted(by_category)]
        for items in lists:
            rng.shuffle(items)
        rng.shuffle(lists)
        while any(lists):
            for items in lists:
                if items:
                    result.append(items.pop())
    return result


def to_content(entry: Any) -> dict[str, Any]:
    """A pack question in the game's logged content form."""
    q = entry.question
    if q.type == "numeric":
        return {"id": entry.id, "prompt": q.prompt, "answer": q.answer, "unit": q.unit}
    return {"id": entry.id, "prompt": q.prompt, "options": list(q.options), "correct": q.correct}


replace = evolve  # the shared fast replace of engine.core


def _set(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return values[:index] + (value,) + values[index + 1:]


class CampaignGame(Game[CampaignState, CampaignAction]):
    """Short Campaign: three players, a map, quick questions and duels."""

    audience_play_along = True  # spectators answer every question too (audience_question)
    _last_public: tuple[CampaignState, dict[str, Any]] | None = None  # the last state's seat-free view (_public_view)

    info = GameInfo(
        "campaign", "game.campaign.name", "game.campaign.blurb", PLAYERS, PLAYERS,
        (
            BOTS_SETTING,
            SettingSpec("bot_level", "choice", "normal", "setting.bot_level", choices=("easy", "normal", "hard")),
            SettingSpec("map", "choice", "verdant", "setting.map", choices=builtin_map_ids() or ("verdant",)),
            SettingSpec("preview_seconds", "int", 3, "setting.preview_seconds", 0, 30, group="timers", unit="s"),
            SettingSpec("numeric_seconds", "int", 10, "setting.numeric_seconds", 3, 120, group="timers", unit="s"),
            SettingSpec("choice_seconds", "int", 10, "setting.choice_seconds", 3, 120, group="timers", unit="s"),
            SettingSpec("pick_seconds", "int", 10, "setting.pick_seconds", 3, 120, group="timers", unit="s"),
            SettingSpec("target_seconds", "int", 10, "setting.target_seconds", 3, 120, group="timers", unit="s"),
            SettingSpec("reveal_seconds", "int", 4, "setting.reveal_seconds", 1, 30, group="timers", unit="s"),
            SettingSpec("bonus_needs_correct", "bool", False, "setting.bonus_needs_correct"),
            SettingSpec("speed_tiebreaks", "bool", True, "setting.speed_tiebreaks"),
            SettingSpec("top_up", "bool", True, "setting.top_up"),  # CAMP-D15: built-in questions after the packs'
        ),
    )

    # ----- setup -----

    def needs(self) -> Needs:
        """What a typical game asks of each kind, lowest and highest (the lobby says so; a game plays with any
        number of questions, CAMP-D15)."""
        return {kind: list(span) for kind, span in TYPICAL.items()}

    def draw(self, settings: Mapping[str, Any]) -> Draw:
        """A deck of each kind: DECK_SIZE questions at most, at random, the categories as they take turns."""
        return Draw(DECK_SIZE, by_kind=True, categories=True, kinds=("numeric", "choice"))

    def prepare(self, settings: Mapping[str, Any], seed: int, supply: Mapping[str, Any] | None = None
                ) -> dict[str, Any]:
        """The question decks of one game (CAMP-D15), at most DECK_SIZE of each kind, logged with the start.

        ``supply``: ``{"questions": the chosen packs' entries, "top_up": the built-in packs' entries in the room's
        language, "seen": ids the room has asked}``. Each deck: the chosen packs' unseen questions; with the
        ``top_up`` setting the built-in ones (unseen first); then the seen ones, the chosen packs' first; each part
        with its categories taking turns (``mixed``). Without top-up a deck may be shorter than a game: its questions
        come round again in the same order (``_ask`` counts modulo its length), every one asked before any twice.
        Without a supply (simulations, tests), from the generated built-in set."""
        rng = Rng(seed ^ 0xC0FFEE)
        if supply is None:
            pool = builtin_questions(seed, DECK_SIZE, DECK_SIZE)
            numeric, choice = pool["numeric"], pool["choice"]
            rng.shuffle(numeric)
            rng.shuffle(choice)
            return {"numeric": numeric[:DECK_SIZE], "choice": choice[:DECK_SIZE]}
        seen = supply.get("seen") or set()
        top_up = settings.get("top_up", True)
        decks = {}
        for kind in ("numeric", "choice"):
            chosen = [e for e in supply.get("questions") or () if e.question.type == kind]
            ids = {e.id for e in chosen}
            extra = [e for e in supply.get("top_up") or () if e.question.type == kind and e.id not in ids] \
                if top_up else []
            parts = ([e for e in chosen if e.id not in seen], [e for e in extra if e.id not in seen],
                     [e for e in chosen if e.id in seen], [e for e in extra if e.id in seen])
            deck: list[Any] = []
            for part in parts:
                if len(deck) >= DECK_SIZE:
                    break
                deck.extend(mixed(part, set(), rng))
            if not deck:
                name = KIND_NAMES[kind]
                error = InvalidSettings(
                    f"the chosen packs have no {name} questions and top-up is off: turn on top-up from the built-in "
                    f"packs or choose a pack with {name} questions" if not top_up else
                    f"there are no {name} questions to play: choose a pack with {name} questions", "top_up")
                error.code = f"game.campaign.no_{kind}"  # a catalog key: the TV says it in its language
                raise error
            decks[kind] = [to_content(e) for e in deck[:DECK_SIZE]]
        return decks

    def setup(self, slots: Sequence[Slot], ctx: Context, now_ms: int) -> CampaignState:
        """Castles at random on three pairwise non-adjacent territories (CAMP-R3, R4), then the first question."""
        if len(slots) != PLAYERS:
            raise IllegalAction(f"the Short Campaign needs exactly {PLAYERS} players")  # CAMP-D13
        settings = {**self.info.default_settings(), **dict(ctx.settings)}
        numeric, choice = parse_content(ctx.content if ctx.content is not None else self.prepare(settings, ctx.seed))
        game_map = builtin_map(settings["map"])
        rng = Rng(ctx.seed)
        castles = list(rng.choice(game_map.castle_triples()))
        rng.shuffle(castles)
        owner: list[int | None] = [None] * game_map.size
        value = [0] * game_map.size
        for seat, territory in enumerate(castles):
            owner[territory] = seat
            value[territory] = CASTLE_VALUE
        timers = Timers(*(ctx.timer_ms(settings[f"{k}_seconds"]) if settings[f"{k}_seconds"] else 0
                          for k in ("preview", "numeric", "choice", "pick", "target", "reveal")))
        state = CampaignState(
            map_id=game_map.id, names=tuple(s.name for s in slots), bots=tuple(s.is_bot for s in slots),
            timers=timers, numeric=numeric, choice=choice, bonus_needs_correct=settings["bonus_needs_correct"],
            bot_level=settings["bot_level"], speed_tiebreaks=settings["speed_tiebreaks"], owner=tuple(owner), value=tuple(value), castle_of=tuple(castles),
            towers=(TOWERS,) * PLAYERS, demolished=frozenset(), score=(0,) * PLAYERS, eliminated=(),
            stage="expansion", round=1, orders=(), turn=0, phase="preview", deadline_ms=None,
            rng_state=rng.state, factors=ctx.factors(len(slots)))
        for seat in range(PLAYERS):
            state = self._score(state, seat, CASTLE_VALUE, "castle")
        return self._ask(state, "expansion", state.alive(), now_ms)

    # ----- actions -----

    def parse_action(self, payload: Payload) -> CampaignAction:
        """``{"answer": n}``, ``{"choice": i}``, ``{"pick": "territory-id"}`` or ``{"target": "territory-id"}``."""
        if not isinstance(payload, dict) or len(payload) != 1:
            raise InvalidAction('an action is one of {"answer": n}, {"choice": i}, {"pick": id}, {"target": id}')
        kind, value = next(iter(payload.items()))
        if kind == "answer":
            return kind, parse_number(value)
        if kind == "choice":
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 6:
                raise InvalidAction("choice must be the number of an option, from 0", "choice")
            return kind, value
        if kind in ("pick", "target"):
            if not isinstance(value, str) or not 0 < len(value) <= 40:
                raise InvalidAction(f"{kind} must be a territory id", kind)
            return kind, value
        raise InvalidAction(f"unknown action {str(kind)[:20]!r}", "action")

    def action_to_json(self, action: CampaignAction) -> dict[str, Any]:
        """The logged form of an action."""
        return {action[0]: action[1]}

    def legal_actions(self, state: CampaignState, seat: int) -> list[CampaignAction]:
        """What the seat may do now; answers are listed as a kind with no value."""
        if state.phase == "answer" and state.asking is not None:
            asking = state.asking
            if seat in asking.seats and asking.answer_of(seat) is None:
                if asking.kind == "numeric":
                    return [("answer", None)]
                return [("choice", i) for i in range(len(state.choice[asking.question].options))]
            return []
        if state.phase == "pick" and state.picks and state.picks[0] == seat:
            return [("pick", state.game_map.territories[t].id) for t in self.legal_picks(state, seat)]
        if state.phase == "target" and state.attack is not None and state.attack.attacker == seat:
            return [("target", state.game_map.territories[t].id) for t in self.legal_targets(state, seat)]
        return []

    def legal_picks(self, state: CampaignState, seat: int) -> list[int]:
        """Free territories bordering the seat's empire, or any free one if none borders it (CAMP-R10)."""
        game_map = state.game_map
        free = [t for t, o in enumerate(state.owner) if o is None]
        empire = set(state.empire(seat))
        near = [t for t in free if game_map.neighbours[t] & empire]
        return near or free

    def legal_targets(self, state: CampaignState, seat: int) -> list[int]:
        """Opponent territories: bordering the attacker's empire in rounds 1-3 (any if none), any in round 4
        (CAMP-D6)."""
        game_map = state.game_map
        theirs = [t for t, o in enumerate(state.owner) if o is not None and o != seat]
        if state.round >= BATTLE_ROUNDS:
            return theirs
        empire = set(state.empire(seat))
        near = [t for t in theirs if game_map.neighbours[t] & empire]
        return near or theirs

    def apply(self, state: CampaignState, seat: int, action: CampaignAction, now_ms: int,
              timing: Timing | None = None) -> CampaignState:
        """The state after a seat's action; IllegalAction if the rules do not allow it now (InvalidAction for a
        value of the wrong type, such as the numeric answer legal_actions lists without its number)."""
        kind, value = action
        if state.stage == "over":
            raise IllegalAction("the game is over")
        if kind == "answer" or kind == "choice":
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidAction(f"{kind} must be a whole number", kind)
            return self._answer(state, seat, kind, value, now_ms, timing)
        if not isinstance(value, str):
            raise InvalidAction(f"{kind} must be a territory id", kind)
        if kind == "pick":
            if state.phase != "pick" or not state.picks or state.picks[0] != seat:
                raise IllegalAction("it is not your pick")
            territory = state.game_map.index_of(value)
            if territory is None or territory not in self.legal_picks(state, seat):
                raise IllegalAction("pick a free territory that borders your empire (any free one if none does)")
            return self._pick(state, seat, territory, now_ms, timed_out=False)
        if kind == "target":
            if state.phase != "target" or state.attack is None or state.attack.attacker != seat:
                raise IllegalAction("it is not your attack")
            territory = state.game_map.index_of(value)
            if territory is None or territory not in self.legal_targets(state, seat):
                raise IllegalAction("attack an opponent's territory that borders your empire "
                                    "(any in the last round, or if none borders it)")
            return self._target(state, seat, territory, now_ms, timed_out=False)
        raise IllegalAction(f"unknown action {kind!r}")

    def answer_window(self, state: CampaignState, seat: int) -> tuple[int, int] | None:
        """The open question's unlock and deadline, for a seat that still has to answer it."""
        asking = state.asking
        if state.phase == "answer" and asking is not None and seat in asking.seats and asking.answer_of(seat) is None \
                and seat not in asking.shut:
            return asking.opens_ms, asking.window_end(seat)  # CAMP-X1: the seat's own window
        return None

    def _answer(self, state: CampaignState, seat: int, kind: str, value: int, now_ms: int,
                timing: Timing | None) -> CampaignState:
        asking = state.asking
        if state.phase == "reveal" and asking is not None and seat in asking.seats and asking.answer_of(seat) is None:
            raise TooLate("too late: the question has closed")
        if state.phase != "answer" or asking is None:
            raise IllegalAction("no question is open")
        if seat not in asking.seats:
            raise IllegalAction("this question is for the other players")
        if asking.answer_of(seat) is not None:
            raise IllegalAction("you have already answered")
        if seat in asking.shut:  # CAMP-X1: the seat's own window passed while a longer one still runs
            raise TooLate("too late: your time for this question is up")
        if (kind == "answer") != (asking.kind == "numeric"):
            raise IllegalAction("this question wants a number" if asking.kind == "numeric" else "pick an option")
        if kind == "choice" and value >= len(state.choice[asking.question].options):
            raise IllegalAction("no such option")
        ms = timing.effective if timing is not None else now_ms - asking.opens_ms
        factor = factor_of(asking.factors, seat)
        if factor != 1 and timing is not None:  # CAMP-X1: every figure of the answer's time scaled back
            timing = Timing(scaled_back(max(0, timing.effective), factor), timing.unlock + scaled_back(
                max(0, timing.receipt - timing.unlock), factor), timing.unlock,
                None if timing.claimed is None else scaled_back(timing.claimed, factor), timing.rtt, timing.flag)
        answer = Answer(seat, value, scaled_back(max(0, ms), factor), timing)
        asking = replace(asking, answers=asking.answers + (answer,))
        state = replace(state, asking=asking)
        if len(asking.answers) + len(asking.shut) == len(asking.seats):
            return self._close(state, now_ms)  # everyone answered: no need to wait for the clock
        return replace(state, deadline_ms=asking.next_deadline())

    # ----- time -----

    def deadline(self, state: CampaignState) -> int | None:
        """When the current step ends."""
        return state.deadline_ms

    def set_time_factor(self, state: CampaignState, seat: int, factor: float, now_ms: int) -> CampaignState:
        """CAMP-X1: the host gives a seat extended time; it counts from the next question or turn."""
        return replace(state, factors=with_factor(state.factors, seat, factor, len(state.names)))

    def clock(self, state: CampaignState, seat: int | None) -> int | None:
        """CAMP-X1: the deadline a screen counts down to: the standard one, except a seat's own longer window on its
        own phone (a question it may still answer, its own pick or target turn)."""
        asking = state.asking
        if state.phase == "answer" and asking is not None:
            if seat is not None and seat in asking.seats and seat not in asking.shut and asking.answer_of(seat) is None:
                return asking.window_end(seat)
            return asking.closes_ms
        if state.phase in ("pick", "target") and state.clock_ms is not None:
            mover = state.picks[0] if state.phase == "pick" and state.picks else \
                state.attack.attacker if state.attack is not None else None
            return state.deadline_ms if seat is not None and seat == mover else state.clock_ms
        return state.deadline_ms

    def on_timeout(self, state: CampaignState, now_ms: int) -> CampaignState:
        """The current step's time is up: unlock, close, move on, or pick at random (CAMP-D3)."""
        if state.phase == "preview":
            asking = state.asking
            assert asking is not None  # a preview shows the question about to open
            # the host may skip the preview: the question then opens now, with its whole answer time (a new step);
            # at its own time it opens as every screen already shows it (the same step: ``foreseen``)
            opens = min(now_ms, asking.opens_ms)
            skipped = opens != asking.opens_ms
            asking = replace(asking, opens_ms=opens, closes_ms=opens + asking.closes_ms - asking.opens_ms)
            return replace(state, asking=asking, phase="answer", deadline_ms=asking.next_deadline(),
                           step=state.step + 1 if skipped else state.step)
        if state.phase == "answer":
            asking = state.asking
            if asking is not None and state.deadline_ms is not None and now_ms >= state.deadline_ms:
                shut = tuple(s for s in asking.seats if s in asking.shut or asking.answer_of(s) is None
                             and asking.window_end(s) <= state.deadline_ms)  # CAMP-X1: those windows ran out
                asking = replace(asking, shut=shut)
                if len(asking.answers) + len(shut) < len(asking.seats):  # a longer window still runs
                    return replace(state, asking=asking, deadline_ms=asking.next_deadline())
                state = replace(state, asking=asking)
            return self._close(state, now_ms)  # no answer counts as no answer (CAMP-D3); the host's skip: for all
        if state.phase == "reveal":
            return self._after_reveal(state, now_ms)
        rng = Rng(state.rng_state)
        if state.phase == "pick":
            seat = state.picks[0]
            territory = rng.choice(self.legal_picks(state, seat))
            return self._pick(replace(state, rng_state=rng.state), seat, territory, now_ms, timed_out=True)
        if state.phase == "target" and state.attack is not None:
            seat = state.attack.attacker
            territory = rng.choice(self.legal_targets(state, seat))
            return self._target(replace(state, rng_state=rng.state), seat, territory, now_ms, timed_out=True)
        raise IllegalAction("nothing is timed now")

    # ----- the flow -----

    def _score(self, state: CampaignState, seat: int, change: int, reason: str) -> CampaignState:
        return replace(state, score=_set(state.score, seat, state.score[seat] + change),
                       scores_log=state.scores_log + ((seat, change, reason),))

    def _note(self, state: CampaignState, **entry: Any) -> CampaignState:
        return replace(state, history=state.history + (entry,))

    def _ask(self, state: CampaignState, purpose: str, seats: tuple[int, ...], now_ms: int) -> CampaignState:
        kind = "choice" if purpose == "duel" else "numeric"
        if kind == "numeric":
            question, state = state.next_numeric % len(state.numeric), replace(state, next_numeric=state.next_numeric + 1)
            answer_ms = state.timers.numeric
        else:
            question, state = state.next_choice % len(state.choice), replace(state, next_choice=state.next_choice + 1)
            answer_ms = state.timers.choice
        opens = now_ms + state.timers.preview
        factors = tuple(factor_of(state.factors, s) for s in range(len(state.names)))  # CAMP-X1: fixed when asked
        asking = Asking(purpose, kind, question, tuple(seats), opens, opens + answer_ms, factors=factors)
        phase = "preview" if state.timers.preview else "answer"
        return replace(state, asking=asking, phase=phase,
                       deadline_ms=opens if phase == "preview" else asking.next_deadline(), step=state.step + 1)

    def _close(self, state: CampaignState, now_ms: int) -> CampaignState:
        """Close the question, rank a numeric one (CAMP-D5), and show the answers."""
        asking = state.asking
        assert asking is not None
        drawn = False
        ranking: tuple[int, ...] = ()
        if asking.kind == "numeric":
            rng = Rng(state.rng_state)
            correct = state.numeric[asking.question].answer
            keyed = []
            for seat in asking.seats:
                answer = asking.answer_of(seat)
                speed = answer.ms if answer and state.speed_tiebreaks else 0  # off: equal distances are drawn
                key = (0, abs(answer.value - correct), speed) if answer else (1, 0, 0)
                keyed.append((key, rng.next_u64(), seat))  # the draw only decides exact ties
            keyed.sort()
            ranking = tuple(seat for _, _, seat in keyed)
            drawn = any(keyed[i][0] == keyed[i + 1][0] for i in range(len(keyed) - 1))
            state = replace(state, rng_state=rng.state)
        asking = replace(asking, revealed=True, ranking=ranking, drawn=drawn)
        question = self._question(state, asking)
        truth = question.answer if isinstance(question, NumericQuestion) else question.correct
        state = self._note(state, kind="question", purpose=asking.purpose, question=question.id,
                           answers=[a.figures() for a in asking.answers], ranking=list(ranking),
                           drawn=drawn, correct=truth, right={str(a.seat): a.value == truth for a in asking.answers})
        # The final question's answers decide the standings and the results replace them: they stay twice as long.
        hold = state.timers.reveal * (FINAL_REVEAL_FACTOR if asking.purpose == "final" else 1)
        return replace(state, asking=asking, phase="reveal", deadline_ms=now_ms + hold,
                       step=state.step + 1)

    def _question(self, state: CampaignState, asking: Asking) -> NumericQuestion | ChoiceQuestion:
        return state.numeric[asking.question] if asking.kind == "numeric" else state.choice[asking.question]

    def _after_reveal(self, state: CampaignState, now_ms: int) -> CampaignState:
        asking = state.asking
        assert asking is not None
        if asking.purpose == "expansion":
            winner, second = asking.ranking[0], asking.ranking[1]
            state = replace(state, picks=(winner, second, winner))  # CAMP-D4
            return self._next_pick(state, now_ms)
        if asking.purpose == "duel":
            assert state.attack is not None
            attacker, defender, _ = state.attack.sides()
            correct = state.choice[asking.question].correct
            attacker_right = (a := asking.answer_of(attacker)) is not None and a.value == correct
            defender_right = (d := asking.answer_of(defender)) is not None and d.value == correct
            if not attacker_right:
                return self._resolve(state, attacker_won=False, defender_right=defender_right, now_ms=now_ms)
            if not defender_right:
                return self._resolve(state, attacker_won=True, defender_right=False, now_ms=now_ms)
            return self._ask(state, "tiebreak", (attacker, defender), now_ms)  # CAMP-R17c
        if asking.purpose == "tiebreak":
            assert state.attack is not None
            nobody = not asking.answers  # CAMP-D10: if neither answers, the defender wins
            attacker_won = not nobody and asking.ranking[0] == state.attack.attacker
            return self._resolve(state, attacker_won=attacker_won, defender_right=True, now_ms=now_ms)
        if asking.purpose == "final":
            state = replace(state, settled=state.settled + (asking.ranking,))
            return self._final(state, now_ms)
        raise IllegalAction(f"unknown question purpose {asking.purpose}")

    def _next_pick(self, state: CampaignState, now_ms: int) -> CampaignState:
        if all(o is not None for o in state.owner):
            return self._start_battle(state, now_ms)  # CAMP-R12: the map is full
        if not state.picks:
            return self._ask(replace(state, round=state.round + 1), "expansion", state.alive(), now_ms)
        seat = state.picks[0]  # CAMP-X1: the picker's turn lasts its factor x the pick time; the TV shows the standard
        return replace(state, phase="pick", asking=None, clock_ms=now_ms + state.timers.pick,
                       deadline_ms=now_ms + stretched(state.timers.pick, factor_of(state.factors, seat)),
                       step=state.step + 1)

    def _pick(self, state: CampaignState, seat: int, territory: int, now_ms: int, timed_out: bool) -> CampaignState:
        state = replace(state, owner=_set(state.owner, territory, seat), value=_set(state.value, territory, PICK_VALUE),
                        picks=state.picks[1:])
        state = self._score(state, seat, PICK_VALUE, "pick")
        state = self._note(state, kind="pick", seat=seat, territory=state.game_map.territories[territory].id,
                           timeout=timed_out)
        return self._next_pick(state, now_ms)

    def _start_battle(self, state: CampaignState, now_ms: int) -> CampaignState:
        """Draw the order of rounds 1-3 up front (CAMP-D11)."""
        rng = Rng(state.rng_state)
        orders = []
        for _ in range(BATTLE_ROUNDS - 1):
            order = list(state.alive())
            rng.shuffle(order)
            orders.append(tuple(order))
        state = replace(state, stage="battle", round=1, orders=tuple(orders), turn=-1, picks=(), asking=None,
                        rng_state=rng.state)
        state = self._note(state, kind="battle", orders=[list(o) for o in orders])
        return self._next_attack(state, now_ms)

    def _next_attack(self, state: CampaignState, now_ms: int) -> CampaignState:
        if len(state.alive()) <= 1:
            return self._final(state, now_ms)  # CAMP-D11: one player left
        round_, turn = state.round, state.turn + 1
        while True:
            if turn >= len(state.orders[round_ - 1]):
                round_, turn = round_ + 1, 0
                if round_ > BATTLE_ROUNDS:
                    return self._final(replace(state, round=BATTLE_ROUNDS), now_ms)
                if round_ == BATTLE_ROUNDS:  # CAMP-R23, D11: by score, highest first, equal scores at random
                    rng = Rng(state.rng_state)
                    keyed = sorted((-state.score[s], rng.next_u64(), s) for s in state.alive())
                    state = replace(state, orders=state.orders[:BATTLE_ROUNDS - 1] + (tuple(s for *_, s in keyed),),
                                    rng_state=rng.state)
                    state = self._note(state, kind="round4", order=list(state.orders[-1]))
            attacker = state.orders[round_ - 1][turn]
            if attacker not in state.eliminated:
                break
            turn += 1  # eliminated players are skipped
        return replace(state, round=round_, turn=turn, phase="target", attack=Attack(attacker), asking=None,
                       clock_ms=now_ms + state.timers.target,  # CAMP-X1: the TV's clock; the attacker's own is longer
                       deadline_ms=now_ms + stretched(state.timers.target, factor_of(state.factors, attacker)),
                       step=state.step + 1)

    def _target(self, state: CampaignState, seat: int, territory: int, now_ms: int, timed_out: bool) -> CampaignState:
        defender = state.owner[territory]
        assert defender is not None  # legal_targets lists opponents' territories only
        attack = Attack(seat, territory, defender, castle=state.is_intact_castle(territory))
        state = self._note(replace(state, attack=attack), kind="attack", seat=seat, defender=defender,
                           territory=state.game_map.territories[territory].id, castle=attack.castle, timeout=timed_out)
        return self._ask(state, "duel", (seat, defender), now_ms)

    def _resolve(self, state: CampaignState, attacker_won: bool, defender_right: bool, now_ms: int) -> CampaignState:
        attack = state.attack
        assert attack is not None
        a, d, t = attack.sides()
        if not attacker_won:
            if defender_right or not state.bonus_needs_correct:  # CAMP-D9
                state = self._score(state, d, DEFENCE_BONUS, "defence")
            state = self._note(state, kind="repelled", seat=d, attacker=a, territory=state.game_map.territories[t].id,
                               towers_down=attack.towers_down)
            return self._next_attack(state, now_ms)
        if attack.castle:  # CAMP-R21, D7: one tower per duel won; towers lost stay lost
            towers = state.towers[d] - 1
            state = replace(state, towers=_set(state.towers, d, towers),
                            attack=replace(attack, towers_down=attack.towers_down + 1))
            state = self._note(state, kind="tower", seat=a, defender=d, towers=towers,
                               territory=state.game_map.territories[t].id)
            if towers > 0:
                return self._ask(state, "duel", (a, d), now_ms)  # the assault continues at once
            return self._next_attack(self._eliminate(state, d, a), now_ms)
        if t in state.demolished:  # CAMP-R22, N2
            state = self._score(self._score(state, a, DEMOLISHED_VALUE, "demolished"), d, -DEMOLISHED_VALUE, "lost")
        else:  # CAMP-R18, R19
            state = self._score(self._score(state, a, CONQUEST_GAIN, "conquest"), d, -state.value[t], "lost")
            state = replace(state, value=_set(state.value, t, CONQUEST_GAIN))
        state = replace(state, owner=_set(state.owner, t, a))
        state = self._note(state, kind="conquest", seat=a, defender=d, territory=state.game_map.territories[t].id)
        return self._next_attack(state, now_ms)

    def _eliminate(self, state: CampaignState, loser: int, winner: int) -> CampaignState:
        """CAMP-R21, D8: the winner takes the whole score and every territory; the castle is demolished."""
        taken = state.score[loser]
        state = self._score(self._score(state, winner, taken, "elimination"), loser, -taken, "eliminated")
        owner = tuple(winner if o == loser else o for o in state.owner)
        castle = state.castle_of[loser]
        state = replace(state, owner=owner, value=_set(state.value, castle, DEMOLISHED_VALUE),
                        demolished=state.demolished | {castle}, eliminated=state.eliminated + (loser,))
        return self._note(state, kind="eliminated", seat=loser, by=winner)

    def _final(self, state: CampaignState, now_ms: int) -> CampaignState:
        """CAMP-R24, D12: highest score first; each tie is played off with one quick question."""
        survivors = sorted(state.alive(), key=lambda s: -state.score[s])
        groups: list[list[int]] = []
        for seat in survivors:
            if groups and state.score[groups[-1][0]] == state.score[seat]:
                groups[-1].append(seat)
            else:
                groups.append([seat])
        settled = {frozenset(g): g for g in state.settled}
        for group in groups:
            if len(group) > 1 and frozenset(group) not in settled:
                return self._ask(replace(state, stage="final", attack=None), "final", tuple(group), now_ms)
        ranking: list[int] = []
        for group in groups:
            ranking.extend(settled.get(frozenset(group), group))
        ranking.extend(reversed(state.eliminated))  # later elimination ranks higher
        state = self._note(state, kind="over", ranking=ranking)
        return replace(state, stage="over", phase="over", final_ranking=tuple(ranking), deadline_ms=None,
                       asking=None, attack=None, step=state.step + 1)

    # ----- views -----

    def view(self, state: CampaignState, seat: int | None) -> dict[str, Any]:
        """What one seat (or the TV, ``None``) may know: never an answer before the reveal."""
        result = dict(self._public_view(state))
        result["deadline_ms"] = self.clock(state, seat)  # CAMP-X1: the standard clock, a seat's own to that seat
        result["question"] = self._question_view(state, seat)
        if seat is not None:
            result["you"] = seat
            result["legal"] = [list(a) for a in self.legal_actions(state, seat)]
        return result

    def _public_view(self, state: CampaignState) -> dict[str, Any]:
        """The part of ``view`` that is the same for every seat. A state never changes (a new one is made for each
        move), so the part of the last state viewed is kept: a room's TV and phones view the same state one after
        another, and built it once each (the party benchmark's profile). Never changed once made."""
        kept = self._last_public
        if kept is not None and kept[0] is state:
            return kept[1]
        game_map = state.game_map
        castles = {territory: s for s, territory in enumerate(state.castle_of)}
        result: dict[str, Any] = {
            "map": state.map_id,
            "stage": state.stage,
            "phase": state.phase,
            "round": state.round,
            "step": state.step,
            "territories": [self._territory_view(state, t.index, castles) for t in game_map.territories],
            "players": [{"seat": s, "name": state.names[s], "score": state.score[s], "towers": state.towers[s],
                         "castle": game_map.territories[state.castle_of[s]].id, "eliminated": s in state.eliminated,
                         "bot": state.bots[s]} for s in range(len(state.names))],
            "demolished": sorted(game_map.territories[t].id for t in state.demolished),
            "orders": [list(o) for o in state.orders],
            "turn": state.turn,
            "picks": list(state.picks),
            "attack": None if state.attack is None else {
                "attacker": state.attack.attacker, "defender": state.attack.defender,
                "target": None if state.attack.target is None else game_map.territories[state.attack.target].id,
                "castle": state.attack.castle, "towers_down": state.attack.towers_down},
            "options": self._options(state),
            "history": list(state.history[-HISTORY_SHOWN:]),
            "final_ranking": list(state.final_ranking),
            "result": self.last_result(state),
            "settled": [{"seats": list(group), "score": state.score[group[0]]} for group in state.settled],
        }
        if state.stage == "over":
            result["stats"] = self.stats(state)
            result["answer_log"] = [h for h in state.history if h["kind"] == "question"]
        self._last_public = (state, result)
        return result

    RESULT_KINDS = ("conquest", "repelled", "tower", "eliminated")

    @classmethod
    def last_result(cls, state: CampaignState) -> dict[str, Any] | None:
        """How the last duel ended, in facts the screens put in words (who took what from whom), from the moment it
        is settled (CAMP-R17, R18, R20, R21, D8, D10) until the next question is revealed; ``key`` is its place in
        the history, so a screen can tell a new result from the same one drawn again. ``kind``: ``taken`` (the
        attacker took the territory), ``held`` (the defender kept it), ``tower`` (a tower fell and the assault goes
        on) or ``eliminated`` (the last tower fell: the attacker took the castle and everything of its owner)."""
        for index in range(len(state.history) - 1, -1, -1):
            entry = state.history[index]
            if entry["kind"] == "question":
                return None  # a question closed since: that result is old news
            if entry["kind"] not in cls.RESULT_KINDS:
                continue
            attack = next((h for h in reversed(state.history[:index]) if h["kind"] == "attack"), None)
            territory = entry.get("territory") or (attack["territory"] if attack else None)
            if entry["kind"] == "conquest":
                return {"key": index, "kind": "taken", "attacker": entry["seat"], "defender": entry["defender"],
                        "territory": territory}
            if entry["kind"] == "repelled":
                return {"key": index, "kind": "held", "attacker": entry["attacker"], "defender": entry["seat"],
                        "territory": territory, "towers_down": entry.get("towers_down", 0)}
            if entry["kind"] == "tower":
                return {"key": index, "kind": "tower", "attacker": entry["seat"], "defender": entry["defender"],
                        "territory": territory, "towers": entry["towers"]}
            castle = state.game_map.territories[state.castle_of[entry["seat"]]].id
            return {"key": index, "kind": "eliminated", "attacker": entry["by"], "defender": entry["seat"],
                    "territory": castle}
        return None

    def _options(self, state: CampaignState) -> list[str]:
        """The territories the current picker or attacker may choose (public: the rules are)."""
        ids = state.game_map.territories
        if state.phase == "pick" and state.picks:
            return [ids[t].id for t in self.legal_picks(state, state.picks[0])]
        if state.phase == "target" and state.attack is not None:
            return [ids[t].id for t in self.legal_targets(state, state.attack.attacker)]
        return []

    def stats(self, state: CampaignState) -> list[dict[str, Any]]:
        """Per player after the game: answers, right answers (the exact number or the right option), closest
        answers (a quick question won by being nearest without being exact, CAMP-D5: first of the ranking, answered,
        not exact), mean effective time, territories taken, defences."""
        result = []
        for seat in range(len(state.names)):
            answers, right, closest, times = 0, 0, 0, []
            for entry in state.history:
                if entry["kind"] != "question":
                    continue
                for answer in entry["answers"]:
                    if answer["seat"] == seat:
                        answers += 1
                        times.append(answer["ms"])
                        exact = entry.get("right", {}).get(str(seat), False)
                        right += exact
                        ranking = entry.get("ranking") or []
                        closest += bool(ranking and ranking[0] == seat and not exact)
            result.append({
                "seat": seat, "answers": answers, "right": right, "closest": closest,
                "mean_ms": round(sum(times) / len(times)) if times else None,
                "taken": sum(1 for h in state.history if h["kind"] == "conquest" and h["seat"] == seat),
                "defended": sum(1 for h in state.history if h["kind"] == "repelled" and h["seat"] == seat),
                "picked": sum(1 for h in state.history if h["kind"] == "pick" and h["seat"] == seat),
            })
        return result

    @staticmethod
    def _territory_view(state: CampaignState, t: int, castles: dict[int, int]) -> dict[str, Any]:
        castle_of = castles.get(t)
        return {"id": state.game_map.territories[t].id, "owner": state.owner[t], "value": state.value[t],
                "castle": castle_of, "demolished": t in state.demolished,
                "towers": state.towers[castle_of] if castle_of is not None and t not in state.demolished else 0}

    def _question_view(self, state: CampaignState, seat: int | None) -> dict[str, Any] | None:
        asking = state.asking
        if asking is None:
            return None
        question = self._question(state, asking)
        view = {**question.public(), "purpose": asking.purpose, "seats": list(asking.seats),
                "opens_ms": asking.opens_ms,  # CAMP-X1: a seat sees its own window's end, everyone else the standard
                "closes_ms": asking.window_end(seat) if seat is not None and seat in asking.seats else asking.closes_ms,
                "revealed": asking.revealed}
        if seat is None:  # who has answered so far: the TV's (and spectators') list; a phone shows its own answer
            view["answered"] = [a.seat for a in asking.answers]  # only, so another's answer sends it nothing
        if asking.revealed:
            view["correct"] = question.answer if isinstance(question, NumericQuestion) else question.correct
            view["answers"] = [{**a.figures(),
                                **({"distance": abs(a.value - question.answer)}
                                   if isinstance(question, NumericQuestion) else {"right": a.value == question.correct})}
                               for a in asking.answers]
            view["ranking"] = list(asking.ranking)
            view["drawn"] = asking.drawn
        elif seat is not None and (own := asking.answer_of(seat)) is not None:
            view["yours"] = own.value  # one's own answer, never another's
        if seat is not None and seat in asking.shut and not asking.revealed:
            view["time_up"] = True  # CAMP-X1: its own window passed while a longer one runs (its own view only)
        return view

    def asked(self, state: CampaignState) -> str | None:
        """The question on screen now, which the room counts as seen (CAMP-D15)."""
        return self._question(state, state.asking).id if state.asking is not None else None

    def audience_question(self, state: CampaignState) -> AudienceQuestion | None:
        """The question in play for the audience play-along (host/audience.py): its identity, kind, window and
        whether it is open now; the correct answer only once it is revealed."""
        asking = state.asking
        if asking is None:
            return None
        question = self._question(state, asking)
        result: AudienceQuestion = {"key": asking.opens_ms, "kind": asking.kind, "opens_ms": asking.opens_ms,
                  "closes_ms": asking.closes_ms, "open": state.phase == "answer", "revealed": asking.revealed,
                  "options": len(question.options) if isinstance(question, ChoiceQuestion) else 0}
        if asking.revealed:
            result["correct"] = question.answer if isinstance(question, NumericQuestion) else question.correct
        return result

    # ----- bots, outcome -----

    def bot_action(self, state: CampaignState, seat: int, rng: Rng) -> tuple[Payload, int] | None:
        """A bot's next action and a human-looking delay (engine.campaign.bots)."""
        from engine.campaign.bots import decide

        return decide(self, state, seat, rng)

    def outcome(self, state: CampaignState) -> Outcome | None:
        """The final standings, a total order (CAMP-D12)."""
        if state.stage != "over":
            return None
        return Outcome(state.final_ranking, "outcome.campaign",
                       {"scores": list(state.score), "eliminated": list(state.eliminated)})

    def standings(self, state: CampaignState, seats: int) -> Outcome:
        """The ranking as things stand when the host ends the game (CAMP-D12 without its tiebreak question):
        survivors by score, ties already played off in their order, other ties sharing a place; then the
        eliminated, the later elimination higher."""
        outcome = self.outcome(state)
        if outcome is not None:
            return outcome
        settled = {frozenset(g): g for g in state.settled}
        survivors = sorted(state.alive(), key=lambda s: -state.score[s])
        ranking: list[int] = []
        key: dict[int, tuple[int, int, int]] = {}
        for seat in survivors:
            group = [s for s in survivors if state.score[s] == state.score[seat]]
            order = settled.get(frozenset(group))
            if seat not in ranking:
                ranking.extend(order if order is not None else group)
            key[seat] = (0, state.score[seat], order.index(seat) if order is not None else 0)
        for depth, seat in enumerate(reversed(state.eliminated)):
            ranking.append(seat)
            key[seat] = (1, 0, depth)  # every eliminated seat has a place of its own
        return Outcome(tuple(ranking), ENDED_BY_HOST,
                       {"scores": list(state.score), "eliminated": list(state.eliminated)},
                       shared_places(ranking, key.__getitem__))

    def step(self, state: CampaignState) -> int:
        """Changes whenever the phase changes (an answer alone does not), except when a question's preview ends at its
        own time: the phones unlock it by the clock (``foreseen``)."""
        return state.step

    def foreseen(self, before: CampaignState, after: CampaignState) -> bool:
        """A preview that ended at the time it showed: the question opens as every screen counts down to it."""
        return before.phase == "preview" and after.phase == "answer" and before.asking is not None \
            and after.asking is not None and after.asking.opens_ms == before.asking.opens_ms

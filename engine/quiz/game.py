"""The classic Quiz (docs/quiz.md, rules in docs/rules/quiz.md).

Every player answers every question on the phone. Six kinds (one vocabulary everywhere): ``choice`` (one right option
of 2-6), ``multi`` (choose all that apply), ``poll`` (no right answer), ``order`` (put the options in order),
``numeric`` (a whole number, right within a margin) and ``text`` (type the answer, matched by engine.quiz.text). A
question goes through four steps: "get ready" (shown, locked), open for answers, revealed with everyone's points,
then the leaderboard (skipped after the last question). The questions are drawn once (``prepare``) from the room's
chosen packs, unseen first, and logged with the start, so a replay asks exactly the same. Answers are timed with the
room's fair timing (``answer_window``, ``Timing``); points are counted when the question closes (QUIZ-S1..S12).
A pure state machine: no clock, no global random (shuffles and sliders come from the start's seed); a host-paced
quiz waits for the host's Next (``host_next``).
"""

from __future__ import annotations

import itertools
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from engine.core import (
    BOTS_SETTING,
    ENDED_BY_HOST,
    MASK64,
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
from engine.questions import MAX_NUMBER, builtin_questions, checked_text, parse_number
from engine.quiz.text import MAX_TEXT, matches, normal_form

MIN_PLAYERS, MAX_PLAYERS = 1, 12
BOT_FILL = 3  # with bots on, bots fill the game up to this many players
MAX_OPTIONS = 6  # the options of a choice, multi or poll question, the items of an order question (finding 8)
MAX_ACCEPTED = 10  # a text question's accepted answers
MAX_QUESTIONS = 200  # one game asks at most this many ("all" included): the start's log stays small
MAX_SECONDS = 600  # a question's own time is taken up to this
READY_SECONDS = 3  # the "get ready" lock before a question opens for answers
FULL = 1000  # QUIZ-S1
STREAK_STEP, STREAK_MAX = 100, 500  # QUIZ-S3
PHASES = ("ready", "question", "reveal", "standings", "over")
KINDS = ("numeric", "choice", "multi", "poll", "order", "text")
OPTION_KINDS = ("choice", "multi", "poll", "order")  # the kinds with options
ACTION_OF = {"numeric": "answer", "choice": "choice", "poll": "choice", "multi": "multi", "order": "order",
             "text": "text"}  # each kind's action
WANTS = {"numeric": "this question wants a number", "choice": "pick an option", "poll": "pick an option",
         "multi": "pick one or more options", "order": "put the options in order", "text": "type an answer"}
POINTS = (0, 1, 2)  # a question's points: none, standard, double (QUIZ-S12)
SHUFFLES = ("off", "question", "phone")  # QUIZ-S13
SHOWN_GROUPS = 12  # a text question's reveal lists this many groups of answers, and counts the others
MAX_TEXT_RAW = 4 * MAX_TEXT  # a typed answer longer than this is refused before it is looked at
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
SLIDER_SALT = 0x51_1DE2
ORDER_SALT = 0x0_2DE2
SLIDER_STOPS = 100  # a slider has about this many steps from low to high

# An answer: ("choice", option) for choice and poll, ("answer", number) for numeric, ("multi", sorted options),
# ("order", options from first place to last) and ("text", typed text). legal_actions lists the numeric and text
# answers as ("answer", None) and ("text", None), a kind without its value; apply refuses that as no answer at all.
QuizAction = tuple[str, Any]


def half_up(numerator: int, denominator: int) -> int:
    """numerator / denominator rounded to the nearest whole number, halves up (both non-negative)."""
    return (2 * numerator + denominator) // (2 * denominator)


def nice_at_least(value: int) -> int:
    """The smallest 1, 2 or 5 x 10^k that is at least ``value`` (at least 1)."""
    power = 1
    while True:
        for digit in (1, 2, 5):
            if digit * power >= value:
                return digit * power
        power *= 10


def mix(seed: int, index: int, seat: int | None = None) -> int:
    """A generator seed for one question (and one seat) from the game's seed."""
    value = seed * 0x9E3779B97F4A7C15 + (index + 1) * 0xBF58476D1CE4E5B9
    if seat is not None:
        value += (seat + 1) * 0x94D049BB133111EB
    return value & MASK64


@dataclass(frozen=True)
class QuizQuestion:
    """A question as the game asks it."""

    id: str
    kind: str  # one of KINDS
    prompt: Any  # a text, or texts by language (the generated set)
    options: tuple[Any, ...] = ()  # choice, multi, poll, order (in play: scrambled at the start, see ``sequence``)
    correct: int | None = None  # choice
    answer: int | None = None  # numeric
    unit: Any = None
    seconds: int | None = None  # the pack's own time for it, if any
    image: str | None = None  # the URL the TV loads its image from, if any
    points: int = 1  # QUIZ-S12: 0, 1 or 2
    rights: tuple[int, ...] = ()  # multi: the right options, sorted
    accepted: tuple[str, ...] = ()  # text: the accepted answers, the first one shown
    margin: int | None = None  # numeric: the question's own margin (None: the game's `margin` setting, QUIZ-S2)
    low: int | None = None  # numeric: the slider's bounds from the pack, if it gives them
    high: int | None = None
    sequence: tuple[int, ...] = ()  # order: the right order as indexes of ``options``, first place first

    def public(self) -> dict[str, Any]:
        """What may be shown before the reveal (never the answer, the margin or the accepted texts)."""
        return {"id": self.id, "kind": self.kind, "prompt": self.prompt, "unit": self.unit, "image": self.image,
                "options": list(self.options), "points": self.points}

    @property
    def truth(self) -> int:
        """The right option (choice), or the right number (numeric)."""
        truth = self.correct if self.kind == "choice" else self.answer
        assert truth is not None, f"question {self.id} has no single answer"  # parse_content checks each kind
        return truth

    def right_answer(self) -> Any:
        """The reveal's ``correct``: choice the option; multi the right options; order the options' indexes in the
        right order, first place first; numeric the number; text the accepted answers; poll None."""
        if self.kind == "choice":
            return self.correct
        if self.kind == "multi":
            return list(self.rights)
        if self.kind == "order":
            return list(self.sequence)
        if self.kind == "numeric":
            return self.answer
        if self.kind == "text":
            return list(self.accepted)
        return None


@dataclass(frozen=True)
class Answer:
    """One seat's answer to the open question and the fair ms it took from the unlock, at most T (finding 7)."""

    slot: int
    value: Any  # int (choice, poll, numeric), tuple of ints (multi, order) or str (text)
    ms: int
    timing: Timing | None = None


@dataclass(frozen=True)
class QuizState:
    """One position of a quiz."""

    names: tuple[str, ...]
    bots: tuple[bool, ...]
    questions: tuple[QuizQuestion, ...]
    seconds: tuple[int, ...]  # each question's answer time in seconds, as chosen (before the timer scale)
    windows: tuple[int, ...]  # each question's answer window in ms, after the timer scale
    margins: tuple[int | None, ...]  # each numeric question's margin in its units (QUIZ-S2); None for other kinds
    sliders: tuple[tuple[int, int, int] | None, ...]  # each numeric question's slider (low, high, step)
    ready_ms: int
    reveal_ms: int
    standings_ms: int
    paced: str  # "auto" or "host"
    speed: bool
    streak_on: bool
    team_count: int  # 0: no teams
    shuffle: str  # QUIZ-S13: "off", "question" or "phone"
    margin_percent: int  # the `margin` setting (QUIZ-S2)
    bots_on: bool  # the `bots` setting: a bot stands in for a gone player (QUIZ-S15)
    seed: int  # the start's seed: the shuffles (QUIZ-S13)
    score: tuple[int, ...]
    streak: tuple[int, ...]
    best_streak: tuple[int, ...]
    right: tuple[int, ...]
    answered: tuple[int, ...]
    total_ms: tuple[int, ...]  # the sum of each seat's answer times (each at most T)
    previous_places: tuple[int, ...]  # places before the last reveal (the leaderboard shows who moved)
    joined: tuple[int, ...]  # each seat's first question (QUIZ-S14: 0 for the starters)
    index: int = 0
    phase: str = "ready"
    opens_ms: int = 0
    closes_ms: int = 0
    deadline_ms: int | None = None
    answers: tuple[Answer, ...] = ()
    reveal: Mapping[str, Any] | None = None
    history: tuple[Mapping[str, Any], ...] = ()  # each closed question's reveal, with its "index" (the report)
    step: int = 0
    factors: tuple[float, ...] = ()  # QUIZ-X1: each seat's extended time as the host set it (none: all x1)
    window_factors: tuple[float, ...] = ()  # QUIZ-X1: the factors of the question on screen, fixed when it is shown
    shut: tuple[int, ...] = ()  # QUIZ-X1: seats whose window of the open question has passed unanswered

    def window_end(self, slot: int) -> int:
        """When the open question closes for this seat: the unlock plus T x its factor (QUIZ-X1)."""
        return self.opens_ms + stretched(self.windows[self.index], factor_of(self.window_factors, slot))

    def answer_of(self, slot: int) -> Answer | None:
        """The seat's answer to the current question, if any."""
        for answer in self.answers:
            if answer.slot == slot:
                return answer
        return None

    @property
    def question(self) -> QuizQuestion:
        """The current question."""
        return self.questions[self.index]

    def avg_ms(self, slot: int) -> int | None:
        """The seat's mean answer time, rounded (None if it never answered)."""
        return half_up(self.total_ms[slot], self.answered[slot]) if self.answered[slot] else None

    def team_of(self, slot: int) -> int | None:
        """Seat i plays in team i % n (QUIZ-S4)."""
        return slot % self.team_count if self.team_count else None


# ----- content: the questions drawn and logged with the start -----

def _whole(value: Any, low: int = 0, high: int = MAX_NUMBER) -> int | None:
    """A whole number in [low, high], else None (a pack field read leniently, with getattr defaults)."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        return None
    return value


def to_content(entry: Any) -> dict[str, Any]:
    """A pack question (questions.library.Entry) in the logged content form (id, kind, prompt, seconds, image, unit,
    points, and each kind's own fields). The pack model's newer fields are read with defaults, so an older model (or
    an older pack) gives a choice or numeric question as before. A choice question with more than MAX_OPTIONS options
    (no pack holds one: the packs allow 6) keeps the right one and the first wrong ones, in the pack's order."""
    q = entry.question
    seconds = _whole(getattr(q, "time", None), 1, MAX_SECONDS)
    kind = q.type if q.type in KINDS else "choice"
    points = getattr(q, "points", 1)
    result: dict[str, Any] = {"id": entry.id, "kind": kind, "prompt": q.prompt, "seconds": seconds,
                              "image": getattr(entry, "image_url", None), "unit": None,
                              "points": points if points in POINTS and not isinstance(points, bool) else 1}
    options = list(getattr(q, "options", ()) or ())
    if kind == "numeric":
        low, high = _whole(getattr(q, "low", None)), _whole(getattr(q, "high", None))
        if low is None or high is None or not low <= q.answer <= high or low == high:
            low = high = None
        result.update(answer=q.answer, unit=q.unit or None, margin=_whole(getattr(q, "margin", None)), low=low,
                      high=high)
    elif kind == "choice":
        keep = [i for i in range(len(options)) if i != q.correct][:MAX_OPTIONS - 1]
        keep = sorted([*keep, q.correct])
        result.update(options=[options[i] for i in keep], correct=keep.index(q.correct))
    elif kind == "multi":
        result.update(options=options, rights=sorted(getattr(q, "rights", ())))
    elif kind in ("poll", "order"):
        result.update(options=options)
    else:
        result.update(accepted=list(getattr(q, "accepted", ())))
    return result


def generated(seed: int) -> list[dict[str, Any]]:
    """Without packs (engine tests, simulations): ten generated questions, numeric and multiple choice in turn."""
    pool = builtin_questions(seed, 5, 5)
    result = []
    for numeric, choice in zip(pool["numeric"], pool["choice"], strict=True):
        result.append({"id": numeric["id"], "kind": "numeric", "prompt": numeric["prompt"], "answer": numeric["answer"],
                       "unit": numeric["unit"], "seconds": None, "image": None})
        result.append({"id": choice["id"], "kind": "choice", "prompt": choice["prompt"], "options": choice["options"],
                       "correct": choice["correct"], "unit": None, "seconds": None, "image": None})
    return result


def _text(value: Any, where: str, optional: bool = False) -> Any:
    return None if optional and value is None else checked_text(value, where)


def _index_list(value: Any, where: str, count: int) -> list[int]:
    if not isinstance(value, list) or not 1 <= len(value) <= count or any(
            isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < count for i in value) \
            or len(set(value)) != len(value):
        raise InvalidSettings(f"{where} must list distinct option indexes", "content")
    return value


def _number_field(item: dict[str, Any], name: str, where: str) -> int | None:
    value = item.get(name)
    if value is not None and _whole(value) is None:
        raise InvalidSettings(f"{where}.{name} must be a whole number from 0 to {MAX_NUMBER} or null", "content")
    return value


def parse_question(item: Any, where: str) -> QuizQuestion:
    """One question of the logged content, checked. A question logged before issue [17] (choice or numeric, without
    points, margin or slider bounds) reads as it did, with 1 point and the game's margin."""
    if not isinstance(item, dict) or item.get("kind") not in KINDS:
        raise InvalidSettings(f"{where}.kind must be one of {', '.join(KINDS)}", "content")
    kind = item["kind"]
    seconds = item.get("seconds")
    if seconds is not None and _whole(seconds, 1, MAX_SECONDS) is None:
        raise InvalidSettings(f"{where}.seconds must be 1 to {MAX_SECONDS} or null", "content")
    image = item.get("image")
    if image is not None and not isinstance(image, str):
        raise InvalidSettings(f"{where}.image must be a URL or null", "content")
    points = item.get("points", 1)
    if isinstance(points, bool) or points not in POINTS:
        raise InvalidSettings(f"{where}.points must be 0, 1 or 2", "content")
    common: dict[str, Any] = {"id": str(item.get("id", where)), "kind": kind,
                              "prompt": _text(item.get("prompt"), where), "seconds": seconds, "image": image,
                              "unit": _text(item.get("unit"), f"{where}.unit", optional=True), "points": points}
    if kind == "numeric":
        answer = _whole(item.get("answer"))
        if answer is None:
            raise InvalidSettings(f"{where}.answer must be a whole number from 0 to {MAX_NUMBER}", "content")
        margin, low, high = (_number_field(item, name, where) for name in ("margin", "low", "high"))
        bounded = low is not None and high is not None and low <= answer <= high and low < high
        if not bounded and (low is not None or high is not None):
            raise InvalidSettings(f"{where}: low and high must both be given, low < high, the answer between them",
                                  "content")
        return QuizQuestion(answer=answer, margin=margin, low=low, high=high, **common)
    if kind == "text":
        accepted = item.get("accepted")
        if not isinstance(accepted, list) or not 1 <= len(accepted) <= MAX_ACCEPTED or any(
                not isinstance(a, str) or not 1 <= len(a.strip()) <= MAX_TEXT or not normal_form(a)
                for a in accepted):
            raise InvalidSettings(f"{where}.accepted must list 1 to {MAX_ACCEPTED} answers of 1 to {MAX_TEXT} "
                                  "characters, each with a letter or a digit", "content")
        return QuizQuestion(accepted=tuple(a.strip() for a in accepted), **common)
    options = item.get("options")
    if not isinstance(options, list) or not 2 <= len(options) <= MAX_OPTIONS:
        raise InvalidSettings(f"{where} must have 2 to {MAX_OPTIONS} options", "content")
    texts = tuple(_text(o, f"{where}.options") for o in options)
    if kind == "choice":
        correct = item.get("correct")
        if _whole(correct, 0, len(options) - 1) is None:
            raise InvalidSettings(f"{where}.correct must be the index of one option", "content")
        return QuizQuestion(options=texts, correct=correct, **common)
    if kind == "multi":
        rights = _index_list(item.get("rights"), f"{where}.rights", len(options))
        if len(rights) == len(options):
            raise InvalidSettings(f"{where}.rights must leave at least one wrong option", "content")
        return QuizQuestion(options=texts, rights=tuple(sorted(rights)), **common)
    if kind == "order":  # logged in the right order
        return QuizQuestion(options=texts, sequence=tuple(range(len(texts))), **common)
    return QuizQuestion(options=texts, **common)  # poll


def parse_content(content: Any) -> tuple[QuizQuestion, ...]:
    """The questions of a game's logged content, checked."""
    items = content.get("questions") if isinstance(content, dict) else None
    if not isinstance(items, list) or not 1 <= len(items) <= MAX_QUESTIONS:
        raise InvalidSettings(f"a quiz needs 1 to {MAX_QUESTIONS} questions", "content")
    return tuple(parse_question(item, f"questions[{i}]") for i, item in enumerate(items))


def slider_of(question: QuizQuestion, seed: int, index: int) -> tuple[int, int, int] | None:
    """A numeric question's slider (low, high, step): the pack's bounds, else 0 to the smallest 1/2/5 x 10^k at
    least the answer x f, f drawn from the seed in 1.5-4.0 (so the answer is not always at the same place); the step
    a 1/2/5 x 10^j near (high - low) / 100, at least 1. Fixed at the start: the view never derives it again from the
    answer."""
    if question.kind != "numeric" or question.answer is None:
        return None
    if question.low is not None and question.high is not None:
        low, high = question.low, question.high
    else:
        factor = 1500 + Rng(mix(seed ^ SLIDER_SALT, index)).randbelow(2501)  # thousandths: 1.5 to 4.0
        low, high = 0, min(nice_at_least(max(10, -(-question.answer * factor // 1000))), MAX_NUMBER)
    return low, high, nice_at_least(max(1, -(-(high - low) // SLIDER_STOPS)))


def scrambled(question: QuizQuestion, seed: int, index: int) -> QuizQuestion:
    """An order question as played: its items in an order drawn from the seed, never the right one, and
    ``sequence`` the right order as indexes of that list. The logged content lists the items in the right order; if
    the view listed them so too, a phone's own data would give the answer away before the reveal (QUIZ-S10)."""
    count = len(question.options)
    if question.kind != "order" or count < 2:
        return question
    rng = Rng(mix(seed ^ ORDER_SALT, index))
    items = list(range(count))
    while items == sorted(items):
        rng.shuffle(items)
    return replace(question, options=tuple(question.options[i] for i in items),
                   sequence=tuple(items.index(place) for place in range(count)))


def clean_text(raw: str) -> str:
    """A typed answer as kept: NFC, control and bidi-override characters removed, spaces collapsed and trimmed."""
    text = unicodedata.normalize("NFC", raw)
    text = "".join(c for c in text if c not in BIDI_CONTROLS and (c.isspace() or unicodedata.category(c) != "Cc"))
    return " ".join(text.split())


class QuizGame(Game[QuizState, QuizAction]):
    """The classic Quiz: 1-12 players answer every question; speed, closeness and streaks score."""

    audience_play_along = True  # spectators answer every question too (audience_question)

    info = GameInfo(
        "quiz", "game.quiz.name", "game.quiz.blurb", MIN_PLAYERS, MAX_PLAYERS,
        (
            SettingSpec("count", "int", 0, "setting.quiz_count", 0, MAX_QUESTIONS),
            SettingSpec("order", "choice", "shuffled", "setting.quiz_order", choices=("pack", "shuffled")),
            SettingSpec("seconds", "int", 20, "setting.quiz_seconds", 5, 120, unit="s"),
            SettingSpec("pack_time", "bool", True, "setting.quiz_pack_time"),
            SettingSpec("paced", "choice", "auto", "setting.quiz_paced", choices=("auto", "host")),
            SettingSpec("speed", "bool", True, "setting.quiz_speed"),
            SettingSpec("streak", "bool", True, "setting.quiz_streak"),
            SettingSpec("margin", "int", 10, "setting.quiz_margin", 0, 100),
            SettingSpec("shuffle", "choice", "off", "setting.quiz_shuffle", choices=SHUFFLES),
            SettingSpec("teams", "choice", "0", "setting.quiz_teams", choices=("0", "2", "3", "4")),
            SettingSpec("bots", "bool", False, BOTS_SETTING.label_key),
            SettingSpec("reveal_seconds", "int", 5, "setting.quiz_reveal_seconds", 3, 30, group="timers", unit="s"),
            SettingSpec("standings_seconds", "int", 5, "setting.quiz_standings_seconds", 3, 30, group="timers",
                        unit="s"),
        ),
        bot_fill=BOT_FILL,
    )

    # ----- setup -----

    def needs(self) -> Needs:
        """Any number of either kind: one question is enough (non-empty, so the room supplies the chosen packs)."""
        return {"numeric": 0, "choice": 0}

    def draw(self, settings: Mapping[str, Any]) -> Draw:
        """The ``count`` questions of a game (all: MAX_QUESTIONS), of any kind: the first unseen ones in the
        packs' order, or a random sample of them (QUIZ-S7)."""
        chosen = {**self.info.default_settings(), **dict(settings)}
        return Draw(chosen["count"] or MAX_QUESTIONS, in_order=chosen["order"] == "pack")

    def prepare(self, settings: Mapping[str, Any], seed: int, supply: Mapping[str, Any] | None = None
                ) -> dict[str, Any]:
        """The questions of one game (QUIZ-S7): the chosen packs' unseen questions first, then the seen ones, each
        in pack order or shuffled; ``count`` of them (0: all, up to 200). Without a supply (engine tests), a
        generated set."""
        chosen = {**self.info.default_settings(), **dict(settings)}
        count = chosen["count"] or MAX_QUESTIONS
        if supply is None:
            return {"questions": generated(seed)[:count]}
        entries, ids = [], set()
        for entry in supply.get("questions") or []:
            if entry.id not in ids:  # a pack chosen twice gives its questions once
                ids.add(entry.id)
                entries.append(entry)
        if not entries:
            raise InvalidSettings("the chosen question packs hold no questions: choose a pack with at least one "
                                  "question", "packs")
        seen = supply.get("seen") or set()
        fresh = [e for e in entries if e.id not in seen]
        old = [e for e in entries if e.id in seen]
        if chosen["order"] == "shuffled":
            rng = Rng(seed ^ 0x9_0172)
            rng.shuffle(fresh)
            rng.shuffle(old)
        return {"questions": [to_content(e) for e in (fresh + old)[:count]]}

    def setup(self, slots: Sequence[Slot], ctx: Context, now_ms: int) -> QuizState:
        """The seats, the questions and their timers; the first question is shown, locked for a moment."""
        if not MIN_PLAYERS <= len(slots) <= MAX_PLAYERS:
            raise IllegalAction(f"a quiz has {MIN_PLAYERS} to {MAX_PLAYERS} players")
        settings = {**self.info.default_settings(), **dict(ctx.settings)}
        logged = parse_content(ctx.content if ctx.content is not None else self.prepare(settings, ctx.seed))
        questions = tuple(scrambled(q, ctx.seed, i) for i, q in enumerate(logged))
        seconds = tuple(q.seconds if settings["pack_time"] and q.seconds else settings["seconds"] for q in questions)
        percent = settings["margin"]
        margins = tuple(None if q.kind != "numeric" or q.answer is None else
                        q.margin if q.margin is not None else half_up(q.answer * percent, 100) for q in questions)
        n = len(slots)
        state = QuizState(
            names=tuple(s.name for s in slots), bots=tuple(s.is_bot for s in slots), questions=questions,
            seconds=seconds, windows=tuple(ctx.timer_ms(s) for s in seconds), margins=margins,
            sliders=tuple(slider_of(q, ctx.seed, i) for i, q in enumerate(questions)),
            ready_ms=ctx.timer_ms(READY_SECONDS), reveal_ms=ctx.timer_ms(settings["reveal_seconds"]),
            standings_ms=ctx.timer_ms(settings["standings_seconds"]), paced=settings["paced"],
            speed=settings["speed"], streak_on=settings["streak"], team_count=int(settings["teams"]),
            shuffle=settings["shuffle"], margin_percent=percent, bots_on=settings["bots"], seed=ctx.seed & MASK64,
            score=(0,) * n, streak=(0,) * n, best_streak=(0,) * n, right=(0,) * n, answered=(0,) * n,
            total_ms=(0,) * n, previous_places=(1,) * n, joined=(0,) * n, factors=ctx.factors(n))
        return self._ask(state, 0, now_ms)

    # ----- actions -----

    def parse_action(self, payload: Payload) -> QuizAction:
        """``{"choice": i}`` (choice, poll: an option, from 0), ``{"answer": n}`` (numeric: a whole number,
        CAMP-D14), ``{"multi": [i, ...]}`` (1-6 distinct options), ``{"order": [i, ...]}`` (every option once, the
        first place first), ``{"text": "..."}`` (1-100 characters after trimming). Indexes are those of the view's
        ``options``, whatever order a phone showed them in: the logged order, except for an order question, whose
        items are scrambled at the start (``scrambled``)."""
        if not isinstance(payload, dict) or len(payload) != 1:
            raise InvalidAction('an answer is {"choice": i}, {"answer": n}, {"multi": [i, ...]}, {"order": [i, ...]} '
                                'or {"text": "..."}')
        kind, value = next(iter(payload.items()))
        if kind == "choice":
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < MAX_OPTIONS:
                raise InvalidAction(f"choice must be the number of an option, 0 to {MAX_OPTIONS - 1}", "choice")
            return kind, value
        if kind == "answer":
            return kind, parse_number(value)
        if kind in ("multi", "order"):
            smallest = 1 if kind == "multi" else 2
            if not isinstance(value, list) or not smallest <= len(value) <= MAX_OPTIONS or any(
                    isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < MAX_OPTIONS for i in value) \
                    or len(set(value)) != len(value):
                raise InvalidAction(f"{kind} must list {smallest} to {MAX_OPTIONS} different options, each 0 to "
                                    f"{MAX_OPTIONS - 1}", kind)
            if kind == "order" and sorted(value) != list(range(len(value))):
                raise InvalidAction("order must list every option once", kind)
            return kind, tuple(sorted(value)) if kind == "multi" else tuple(value)
        if kind == "text":
            if not isinstance(value, str) or len(value) > MAX_TEXT_RAW:
                raise InvalidAction(f"text must be an answer of 1 to {MAX_TEXT} characters", "text")
            text = clean_text(value)
            if not 1 <= len(text) <= MAX_TEXT:
                raise InvalidAction(f"text must be an answer of 1 to {MAX_TEXT} characters", "text")
            return kind, text
        raise InvalidAction(f"unknown action {str(kind)[:20]!r}: answer with choice, answer, multi, order or text",
                            "action")

    def action_to_json(self, action: QuizAction) -> dict[str, Any]:
        """The logged form of an action."""
        kind, value = action
        return {kind: list(value) if isinstance(value, tuple) else value}

    def _may_answer(self, state: QuizState, seat: int) -> bool:
        return state.phase == "question" and 0 <= seat < len(state.names) and state.answer_of(seat) is None \
            and seat not in state.shut

    def legal_actions(self, state: QuizState, seat: int) -> list[QuizAction]:
        """The answers the seat may give now (a number and a text are listed as ``("answer", None)`` and
        ``("text", None)``; every set of options of a multi question, every order of an order question)."""
        if not self._may_answer(state, seat):
            return []
        question = state.question
        count = len(question.options)
        if question.kind == "numeric":
            return [("answer", None)]
        if question.kind == "text":
            return [("text", None)]
        if question.kind == "multi":
            return [("multi", picks) for size in range(1, count + 1)
                    for picks in itertools.combinations(range(count), size)]
        if question.kind == "order":
            return [("order", order) for order in itertools.permutations(range(count))]
        return [("choice", i) for i in range(count)]

    def can_act(self, state: QuizState, seat: int) -> bool:
        """Whether the seat may answer now, without listing its answers (an order question of six items has 720: the
        room asks this for every bot's seat on each tick)."""
        return self._may_answer(state, seat)

    def answer_window(self, state: QuizState, seat: int) -> tuple[int, int] | None:
        """The open question's unlock and deadline, for a seat that has not answered it yet."""
        if self._may_answer(state, seat):
            return state.opens_ms, state.window_end(seat)  # QUIZ-X1: the seat's own window
        return None

    def apply(self, state: QuizState, seat: int, action: QuizAction, now_ms: int,
              timing: Timing | None = None) -> QuizState:
        """An answer: one per seat and question, final; IllegalAction (TooLate once closed) if not allowed now,
        InvalidAction for a value of the wrong shape (such as the numeric or text answer legal_actions lists without
        its value)."""
        kind, value = action
        if state.phase == "over":
            raise IllegalAction("the game is over")
        if not isinstance(seat, int) or not 0 <= seat < len(state.names):
            raise IllegalAction("no such seat")
        if kind not in ("choice", "answer", "multi", "order", "text"):
            raise IllegalAction(f"unknown action {kind!r}")
        value = self._checked_value(kind, value)
        if state.answer_of(seat) is not None:
            raise IllegalAction("you have already answered")
        if state.phase in ("reveal", "standings"):
            raise TooLate("too late: the question has closed")
        if state.phase != "question":
            raise IllegalAction("the question is not open yet")
        if seat in state.shut:  # QUIZ-X1: the seat's own window has passed while a longer one still runs
            raise TooLate("too late: your time for this question is up")
        question = state.question
        count = len(question.options)
        if kind != ACTION_OF[question.kind]:
            raise IllegalAction(WANTS[question.kind])
        if kind == "choice" and not 0 <= value < count:
            raise IllegalAction(f"no such option: this question has {count} options")
        if kind == "multi" and not all(0 <= i < count for i in value):
            raise IllegalAction(f"no such option: this question has {count} options")
        if kind == "order" and len(value) != count:
            raise IllegalAction(f"put all {count} options in order")
        ms = timing.effective if timing is not None else now_ms - state.opens_ms
        ms = scaled_back(max(0, ms), factor_of(state.window_factors, seat))  # QUIZ-X1: the reaction, not the window
        ms = min(ms, state.windows[state.index])  # finding 7: t is at most T everywhere
        state = evolve(state, answers=state.answers + (Answer(seat, value, ms, timing),))
        if len(state.answers) + len(state.shut) == len(state.names):
            return self._close(state, now_ms)  # everyone answered: no need to wait for the clock
        return evolve(state, deadline_ms=self._question_deadline(state))

    @staticmethod
    def _question_deadline(state: QuizState) -> int:
        """QUIZ-X1: the open question's next deadline, the earliest window end of the seats that may still answer
        (with nobody extended, the close T)."""
        waiting = [s for s in range(len(state.names)) if state.answer_of(s) is None and s not in state.shut]
        return min((state.window_end(s) for s in waiting), default=state.closes_ms)

    @staticmethod
    def _checked_value(kind: str, value: Any) -> Any:
        """The action's value in its kind's shape (apply may be handed an action that never went through
        parse_action), else InvalidAction."""
        if kind in ("choice", "answer"):
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidAction(f"{kind} must be a whole number", kind)
            return value
        if kind == "text":
            if not isinstance(value, str) or not 1 <= len(value) <= MAX_TEXT:
                raise InvalidAction(f"text must be an answer of 1 to {MAX_TEXT} characters", "text")
            return value
        if not isinstance(value, (tuple, list)) or not 1 <= len(value) <= MAX_OPTIONS or any(
                isinstance(i, bool) or not isinstance(i, int) for i in value) or len(set(value)) != len(value):
            raise InvalidAction(f"{kind} must list different options", kind)
        if kind == "order" and sorted(value) != list(range(len(value))):
            raise InvalidAction("order must list every option once", kind)
        return tuple(sorted(value)) if kind == "multi" else tuple(value)

    # ----- seats: latecomers and gone players -----

    def takes_latecomers(self, state: QuizState) -> bool:
        """QUIZ-S14: a player who joins during a quiz plays the rest, unless no question is left for them (it is over,
        or the last one is closed), teams are on (seats are dealt to teams at the start) or it is full."""
        left = state.phase in ("ready", "question") or state.index + 1 < len(state.questions)
        return state.phase != "over" and left and not state.team_count and len(state.names) < MAX_PLAYERS

    def add_seat(self, state: QuizState, name: str, now_ms: int) -> QuizState:
        """QUIZ-S14: a new seat at the end. It may answer the question on screen if it is not closed yet; the
        questions before score 0 for it and do not count as answered."""
        if not self.takes_latecomers(state):
            raise IllegalAction("this quiz takes no latecomers now")
        first = state.index if state.phase in ("ready", "question") else state.index + 1
        grown = evolve(state, names=state.names + (str(name),), bots=state.bots + (False,),
                       score=state.score + (0,), streak=state.streak + (0,), best_streak=state.best_streak + (0,),
                       right=state.right + (0,), answered=state.answered + (0,), total_ms=state.total_ms + (0,),
                       joined=state.joined + (first,), previous_places=state.previous_places + (0,))
        return evolve(grown, previous_places=state.previous_places + (self._places(grown)[-1],))

    def stands_in(self, state: QuizState) -> bool:
        """QUIZ-S15: a bot plays for a gone player only with the ``bots`` setting; else the seat answers nothing."""
        return state.bots_on

    # ----- time and the host -----

    def deadline(self, state: QuizState) -> int | None:
        """When the current step ends (None: waiting for the host's Next, or over)."""
        return state.deadline_ms

    def on_timeout(self, state: QuizState, now_ms: int) -> QuizState:
        """The current step's time is up: the question opens, closes, or the quiz moves on."""
        if state.deadline_ms is None:
            raise IllegalAction("nothing is timed now")
        if state.phase == "ready":  # the same step: an answer tapped as the phone's own countdown unlocks is not stale
            # the host may skip the "get ready": the question then opens now, with its whole time (QUIZ-S1's T)
            opens = min(now_ms, state.opens_ms)
            closes = opens + state.windows[state.index]
            opened = evolve(state, phase="question", opens_ms=opens, closes_ms=closes)
            return evolve(opened, deadline_ms=self._question_deadline(opened))
        if state.phase == "question":
            if state.deadline_ms is not None and now_ms >= state.deadline_ms:  # QUIZ-X1: a window ran out: its
                shut = tuple(s for s in range(len(state.names))  # seats may no longer answer; longer ones go on
                             if s in state.shut or state.answer_of(s) is None and state.window_end(s) <= state.deadline_ms)
                state = evolve(state, shut=shut)
                if len(state.answers) + len(shut) < len(state.names):
                    return evolve(state, deadline_ms=self._question_deadline(state))
            return self._close(state, now_ms)  # no answer scores nothing (QUIZ-S1); the host's skip closes it for all
        return self._onwards(state, now_ms)

    def host_next(self, state: QuizState, now_ms: int) -> QuizState:
        """The host's Next: after a reveal or the leaderboard, move on now (host-paced: the only way on)."""
        if state.phase not in ("reveal", "standings"):
            raise IllegalAction("nothing to advance")
        return self._onwards(state, now_ms)

    def _onwards(self, state: QuizState, now_ms: int) -> QuizState:
        if state.phase == "reveal" and state.index + 1 < len(state.questions):
            deadline = now_ms + state.standings_ms if state.paced == "auto" else None
            return evolve(state, phase="standings", deadline_ms=deadline, step=state.step + 1)
        if state.phase == "reveal":  # the last question: no leaderboard before the end
            return evolve(state, phase="over", deadline_ms=None, step=state.step + 1)
        return self._ask(state, state.index + 1, now_ms)

    def _ask(self, state: QuizState, index: int, now_ms: int) -> QuizState:
        opens = now_ms + state.ready_ms
        factors = tuple(factor_of(state.factors, s) for s in range(len(state.names)))  # QUIZ-X1: fixed as it shows
        return evolve(state, index=index, phase="ready", opens_ms=opens, closes_ms=opens + state.windows[index],
                      deadline_ms=opens, answers=(), reveal=None, step=state.step + 1, window_factors=factors, shut=())

    def set_time_factor(self, state: QuizState, seat: int, factor: float, now_ms: int) -> QuizState:
        """QUIZ-X1: the host gives a seat extended time; it counts from the next question shown."""
        return evolve(state, factors=with_factor(state.factors, seat, factor, len(state.names)))

    def clock(self, state: QuizState, seat: int | None) -> int | None:
        """QUIZ-X1: while a question is open the TV and every seat count down to the standard close T; a seat with
        extended time to its own window's end (only its own phone sees it)."""
        if state.phase != "question" or state.deadline_ms is None:
            return state.deadline_ms
        if seat is not None and 0 <= seat < len(state.names) and seat not in state.shut:
            return state.window_end(seat)
        return state.closes_ms

    # ----- scoring -----

    def points(self, state: QuizState, ms: int, credit: tuple[int, int] = (1, 1)) -> int:
        """S(t) x credit, rounded half up once: S(t) = 1000 x (1 - t/2T) (QUIZ-S1), 1000 with speed off; t at most
        T; credit a fraction (numerator, denominator) of 0 to 1 (QUIZ-S2, S10, S11)."""
        have, of = credit
        if not state.speed:
            return half_up(FULL * have, of)
        window = state.windows[state.index]
        t = min(max(ms, 0), window)
        return half_up(FULL * (2 * window - t) * have, 2 * window * of)

    def judge(self, state: QuizState, value: Any) -> tuple[bool | None, tuple[int, int] | None, int | None]:
        """An answer to the current question: (right, credit, distance). right is None for a poll (QUIZ-S9); credit
        the fraction of S(t) it earns (None for a poll); distance |value - answer| for a number."""
        question = state.question
        kind = question.kind
        if kind == "poll":
            return None, None, None
        if kind == "choice":
            return value == question.correct, (int(value == question.correct), 1), None
        if kind == "text":  # QUIZ-S8
            right = matches(value, question.accepted)
            return right, (int(right), 1), None
        if kind == "order":  # QUIZ-S10: the items in their right place
            placed = sum(1 for option, right in zip(value, question.sequence, strict=True) if option == right)
            return placed == len(question.options), (placed, len(question.options)), None
        if kind == "multi":  # QUIZ-S11: right picks less wrong picks, of the right options
            picks, rights = set(value), set(question.rights)
            earned = max(0, len(picks & rights) - len(picks - rights))
            return picks == rights, (earned, len(rights)), None
        margin = state.margins[state.index]  # QUIZ-S2
        assert question.answer is not None and margin is not None
        distance = abs(value - question.answer)
        if distance > margin:
            return False, (0, 1), distance
        return True, (1, 1) if margin == 0 else (2 * margin - distance, 2 * margin), distance

    def _close(self, state: QuizState, now_ms: int) -> QuizState:
        """Close the question and count everyone's points (QUIZ-S1..S3, S8..S12)."""
        question = state.question
        index = state.index
        players = len(state.names)
        before = self._places(state)
        score, streak, best = list(state.score), list(state.streak), list(state.best_streak)
        right, answered, total = list(state.right), list(state.answered), list(state.total_ms)
        counts_at_all = question.kind != "poll" and question.points > 0  # QUIZ-S9, S12: nothing changes
        judged = {a.slot: self.judge(state, a.value) for a in state.answers}
        ms_of = {a.slot: a.ms for a in state.answers}
        distances = [d for _, _, d in judged.values() if d is not None]
        nearest = min(distances) if distances else None
        raw = {slot: 0 if credit is None else self.points(state, ms_of[slot], credit)
               for slot, (_, credit, _) in judged.items()}  # before the question's points: the rank uses it
        ranked = sorted(judged, key=lambda s: (-raw[s], ms_of[s], s))
        rank_of = dict(zip(ranked, shared_places(ranked, lambda s: (raw[s], ms_of[s])), strict=True))
        results = []
        for slot in range(players):
            answer = state.answer_of(slot)
            playing = state.joined[slot] <= index
            if answer is None:
                is_right: bool | None = None if question.kind == "poll" else False
                credit, distance, gained = None, None, 0
            else:
                is_right, credit, distance = judged[slot]
                gained = raw[slot] * question.points  # QUIZ-S12: the question's points, not the streak bonus
            bonus = 0
            if counts_at_all and playing:
                streak[slot] = streak[slot] + 1 if is_right else 0  # QUIZ-S3
                bonus = min(STREAK_MAX, STREAK_STEP * (streak[slot] - 1)) if is_right and state.streak_on else 0
                best[slot] = max(best[slot], streak[slot])
                score[slot] += gained + bonus
                right[slot] += bool(is_right)
                if answer is not None:
                    answered[slot] += 1
                    total[slot] += answer.ms
            results.append({
                "slot": slot, "value": None if answer is None else
                list(answer.value) if isinstance(answer.value, tuple) else answer.value,
                "right": is_right, "closest": None if question.kind != "numeric" else
                distance is not None and distance == nearest,
                "credit": None if question.kind not in ("order", "multi") or credit is None else
                round(credit[0] / credit[1], 4),
                "points": gained + bonus, "bonus": bonus, "ms": None if answer is None else answer.ms,
                "streak": streak[slot], "rank": None if answer is None or question.kind == "poll" else rank_of[slot],
                "bot": state.bots[slot]})
        reveal: dict[str, Any] = {"kind": question.kind, "correct": question.right_answer(),
                                  "margin": state.margins[index], "counts": self._counts(state),
                                  "groups": None, "others": 0, "results": results}
        if question.kind == "text":
            reveal["groups"], reveal["others"] = self._groups(state)
        deadline = now_ms + state.reveal_ms if state.paced == "auto" else None
        return evolve(state, score=tuple(score), streak=tuple(streak), best_streak=tuple(best), right=tuple(right),
                      answered=tuple(answered), total_ms=tuple(total), previous_places=tuple(before), reveal=reveal,
                      history=state.history + ({"index": index, **reveal},), phase="reveal", deadline_ms=deadline,
                      step=state.step + 1)

    @staticmethod
    def _counts(state: QuizState) -> list[int] | None:
        """Picks per option (choice, poll, multi)."""
        question = state.question
        if question.kind in ("choice", "poll"):
            return [sum(1 for a in state.answers if a.value == i) for i in range(len(question.options))]
        if question.kind == "multi":
            return [sum(1 for a in state.answers if i in a.value) for i in range(len(question.options))]
        return None

    @staticmethod
    def _groups(state: QuizState) -> tuple[list[dict[str, Any]], int]:
        """A text question's answers grouped by normal form (QUIZ-S8), most first (then the first typed): at most
        SHOWN_GROUPS of them, each as first typed, and how many answers the others hold."""
        groups: dict[str, dict[str, Any]] = {}
        for answer in sorted(state.answers, key=lambda a: (a.ms, a.slot)):
            form = normal_form(answer.value)
            group = groups.setdefault(form, {"text": answer.value, "count": 0,
                                             "right": matches(answer.value, state.question.accepted)})
            group["count"] += 1
        ordered = sorted(groups.values(), key=lambda g: -g["count"])  # stable: the first typed first among equals
        return ordered[:SHOWN_GROUPS], sum(g["count"] for g in ordered[SHOWN_GROUPS:])

    # ----- ranking -----

    def ranking(self, state: QuizState) -> list[int]:
        """Seats by score; within equal scores more right answers, then the lower average time (QUIZ-S5; each time
        at most T)."""
        def key(slot: int) -> tuple[int, int, float, int]:
            mean = state.total_ms[slot] / state.answered[slot] if state.answered[slot] else float("inf")
            return (-state.score[slot], -state.right[slot], mean, slot)

        return sorted(range(len(state.names)), key=key)

    def _places(self, state: QuizState) -> list[int]:
        """Each seat's place (1 = best), equal scores sharing one (QUIZ-S5)."""
        order = self.ranking(state)
        places = shared_places(order, lambda s: state.score[s])
        result = [0] * len(order)
        for slot, place in zip(order, places, strict=True):
            result[slot] = place
        return result

    def teams(self, state: QuizState) -> list[dict[str, Any]] | None:
        """The teams that have members, each with the rounded mean of its members' scores and its place (QUIZ-S4)."""
        if not state.team_count:
            return None
        teams: list[dict[str, Any]] = []
        for index in range(state.team_count):
            members = [s for s in range(len(state.names)) if state.team_of(s) == index]
            if members:
                teams.append({"index": index, "score": half_up(sum(state.score[s] for s in members), len(members)),
                              "members": members})
        order = sorted(teams, key=lambda t: (-t["score"], t["index"]))
        for team, place in zip(order, shared_places(order, lambda t: t["score"]), strict=True):
            team["place"] = place
        return teams

    def _final(self, state: QuizState, reason: str) -> Outcome:
        """The seats in order with their places; in teams, by their team's place, the players sharing a place (one
        team, or tied teams) in QUIZ-S5's order together (QUIZ-S4, finding 7)."""
        ranking = self.ranking(state)
        teams = self.teams(state)
        detail = {"scores": list(state.score), "right": list(state.right),
                  "avg_ms": [state.avg_ms(s) for s in range(len(state.names))],
                  "best_streak": list(state.best_streak), "teams": teams, "bots": list(state.bots)}
        if teams is None:
            return Outcome(tuple(ranking), reason, detail, shared_places(ranking, lambda s: state.score[s]))
        place_of = {t["index"]: t["place"] for t in teams}
        ordered = sorted(ranking, key=lambda s: place_of[state.team_of(s)])  # stable: QUIZ-S5 within a place
        return Outcome(tuple(ordered), reason, detail, tuple(place_of[state.team_of(s)] for s in ordered))

    def outcome(self, state: QuizState) -> Outcome | None:
        """The final standings once the last question is revealed and passed."""
        if state.phase != "over":
            return None
        return self._final(state, "outcome.quiz")

    def standings(self, state: QuizState, seats: int) -> Outcome:
        """The host ended the quiz: the same ranking, from the questions closed so far."""
        outcome = self.outcome(state)
        return outcome if outcome is not None else self._final(state, ENDED_BY_HOST)

    # ----- views -----

    def shown(self, state: QuizState, index: int, seat: int | None) -> list[int]:
        """The options of question ``index`` in the order this screen shows them (QUIZ-S13), as option indexes:
        ``shuffle`` off the question's order, "question" one order from the seed for every screen, "phone" each seat
        its own (the TV the question's order). An order question is never shown in its right order (its items are
        scrambled at the start, and a shuffle that draws the right order draws again)."""
        question = state.questions[index]
        count = len(question.options)
        order = list(range(count))
        mine = state.shuffle == "phone" and seat is not None
        if count < 2 or state.shuffle == "off" or state.shuffle == "phone" and not mine:
            return order
        rng = Rng(mix(state.seed, index, seat if mine else None))
        for _ in range(8):
            rng.shuffle(order)
            if question.kind != "order" or tuple(order) != question.sequence:
                return order
        return list(range(count))  # an order question drew its right order eight times: its scrambled order

    def view(self, state: QuizState, seat: int | None) -> dict[str, Any]:
        """What one seat (or the TV, ``None``) may know: who answered, never what, until the reveal."""
        index = state.index
        seated = seat if seat is not None and 0 <= seat < len(state.names) else None
        slider = state.sliders[index]
        closes = state.window_end(seated) if seated is not None else state.closes_ms  # QUIZ-X1: its own only
        question = {**state.question.public(), "opens_ms": state.opens_ms, "closes_ms": closes,
                    "seconds": state.seconds[index], "shown": self.shown(state, index, seated),
                    "slider": None if slider is None else {"low": slider[0], "high": slider[1], "step": slider[2]}}
        own = state.answer_of(seated) if seated is not None else None
        players = [{"slot": s, "name": state.names[s], "score": state.score[s], "streak": state.streak[s],
                    "team": state.team_of(s), "right": state.right[s], "answered": state.answered[s],
                    "avg_ms": state.avg_ms(s), "best_streak": state.best_streak[s], "bot": state.bots[s],
                    "joined": state.joined[s]}
                   for s in range(len(state.names))]
        outcome = self.outcome(state)
        return {
            "phase": "question" if state.phase == "ready" else state.phase,
            "index": index,
            "total": len(state.questions),
            "closed": len(state.history),
            "question": question,
            # who has answered so far: the TV's (and the spectators') strip; a player's phone shows its own answer
            # only, so another's answer sends it nothing (host/broadcast.py); the host remote gets the count itself
            "answered": [a.slot for a in state.answers] if seat is None else None,
            "yours": None if own is None else list(own.value) if isinstance(own.value, tuple) else own.value,
            "reveal": None if state.phase in ("ready", "question") else state.reveal,
            "players": players,
            "ranking": self.ranking(state),
            "places": self._places(state),
            "previous_places": list(state.previous_places),
            "teams": self.teams(state),
            "final": None if outcome is None else {"order": list(outcome.ranking), "places": outcome.place_list()},
            "settings": {"paced": state.paced, "speed": state.speed, "streak": state.streak_on,
                         "teams": state.team_count, "shuffle": state.shuffle, "margin": state.margin_percent,
                         "bots": state.bots_on},
            "waiting_for_host": state.paced == "host" and state.phase in ("reveal", "standings"),
            "time_up": seated is not None and seated in state.shut,  # QUIZ-X1: its window passed, a longer one runs
        }

    def host_notes(self, state: QuizState) -> dict[str, Any] | None:
        """The quizmaster's card (docs/remote.md): the current question and its right answer, from its "get ready" on,
        so that a pub quizmaster reads it aloud and knows the answer before the reveal. ``answer`` is the reveal's
        ``correct`` (``right_answer``), ``text`` the answer as the report shows it (None for a poll), and a number's
        unit and margin; ``answered``, how many have answered it (the remote's "7 of 12 answered": a player's phone
        state does not list them). Nothing once the game is over."""
        if state.phase == "over":
            return None
        question = state.question
        right = question.right_answer()
        return {"index": state.index, "total": len(state.questions), "kind": question.kind,
                "prompt": question.prompt, "options": list(question.options), "answer": right,
                "text": None if right is None else display(question, right), "unit": question.unit,
                "margin": state.margins[state.index], "revealed": state.phase not in ("ready", "question"),
                "answered": len(state.answers)}

    def asked(self, state: QuizState) -> str | None:
        """The question on screen (from its "get ready" on), which the room counts as seen (QUIZ-S6)."""
        return state.question.id

    def audience_question(self, state: QuizState) -> AudienceQuestion:
        """The current question for the audience play-along (host/audience.py); its answer (choice, numeric) and a
        number's margin once revealed. The audience answers choice, poll and numeric questions (host/audience.py)."""
        question = state.question
        revealed = state.phase in ("reveal", "standings", "over")
        result: AudienceQuestion = {"key": state.index, "kind": question.kind, "opens_ms": state.opens_ms,
                                    "closes_ms": state.closes_ms,  # QUIZ-X1: the audience's window is the standard
                                    # one: it closes when only seats with extended time are left to answer, as the
                                    # question closes for everyone when nobody is left
                                    "open": state.phase == "question" and (state.deadline_ms or 0) <= state.closes_ms,
                                    "revealed": revealed, "options": len(question.options)}
        if revealed and question.kind in ("choice", "numeric"):
            result["correct"] = question.truth
        margin = state.margins[state.index]
        if revealed and margin is not None:
            result["margin"] = margin
        return result

    # ----- the report -----

    def report(self, state: QuizState) -> dict[str, Any]:
        """The game to take home (issue [17]): every closed question with the answer of each player who played it (a
        latecomer from the question they joined at) as display text,
        fair time (at most T), points and rank; the players' totals and places; the teams; the final order. Only
        what the phones already saw: the reveals of the closed questions (``history``) and the standings."""
        final = self.standings(state, len(state.names))
        place_of = dict(zip(final.ranking, final.place_list(), strict=True))
        questions = []
        for reveal in state.history:
            question = state.questions[reveal["index"]]
            by_slot = {r["slot"]: r for r in reveal["results"]}
            rows = []
            for slot in range(len(state.names)):
                if state.joined[slot] > reveal["index"]:  # a latecomer's questions before they joined: not theirs
                    continue
                got = by_slot.get(slot)
                rows.append({"slot": slot, "answer": None if got is None else display(question, got["value"]),
                             "ms": None if got is None else got["ms"], "points": 0 if got is None else got["points"],
                             "right": False if got is None else got["right"],
                             "rank": None if got is None else got["rank"]})
            questions.append({"number": reveal["index"] + 1, "id": question.id, "kind": question.kind,
                              "prompt": question.prompt, "options": list(question.options),
                              "answer": None if question.kind == "poll" else display(question, question.right_answer()),
                              "points": question.points, "results": rows})
        players = [{"slot": s, "name": state.names[s], "team": state.team_of(s), "score": state.score[s],
                    "place": place_of[s], "right": state.right[s], "answered": state.answered[s],
                    "avg_ms": state.avg_ms(s), "best_streak": state.best_streak[s], "joined": state.joined[s],
                    "bot": state.bots[s]}
                   for s in range(len(state.names))]
        return {"questions": questions, "players": players, "teams": self.teams(state),
                "final": {"order": list(final.ranking), "places": final.place_list()}}

    # ----- bots, seats -----

    def bot_action(self, state: QuizState, seat: int, rng: Rng) -> tuple[Payload, int] | None:
        """A bot's answer and a human-looking delay (engine.quiz.bots)."""
        from engine.quiz.bots import decide

        return decide(self, state, seat, rng)

    def seats_changed(self, state: QuizState, bots: frozenset[int], now_ms: int) -> QuizState:
        """Who plays each seat changed: only the view's bot marks change."""
        return evolve(state, bots=tuple(s in bots for s in range(len(state.names))))

    def step(self, state: QuizState) -> int:
        """Changes with each question, reveal, leaderboard and the end; not at the unlock (the phone counts down to it
        on its own clock) and not with an answer."""
        return state.step

    def foreseen(self, before: QuizState, after: QuizState) -> bool:
        """A "get ready" that ended at the time it showed: every page opens the question by its own clock (quiz.js
        ``locked``), so the room sends no state for it. A host's skip of it opens the question earlier: sent."""
        return before.phase == "ready" and after.phase == "question" and after.index == before.index \
            and after.opens_ms == before.opens_ms


def _joined(texts: list[Any], separator: str) -> Any:
    """Texts joined; when some are texts by language, one joined text per language."""
    if all(isinstance(t, str) for t in texts):
        return separator.join(texts)
    languages = [k for t in texts if isinstance(t, dict) for k in t]
    return {lang: separator.join(t if isinstance(t, str) else t.get(lang, next(iter(t.values()))) for t in texts)
            for lang in dict.fromkeys(languages)}


def display(question: QuizQuestion, value: Any) -> Any:
    """An answer as the report shows it: the option's text (choice, poll), the options' texts joined by "; "
    (multi) or " → " (order, first place first), the number, the typed text (text: the first accepted answer for
    the right one)."""
    if value is None:
        return None
    if question.kind in ("choice", "poll"):
        return question.options[value]
    if question.kind == "multi":
        return _joined([question.options[i] for i in value], "; ")
    if question.kind == "order":
        return _joined([question.options[i] for i in value], " → ")
    if question.kind == "text" and isinstance(value, list):
        return value[0]
    return value

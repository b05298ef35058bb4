"""The classic Quiz (docs/quiz.md).

Every player answers every question on the phone: multiple choice (2-4 options) or a number (closest wins). A
question goes through four steps: "get ready" (shown, locked), open for answers, revealed with everyone's points,
then the leaderboard (skipped after the last question). The questions are drawn once (``prepare``) from the room's
chosen packs, unseen first, and logged with the start, so a replay asks exactly the same. Answers are timed with the
room's fair timing (``answer_window``, ``Timing``); points are counted when the question closes (QUIZ-S1..S3).
A pure state machine: no clock, no global random; a host-paced quiz waits for the host's Next (``host_next``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

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
    shared_places,
)
from engine.questions import MAX_NUMBER, builtin_questions, checked_text, parse_number

MIN_PLAYERS, MAX_PLAYERS = 1, 12
BOT_FILL = 3  # with bots on, bots fill the game up to this many players
MAX_OPTIONS = 4  # a question with more options shows the right one and the first wrong ones
MAX_QUESTIONS = 200  # one game asks at most this many ("all" included): the start's log stays small
MAX_SECONDS = 600  # a question's own time is taken up to this
READY_SECONDS = 3  # the "get ready" lock before a question opens for answers
FULL = 1000  # QUIZ-S1
STREAK_STEP, STREAK_MAX = 100, 500  # QUIZ-S3
PHASES = ("ready", "question", "reveal", "standings", "over")

# An answer: an option, or a whole number. legal_actions lists the numeric answer as ("answer", None), a kind without
# its value; apply refuses that as no answer at all.
QuizAction = tuple[Literal["choice", "answer"], int | None]


def half_up(numerator: int, denominator: int) -> int:
    """numerator / denominator rounded to the nearest whole number, halves up (both non-negative)."""
    return (2 * numerator + denominator) // (2 * denominator)


@dataclass(frozen=True)
class QuizQuestion:
    """A question as the game asks it."""

    id: str
    kind: str  # "choice" or "numeric"
    prompt: Any  # a text, or texts by language (the generated set)
    options: tuple[Any, ...] = ()
    correct: int | None = None
    answer: int | None = None
    unit: Any = None
    seconds: int | None = None  # the pack's own time for it, if any
    image: str | None = None  # the URL the TV loads its image from, if any

    def public(self) -> dict[str, Any]:
        """What may be shown before the reveal (never the answer)."""
        result = {"id": self.id, "kind": self.kind, "prompt": self.prompt, "unit": self.unit, "image": self.image}
        if self.kind == "choice":
            result["options"] = list(self.options)
        return result

    @property
    def truth(self) -> int:
        """The right option, or the right number."""
        truth = self.correct if self.kind == "choice" else self.answer
        assert truth is not None, f"question {self.id} has no answer"  # parse_content gives each kind its own
        return truth


@dataclass(frozen=True)
class Answer:
    """One seat's answer to the open question and the fair ms it took from the unlock."""

    slot: int
    value: int
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
    ready_ms: int
    reveal_ms: int
    standings_ms: int
    paced: str  # "auto" or "host"
    speed: bool
    streak_on: bool
    team_count: int  # 0: no teams
    score: tuple[int, ...]
    streak: tuple[int, ...]
    best_streak: tuple[int, ...]
    right: tuple[int, ...]
    answered: tuple[int, ...]
    total_ms: tuple[int, ...]  # the sum of each seat's answer times
    previous_places: tuple[int, ...]  # places before the last reveal (the leaderboard shows who moved)
    index: int = 0
    phase: str = "ready"
    opens_ms: int = 0
    closes_ms: int = 0
    deadline_ms: int | None = None
    answers: tuple[Answer, ...] = ()
    reveal: Mapping[str, Any] | None = None
    step: int = 0

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

def to_content(entry: Any) -> dict[str, Any]:
    """A pack question (questions.library.Entry) in the logged content form; a multiple-choice question with more
    than four options keeps the right one and the first wrong ones, in the pack's order."""
    q = entry.question
    seconds = getattr(q, "time", None)
    if isinstance(seconds, bool) or not isinstance(seconds, int) or not 1 <= seconds <= MAX_SECONDS:
        seconds = None
    result: dict[str, Any] = {"id": entry.id, "kind": "numeric" if q.type == "numeric" else "choice",
                              "prompt": q.prompt, "seconds": seconds, "image": getattr(entry, "image_url", None)}
    if result["kind"] == "numeric":
        result.update(answer=q.answer, unit=q.unit or None)
    else:
        keep = [i for i in range(len(q.options)) if i != q.correct][:MAX_OPTIONS - 1]
        keep = sorted([*keep, q.correct])
        result.update(options=[q.options[i] for i in keep], correct=keep.index(q.correct), unit=None)
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


def parse_content(content: Any) -> tuple[QuizQuestion, ...]:
    """The questions of a game's logged content, checked."""
    items = content.get("questions") if isinstance(content, dict) else None
    if not isinstance(items, list) or not 1 <= len(items) <= MAX_QUESTIONS:
        raise InvalidSettings(f"a quiz needs 1 to {MAX_QUESTIONS} questions", "content")
    questions = []
    for i, item in enumerate(items):
        where = f"questions[{i}]"
        if not isinstance(item, dict) or item.get("kind") not in ("choice", "numeric"):
            raise InvalidSettings(f"{where} must be a choice or numeric question", "content")
        seconds = item.get("seconds")
        if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, int)
                                    or not 1 <= seconds <= MAX_SECONDS):
            raise InvalidSettings(f"{where}.seconds must be 1 to {MAX_SECONDS} or null", "content")
        image = item.get("image")
        if image is not None and not isinstance(image, str):
            raise InvalidSettings(f"{where}.image must be a URL or null", "content")
        common = {"id": str(item.get("id", where)), "kind": item["kind"], "prompt": _text(item.get("prompt"), where),
                  "unit": _text(item.get("unit"), f"{where}.unit", optional=True), "seconds": seconds, "image": image}
        if item["kind"] == "numeric":
            answer = item.get("answer")
            if isinstance(answer, bool) or not isinstance(answer, int) or not 0 <= answer <= MAX_NUMBER:
                raise InvalidSettings(f"{where}.answer must be a whole number from 0 to {MAX_NUMBER}", "content")
            questions.append(QuizQuestion(answer=answer, **common))
        else:
            options = item.get("options")
            if not isinstance(options, list) or not 2 <= len(options) <= MAX_OPTIONS:
                raise InvalidSettings(f"{where} must have 2 to {MAX_OPTIONS} options", "content")
            correct = item.get("correct")
            if isinstance(correct, bool) or not isinstance(correct, int) or not 0 <= correct < len(options):
                raise InvalidSettings(f"{where}.correct must be the index of one option", "content")
            questions.append(QuizQuestion(options=tuple(_text(o, f"{where}.options") for o in options),
                                          correct=correct, **common))
    return tuple(questions)


def _set(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return values[:index] + (value,) + values[index + 1:]


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
        """The ``count`` questions of a game (all: MAX_QUESTIONS), of either kind: the first unseen ones in the
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
        questions = parse_content(ctx.content if ctx.content is not None else self.prepare(settings, ctx.seed))
        seconds = tuple(q.seconds if settings["pack_time"] and q.seconds else settings["seconds"] for q in questions)
        n = len(slots)
        state = QuizState(
            names=tuple(s.name for s in slots), bots=tuple(s.is_bot for s in slots), questions=questions,
            seconds=seconds, windows=tuple(ctx.timer_ms(s) for s in seconds), ready_ms=ctx.timer_ms(READY_SECONDS),
            reveal_ms=ctx.timer_ms(settings["reveal_seconds"]), standings_ms=ctx.timer_ms(settings["standings_seconds"]),
            paced=settings["paced"], speed=settings["speed"], streak_on=settings["streak"],
            team_count=int(settings["teams"]), score=(0,) * n, streak=(0,) * n, best_streak=(0,) * n,
            right=(0,) * n, answered=(0,) * n, total_ms=(0,) * n, previous_places=(1,) * n)
        return self._ask(state, 0, now_ms)

    # ----- actions -----

    def parse_action(self, payload: Payload) -> QuizAction:
        """``{"choice": i}`` (an option, from 0) or ``{"answer": n}`` (a whole number, CAMP-D14)."""
        if not isinstance(payload, dict) or len(payload) != 1:
            raise InvalidAction('an answer is {"choice": i} or {"answer": n}')
        kind, value = next(iter(payload.items()))
        if kind == "choice":
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < MAX_OPTIONS:
                raise InvalidAction(f"choice must be the number of an option, 0 to {MAX_OPTIONS - 1}", "choice")
            return kind, value
        if kind == "answer":
            return kind, parse_number(value)
        raise InvalidAction(f"unknown action {str(kind)[:20]!r}: answer with choice or answer", "action")

    def action_to_json(self, action: QuizAction) -> dict[str, int | None]:
        """The logged form of an action."""
        return {action[0]: action[1]}

    def legal_actions(self, state: QuizState, seat: int) -> list[QuizAction]:
        """The answers the seat may give now (a number is listed as ``("answer", None)``)."""
        if state.phase != "question" or not 0 <= seat < len(state.names) or state.answer_of(seat) is not None:
            return []
        if state.question.kind == "numeric":
            return [("answer", None)]
        return [("choice", i) for i in range(len(state.question.options))]

    def answer_window(self, state: QuizState, seat: int) -> tuple[int, int] | None:
        """The open question's unlock and deadline, for a seat that has not answered it yet."""
        if self.legal_actions(state, seat):
            return state.opens_ms, state.closes_ms
        return None

    def apply(self, state: QuizState, seat: int, action: QuizAction, now_ms: int,
              timing: Timing | None = None) -> QuizState:
        """An answer: one per seat and question, final; IllegalAction (TooLate once closed) if not allowed now,
        InvalidAction for a value that is no whole number (such as the numeric answer legal_actions lists without
        its number)."""
        kind, value = action
        if state.phase == "over":
            raise IllegalAction("the game is over")
        if not isinstance(seat, int) or not 0 <= seat < len(state.names):
            raise IllegalAction("no such seat")
        if kind not in ("choice", "answer"):
            raise IllegalAction(f"unknown action {kind!r}")
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidAction(f"{kind} must be a whole number", kind)
        if state.answer_of(seat) is not None:
            raise IllegalAction("you have already answered")
        if state.phase in ("reveal", "standings"):
            raise TooLate("too late: the question has closed")
        if state.phase != "question":
            raise IllegalAction("the question is not open yet")
        question = state.question
        if (kind == "answer") != (question.kind == "numeric"):
            raise IllegalAction("this question wants a number" if question.kind == "numeric" else "pick an option")
        if kind == "choice" and not 0 <= value < len(question.options):
            raise IllegalAction(f"no such option: this question has {len(question.options)} options")
        ms = timing.effective if timing is not None else now_ms - state.opens_ms
        state = evolve(state, answers=state.answers + (Answer(seat, value, max(0, ms), timing),))
        if len(state.answers) == len(state.names):
            return self._close(state, now_ms)  # everyone answered: no need to wait for the clock
        return state

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
            return evolve(state, phase="question", opens_ms=opens, closes_ms=closes, deadline_ms=closes)
        if state.phase == "question":
            return self._close(state, now_ms)  # no answer scores nothing (QUIZ-S1)
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
        return evolve(state, index=index, phase="ready", opens_ms=opens, closes_ms=opens + state.windows[index],
                      deadline_ms=opens, answers=(), reveal=None, step=state.step + 1)

    # ----- scoring -----

    def points(self, state: QuizState, ms: int, closer: int = 0, answers: int = 1) -> int:
        """QUIZ-S1 (and S2's share): 1000 x (1 - t/2T) x (1 - k/n), rounded half up; without speed 1000 x (1 - k/n)."""
        window = state.windows[state.index]
        if not state.speed:
            return half_up(FULL * (answers - closer), answers)
        t = min(max(ms, 0), window)
        return half_up(FULL * (2 * window - t) * (answers - closer), 2 * window * answers)

    def _close(self, state: QuizState, now_ms: int) -> QuizState:
        """Close the question and count everyone's points (QUIZ-S1, S2, S3)."""
        question = state.question
        players = len(state.names)
        distance = {a.slot: abs(a.value - question.truth) for a in state.answers} if question.kind == "numeric" else {}
        before = self._places(state)
        score, streak, best = list(state.score), list(state.streak), list(state.best_streak)
        right, answered, total = list(state.right), list(state.answered), list(state.total_ms)
        results = []
        for slot in range(players):
            answer = state.answer_of(slot)
            rank = None
            if answer is None:
                is_right, gained = False, 0
            elif question.kind == "numeric":
                closer = sum(1 for d in distance.values() if d < distance[slot])
                is_right, rank = closer == 0, closer + 1
                gained = self.points(state, answer.ms, closer, len(state.answers))
            else:
                is_right = answer.value == question.correct
                gained = self.points(state, answer.ms) if is_right else 0
            streak[slot] = streak[slot] + 1 if is_right else 0  # QUIZ-S3
            bonus = min(STREAK_MAX, STREAK_STEP * (streak[slot] - 1)) if is_right and state.streak_on else 0
            best[slot] = max(best[slot], streak[slot])
            score[slot] += gained + bonus
            right[slot] += is_right
            if answer is not None:
                answered[slot] += 1
                total[slot] += answer.ms
            results.append({"slot": slot, "value": None if answer is None else answer.value, "right": is_right,
                            "points": gained + bonus, "bonus": bonus, "ms": None if answer is None else answer.ms,
                            "streak": streak[slot], "rank": rank})
        counts = None
        if question.kind == "choice":
            counts = [sum(1 for a in state.answers if a.value == i) for i in range(len(question.options))]
        reveal = {"correct": question.truth, "counts": counts, "results": results}
        deadline = now_ms + state.reveal_ms if state.paced == "auto" else None
        return evolve(state, score=tuple(score), streak=tuple(streak), best_streak=tuple(best), right=tuple(right),
                      answered=tuple(answered), total_ms=tuple(total), previous_places=tuple(before), reveal=reveal,
                      phase="reveal", deadline_ms=deadline, step=state.step + 1)

    # ----- ranking -----

    def ranking(self, state: QuizState) -> list[int]:
        """Seats by score; within equal scores more right answers, then the lower average time (QUIZ-S5)."""
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
        """The seats in order with their places; in teams, by team (members share their team's place)."""
        ranking = self.ranking(state)
        teams = self.teams(state)
        detail = {"scores": list(state.score), "right": list(state.right),
                  "avg_ms": [state.avg_ms(s) for s in range(len(state.names))],
                  "best_streak": list(state.best_streak), "teams": teams}
        if teams is None:
            return Outcome(tuple(ranking), reason, detail, shared_places(ranking, lambda s: state.score[s]))
        place_of = {t["index"]: t["place"] for t in teams}
        ordered = sorted(ranking, key=lambda s: (place_of[state.team_of(s)], state.team_of(s)))
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

    def view(self, state: QuizState, seat: int | None) -> dict[str, Any]:
        """What one seat (or the TV, ``None``) may know: who answered, never what, until the reveal."""
        question = {**state.question.public(), "opens_ms": state.opens_ms, "closes_ms": state.closes_ms,
                    "seconds": state.seconds[state.index]}
        own = state.answer_of(seat) if seat is not None and 0 <= seat < len(state.names) else None
        players = [{"slot": s, "name": state.names[s], "score": state.score[s], "streak": state.streak[s],
                    "team": state.team_of(s), "right": state.right[s], "answered": state.answered[s],
                    "avg_ms": state.avg_ms(s), "best_streak": state.best_streak[s], "bot": state.bots[s]}
                   for s in range(len(state.names))]
        return {
            "phase": "question" if state.phase == "ready" else state.phase,
            "index": state.index,
            "total": len(state.questions),
            "question": question,
            "answered": [a.slot for a in state.answers],
            "yours": None if own is None else own.value,
            "reveal": None if state.phase in ("ready", "question") else state.reveal,
            "players": players,
            "ranking": self.ranking(state),
            "places": self._places(state),
            "previous_places": list(state.previous_places),
            "teams": self.teams(state),
            "settings": {"paced": state.paced, "speed": state.speed, "streak": state.streak_on,
                         "teams": state.team_count},
            "waiting_for_host": state.paced == "host" and state.phase in ("reveal", "standings"),
        }

    def asked(self, state: QuizState) -> str | None:
        """The question on screen (from its "get ready" on), which the room counts as seen (QUIZ-S6)."""
        return state.question.id

    def audience_question(self, state: QuizState) -> AudienceQuestion:
        """The current question for the audience play-along (host/audience.py); its answer once revealed."""
        question = state.question
        revealed = state.phase in ("reveal", "standings", "over")
        result: AudienceQuestion = {"key": state.index, "kind": question.kind, "opens_ms": state.opens_ms,
                  "closes_ms": state.closes_ms, "open": state.phase == "question", "revealed": revealed,
                  "options": len(question.options) if question.kind == "choice" else 0}
        if revealed:
            result["correct"] = question.truth
        return result

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

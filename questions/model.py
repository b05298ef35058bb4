"""Question packs, independent of any file format: the shapes, the checks, and the report of problems.

Every importer turns a file into ``RawQuestion`` records that remember where they came from (line or row), then
``build_pack`` checks them all and returns either a complete ``Pack`` or a ``Report`` naming every problem. Nothing is
half-imported: a file with one error imports nothing.
"""

from __future__ import annotations

import dataclasses
import unicodedata
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass, field
from typing import Any

from engine.core import InvalidAction
from engine.questions import MAX_NUMBER, parse_number  # the same limit and rules as a phone's keypad (CAMP-D14)

LANGUAGES = ("en", "fa", "ro")
CATEGORIES = ("geography", "history", "science", "sport", "culture", "everyday", "general")
DIFFICULTIES = ("easy", "medium", "hard")
MIN_OPTIONS, MAX_OPTIONS = 2, 6  # of a choice, multi or poll question; the items of an order question
KINDS = ("numeric", "choice", "multi", "poll", "order", "text")  # the question kinds (docs/packs.md)
# the names other formats and habits give them (docs/packs.md, "Question kinds"); "truefalse" is a choice question
# whose options are True and False in the pack's language
KIND_ALIASES = {"number": "numeric", "numerical": "numeric", "slider": "numeric",
                "multiple": "choice", "multiple_choice": "choice", "mc": "choice", "quiz": "choice",
                "multiple_select": "multi", "multiselect": "multi", "checkbox": "multi", "checkboxes": "multi",
                "survey": "poll", "ordering": "order", "puzzle": "order", "sort": "order",
                "short": "text", "short_answer": "text", "type": "text", "typed": "text", "type_answer": "text",
                "open": "text",
                "truefalse": "truefalse", "true_false": "truefalse", "true/false": "truefalse", "tf": "truefalse",
                "boolean": "truefalse"}
TRUE_FALSE = {"en": ("True", "False"), "fa": ("درست", "نادرست"), "ro": ("Adevărat", "Fals")}
TRUE_WORDS = {"true", "t", "yes", "y", "1", "درست", "بله", "صحیح", "adevărat", "adevarat", "da"}
FALSE_WORDS = {"false", "f", "no", "n", "0", "نادرست", "غلط", "خیر", "fals", "nu"}
POINTS = (0, 1, 2)  # no points, standard, double
POINT_WORDS = {"none": 0, "no": 0, "nopoints": 0, "no_points": 0, "zero": 0, "standard": 1, "normal": 1,
               "double": 2, "doublepoints": 2, "double_points": 2}
MAX_ACCEPTED, MAX_ACCEPTED_CHARS = 10, 100  # a text question's accepted answers, and each one's characters (what a
# phone may type: QUIZ-S8)
TV_PROMPT_CHARS = 140  # longer prompts still import, with a warning: they crowd the TV
TV_OPTION_CHARS = 60
# Longer ones are refused: every phone receives the question in play with each state (the built-in packs' longest
# prompt has 106 characters, option 38, unit 18)
MAX_PROMPT_CHARS, MAX_OPTION_CHARS, MAX_UNIT_CHARS = 500, 200, 40
MAX_FILE_BYTES = 5 * 1024 * 1024
MAX_QUESTIONS = 20_000
# Hard limits that hold in every format (docs/packs.md, "Limits"): a hostile file is refused quickly, whatever it holds.
MAX_LINES = 250_000  # lines of a CSV, GIFT or Aiken file
MAX_ROWS = MAX_QUESTIONS + 1000  # rows with something in them (CSV, Kahoot! spreadsheet)
MAX_EMPTY_ROWS = 10_000  # empty rows in a row in a spreadsheet
MAX_COLUMNS = 64  # columns read of a spreadsheet row, CSV header columns
MAX_DEPTH = 20  # nesting of lists and objects in JSON and YAML
MAX_DIGITS = 15  # digits of a number, checked before it is converted
MAX_XLSX_BYTES = 40 * 1024 * 1024  # uncompressed size of a spreadsheet's parts, all together
MAX_XLSX_RATIO = 100  # uncompressed size / compressed size of a spreadsheet part above 1 MB
MAX_SHOWN_ERRORS, MAX_SHOWN_WARNINGS = 50, 20  # problems listed in a report (the rest are counted)
SHOWN_CHARS = 40  # characters of a value quoted in a problem


@dataclass
class Problem:
    """One thing wrong with a file, and where: ``line 12``, ``row 4``, ``questions[3]``; ``field`` names the part."""

    where: str
    field: str
    message: str  # English, for the command line and logs
    warning: bool = False
    code: str = ""  # the TV shows catalog message ``pack.problem.<code>`` with ``args``, in the page's language
    args: dict[str, Any] = dataclasses.field(default_factory=dict)  # the class's own ``field`` hides the function

    def __post_init__(self) -> None:
        # a report is always small, whatever a file holds; values are quoted through shown() where they are known
        self.where, self.field, self.message = self.where[:60], self.field[:60], self.message[:400]

    def __str__(self) -> str:
        kind = "warning" if self.warning else "error"
        place = f"{self.where}, {self.field}" if self.field else self.where
        return f"{place}: {kind}: {self.message}"

    def to_json(self) -> dict[str, Any]:
        """The problem as the TV shows it."""
        return {"where": self.where, "field": self.field, "message": self.message, "warning": self.warning,
                "code": self.code, "args": self.args}


@dataclass
class RawQuestion:
    """A question as read from a file, before the checks; ``where`` says where it was read."""

    where: str
    type: str | None
    prompt: Any
    answer: Any = None
    options: Any = None
    correct: Any = None
    unit: Any = None
    category: Any = None
    difficulty: Any = None
    source: Any = None
    _: KW_ONLY
    margin: Any = None
    low: Any = None
    high: Any = None
    rights: Any = None
    accepted: Any = None
    points: Any = None


@dataclass(frozen=True)
class Question:
    """A checked question of one of the KINDS (docs/packs.md): numeric (``answer``, optionally ``margin``, ``low``
    and ``high``), choice (``options``, ``correct``), multi (``options``, ``rights``), poll (``options``), order
    (``options`` in the right order) or text (``accepted``, the first one shown). ``points``: 0, 1 or 2."""

    type: str
    prompt: str
    category: str
    difficulty: str
    answer: int | None = None
    unit: str | None = None
    options: tuple[str, ...] = ()
    correct: int | None = None
    source: str | None = None
    time: int | None = None  # the pack's own seconds for this question (Kahoot! "Time limit"), if it has one
    image: str | None = None  # the file name of its image inside a .zip pack, if it has one
    margin: int | None = None  # numeric: the +/- tolerance in the answer's units (None: the game's default)
    low: int | None = None  # numeric: the slider's bounds, if the pack gives them (both or neither)
    high: int | None = None
    rights: tuple[int, ...] = ()  # multi: the indexes of the right options
    accepted: tuple[str, ...] = ()  # text: the accepted answers, the first one is the one shown
    points: int = 1  # 0 no points, 1 standard, 2 double

    def to_json(self) -> dict[str, Any]:
        """The question in Throneroom's own pack format (what ``from_json`` and the importers read back)."""
        base: dict[str, Any] = {"type": self.type, "prompt": self.prompt}
        if self.type == "numeric":
            base.update(answer=self.answer, unit=self.unit)
            for name in ("margin", "low", "high"):
                if getattr(self, name) is not None:
                    base[name] = getattr(self, name)
        elif self.type == "choice":
            base.update(options=list(self.options), correct=self.correct)
        elif self.type == "multi":
            base.update(options=list(self.options), rights=list(self.rights))
        elif self.type in ("poll", "order"):
            base.update(options=list(self.options))
        elif self.type == "text":
            base.update(accepted=list(self.accepted))
        base.update(category=self.category, difficulty=self.difficulty, source=self.source)
        if self.points != 1:
            base["points"] = self.points
        if self.time is not None:
            base["time"] = self.time
        if self.image is not None:
            base["image"] = self.image
        return base

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Question:
        """A question from its own ``to_json`` (data this program wrote: a reader's answer, not a user's file)."""
        return cls(data["type"], data["prompt"], data["category"], data["difficulty"], data.get("answer"),
                   data.get("unit"), tuple(data.get("options") or ()), data.get("correct"), data.get("source"),
                   data.get("time"), data.get("image"), **extra_fields(data))

    def extra(self) -> dict[str, Any]:
        """The fields of the newer kinds that differ from their defaults (the store keeps them as one JSON text)."""
        found: dict[str, Any] = {}
        for name in ("margin", "low", "high"):
            if getattr(self, name) is not None:
                found[name] = getattr(self, name)
        if self.rights:
            found["rights"] = list(self.rights)
        if self.accepted:
            found["accepted"] = list(self.accepted)
        if self.points != 1:
            found["points"] = self.points
        return found

    def preview(self) -> dict[str, Any]:
        """What a pack's preview on the TV may show (in front of everyone): the kind and its shape, never the
        answers: no answer, margin, right options or accepted answers, and an ordering question's items sorted
        alphabetically (their order is its answer)."""
        shown: dict[str, Any] = {"type": self.type, "prompt": self.prompt, "category": self.category,
                                 "points": self.points}
        # every kind has the list (empty for numeric and text questions); an ordering question's sorted
        shown["options"] = sorted(self.options, key=str.casefold) if self.type == "order" else list(self.options)
        if self.type == "numeric":
            shown.update(unit=self.unit, low=self.low, high=self.high)
        if self.type == "text":
            shown["accepted"] = len(self.accepted)  # how many, not which
        if self.image is not None:
            shown["image"] = self.image
        return shown


def extra_fields(data: dict[str, Any]) -> dict[str, Any]:
    """The newer kinds' fields of a question's JSON or of the store's ``extra`` column, as ``Question`` takes them."""
    found: dict[str, Any] = {}
    for name in ("margin", "low", "high"):
        if data.get(name) is not None:
            found[name] = data[name]
    if data.get("rights"):
        found["rights"] = tuple(data["rights"])
    if data.get("accepted"):
        found["accepted"] = tuple(data["accepted"])
    if data.get("points") is not None:
        found["points"] = data["points"]
    return found


@dataclass
class Pack:
    """A checked pack."""

    name: str
    language: str
    questions: list[Question]
    author: str = ""
    licence: str = ""
    description: str = ""
    warnings: list[Problem] = field(default_factory=list)

    def kinds(self) -> dict[str, int]:
        """How many questions of each kind it holds ({kind: count}, kinds it has none of left out): what the store
        keeps with it, the lobby lists and the command line prints."""
        counts: dict[str, int] = {}
        for question in self.questions:
            counts[question.type] = counts.get(question.type, 0) + 1
        return counts

    def to_json(self) -> dict[str, Any]:
        """The pack in Throneroom's own format (``throneroom-pack/1``), which imports back to the same pack."""
        return {"format": "throneroom-pack/1", "name": self.name, "language": self.language, "author": self.author,
                "licence": self.licence, "description": self.description,
                "questions": [q.to_json() for q in self.questions]}


def shown(value: Any) -> str:
    """A value as a problem quotes it: at most about SHOWN_CHARS characters, never the whole of a big value (a
    list is described, not printed; a huge number is not converted to text)."""
    if isinstance(value, str):
        return repr(value) if len(value) <= SHOWN_CHARS else repr(value[:SHOWN_CHARS]) + "…"
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, int):
        return repr(value) if value.bit_length() <= 64 else "a number too long"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return f"a list of {len(value)}"
    if isinstance(value, dict):
        return "an object"
    return f"a {type(value).__name__}"


def clipped(text: str) -> str:
    """Text as a problem quotes it without quotation marks: at most SHOWN_CHARS characters and an ellipsis."""
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + "…"


def limited(problems: list[Problem]) -> list[Problem]:
    """The problems a report lists: the first MAX_SHOWN_ERRORS errors and MAX_SHOWN_WARNINGS warnings, in order,
    and one line counting the rest."""
    kept, errors, warnings = [], 0, 0
    for problem in problems:
        if problem.warning:
            warnings += 1
            if warnings <= MAX_SHOWN_WARNINGS:
                kept.append(problem)
        else:
            errors += 1
            if errors <= MAX_SHOWN_ERRORS:
                kept.append(problem)
    hidden_errors, hidden_warnings = max(0, errors - MAX_SHOWN_ERRORS), max(0, warnings - MAX_SHOWN_WARNINGS)
    if hidden_errors:
        kept.append(Problem("file", "", f"and {hidden_errors:,} more problems of the same kinds", code="more_errors",
                            args={"n": hidden_errors}))
    if hidden_warnings:
        kept.append(Problem("file", "", f"and {hidden_warnings:,} more warnings", warning=True, code="more_warnings",
                            args={"n": hidden_warnings}))
    return kept


class PackError(ValueError):
    """A file that cannot become a pack; ``problems`` lists the problems found (warnings included), at most
    MAX_SHOWN_ERRORS errors and MAX_SHOWN_WARNINGS warnings with a line counting the rest."""

    def __init__(self, problems: list[Problem]):
        self.problems = limited(problems)
        count = sum(not p.warning for p in problems)
        errors = [p for p in self.problems if not p.warning]
        super().__init__(f"{count} problem{'s' * (count != 1)}: " + "; ".join(str(p) for p in errors[:5]))


def clean_text(value: Any) -> str | None:
    """Text normalised (NFC, trimmed, inner runs of spaces kept as one), or None if it is not text or empty."""
    if not isinstance(value, str):
        return None
    text = " ".join(unicodedata.normalize("NFC", value).split())
    return text or None


def whole_number(value: Any) -> int | None:
    """A whole number from an int, an integral float or a text of digits (with thousands separators)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        if len(value.strip()) > MAX_DIGITS + 8:  # digits and thousands separators; refused before int() sees it
            return None
        try:
            return parse_number(value)
        except (InvalidAction, ValueError):
            return None
    return None


def canonical_kind(value: Any) -> str | None:
    """A question type as written (any case, aliases: KIND_ALIASES) as one of KINDS or "truefalse"; None if unknown."""
    if not isinstance(value, str):
        return None
    kind = value.strip().lower().replace("-", "_").replace(" ", "_")
    kind = KIND_ALIASES.get(kind, kind)
    return kind if kind in KINDS or kind == "truefalse" else None


def given(value: Any) -> bool:
    """Whether a field holds something (an empty CSV cell, an empty list and None hold nothing)."""
    return value is not None and value != "" and value != [] and value != ()


def truth(value: Any) -> bool | None:
    """True or False from a true/false question's answer (true, "T", "yes", "درست", "adevărat", 1, ...), else None."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return {1: True, 0: False}.get(value)
    if isinstance(value, str):
        word = unicodedata.normalize("NFC", value).strip().casefold()
        return True if word in TRUE_WORDS else False if word in FALSE_WORDS else None
    return None


def split_alternatives(value: Any) -> Any:
    """A text field of alternatives separated by "|" as a list (a list stays as it is)."""
    return value.split("|") if isinstance(value, str) else value


def check_question(raw: RawQuestion, problems: list[Problem], language: str = "en") -> Question | None:
    """The checked question, or None after adding its problems. ``language``: the pack's (a true/false question's
    options are True and False in it)."""
    before = len([p for p in problems if not p.warning])
    where = raw.where

    def error(field_name: str, message: str, code: str, **args: Any) -> None:
        problems.append(Problem(where, field_name, message, code=code, args=args))

    def warn(field_name: str, message: str, code: str, **args: Any) -> None:
        problems.append(Problem(where, field_name, message, warning=True, code=code, args=args))

    def failed() -> bool:
        return prompt is None or len([p for p in problems if not p.warning]) > before  # an empty prompt is an error

    kind = canonical_kind(raw.type)
    if kind is None:
        error("type", f"unsupported question type {shown(raw.type)}: use {', '.join(KINDS)}", "unsupported_type",
              value=shown(raw.type))
        return None
    prompt = clean_text(raw.prompt)
    if prompt is None:
        error("prompt", "the question text is empty", "empty_prompt")
    elif len(prompt) > MAX_PROMPT_CHARS:
        error("prompt", f"{len(prompt):,} characters: a question has at most {MAX_PROMPT_CHARS}", "prompt_too_long",
              n=len(prompt), max=MAX_PROMPT_CHARS)
    elif len(prompt) > TV_PROMPT_CHARS:
        warn("prompt", f"{len(prompt)} characters: longer than fits well on a TV ({TV_PROMPT_CHARS})", "long_prompt",
             n=len(prompt), max=TV_PROMPT_CHARS)
    category = clean_text(raw.category) or "general"
    category = category.lower()
    if category not in CATEGORIES:
        warn("category", f"unknown category {shown(category)}: filed under general", "unknown_category",
             value=shown(category))
        category = "general"
    difficulty = (clean_text(raw.difficulty) or "medium").lower()
    if difficulty not in DIFFICULTIES:
        error("difficulty", f"difficulty must be one of {', '.join(DIFFICULTIES)}, not {shown(raw.difficulty)}",
              "bad_difficulty", value=shown(raw.difficulty))
    source = clean_text(raw.source) if raw.source is not None else None
    points = _points(raw.points, error)
    for name, used_by in (("margin", "numeric"), ("low", "numeric"), ("high", "numeric"), ("rights", "multi"),
                          ("accepted", "text")):
        if kind != used_by and given(getattr(raw, name)):
            warn(name, f"{name} is for {used_by} questions: ignored", "ignored_field", name=name, kind=used_by)
    common: dict[str, Any] = {"category": category, "difficulty": difficulty, "source": source, "points": points}
    if kind == "numeric":
        answer = whole_number(raw.answer)
        if answer is None:
            error("answer", f"a numeric answer must be a whole number, not {shown(raw.answer)}", "answer_not_whole",
                  value=shown(raw.answer))
        elif not 0 <= answer <= MAX_NUMBER:
            error("answer", f"the answer must be between 0 and {MAX_NUMBER:,}", "answer_range", max=MAX_NUMBER)
        unit = clean_text(raw.unit) if raw.unit is not None else None
        if unit is not None and len(unit) > MAX_UNIT_CHARS:
            error("unit", f"{len(unit):,} characters: a unit has at most {MAX_UNIT_CHARS}", "unit_too_long",
                  n=len(unit), max=MAX_UNIT_CHARS)
        margin, low, high = (_bound(getattr(raw, name), name, error) for name in ("margin", "low", "high"))
        if given(raw.low) != given(raw.high):
            error("high" if given(raw.low) else "low", "give both low and high (the slider's ends), or neither",
                  "bounds_pair")
        elif low is not None and high is not None and low >= high:
            error("high", f"the slider's low end ({low:,}) must be below its high end ({high:,})", "low_high",
                  low=low, high=high)
        elif low is not None and high is not None and answer is not None and not low <= answer <= high:
            error("answer", f"the answer {answer:,} is outside the slider ({low:,} to {high:,})", "answer_outside",
                  low=low, high=high)
        if failed():
            return None
        return Question("numeric", prompt or "", answer=answer, unit=unit, margin=margin, low=low, high=high,
                        **common)
    if kind == "text":
        name = "accepted" if given(raw.accepted) or not given(raw.answer) else "answer"
        accepted = _accepted(split_alternatives(getattr(raw, name)), name, error)
        if failed() or accepted is None:
            return None
        return Question("text", prompt or "", accepted=accepted, **common)
    options_raw = raw.options if isinstance(raw.options, (list, tuple)) else None
    if kind == "truefalse":
        if not options_raw:  # True and False in the pack's language; the answer says which is right
            options_raw = list(TRUE_FALSE.get(language, TRUE_FALSE["en"]))
            value = truth(raw.answer) if given(raw.answer) else None
            if value is None and isinstance(raw.correct, int) and not isinstance(raw.correct, bool) \
                    and raw.correct in (0, 1):
                value = raw.correct == 0
            if value is None:
                error("answer", f"a true/false question's answer is true or false, not {shown(raw.answer)}",
                      "no_truth", value=shown(raw.answer if given(raw.answer) else raw.correct))
                return None
            raw = dataclasses.replace(raw, correct=0 if value else 1)
        kind = "choice"
    if options_raw is None:
        error("options", "a question of this type needs a list of options", "no_options", kind=kind)
        return None
    options = []
    for i, option in enumerate(options_raw):
        text = clean_text(option) if not isinstance(option, (int, float)) or isinstance(option, bool) else str(option)
        if text is None:
            error(f"options[{i + 1}]", "an option is empty", "empty_option")
        elif len(text) > MAX_OPTION_CHARS:
            error(f"options[{i + 1}]", f"{len(text):,} characters: an option has at most {MAX_OPTION_CHARS}",
                  "option_too_long", n=len(text), max=MAX_OPTION_CHARS)
        else:
            if len(text) > TV_OPTION_CHARS:
                warn(f"options[{i + 1}]", f"{len(text)} characters: longer than fits on a phone button",
                     "long_option", n=len(text), max=TV_OPTION_CHARS)
            options.append(text)
    if not MIN_OPTIONS <= len(options_raw) <= MAX_OPTIONS:
        if kind == "order":
            error("options", f"an ordering question has {MIN_OPTIONS} to {MAX_OPTIONS} items, not {len(options_raw)}",
                  "item_count", n=len(options_raw), min=MIN_OPTIONS, max=MAX_OPTIONS)
        else:
            error("options", f"a question of this type has {MIN_OPTIONS} to {MAX_OPTIONS} options, not "
                             f"{len(options_raw)}", "option_count", n=len(options_raw), min=MIN_OPTIONS,
                  max=MAX_OPTIONS)
    if len({o.casefold() for o in options}) != len(options):
        error("options", "two options are the same", "same_options")
    if kind == "choice":
        correct = raw.correct
        if isinstance(correct, bool) or not isinstance(correct, int):
            error("correct", "exactly one option must be marked correct", "no_correct")
        elif not 0 <= correct < len(options_raw):
            error("correct", "the correct answer is not among the options", "correct_range")
        if failed():
            return None
        return Question("choice", prompt or "", options=tuple(options), correct=correct, **common)
    if kind == "multi":
        rights = _rights(raw.rights if given(raw.rights) else raw.correct, len(options_raw), error)
        if failed() or rights is None:
            return None
        return Question("multi", prompt or "", options=tuple(options), rights=rights, **common)
    if given(raw.correct) or given(raw.rights):
        name = "correct" if given(raw.correct) else "rights"
        if kind == "poll":
            error(name, "a poll has no right answer: leave the correct answer out", "poll_right")
        else:
            error(name, "an ordering question lists its items in the right order: leave the correct answer out",
                  "order_right")
    if failed():
        return None
    return Question(kind, prompt or "", options=tuple(options), **common)


def _points(value: Any, error: Callable[..., None]) -> int:
    """A question's points (0, 1 or 2; the words of POINT_WORDS); 1 when not given."""
    if not given(value):
        return 1
    points = POINT_WORDS.get(value.strip().casefold().replace(" ", "_")) if isinstance(value, str) else None
    if points is None:
        points = whole_number(value)
    if points not in POINTS:
        error("points", f"points are 0 (none), 1 (standard) or 2 (double), not {shown(value)}", "bad_points",
              value=shown(value))
        return 1
    return points


def _bound(value: Any, name: str, error: Callable[..., None]) -> int | None:
    """A numeric question's margin, low or high end: a whole number from 0 to MAX_NUMBER, or None if not given."""
    if not given(value):
        return None
    number = whole_number(value)
    if number is None or not 0 <= number <= MAX_NUMBER:
        what = "margin" if name == "margin" else "slider's end"
        error(name, f"the {what} must be a whole number from 0 to {MAX_NUMBER:,}, not {shown(value)}",
              "bad_margin" if name == "margin" else "bad_bound", value=shown(value), max=MAX_NUMBER)
        return None
    return number


def _accepted(value: Any, name: str, error: Callable[..., None]) -> tuple[str, ...] | None:
    """A text question's accepted answers, checked: 1 to MAX_ACCEPTED texts of at most MAX_ACCEPTED_CHARS, each
    with a letter or a digit (what a phone types is matched by letters and digits: QUIZ-S8)."""
    if not given(value):
        error(name, "a text question needs its accepted answer(s)", "no_accepted")
        return None
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    if len(items) > MAX_ACCEPTED:
        error(name, f"{len(items)} accepted answers: a question has at most {MAX_ACCEPTED}", "accepted_count",
              n=len(items), max=MAX_ACCEPTED)
        return None
    accepted: list[str] = []
    ok = True
    for i, item in enumerate(items):
        text = str(item) if isinstance(item, int) and not isinstance(item, bool) else clean_text(item)
        if text is None or not any(c.isalnum() for c in text):
            error(name, f"accepted answer {i + 1} needs a letter or a digit, not {shown(item)}",
                  "empty_accepted", value=shown(item), item=i + 1)
            ok = False
        elif len(text) > MAX_ACCEPTED_CHARS:
            error(name, f"accepted answer {i + 1}: {len(text):,} characters, at most {MAX_ACCEPTED_CHARS}",
                  "accepted_too_long", n=len(text), max=MAX_ACCEPTED_CHARS, item=i + 1)
            ok = False
        else:
            accepted.append(text)
    return tuple(accepted) if ok else None


def _rights(value: Any, count: int, error: Callable[..., None]) -> tuple[int, ...] | None:
    """A multi question's right options (indexes from 0): at least one right and at least one wrong, each once."""
    items = list(value) if isinstance(value, (list, tuple)) else [value] if given(value) else []
    if not items:
        error("rights", "mark at least one option right", "no_rights")
        return None
    if any(isinstance(i, bool) or not isinstance(i, int) for i in items):
        error("rights", "the right options are given by their numbers", "rights_not_numbers")
        return None
    if any(not 0 <= i < count for i in items):
        error("rights", "a right option is not among the options", "rights_range")
        return None
    if len(set(items)) != len(items):
        error("rights", "an option is marked right twice", "rights_twice")
        return None
    if len(items) >= count:
        error("rights", "every option is marked right: at least one must be wrong", "all_right")
        return None
    return tuple(sorted(items))


def build_pack(raws: list[RawQuestion], *, name: Any, language: Any, author: Any = "", licence: Any = "",
               description: Any = "", problems: list[Problem] | None = None) -> Pack:
    """A complete pack from raw questions, or PackError naming every problem (nothing is half-applied)."""
    problems = list(problems or [])
    pack_name = clean_text(name)
    if pack_name is None:
        problems.append(Problem("pack", "name", "the pack needs a name", code="no_name"))
    elif len(pack_name) > 80:
        problems.append(Problem("pack", "name", "a pack name is at most 80 characters", code="long_name",
                                args={"n": 80}))
    if language not in LANGUAGES:
        problems.append(Problem("pack", "language", f"language must be one of {', '.join(LANGUAGES)}, "
                                                   f"not {shown(language)}", code="bad_language",
                                args={"value": shown(language)}))
    if not raws and not [p for p in problems if not p.warning]:
        problems.append(Problem("pack", "questions", "the file holds no questions", code="no_questions"))
    if len(raws) > MAX_QUESTIONS:
        problems.append(Problem("pack", "questions", f"a pack holds at most {MAX_QUESTIONS} questions",
                                code="too_many_questions", args={"n": len(raws), "max": MAX_QUESTIONS}))
    questions = []
    seen: dict[str, str] = {}
    for raw in raws[:MAX_QUESTIONS]:
        question = check_question(raw, problems, language if language in LANGUAGES else "en")
        if question is None:
            continue
        key = question.prompt.casefold()
        if key in seen:
            problems.append(Problem(raw.where, "prompt", f"the same question as {seen[key]}", code="duplicate",
                                    args={"other": seen[key]}))
            continue
        seen[key] = raw.where
        questions.append(question)
    if [p for p in problems if not p.warning]:
        raise PackError(problems)
    return Pack(pack_name or "", language, questions, clean_text(author) or "", clean_text(licence) or "",
                clean_text(description) or "", limited([p for p in problems if p.warning]))

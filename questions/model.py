"""Question packs, independent of any file format: the shapes, the checks, and the report of problems.

Every importer turns a file into ``RawQuestion`` records that remember where they came from (line or row), then
``build_pack`` checks them all and returns either a complete ``Pack`` or a ``Report`` naming every problem. Nothing is
half-imported: a file with one error imports nothing.
"""

from __future__ import annotations

import dataclasses
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from engine.core import InvalidAction
from engine.questions import MAX_NUMBER, parse_number  # the same limit and rules as a phone's keypad (CAMP-D14)

LANGUAGES = ("en", "fa", "ro")
CATEGORIES = ("geography", "history", "science", "sport", "culture", "everyday", "general")
DIFFICULTIES = ("easy", "medium", "hard")
MIN_OPTIONS, MAX_OPTIONS = 2, 6
TV_PROMPT_CHARS = 140  # longer prompts still import, with a warning: they crowd the TV
TV_OPTION_CHARS = 60
# Longer ones are refused: every phone receives the question in play with each state (the built-in packs' longest
# prompt has 106 characters, option 38, unit 17)
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


@dataclass(frozen=True)
class Question:
    """A checked question: numeric (``answer``) or multiple choice (``options`` and ``correct``)."""

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

    def to_json(self) -> dict[str, Any]:
        """The question in Throneroom's own pack format."""
        base: dict[str, Any] = {"type": self.type, "prompt": self.prompt}
        if self.type == "numeric":
            base.update(answer=self.answer, unit=self.unit)
        else:
            base.update(options=list(self.options), correct=self.correct)
        base.update(category=self.category, difficulty=self.difficulty, source=self.source)
        if self.time is not None:
            base["time"] = self.time
        if self.image is not None:
            base["image"] = self.image
        return base


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


def check_question(raw: RawQuestion, problems: list[Problem]) -> Question | None:
    """The checked question, or None after adding its problems."""
    before = len([p for p in problems if not p.warning])
    where = raw.where

    def error(field_name: str, message: str, code: str, **args: Any) -> None:
        problems.append(Problem(where, field_name, message, code=code, args=args))

    def warn(field_name: str, message: str, code: str, **args: Any) -> None:
        problems.append(Problem(where, field_name, message, warning=True, code=code, args=args))

    kind = (raw.type or "").strip().lower() if isinstance(raw.type, str) else None
    if kind in ("number", "numerical"):
        kind = "numeric"
    if kind in ("multiple", "multiple_choice", "mc", "quiz", "boolean"):
        kind = "choice"
    if kind not in ("numeric", "choice"):
        error("type", f"unsupported question type {shown(raw.type)}: use numeric or choice", "unsupported_type",
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
        if prompt is None or len([p for p in problems if not p.warning]) > before:  # an empty prompt is an error
            return None
        return Question("numeric", prompt, category, difficulty, answer=answer, unit=unit, source=source)
    options_raw = raw.options if isinstance(raw.options, (list, tuple)) else None
    if options_raw is None:
        error("options", "a multiple-choice question needs a list of options", "no_options")
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
        error("options", f"a multiple-choice question has {MIN_OPTIONS} to {MAX_OPTIONS} options, not {len(options_raw)}",
              "option_count", n=len(options_raw), min=MIN_OPTIONS, max=MAX_OPTIONS)
    if len({o.casefold() for o in options}) != len(options):
        error("options", "two options are the same", "same_options")
    correct = raw.correct
    if isinstance(correct, bool) or not isinstance(correct, int):
        error("correct", "exactly one option must be marked correct", "no_correct")
    elif not 0 <= correct < len(options_raw):
        error("correct", "the correct answer is not among the options", "correct_range")
    if prompt is None or len([p for p in problems if not p.warning]) > before:  # an empty prompt is an error
        return None
    return Question("choice", prompt, category, difficulty, options=tuple(options), correct=correct, source=source)


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
        question = check_question(raw, problems)
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

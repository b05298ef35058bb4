"""Questions as the Short Campaign uses them, and a generated built-in set for demos, bots and tests.

A game's questions are fixed when it starts (``CampaignGame.prepare``) and logged with the start, so a replay asks
exactly the same ones. In a room they come from question packs (``CampaignGame.prepare`` with a supply); the set
below, generated from templates in English, Persian and Romanian with answers computed, serves simulations,
benchmarks and engine tests.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.core import InvalidSettings, Rng

Text = str | dict[str, str]  # one text, or one per language
MAX_NUMBER = 999_999_999_999  # CAMP-D14


@dataclass(frozen=True)
class NumericQuestion:
    """A quick question: the closest whole number wins."""

    id: str
    prompt: Text
    answer: int
    unit: Text | None = None

    def public(self) -> dict[str, Any]:
        """What may be shown before the reveal (no answer)."""
        return {"id": self.id, "kind": "numeric", "prompt": self.prompt, "unit": self.unit}


@dataclass(frozen=True)
class ChoiceQuestion:
    """A multiple-choice question: 2-6 options, exactly one correct."""

    id: str
    prompt: Text
    options: tuple[Text, ...]
    correct: int

    def public(self) -> dict[str, Any]:
        """What may be shown before the reveal (no answer)."""
        return {"id": self.id, "kind": "choice", "prompt": self.prompt, "options": list(self.options)}


def checked_text(value: Any, where: str) -> Text:
    """A question's text from logged content: one text, or one per language (the Quiz checks its own the same way)."""
    if isinstance(value, str) and value.strip():
        return value
    if isinstance(value, dict) and value and all(isinstance(k, str) and isinstance(v, str) and v.strip()
                                                 for k, v in value.items()):
        return dict(value)
    raise InvalidSettings(f"{where} must be text or an object of texts by language", where)


def parse_content(content: Any) -> tuple[tuple[NumericQuestion, ...], tuple[ChoiceQuestion, ...]]:
    """The question decks of a game's content, checked."""
    if not isinstance(content, dict):
        raise InvalidSettings("the game's content must be an object with numeric and choice questions", "content")
    numeric, choice = [], []
    for i, item in enumerate(content.get("numeric") or []):
        where = f"numeric[{i}]"
        answer = item.get("answer") if isinstance(item, dict) else None
        if isinstance(answer, bool) or not isinstance(answer, int) or not 0 <= answer <= MAX_NUMBER:
            raise InvalidSettings(f"{where}.answer must be a whole number from 0 to {MAX_NUMBER}", where)
        unit = item.get("unit")
        numeric.append(NumericQuestion(str(item.get("id", where)), checked_text(item.get("prompt"), f"{where}.prompt"),
                                       answer, None if unit is None else checked_text(unit, f"{where}.unit")))
    for i, item in enumerate(content.get("choice") or []):
        where = f"choice[{i}]"
        if not isinstance(item, dict) or not isinstance(item.get("options"), list):
            raise InvalidSettings(f"{where} must have options", where)
        options = tuple(checked_text(o, f"{where}.options[{k}]") for k, o in enumerate(item["options"]))
        correct = item.get("correct")
        if not 2 <= len(options) <= 6:
            raise InvalidSettings(f"{where} must have 2 to 6 options", where)
        if isinstance(correct, bool) or not isinstance(correct, int) or not 0 <= correct < len(options):
            raise InvalidSettings(f"{where}.correct must be the index of one option", where)
        choice.append(ChoiceQuestion(str(item.get("id", where)), checked_text(item.get("prompt"), f"{where}.prompt"),
                                     options, correct))
    if not numeric or not choice:
        raise InvalidSettings("a Short Campaign needs numeric and multiple-choice questions", "content")
    return tuple(numeric), tuple(choice)


# ----- the generated built-in set -----

def _fa_digits(n: int) -> str:
    return f"{n:,}".replace(",", "٬").translate(str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹"))


def _texts(en: str, fa: str, ro: str, **numbers: int) -> dict[str, str]:
    return {
        "en": en.format(**{k: f"{v:,}" for k, v in numbers.items()}),
        "fa": fa.format(**{k: _fa_digits(v) for k, v in numbers.items()}),
        "ro": ro.format(**{k: f"{v:,}".replace(",", ".") for k, v in numbers.items()}),
    }


NUMERIC_TEMPLATES = (
    (lambda r: {"a": r.randint(12, 99), "b": r.randint(12, 99)}, lambda n: n["a"] * n["b"],
     "What is {a} × {b}?", "حاصل {a} × {b} چند است؟", "Cât face {a} × {b}?"),
    (lambda r: {"d": r.randint(2, 30)}, lambda n: n["d"] * 24 * 60,
     "How many minutes are there in {d} days?", "در {d} روز چند دقیقه هست؟", "Câte minute sunt în {d} zile?"),
    (lambda r: {"h": r.randint(2, 48)}, lambda n: n["h"] * 3600,
     "How many seconds are there in {h} hours?", "در {h} ساعت چند ثانیه هست؟", "Câte secunde sunt în {h} ore?"),
    (lambda r: {"s": r.randint(3, 400)}, lambda n: n["s"] * 8,
     "How many legs do {s} spiders have in all?", "{s} عنکبوت روی هم چند پا دارند؟",
     "Câte picioare au în total {s} păianjeni?"),
    (lambda r: {"a": r.randint(11, 199)}, lambda n: n["a"] * n["a"],
     "What is {a} squared?", "مجذور {a} چند است؟", "Cât face {a} la pătrat?"),
    (lambda r: {"w": r.randint(3, 150)}, lambda n: n["w"] * 7,
     "How many days are there in {w} weeks?", "در {w} هفته چند روز هست؟", "Câte zile sunt în {w} săptămâni?"),
    (lambda r: {"k": r.randint(2, 90)}, lambda n: n["k"] * 1000,
     "How many metres are there in {k} kilometres?", "{k} کیلومتر چند متر است؟", "Câți metri sunt în {k} kilometri?"),
    (lambda r: {"y": r.randint(1000, 2020)}, lambda n: 2026 - n["y"],
     "How many years passed from the year {y} to 2026?", "از سال {y} تا ۲۰۲۶ چند سال گذشته است؟",
     "Câți ani au trecut din anul {y} până în 2026?"),
)


def builtin_questions(seed: int, numeric_count: int = 60, choice_count: int = 60) -> dict[str, Any]:
    """A generated question set: arithmetic and unit questions in three languages, answers computed."""
    rng = Rng(seed ^ 0x51A7)
    numeric = []
    for i in range(numeric_count):
        make, solve, en, fa, ro = NUMERIC_TEMPLATES[i % len(NUMERIC_TEMPLATES)]
        numbers = make(rng)
        numeric.append({"id": f"gen-n{i}", "prompt": _texts(en, fa, ro, **numbers), "answer": solve(numbers),
                        "unit": None})
    choice = []
    for i in range(choice_count):
        a, b = rng.randint(11, 89), rng.randint(11, 89)
        total = a + b
        wrong = set()
        while len(wrong) < 3:
            candidate = total + rng.choice((-11, -10, -9, -2, -1, 1, 2, 9, 10, 11))
            if candidate != total and candidate > 0:
                wrong.add(candidate)
        options = [total, *sorted(wrong)]
        rng.shuffle(options)
        if i % 2:
            prompt = _texts("What is {a} + {b}?", "حاصل {a} + {b} چند است؟", "Cât face {a} + {b}?", a=a, b=b)
            texts = [_texts("{n}", "{n}", "{n}", n=o) for o in options]
        else:
            values = sorted({rng.randint(100, 999) for _ in range(6)})[:4]
            while len(values) < 4:
                values.append(values[-1] + 1)
            rng.shuffle(values)
            prompt = _texts("Which number is the largest?", "کدام عدد از همه بزرگ‌تر است؟",
                            "Care număr este cel mai mare?")
            texts = [_texts("{n}", "{n}", "{n}", n=v) for v in values]
            options = values
            total = max(values)
        choice.append({"id": f"gen-c{i}", "prompt": prompt, "options": texts, "correct": options.index(total)})
    return {"numeric": numeric, "choice": choice}

"""What the question games share (the Short Campaign, the Quiz, and the question packs' import checks): the text of a
question, the typed whole number (CAMP-D14) and its limit, and a generated built-in set of questions.

The games' own question shapes stay in their games (engine/campaign/questions.py, engine/quiz/game.py); the rules for
reading a typed number are here once, so a phone's keypad, a pack's answer column and every game agree.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from engine.core import InvalidAction, InvalidSettings, Rng

Text = str | dict[str, str]  # one text, or one per language
MAX_NUMBER = 999_999_999_999  # CAMP-D14: the largest answer a question may have or a player may type


def checked_text(value: Any, where: str) -> Text:
    """A question's text from logged content: one text, or one per language (the Campaign and the Quiz check theirs
    so)."""
    if isinstance(value, str) and value.strip():
        return value
    if isinstance(value, dict) and value and all(isinstance(k, str) and isinstance(v, str) and v.strip()
                                                 for k, v in value.items()):
        return dict(value)
    raise InvalidSettings(f"{where} must be text or an object of texts by language", where)


DIGITS = str.maketrans("۰۱۲۳۴۵۶۷۸۹٠١٢٣٤٥٦٧٨٩", "01234567890123456789")
# The Arabic letter forms a Persian text may hold (an Arabic keyboard layout, a text pasted from elsewhere), as the
# Persian letters: what a typed answer is matched by (QUIZ-S8, engine/quiz/text.py) and the nickname filter reads
# (host/nicknames.py). Applied after diacritics are removed (ئ is ي with a hamza, ۀ is ه with one).
PERSIAN_LETTERS = str.maketrans({"\u064a": "\u06cc", "\u0649": "\u06cc", "\u0643": "\u06a9", "\u0629": "\u0647",
                                 "\u06c0": "\u0647", "\u06be": "\u0647", "\u0671": "\u0627"})
SEPARATORS = ",.'’٬ \u00a0\u202f\u066c"
# Only 0-9 after the Persian and Arabic-Indic digits are translated: \d would take the digits of every script.
GROUPED = re.compile(r"[0-9]{1,3}(?:[" + re.escape(SEPARATORS) + r"][0-9]{3})+")
PLAIN = re.compile(r"[0-9]+")
NUMBER_TEXT_MAX = 40  # the longest answer read at all: 999,999,999,999 with any separators fits many times over


def parse_number(raw: Any) -> int:
    """A typed whole number (CAMP-D14): Western, Persian or Arabic-Indic digits, thousands separators allowed; the
    digits of any other script are refused, with or without separators, and so is a text of over 40 characters."""
    if isinstance(raw, bool):
        raise InvalidAction("answer must be a whole number", "answer")
    if isinstance(raw, int):
        value = raw
    elif isinstance(raw, str):
        if len(raw) > NUMBER_TEXT_MAX:  # before any parsing: int() of thousands of digits is slow, then refused
            raise InvalidAction(f"answer must be between 0 and {MAX_NUMBER:,}", "answer")
        text = raw.strip().translate(DIGITS)
        if PLAIN.fullmatch(text):
            digits = text
        elif GROUPED.fullmatch(text):
            digits = re.sub(r"[^0-9]", "", text)
        else:
            raise InvalidAction(f"{raw[:20]!r} is not a whole number: use digits only", "answer")
        value = int(digits)
    else:
        raise InvalidAction("answer must be a whole number", "answer")
    if not 0 <= value <= MAX_NUMBER:
        raise InvalidAction(f"answer must be between 0 and {MAX_NUMBER:,}", "answer")
    return value



# ----- the generated built-in set -----
# Generated from templates in English, Persian and Romanian with the answers computed: simulations, benchmarks and
# engine tests play with it (a game without a supply of pack questions), and the Short Campaign's decks without packs.

def _fa_digits(n: int) -> str:
    return f"{n:,}".replace(",", "٬").translate(str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹"))


def _texts(en: str, fa: str, ro: str, **numbers: int) -> dict[str, str]:
    return {
        "en": en.format(**{k: f"{v:,}" for k, v in numbers.items()}),
        "fa": fa.format(**{k: _fa_digits(v) for k, v in numbers.items()}),
        "ro": ro.format(**{k: f"{v:,}".replace(",", ".") for k, v in numbers.items()}),
    }


# (draw the numbers, compute the answer, the question in English, Persian and Romanian)
Template = tuple[Callable[[Rng], dict[str, int]], Callable[[dict[str, int]], int], str, str, str]
NUMERIC_TEMPLATES: tuple[Template, ...] = (
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
        wrong: set[int] = set()
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

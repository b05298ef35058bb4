"""Type-answer matching (QUIZ-S8): when a typed answer counts as one of a question's accepted answers.

Two steps. ``normal_form`` forgets what people do not mean to say: case, accents and other diacritics (Romanian ş/ș,
ţ/ț, â, ă, î; French é; Persian harakat), the Arabic letter forms a Persian keyboard may give (ي/ى and ی, ك and ک),
zero-width joiners and non-joiners, the tatweel, the digits' script (Persian ۱۲, Arabic-Indic ١٢, fullwidth １２ are
all 12), punctuation and runs of spaces. Then ``matches`` accepts an answer whose normal form equals an accepted
answer's, or, when that accepted answer holds no digit, one within a few typos of it (Levenshtein distance, computed
by rapidfuzz): 0 for an accepted answer of up to 4 letters, 1 for 5 to 8, 2 for 9 or more.

Why these numbers: one slip of the thumb in a word of five letters or more ("Pari" for "Paris", "Shakespear") is
forgiven; a word of four letters or fewer must be exact, because one changed letter makes another word too often
("cat" and "car", and in a quiz's own field "Iran" and "Iraq", "Mali" and "Bali", "Peru" and "Perm"). A swap of two
letters counts as two edits, so it is forgiven from 9 letters on ("Bucurseti" for "București"), where two slips
still leave no doubt which long word was meant. The price: two different words of 5 to 8 letters one letter apart
("Malta", "Malay") count as the same; a quiz that must tell those apart asks a choice question. Numbers are never fuzzy: "1066" and "1067" differ by one digit and are different answers, so an accepted
answer holding a digit must be typed exactly (up to the digits' script, spaces and punctuation).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from rapidfuzz.distance import Levenshtein

from engine.questions import PERSIAN_LETTERS

MAX_TEXT = 100  # the longest answer a phone may send, after trimming (and the longest accepted answer)

GONE = {"\u200c", "\u200d", "\u0640"}  # ZWNJ, ZWJ, tatweel
QUOTES = {"'", "\u2019", "\u2018", "\u02bc", "`", "\u00b4"}  # an apostrophe joins a word: removed, not a space


def normal_form(text: str) -> str:
    """The text as matching sees it: NFKC, casefolded, diacritics removed, Persian letter forms unified, zero-width
    joiners, tatweel and format characters removed, digits of any script as 0-9, apostrophes removed and other
    punctuation as spaces, spaces collapsed and trimmed."""
    text = unicodedata.normalize("NFKC", text).casefold()
    kept = []
    for char in unicodedata.normalize("NFD", text):
        category = unicodedata.category(char)
        if category == "Mn" or char in GONE or category in ("Cf", "Cc", "Cs", "Co", "Cn"):
            continue  # diacritics (Romanian comma and cedilla, Arabic harakat), joiners, bidi marks, controls
        if char in QUOTES:
            continue
        digit = unicodedata.decimal(char, None)
        if digit is not None:
            kept.append(str(digit))
        elif category.startswith(("P", "Z", "S")) or char.isspace():  # punctuation, symbols, spaces
            kept.append(" ")
        else:
            kept.append(char)
    return " ".join("".join(kept).translate(PERSIAN_LETTERS).split())


def allowance(accepted_form: str) -> int:
    """The typos forgiven against an accepted answer's normal form: none when it holds a digit, else 0 for up to 4
    letters, 1 for 5 to 8, 2 for 9 or more (spaces not counted)."""
    if any(c.isdigit() for c in accepted_form):
        return 0
    letters = len(accepted_form.replace(" ", ""))
    return 0 if letters <= 4 else 1 if letters <= 8 else 2


def close_enough(answer_form: str, accepted_form: str) -> bool:
    """Whether an answer's normal form counts as this accepted answer's (QUIZ-S8); an empty form never does."""
    if not answer_form or not accepted_form:
        return False
    if answer_form == accepted_form or answer_form.replace(" ", "") == accepted_form.replace(" ", ""):
        return True
    most = allowance(accepted_form)
    return most > 0 and Levenshtein.distance(answer_form, accepted_form, score_cutoff=most) <= most


def matches(answer: str, accepted: Iterable[str]) -> bool:
    """Whether a typed answer is right: it matches one of the accepted answers (QUIZ-S8)."""
    form = normal_form(answer)
    return any(close_enough(form, normal_form(a)) for a in accepted)

"""The nickname filter (issue [17]): whether a name holds a rude word, in English, Persian or Romanian.

The words: the English and Persian dictionaries of the glin-profanity package (MIT, maintained on PyPI; read from the
installed package, nothing is fetched at run time) and the project's own lists in host/wordlists/ (Romanian, which
no library covers, and what the library lacks or should not refuse in a name: README.md there names each source and
licence). docs/security.md, "Nicknames", says what is refused and what is not.

A name and every entry of the lists are folded the same way (``fold``): NFKC, case, diacritics (Romanian ș/ş ț/ţ
ă â î alike), Persian and Arabic letter forms (ي ى→ی, ك→ک, ة ۀ→ه, harakat and tatweel dropped), digits of any
script, and letters that only look like Latin ones (Cyrillic "ѕ", Greek "ο": Unicode's confusables as the
confusable_homoglyphs package ships them). Leetspeak is read both ways: 0→o 1→i (or l) 3→e 4→a 5→s 7→t @→a $→s !→i,
and digits as no letters at all ("fuck2", "Fuck 2"). ZWNJ both joins and separates ("کس‌کش", "مادر‌جنده").

Words are matched whole, never inside another word (the Scunthorpe problem: "Scunthorpe", "Cassandra", "Dickens"
pass): a word of the name, a run of its words (a phrase of the lists), a final "s" dropped ("Cunts"), a letter
repeated any number of times ("fuuuck", never "as" for "ass"), and words of one or two letters run together as one
("f.u.c.k", "fu ck", "p u l a"). A few entries (``=`` in the lists) are refused only as the whole name: the
Romanian "cum" ("how") and the Persian "کس" ("someone", هیچ کس) are ordinary words beside others.
"""

from __future__ import annotations

import importlib.util
import json
import re
import unicodedata
from collections.abc import Iterator
from functools import cache
from itertools import groupby
from pathlib import Path

from confusable_homoglyphs import categories, confusables

from engine.questions import PERSIAN_LETTERS
from host.names import strip_invisible

WORDLISTS = Path(__file__).resolve().parent / "wordlists"
LIBRARY_LANGUAGES = ("english", "persian")  # glin-profanity's dictionaries for the room's languages; Romanian: ours
OWN_LISTS = ("en.txt", "fa.txt", "ro.txt")
JOINERS = "\u200c\u200d"
TATWEEL = "\u0640"
LEET_MAP = {"0": "o", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s", "!": "i"}
LEET = str.maketrans(LEET_MAP)
LEET_I = str.maketrans({**LEET_MAP, "1": "i"})
BETWEEN_LETTERS = re.compile(r"(?<=[^\W\d_])1(?=[^\W\d_])")  # "bu11shit"; never "Ana1" as "anal"
SHORT = 2  # words of at most this many letters are also read run together ("f.u.c.k", "fu ck")
WORD = re.compile(r"[^\W_]+")  # letters and digits; everything else separates words
CHUNK = re.compile(r"\S+")  # what spaces separate: leetspeak is read only in one that holds a letter


def _look_alikes() -> dict[str, str]:
    """Each letter that looks like a Latin one (and is not Arabic, whose letters are folded apart) -> that letter."""
    mapping = {}
    for key, entries in confusables.confusables_data.items():
        char = key.replace("\u200e", "").replace("\u200f", "")
        if len(char) != 1 or char.isascii() or categories.alias(char) == "ARABIC":
            continue
        for entry in entries:
            other = "".join(c for c in unicodedata.normalize("NFD", entry["c"])
                            if c.isascii() and c.isalpha())
            if len(other) == 1:
                mapping[char] = other.lower()
                break
    return mapping


@cache
def look_alikes() -> dict[int, str]:
    return str.maketrans(_look_alikes())


def _base(text: str) -> str:
    """The text folded but for leetspeak and joiners: NFKC, invisible characters out, digits of any script as 0-9,
    case folded, marks (diacritics, harakat) dropped, Arabic letter forms as Persian, look-alikes as Latin."""
    text = strip_invisible(unicodedata.normalize("NFKC", text)).replace(TATWEEL, "")
    text = "".join(str(unicodedata.decimal(c)) if c.isdecimal() else c for c in text).casefold()
    text = "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.category(c).startswith("M"))
    return unicodedata.normalize("NFC", text).translate(PERSIAN_LETTERS).translate(look_alikes())


def _leet(text: str, table: dict[int, str]) -> str:
    """Leetspeak read as letters, only in the parts (between spaces) that hold a letter: "5h1t" is a word, but a number
    of its own ("Fan 455", "Team 1337") stays a number."""
    return CHUNK.sub(lambda m: m.group().translate(table) if any(c.isalpha() for c in m.group()) else m.group(), text)


def fold(text: str, digits_out: bool = True) -> list[list[str]]:
    """The ways of reading a text as words (each a list of folded words): with ZWNJ joining or separating, and
    leetspeak read as letters (1 as i; between two letters also as l) or, with ``digits_out``, digits and leet
    symbols as no letters ("fuck2")."""
    base = _base(text)
    readings = []
    for joined in dict.fromkeys((base.replace("\u200c", "").replace("\u200d", ""),
                                 base.translate({ord(j): " " for j in JOINERS}))):
        readings.append(WORD.findall(_leet(joined, LEET_I)))
        readings.append(WORD.findall(_leet(BETWEEN_LETTERS.sub("l", joined), LEET)))
        if digits_out:
            readings.append(WORD.findall(re.sub(r"[0-9@$!]", " ", joined)))
    unique: list[list[str]] = []
    for words in readings:
        if words and words not in unique:
            unique.append(words)
    return unique


def runs(text: str) -> tuple[str, tuple[int, ...]]:
    """The text with each letter once, and how many times each came in a row ("fuuuck": "fuck", (1, 3, 1, 1))."""
    groups = [(c, len(list(g))) for c, g in groupby(text)]
    return "".join(c for c, _ in groups), tuple(n for _, n in groups)


class Words:
    """The folded entries: each by its letters once (``runs``) with the least count of each letter."""

    def __init__(self) -> None:
        self.entries: dict[str, list[tuple[int, ...]]] = {}
        self.alone: dict[str, list[tuple[int, ...]]] = {}
        self.symbols: set[str] = set()  # entries of no letters (an emoji): refused anywhere in a name
        self.longest = 1  # words in the longest phrase

    def add(self, entry: str, alone: bool = False) -> None:
        for words in fold(entry, digits_out=False):
            phrase = " ".join(words)
            letters, counts = runs(phrase)
            table = self.alone if alone else self.entries
            if counts not in table.setdefault(letters, []):
                table[letters].append(counts)
            self.longest = max(self.longest, len(words))
        if not fold(entry, digits_out=False) and entry.strip():
            self.symbols.add(entry.strip())

    def has(self, text: str, alone: bool = False) -> bool:
        letters, counts = runs(text)
        for least in (self.alone if alone else self.entries).get(letters, ()):
            if all(n >= m for n, m in zip(counts, least, strict=True)):
                return True
        return False


def read_list(path: Path) -> Iterator[str]:
    """The entries of one of our lists: one a line, ``#`` starts a comment."""
    for line in path.read_text(encoding="utf-8").splitlines():
        entry = line.split("#", 1)[0].strip()
        if entry:
            yield entry


def library_words(language: str) -> list[str]:
    """One of glin-profanity's dictionaries, read as its own DictionaryLoader reads it (data/dictionaries/<language>.json
    in the package) but without importing the package, whose filters, scanners and patterns cost 0.2 s that the
    first join of a server would wait."""
    spec = importlib.util.find_spec("glin_profanity")
    if spec is None or spec.origin is None:
        raise RuntimeError("the nickname filter needs the glin-profanity package (pip install glin-profanity)")
    data = json.loads((Path(spec.origin).parent / "data" / "dictionaries" / f"{language}.json").read_text("utf-8"))
    entries = data["words"] if isinstance(data, dict) else data
    return [w for w in entries if isinstance(w, str) and w.strip()]


@cache
def words() -> Words:
    """The filter's words, read once."""
    allowed = list(read_list(WORDLISTS / "allowed.txt"))
    dropped = {_key(e[1:]) for e in allowed if e.startswith("-")}
    alone = [e[1:] for e in allowed if e.startswith("=")]
    table = Words()
    entries = [w for language in LIBRARY_LANGUAGES for w in library_words(language)]
    for name in OWN_LISTS:
        for entry in read_list(WORDLISTS / name):
            (alone if entry.startswith("=") else entries).append(entry.removeprefix("="))
    alone_keys = {_key(e) for e in alone}
    for entry in entries:
        key = _key(entry)
        if key not in dropped and key not in alone_keys:
            table.add(entry)
    for entry in alone:
        table.add(entry, alone=True)
    return table


def _key(entry: str) -> str:
    """An entry as one text, to compare entries of two lists."""
    readings = fold(entry, digits_out=False)
    return " ".join(readings[0]) if readings else entry.strip()


def _spans(found: list[str], longest: int) -> Iterator[str]:
    """What of a reading is looked up: each run of up to ``longest`` words as a phrase, each word without a final
    "s", and each run of two or more short words written together."""
    for i in range(len(found)):
        for n in range(1, min(longest, len(found) - i) + 1):
            yield " ".join(found[i:i + n])
        word = found[i]
        if len(word) >= 4 and word.endswith("s"):
            yield word[:-1]
        j = i
        while j < len(found) and len(found[j]) <= SHORT:
            j += 1
            if j - i >= 2:
                yield "".join(found[i:j])


def refused(name: str) -> bool:
    """Whether the name holds a rude word of the lists (module docstring)."""
    table = words()
    if any(symbol in name for symbol in table.symbols):
        return True
    for found in fold(name):
        if any(table.has(span) for span in _spans(found, table.longest)):
            return True
        lettered = [w for w in found if not w.isdigit()]
        if len(lettered) == 1 and table.has(lettered[0], alone=True):
            return True
        if lettered and all(len(w) <= SHORT for w in lettered) and table.has("".join(lettered), alone=True):
            return True
    return False

"""What makes two display names the same, and what a name must show (issue [11]).

A name is compared by its confusable skeleton (Unicode UTS #39, section 4): "Ana", "Аna" with a Cyrillic А and "Ａｎａ"
are one name. The confusables data is Unicode's confusables.txt as the ``confusable_homoglyphs`` package ships it
(with the Unicode script of every code point). That package keeps each pair both ways; since confusables.txt maps
every source to one prototype and no prototype is itself a source, the characters that one prototype gathers form a
connected group of single characters, and the skeleton maps each group to one member (an ASCII one where there is
one). A source whose prototype is several characters (``m`` → ``rn``) maps to that text.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from confusable_homoglyphs import categories, confusables

# Invisible or blank: Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt: soft hyphen, combining
# grapheme joiner, Hangul fillers, Mongolian and variation selectors, zero-width and bidi marks, word joiners,
# invisible operators, BOM, tag characters...) and the blank braille pattern U+2800. ZWNJ and ZWJ are among them
# but are handled apart (Persian spelling needs ZWNJ: host/room.py STRAY_JOINERS).
IGNORABLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b\u200e\u200f\u202a-\u202e\u2060-\u206f"
    "\u2800\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0000-\U000e0fff]")
JOINERS = "\u200c\u200d"
LOOK_ALIKE_SCRIPTS = frozenset({"LATIN", "CYRILLIC", "GREEK"})  # letters of two of these in one name are refused


def strip_invisible(text: str) -> str:
    """The text without invisible characters: default-ignorables, other format characters (category Cf) and lone
    surrogates; ZWNJ and ZWJ are kept for the caller to judge."""
    text = IGNORABLE.sub("", text)
    return "".join(c for c in text if c in JOINERS or unicodedata.category(c) not in ("Cf", "Cs", "Cc"))


def has_visible(text: str) -> bool:
    """Whether the text shows at least one letter, digit or symbol (an emoji); marks, punctuation and spaces
    alone do not make a name."""
    return any(unicodedata.category(c)[0] in "LN" or unicodedata.category(c) == "So" for c in text)


def mixed_scripts(text: str) -> set[str]:
    """The look-alike scripts (Latin, Cyrillic, Greek) whose letters the text mixes: empty when it mixes none."""
    scripts = {categories.alias(c) for c in text if unicodedata.category(c)[0] == "L"} & LOOK_ALIKE_SCRIPTS
    return scripts if len(scripts) > 1 else set()


def _prototypes() -> dict[str, str]:
    """Each confusable character and what the skeleton maps it to."""
    def bare(text: str) -> str:  # the package wraps right-to-left characters in LEFT-TO-RIGHT MARKs for display
        return text.replace("\u200e", "").replace("\u200f", "")

    parent: dict[str, str] = {}

    def find(c: str) -> str:
        while parent.setdefault(c, c) != c:
            parent[c] = parent[parent[c]]
            c = parent[c]
        return c

    expansions: dict[str, str] = {}
    for key, entries in confusables.confusables_data.items():
        char = bare(key)
        if len(char) != 1:
            continue  # a prototype of several characters: its sources name it
        for entry in entries:
            other = bare(entry["c"])
            if len(other) == 1:
                a, b = find(char), find(other)
                if a != b:
                    parent[max(a, b, key=_rank)] = min(a, b, key=_rank)
            elif other:
                expansions[char] = other
    mapping = {c: find(c) for c in parent if find(c) != c}
    for char, text in expansions.items():
        mapping[char] = "".join(find(c) if c in parent else c for c in text)
    return mapping


def _rank(c: str) -> tuple[bool, int]:
    """The group's representative: an ASCII character first, then the lowest code point."""
    return (not c.isascii(), ord(c))


PROTOTYPES = _prototypes()


def _map(text: str) -> str:
    return unicodedata.normalize("NFD", "".join(PROTOTYPES.get(c, c) for c in unicodedata.normalize("NFD", text)))


@lru_cache(maxsize=4096)
def name_keys(name: str) -> tuple[str, str, str]:
    """What makes two names the same: they share one of these keys, each a confusable skeleton: of the name in
    lower case (case folded before and after, so "ANA" and "ana" stay one name), of the name as written (look-alikes
    that fold apart: "Il" and "ll") and of the name in capitals (Cyrillic "ВОВ" and "Bob")."""
    name = unicodedata.normalize("NFKC", strip_invisible(name))
    return _map(_map(name.casefold()).casefold()), _map(name), _map(name.upper())


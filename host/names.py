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
# but are handled apart (Persian spelling needs ZWNJ: ``drop_joiners``). MUSICAL SYMBOL NULL NOTEHEAD U+1D159 is a
# symbol drawn without ink.
IGNORABLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b\u200e\u200f\u202a-\u202e\u2060-\u206f"
    "\u2800\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\U0001bca0-\U0001bca3\U0001d159\U0001d173-\U0001d17a"
    "\U000e0000-\U000e0fff]")
JOINERS = "\u200c\u200d"
# The scripts whose spelling uses ZWNJ and ZWJ between letters (Arabic for Persian, the Indic scripts' half forms):
# elsewhere a joiner shows nothing and would only make "An\u200da" another name than "Ana".
JOINING_SCRIPTS = frozenset({
    "ARABIC", "SYRIAC", "NKO", "MANDAIC", "MONGOLIAN", "DEVANAGARI", "BENGALI", "GURMUKHI", "GUJARATI", "ORIYA",
    "TAMIL", "TELUGU", "KANNADA", "MALAYALAM", "SINHALA", "MYANMAR", "KHMER", "TIBETAN"})
EMOJI_BLOCK = (0x1F000, 0x1FAFF)  # emoji keep coming here: one newer than this Python's Unicode data is unassigned
LOOK_ALIKE_SCRIPTS = frozenset({"LATIN", "CYRILLIC", "GREEK"})  # letters of two of these in one name are refused


def strip_invisible(text: str) -> str:
    """The text without invisible characters: default-ignorables, other format characters (category Cf) and lone
    surrogates; ZWNJ and ZWJ are kept for the caller to judge."""
    text = IGNORABLE.sub("", text)
    return "".join(c for c in text if c in JOINERS or unicodedata.category(c) not in ("Cf", "Cs", "Cc"))


def is_newer_emoji(c: str) -> bool:
    """Whether the character is unassigned in this Python's Unicode data but in the emoji block: an emoji a phone
    newer than the data offers (U+1FAE8 SHAKING FACE is Unicode 15; Python 3.11 knows 14)."""
    return EMOJI_BLOCK[0] <= ord(c) <= EMOJI_BLOCK[1] and unicodedata.category(c) == "Cn"


def is_emoji(c: str) -> bool:
    """Whether the character may be part of an emoji sequence joined by ZWJ (a symbol, a skin tone modifier)."""
    code = ord(c)
    return (unicodedata.category(c) in ("So", "Sk") and (0x2100 <= code <= 0x2BFF or code >= EMOJI_BLOCK[0])
            or is_newer_emoji(c))


def has_visible(text: str) -> bool:
    """Whether the text shows at least one letter, digit or symbol (an emoji); marks, punctuation and spaces
    alone do not make a name."""
    return any(unicodedata.category(c)[0] in "LN" or unicodedata.category(c) == "So" or is_newer_emoji(c)
               for c in text)


def unshowable(text: str) -> str | None:
    """The first character of the text that phones show as nothing or as a box, if any: unassigned code points and
    noncharacters (except newer emoji, ``is_newer_emoji``), private use ones, the OBJECT REPLACEMENT CHARACTER, and
    the Arabic honorific ligatures that no normalisation spells out (U+FDFD and its kin, category So in U+FB50 to
    U+FDFF), which most phones' fonts lack."""
    for c in text:
        category = unicodedata.category(c)
        if category == "Co" or (category == "Cn" and not is_newer_emoji(c)) or c == "\ufffc" \
                or (category == "So" and 0xFB50 <= ord(c) <= 0xFDFF):
            return c
    return None


def drop_joiners(text: str) -> str:
    """The text without the ZWNJ and ZWJ that join nothing: a joiner stays between two letters of a script that
    spells with it (``JOINING_SCRIPTS``; marks after the first letter count with it) and, a ZWJ, between the parts
    of an emoji sequence (U+1F469 ZWJ U+1F4BB, a woman technologist), one for a run of them; anywhere else (between
    Latin letters, at an end) it shows nothing and goes."""
    def script_of(c: str) -> str:
        return categories.alias(c) if unicodedata.category(c)[0] == "L" else ""

    kept = []
    for i, c in enumerate(text):
        if c in JOINERS:
            j = i - 1
            while j >= 0 and (unicodedata.category(text[j])[0] == "M" or text[j] in JOINERS):
                j -= 1
            before = text[j] if j >= 0 else ""
            after = text[i + 1] if i + 1 < len(text) else ""
            if not before or not after or after in JOINERS:  # of a run of joiners, the last one stands for all
                continue
            letters = script_of(before) in JOINING_SCRIPTS and script_of(after) in JOINING_SCRIPTS
            if not letters and not (c == "\u200d" and is_emoji(before) and is_emoji(after)):
                continue
        kept.append(c)
    return "".join(kept)


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


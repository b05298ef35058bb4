"""One message catalog for templates and JavaScript alike: ``host/i18n/<lang>.json``, plus one fragment per
game, ``host/i18n/<game>.<lang>.json``, merged into it, and those of games loaded from a games module
(``add_catalog_dir``); a key defined twice is an error, so fragments cannot silently override each other.

Keys are dotted names; values may hold ``{name}`` placeholders. A value may also be plural: an object keyed by the
CLDR plural categories of its language (``one``, ``few``, ``other``…), chosen by the parameter ``n``; the pages
choose with ``Intl.PluralRules`` and format numbers with ``Intl.NumberFormat`` (host/static/common.js), the server
with the small rules below. The same messages go to the browser as one file per language (host/assets.py: a script
at a fingerprinted, long-cached URL; a page loads its own language's, and another's only when it switches to it), so
the server and the browser translate from one source.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from host.room import LANGUAGES

CATALOG_DIR = Path(__file__).with_name("i18n")
EXTRA_CATALOG_DIRS: list[Path] = []  # fragments of games loaded from a games module (host/app.py load_games_module)
RTL_LANGUAGES = ("fa",)
PERSIAN_DIGITS = str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹")


@cache
def catalog(language: str) -> dict[str, Any]:
    """The messages of one language (a plural message is a dict of forms)."""
    with open(CATALOG_DIR / f"{language}.json", encoding="utf-8") as handle:
        messages: dict[str, Any] = json.load(handle)
    fragments = sorted(CATALOG_DIR.glob(f"*.{language}.json"))
    for folder in EXTRA_CATALOG_DIRS:
        fragments += sorted(folder.glob(f"*.{language}.json"))
    for fragment in fragments:
        with open(fragment, encoding="utf-8") as handle:
            extra = json.load(handle)
        clash = sorted(set(extra) & set(messages))
        if clash:
            raise ValueError(f"{fragment.name}: keys already defined elsewhere: {', '.join(clash[:5])}")
        messages.update(extra)
    return messages


def add_catalog_dir(folder: Path) -> None:
    """Merge a folder of fragments (``<part>.<lang>.json``) into every catalog from now on, once."""
    if folder not in EXTRA_CATALOG_DIRS:
        EXTRA_CATALOG_DIRS.append(folder)
        catalog.cache_clear()


def generation() -> int:
    """Changes whenever the catalogs may have (a games module added fragments): host/assets.py builds the pages'
    catalog files again then, under a new hash."""
    return len(EXTRA_CATALOG_DIRS)


def plural_category(language: str, count: int) -> str:
    """The CLDR plural category of a whole number (the same answer as Intl.PluralRules for en, fa and ro)."""
    count = abs(count)
    if language == "fa":
        return "one" if count in (0, 1) else "other"
    if language == "ro":
        if count == 1:
            return "one"
        return "few" if count == 0 or 1 <= count % 100 <= 19 else "other"
    return "one" if count == 1 else "other"


def translate(language: str, key: str, **params: Any) -> str:
    """The message in this language, falling back to English, then to the key itself."""
    text = catalog(language).get(key) or catalog("en").get(key) or key
    if isinstance(text, dict):
        count = params.get("n")
        form = plural_category(language, count) if isinstance(count, int) else "other"
        text = text.get(form) or text["other"]
    if params:
        if language == "fa":
            params = {k: str(v).translate(PERSIAN_DIGITS) if isinstance(v, int) else v for k, v in params.items()}
        for name, value in params.items():
            text = text.replace("{" + name + "}", str(value))
    return text


def best_language(query: str | None, cookie: str | None, accept: list[str]) -> str:
    """The page language: the ``lang`` query, the ``lang`` cookie, then the browser's preferences, then English."""
    for candidate in (query, cookie, *accept):
        if candidate:
            base = candidate.split("-")[0].split("_")[0].lower()
            if base in LANGUAGES:
                return base
    return "en"


def direction(language: str) -> str:
    """``rtl`` or ``ltr``."""
    return "rtl" if language in RTL_LANGUAGES else "ltr"

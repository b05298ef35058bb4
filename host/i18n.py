"""One message catalog for templates and JavaScript alike: ``host/i18n/<lang>.json``, plus one fragment per
game, ``host/i18n/<game>.<lang>.json``, merged into it (a key defined twice is an error, so fragments cannot
silently override each other).

Keys are dotted names; values may hold ``{name}`` placeholders. The same files are embedded in every page for
the front end, so the server and the browser translate from one source.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from host.room import LANGUAGES

CATALOG_DIR = Path(__file__).with_name("i18n")
RTL_LANGUAGES = ("fa",)
PERSIAN_DIGITS = str.maketrans("0123456789", "۰۱۲۳۴۵۶۷۸۹")


@cache
def catalog(language: str) -> dict[str, str]:
    """The messages of one language."""
    with open(CATALOG_DIR / f"{language}.json", encoding="utf-8") as handle:
        messages: dict[str, str] = json.load(handle)
    for fragment in sorted(CATALOG_DIR.glob(f"*.{language}.json")):
        with open(fragment, encoding="utf-8") as handle:
            extra = json.load(handle)
        clash = sorted(set(extra) & set(messages))
        if clash:
            raise ValueError(f"{fragment.name}: keys already defined elsewhere: {', '.join(clash[:5])}")
        messages.update(extra)
    return messages


def all_catalogs() -> dict[str, dict[str, str]]:
    """Every language's messages, for embedding in a page."""
    return {language: catalog(language) for language in LANGUAGES}


def translate(language: str, key: str, **params: Any) -> str:
    """The message in this language, falling back to English, then to the key itself."""
    text = catalog(language).get(key) or catalog("en").get(key) or key
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

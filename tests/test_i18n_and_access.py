"""One message catalog in three languages, used by templates and JavaScript; colours readable by everyone."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from host.i18n import best_language, catalog, translate
from host.room import LANGUAGES

ROOT = Path(__file__).resolve().parent.parent
PLACEHOLDER = re.compile(r"\{[a-z_]+\}")


def used_keys() -> set[str]:
    """Every message key the pages and the engines name, the test games' included (tests/conftest.py loads them
    and their catalog fragments)."""
    keys: set[str] = set()
    for path in [*ROOT.glob("host/static/**/*.js"), *ROOT.glob("player/static/*.js"), *ROOT.glob("tests/games/**/*.js")]:
        keys |= set(re.findall(r'\bt\("([a-z_]+\.[a-z_.]+)"\s*[,)]', path.read_text()))  # literal keys
    for path in ROOT.glob("templates/*.html"):
        keys |= set(re.findall(r'_\("([a-z_]+\.[a-z_.]+)"', path.read_text()))
    for path in [*ROOT.glob("engine/**/*.py"), *ROOT.glob("host/*.py"), *ROOT.glob("tests/games/*.py")]:
        keys |= set(re.findall(r'"((?:game|setting|outcome)\.[a-z_.]+)"', path.read_text()))
    return keys


PLURAL_FORMS = {"en": {"one", "other"}, "fa": {"one", "other"}, "ro": {"one", "few", "other"}}  # CLDR's categories


def forms(message: str | dict[str, str]) -> list[str]:
    """The texts of a message: one, or one per plural form."""
    return list(message.values()) if isinstance(message, dict) else [message]


def test_every_language_has_every_message_with_the_same_placeholders():
    english = catalog("en")
    for language in LANGUAGES:
        messages = catalog(language)
        assert set(messages) == set(english), language
        for key, text in english.items():
            wanted = sorted(set(PLACEHOLDER.findall(forms(text)[-1])))
            for form in forms(messages[key]):
                assert sorted(set(PLACEHOLDER.findall(form))) == wanted, (language, key, form)
                assert form.strip(), (language, key)


def test_plural_messages_have_their_language_forms_and_a_count():
    for language in LANGUAGES:
        for key, message in catalog(language).items():
            if isinstance(message, dict):
                assert "other" in message and set(message) <= PLURAL_FORMS[language], (language, key, sorted(message))
                assert all("{n}" in form for form in message.values()), (language, key)


def test_plural_forms_on_the_server_match_intl():
    from host.i18n import plural_category

    assert [plural_category("ro", n) for n in (0, 1, 2, 19, 20, 21, 101, 119, 120)] == \
        ["few", "one", "few", "few", "other", "other", "few", "few", "other"]
    assert [plural_category("fa", n) for n in (0, 1, 2)] == ["one", "one", "other"]
    assert translate("ro", "tv.players_exact", n=20) == "20 de jucători"
    assert translate("ro", "tv.players_exact", n=3) == "3 jucători"
    assert translate("en", "tv.players_exact", n=1) == "1 player"


def test_every_key_the_code_uses_exists():
    missing = used_keys() - set(catalog("en"))
    assert not missing, missing
    assert len(used_keys()) > 60


def test_error_codes_the_server_sends_have_messages():
    codes = set()
    for path in [*ROOT.glob("host/*.py"), *ROOT.glob("player/*.py")]:
        codes |= set(re.findall(r'RoomError\(\s*"([a-z_]+)"', path.read_text()))
    missing = {c for c in codes if f"error.{c}" not in catalog("en")}
    # these only reach a client that sends what the pages never send
    assert missing <= {"invalid", "invalid_event", "unknown_event", "unknown_seat", "no_code", "not_watching",
                       "not_joined", "invalid_settings", "no_game_running", "invalid_language", "invalid_role"}, missing


def test_translate_falls_back_and_writes_persian_digits():
    assert translate("fa", "tv.players", n=3, max=12).count("۱۲") == 1
    assert translate("ro", "no.such.key") == "no.such.key"
    assert best_language(None, None, ["fa-IR", "en"]) == "fa"
    assert best_language("ro", "fa", ["en"]) == "ro"
    assert best_language("xx", None, ["de-DE"]) == "en"


def test_persian_uses_persian_letters():
    text = json.dumps(catalog("fa"), ensure_ascii=False)
    assert "ي" not in text and "ك" not in text  # Arabic yeh and kaf


def luminance(hex_colour: str) -> float:
    channels = [int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


@pytest.mark.parametrize("fg,bg", [("--text", "--bg"), ("--text", "--panel"), ("--text", "--panel-2"),
                                   ("--muted", "--bg"), ("--muted", "--panel"), ("--accent", "--bg"),
                                   ("--accent", "--panel"), ("--accent-text", "--accent"), ("--danger", "--bg"),
                                   ("--danger", "--panel")])
def test_text_contrast_meets_wcag_aa(fg, bg):
    css = (ROOT / "host/static/style.css").read_text()
    colours = dict(re.findall(r"(--[a-z0-9-]+):\s*(#[0-9a-fA-F]{6})", css))
    assert contrast(colours[fg], colours[bg]) >= 4.5, (fg, bg)


def test_player_colours_are_okabe_ito_and_come_with_shapes():
    js = (ROOT / "host/static/common.js").read_text()
    colours = re.search(r"const COLOURS = \[([^\]]+)\]", js).group(1)
    assert colours.count("#") == 8 and "#E69F00" in colours and "#0072B2" in colours
    shapes = re.search(r"const SHAPE_KEYS = \[([^\]]+)\]", js).group(1)
    assert shapes.count('"') == 12  # six shapes


def test_a_game_fragment_is_merged_and_may_not_redefine_a_key(tmp_path, monkeypatch):
    from host import i18n

    (tmp_path / "en.json").write_text('{"app.name": "Throneroom"}', encoding="utf-8")
    (tmp_path / "demo.en.json").write_text('{"demo.hello": "Hello"}', encoding="utf-8")
    monkeypatch.setattr(i18n, "CATALOG_DIR", tmp_path)
    monkeypatch.setattr(i18n, "EXTRA_CATALOG_DIRS", [])  # the test games' fragments (tests/conftest.py)
    assert i18n.catalog.__wrapped__("en") == {"app.name": "Throneroom", "demo.hello": "Hello"}
    (tmp_path / "other.en.json").write_text('{"app.name": "Mine"}', encoding="utf-8")
    with pytest.raises(ValueError, match="other.en.json.*app.name"):
        i18n.catalog.__wrapped__("en")


def call_params(body: str) -> set[str] | None:
    """The top-level names of a JavaScript object literal's text (``{n: x.length, name}``); None when it spreads
    another object (``...more``), whose names cannot be read here."""
    parts, depth, current = [], 0, ""
    for char in body:
        depth += char in "([{"
        depth -= char in ")]}"
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    parts.append(current)
    names = set()
    for part in (p.strip() for p in parts):
        if part.startswith("..."):
            return None
        named = re.match(r"([A-Za-z_$][\w$]*)\s*(:|$)", part)
        if named:
            names.add(named.group(1))
    return names


def test_every_placeholder_of_a_message_is_given_where_the_pages_call_it():
    # a call that names its values differently from the catalog showed "2 of {total} answered" on the remote
    english = catalog("en")
    missing = []
    for path in [*ROOT.glob("host/static/**/*.js"), *ROOT.glob("player/static/*.js")]:
        text = path.read_text()
        for call in re.finditer(r'\bt\("([a-z_]+\.[a-z_.]+)",\s*\{', text):
            key, end, depth = call.group(1), call.end(), 1
            while depth and end < len(text):
                depth += text[end] == "{"
                depth -= text[end] == "}"
                end += 1
            given = call_params(text[call.end():end - 1])
            if key not in english or given is None:
                continue
            wanted = {name.strip("{}") for form in forms(english[key]) for name in PLACEHOLDER.findall(form)}
            if wanted - given:
                missing.append(f"{path.name}: {key} needs {sorted(wanted - given)}, given {sorted(given)}")
    assert not missing, "\n".join(missing)

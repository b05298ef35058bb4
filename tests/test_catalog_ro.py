"""The Romanian catalog reads as a native speaker writes it, by docs/glossary.md: what can be enforced, is.

Every Romanian key has a surface in host/i18n/surfaces.json (tv, phone, house, both, decided by reading where the
code shows it), and the text's address matches it: the TV speaks to the room ("voi"), a phone to its player
("tu"), a Crown house's phones to the house ("voi"), a text shown on both the TV and the phones speaks to no one
(impersonal). Glossary terms win over their wrong twins; names (placeholders) are never declined, nor referred to
with a masculine pronoun; ș and ț have the comma below; quotes are Romanian „…”.

The catalog folder can be pointed elsewhere (RO_CATALOG_DIR) to run the same checks against an older catalog: each
address, glossary and name check below failed on the catalog of commit 495a94e (the state before issue [20]): 39 tv,
6 phone, 2 house and 66 both texts with the wrong address, 15 against the glossary, 11 declining a name. That
catalog had no cedilla and no straight quote: those two checks guard, and their detectors are tested on known
strings.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
CATALOG_DIR = Path(os.environ.get("RO_CATALOG_DIR") or HERE.parent / "host" / "i18n")
SURFACES_FILE = HERE.parent / "host" / "i18n" / "surfaces.json"
SURFACES = ("tv", "phone", "house", "both")


def load_catalog() -> dict[str, Any]:
    messages: dict[str, Any] = {}
    for path in [CATALOG_DIR / "ro.json", *sorted(CATALOG_DIR.glob("*.ro.json"))]:
        messages.update(json.loads(path.read_text(encoding="utf-8")))
    return messages


CATALOG = load_catalog()
SURFACE_DATA = json.loads(SURFACES_FILE.read_text(encoding="utf-8"))


def surface_of(key: str) -> str | None:
    """The explicit entry, else the longest matching prefix, else None."""
    if key in SURFACE_DATA["keys"]:
        return SURFACE_DATA["keys"][key]
    best = None
    for prefix, surface in SURFACE_DATA["prefixes"].items():
        if key.startswith(prefix) and (best is None or len(prefix) > len(best[0])):
            best = (prefix, surface)
    return best[1] if best else None


def texts() -> list[tuple[str, str]]:
    """(key or key[form], text) for every string, plural forms one by one."""
    out = []
    for key, value in CATALOG.items():
        if isinstance(value, dict):
            out += [(f"{key}[{form}]", text) for form, text in value.items()]
        else:
            out.append((key, value))
    return out


def base_key(label: str) -> str:
    return label.split("[", 1)[0]


def words(text: str) -> list[str]:
    """Lower-case words; placeholders dropped; hyphens split ("ți-a" → ți, a; "v-ați" → v, ați)."""
    text = re.sub(r"\{[^}]*\}", " ", text)
    return re.findall(r"[a-zăâîșțA-ZĂÂÎȘȚ]+", text.lower())


# --- address -------------------------------------------------------------------------------------------------------

# Singular ("tu") markers: pronouns, and verb forms that are only ever the second person singular.
SINGULAR_PRONOUNS = {"tu", "te", "ți", "tău", "ta", "tale", "tăi", "ție"}
SINGULAR_VERBS = {
    "ești", "poți", "vrei", "vezi", "joci", "alegi", "apeși", "atingi", "răspunzi", "intri", "urmărești", "câștigi",
    "faci", "tragi", "împingi", "exilezi", "folosești", "aștepți", "scoți", "ieși", "știi", "pierzi", "ataci",
    "închei", "părăsești", "deschizi", "privești", "primești", "privesc", "urmăresc", "ai", "îți", "ți", "introdu",
}
# Imperatives (and 3rd-person presents of the same form) count as "tu" when a sentence starts with one, in a text
# that is a sentence (it has . ! ? : ; … or six words or more). A button or a heading that names an action
# ("Închide", "Încarcă un pachet", "Alege un joc") takes the bare imperative, as Romanian software does, on every
# surface; Avignon's action names (Trage, Împinge, Exilează) are glossary terms and are not in the list.
SINGULAR_IMPERATIVES = {
    "apasă", "alege", "atinge", "scanează", "răspunde", "scrie", "intră", "încearcă", "așteaptă", "verifică",
    "șterge", "corectează", "marchează", "folosește", "pune", "glisează", "confirmă", "schimbă", "dă", "ia",
    "urmărește", "privește", "roagă", "bifează", "redenumește", "păstrează", "scurtează", "pornește", "încarcă",
    "salvează", "cere", "mustră", "trimite", "joacă", "deschide", "ține", "introdu", "reîncarcă", "închide",
}
SENTENCE_START = re.compile(r"(?:^|[.:;!?|(]\s*|,\s*apoi\s+)([a-zăâîșțA-ZĂÂÎȘȚ]+)")
# Plural ("voi") markers: pronouns, and verbs in -ați/-eți/-iți/-îți, but for the words below (nouns, plural
# participles and adjectives) that merely end the same way.
PLURAL_PRONOUNS = {"voi", "vă", "v", "vostru", "voastră", "voștri", "voastre"}
PLURAL_ENDING = re.compile(r"(ați|eți|iți|îți)$")
PLURAL_NOT_VERBS = {
    "aliați", "soldați", "împărați", "candidați", "prelați", "frați", "bărbați", "delegați", "băieți", "pereți",
    "poeți", "profeți", "uniți", "numiți", "eliminați", "conectați", "deconectați", "legați", "blocați", "loiali",
    "iți", "îți", "ți", "câți", "toți", "alți", "înalți", "sfinți",
}


# A house's phones answer as the house, in the first person plural ("Acceptăm", "Refuzăm"): there even a one-word
# button in the singular is the wrong voice.
HOUSE_SINGULAR_BUTTONS = SINGULAR_IMPERATIVES | {"primește", "refuză", "acceptă", "plătește", "renunță", "votează"}


def singular_markers(text: str, house: bool = False) -> list[str]:
    found = [w for w in words(text) if w in SINGULAR_PRONOUNS or w in SINGULAR_VERBS]
    if house and len(words(text)) == 1 and words(text)[0] in HOUSE_SINGULAR_BUTTONS:
        found += words(text)
    if re.search(r"[.!?:;…]", text) or len(words(text)) >= 6:
        plain = re.sub(r"\{[^}]*\}", "X", text)
        found += [m.group(1).lower() for m in SENTENCE_START.finditer(plain) if m.group(1).lower() in SINGULAR_IMPERATIVES]
    return found


def plural_markers(text: str) -> list[str]:
    return [w for w in words(text)
            if w in PLURAL_PRONOUNS or (PLURAL_ENDING.search(w) and w not in PLURAL_NOT_VERBS)]


def test_every_key_has_a_surface() -> None:
    bad = [key for key in CATALOG if surface_of(key) not in SURFACES]
    assert not bad, f"keys without a surface in host/i18n/surfaces.json: {bad[:20]}"
    stale = [key for key in SURFACE_DATA["keys"] if key not in CATALOG]
    assert not stale, f"surfaces.json names keys the catalog does not have: {stale}"


def test_surface_lookup_fails_on_an_unknown_key() -> None:
    assert surface_of("nonexistent_prefix_for_test.key") is None


@pytest.mark.parametrize("surface", SURFACES)
def test_address_per_surface(surface: str) -> None:
    """tv and house: no "tu"; phone: no "voi"; both: neither."""
    bad = []
    for label, text in texts():
        if surface_of(base_key(label)) != surface:
            continue
        wrong = []
        if surface in ("tv", "house", "both"):
            wrong += singular_markers(text, house=surface == "house")
        if surface in ("phone", "both"):
            wrong += plural_markers(text)
        if wrong:
            bad.append(f"{label} ({', '.join(sorted(set(wrong)))}): {text}")
    assert not bad, f"{len(bad)} texts on the {surface} surface with the wrong address:\n" + "\n".join(bad)


def test_the_markers_see_what_they_should() -> None:
    """The detectors themselves, on known sentences (a check that cannot fail is no check)."""
    assert singular_markers("Atinge o carte pe telefon ca să vezi de ce")
    assert singular_markers("Urmăriți televizorul. Alege un joc")
    assert not singular_markers("Închide") and not singular_markers("Alege un joc")
    assert singular_markers("Pachetele alese nu au întrebări: alege altele.")
    assert not singular_markers("Gazda apasă „Următorul”")
    assert singular_markers("Primește", house=True) and not singular_markers("Acceptăm", house=True)
    assert plural_markers("Urmăriți televizorul")
    assert plural_markers("Abțineți-vă")
    assert not plural_markers("Boții ocupă locurile libere ale aliaților: aliați")


# --- glossary terms, calques, declined names ------------------------------------------------------------------------

BANNED = [  # (pattern, why) — the glossary term is in the message
    (r"\bcu variante\b", "a multiple-choice question is „grilă” (glossary)"),
    (r"\bvariante multiple\b", "a multiple-choice question is „grilă” (glossary)"),
    (r"\bcastel", "a castle is „cetate” (glossary)"),
    (r"\brobo[tț]", "a bot is „bot”, plural „boți” (glossary)"),
    (r"\blobby\b", "the lobby is „sala de așteptare” (glossary)"),
    (r"\bjuca(t|tă|te)? alături\b|\bjoacă alături\b", "calque of „play along”: „joacă și tu”, „au răspuns și ei”"),
    (r"\bChiar el\b", "a masculine pronoun for a name of either gender"),
    (r"\bOdată primit\b", "a participle agreeing with a name of either gender"),
    (r"^(Pierde|Câștigă|Primește|Atacă|Ajută)\b[^:]*: \{\w+\}\.?$", "inverted sentence: the name is the subject"),
    (r"\bvizualiza|\bPrevizualiza", "calque: „vezi / arată” or „Privire de ansamblu”"),
]
PERSON_PLACEHOLDERS = ("name", "names", "a", "d", "winner", "opponent", "debtor", "player")
DECLINED = [
    r"\blui \{\w+\}",                      # "în mâna lui {name}"
    r"\{\w+\}-(ului|ei|lui|a)\b",          # "{name}-ului"
    r"\bcasei \{\w+\}",                    # "casei {house}"
    r"\bal(e|ei)? lui\b \{",
]
MASCULINE_FOR_NAME = re.compile(r"\bel\b|\blui\b(?! X)", re.IGNORECASE)  # "său" is his or her: allowed


def test_banned_forms() -> None:
    bad = []
    for label, text in texts():
        for pattern, why in BANNED:
            if re.search(pattern, text):
                bad.append(f"{label}: {why}: {text}")
    assert not bad, f"{len(bad)} texts against the glossary:\n" + "\n".join(bad)


def test_names_are_never_declined() -> None:
    bad = []
    for label, text in texts():
        for pattern in DECLINED:
            if re.search(pattern, text):
                bad.append(f"{label}: {text}")
        has_person = any("{" + p + "}" in text for p in PERSON_PLACEHOLDERS)
        if has_person and MASCULINE_FOR_NAME.search(re.sub(r"\{[^}]*\}", "X", text)):
            bad.append(f"{label} (masculine pronoun in a text about a name): {text}")
    assert not bad, f"{len(bad)} texts decline a name or give it a gender:\n" + "\n".join(bad)


# --- letters and quotes ---------------------------------------------------------------------------------------------

def test_comma_below_not_cedilla() -> None:
    bad = [f"{label}: {text}" for label, text in texts() if re.search("[şţŞŢ]", text)]
    assert not bad, "ș ț with the comma below (U+0219, U+021B), not the cedilla:\n" + "\n".join(bad)


def test_letter_and_quote_detectors() -> None:
    """The catalog of 495a94e had no cedilla and no straight quote: these two checks guard, their detectors are
    tested here on known strings."""
    assert re.search("[şţŞŢ]", "Aşteaptă") and not re.search("[şţŞŢ]", "Așteaptă")
    assert re.search('["“]', 'Apasă "Începe"') and not re.search('["“]', "Apasă „Începe”")


def test_romanian_quotes() -> None:
    """Quotes are „…” (U+201E … U+201D): no straight "…", no English “…”."""
    bad = [f"{label}: {text}" for label, text in texts() if re.search('["“]', text)]
    assert not bad, "straight or English quotes in Romanian text:\n" + "\n".join(bad)

"""The rules live in the repository (docs/rules/<game>.md): every rule ID the code and tests cite is defined there,
and every ID defined there is cited somewhere or marked as having nothing to check (flavour) or as settled by
decisions that are themselves defined. Issue [15]: the IDs were defined only outside the repository."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "rules"
PREFIXES = {"CAMP": "campaign", "CROWN": "crown", "HIER": "hierarchy", "AVIG": "avignon", "QUIZ": "quiz"}
ID = re.compile(r"\b(" + "|".join(PREFIXES) + r")-[A-Z]+[0-9]+\b")
DEFINITION = re.compile(r"^- \*\*(?P<id>[A-Z]+-[A-Z]+[0-9]+)\*\*(?P<rest>.*)$")
FLAVOUR = re.compile(r"^\s*\*\(flavour\)\*")
SETTLED = re.compile(r"^\s*\*\(settled by (?P<by>[A-Z0-9, -]+)\)\*")
CITING = ("engine", "host", "player", "questions", "templates", "bench", "tests")
SOURCE_SUFFIXES = {".py", ".js", ".html", ".css", ".json", ".md"}


def definitions() -> dict[str, tuple[str, str]]:
    """Every defined ID -> (the file it is defined in, the rest of its first line)."""
    found: dict[str, tuple[str, str]] = {}
    for path in sorted(RULES.glob("*.md")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            match = DEFINITION.match(line)
            if match is None:
                continue
            rule = match["id"]
            assert rule not in found, f"{rule} is defined twice: {found[rule][0]} and {path.name}:{number}"
            found[rule] = (f"{path.name}:{number}", match["rest"])
    return found


def citations() -> dict[str, str]:
    """Every ID the code and tests cite -> one place that cites it."""
    cited: dict[str, str] = {}
    for folder in CITING:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix not in SOURCE_SUFFIXES or not path.is_file() or path == Path(__file__):
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            for match in ID.finditer(text):
                cited.setdefault(match.group(0), f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, match.start()) + 1}")
    return cited


def test_every_rules_file_defines_ids_of_its_own_game_only():
    defined = definitions()
    assert {path.stem for path in RULES.glob("*.md")} == set(PREFIXES.values())
    for rule, (where, _rest) in defined.items():
        prefix = rule.split("-")[0]
        assert prefix in PREFIXES, f"{where}: {rule} has an unknown prefix"
        assert where.startswith(PREFIXES[prefix] + ".md:"), f"{rule} is defined in {where}, not {PREFIXES[prefix]}.md"


def test_every_cited_rule_id_is_defined_in_docs_rules():
    defined = definitions()
    undefined = {rule: where for rule, where in citations().items() if rule not in defined}
    assert not undefined, f"cited but not defined in docs/rules/: {undefined}"


def test_every_defined_rule_id_is_cited_or_marked():
    defined, cited = definitions(), citations()
    unmarked = []
    for rule, (where, rest) in sorted(defined.items()):
        settled = SETTLED.match(rest)
        if settled is not None:
            deciders = [d.strip() for d in settled["by"].split(",")]
            missing = [d for d in deciders if d not in defined]
            assert not missing, f"{where}: {rule} is settled by {missing}, which docs/rules/ does not define"
            continue
        if FLAVOUR.match(rest) is None and rule not in cited:
            unmarked.append(f"{rule} ({where})")
    assert not unmarked, "defined, never cited by code or tests, and not marked flavour or settled: " + ", ".join(unmarked)


def test_the_check_can_fail(tmp_path: Path, monkeypatch):
    """The parser sees a definition, a marker and a citation as the checks above rely on."""
    (tmp_path / "quiz.md").write_text("- **QUIZ-S1** Scores.\n- **QUIZ-S2** *(flavour)* A name.\n"
                                      "- **QUIZ-S3** *(settled by QUIZ-S9)* An ambiguity.\n", encoding="utf-8")
    monkeypatch.setattr(__import__(__name__, fromlist=["RULES"]), "RULES", tmp_path)
    defined = definitions()
    assert set(defined) == {"QUIZ-S1", "QUIZ-S2", "QUIZ-S3"}
    assert FLAVOUR.match(defined["QUIZ-S2"][1]) and not FLAVOUR.match(defined["QUIZ-S1"][1])
    assert SETTLED.match(defined["QUIZ-S3"][1])["by"] == "QUIZ-S9"
    assert "QUIZ-S1" in citations()  # the Quiz's engine cites its scoring rules

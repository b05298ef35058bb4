"""axe-core in the screen checker (issue [18], "open to every guest").

axe-core comes from the ``axe-playwright-python`` package, which carries its ``axe.min.js``: it is put into the page
from disk, nothing is downloaded. ``judge(page, scenario)`` runs it on the page as it is now and gives a problem for
each serious or critical violation (kind ``axe-<rule id>``, one per element); the moderate ones are counted, per
scenario and rule id, in test-artifacts/screens/axe-moderate.json (the closing note and docs/accessibility.md quote
them). Minor ones are neither judged nor counted.

axe is slow (a second or more a page on a busy machine): the harness runs it once per stage, page and language, at
the smallest size of the page's kind (where the screenshot is taken), not at every size.
"""

from __future__ import annotations

import json
import os
from typing import Any

from axe_playwright_python.base import AXE_SCRIPT
from playwright.sync_api import Page

from tests.e2e import ARTIFACTS

JUDGED = ("serious", "critical")
COUNTED = "moderate"
MODERATE_FILE = ARTIFACTS / "screens" / "axe-moderate.json"

# Run in the page: axe is put in once (a page keeps it across renders), then run on the whole document. Only the
# violations come back, each with its elements' selectors and a short text, so the answer stays small.
# (axe itself goes in as an expression of its own: an eval inside the page would be refused by the page's CSP.)
# Animations are finished first, as before the checker: a redraw since then may have started one (a tile rising in
# from transparent), and axe would judge the contrast of its first frame.
RUN = """async () => {
    for (const a of document.getAnimations()) { try { a.finish(); } catch (e) { /* infinite */ } }
    const results = await window.axe.run(document, {resultTypes: ["violations"]});
    return results.violations.map((v) => ({id: v.id, impact: v.impact, help: v.help,
        nodes: v.nodes.map((n) => ({target: n.target.join(" "), html: n.html.slice(0, 160),
            summary: (n.failureSummary || "").slice(0, 300)}))}));
}"""

_counts: dict[str, dict[str, dict[str, Any]]] = {}  # this process's scenarios: rule id -> screens, elements, help


def _record_moderate(scenario: str, violations: list[dict[str, Any]]) -> None:
    """Add a judged screen's moderate violations to the counts: per scenario and rule id, the screens it was seen on
    and the elements in all. A scenario's counts start again the first time it is judged in a run; the file keeps the
    other scenarios' (other runs, other processes) and is replaced whole, never seen half written."""
    mine = _counts.setdefault(scenario, {})
    for v in violations:
        if v["impact"] != COUNTED:
            continue
        entry = mine.setdefault(v["id"], {"screens": 0, "elements": 0, "help": v["help"]})
        entry["screens"] += 1
        entry["elements"] += len(v["nodes"])
    try:
        counts = json.loads(MODERATE_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        counts = {}
    counts.update(_counts)
    MODERATE_FILE.parent.mkdir(parents=True, exist_ok=True)
    partial = MODERATE_FILE.with_name(f"{MODERATE_FILE.name}.{os.getpid()}")
    partial.write_text(json.dumps(counts, indent=1, sort_keys=True, ensure_ascii=False), encoding="utf-8")
    os.replace(partial, MODERATE_FILE)


def judge(page: Page, scenario: str) -> list[tuple[str, str, str, str]]:
    """axe on the page now: (kind, where, text, detail) for each element of a serious or critical violation."""
    if not page.evaluate("() => !!window.axe"):
        page.evaluate(AXE_SCRIPT)
    violations: list[dict[str, Any]] = page.evaluate(RUN)
    _record_moderate(scenario, violations)
    return [(f"axe-{v['id']}", node["target"], node["html"], f"{v['impact']}: {v['help']}. {node['summary']}")
            for v in violations if v["impact"] in JUDGED for node in v["nodes"]]

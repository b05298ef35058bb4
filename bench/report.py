"""Figures and the tables they are printed in."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any


def percentile(values: Sequence[float], p: float) -> float | None:
    """The p-th percentile (nearest rank) of the values, None if there are none."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]


def summary(values: Sequence[float]) -> dict[str, float | None]:
    """Median, p95, p99 and max, in the values' unit, rounded to 0.1."""
    def r(x: float | None) -> float | None:
        return None if x is None else round(x, 1)

    return {"n": len(values), "p50": r(percentile(values, 50)), "p95": r(percentile(values, 95)),
            "p99": r(percentile(values, 99)), "max": r(max(values) if values else None)}


def cell(value: Any) -> str:
    """One table cell."""
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.1f}"
    return str(value)


def table(title: str, columns: list[tuple[str, str]], rows: list[dict[str, Any]]) -> str:
    """A Markdown table: ``columns`` are (key, heading) pairs; nested keys are written ``a.b``."""
    def get(row: dict[str, Any], key: str) -> Any:
        value: Any = row
        for part in key.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        return value

    lines = [f"### {title}", "", "| " + " | ".join(h for _, h in columns) + " |",
             "|" + "|".join("---:" if i else "---" for i in range(len(columns))) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(cell(get(row, k)) for k, _ in columns) + " |")
    return "\n".join(lines)

"""Questions as the Short Campaign uses them: its two question types and the check of its logged decks.

A game's questions are fixed when it starts (``CampaignGame.prepare``) and logged with the start, so a replay asks
exactly the same ones. In a room they come from question packs (``CampaignGame.prepare`` with a supply); without one
from the generated built-in set every question game shares (``engine.questions.builtin_questions``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.core import InvalidSettings
from engine.questions import MAX_NUMBER, Text, checked_text


@dataclass(frozen=True)
class NumericQuestion:
    """A quick question: the closest whole number wins."""

    id: str
    prompt: Text
    answer: int
    unit: Text | None = None

    def public(self) -> dict[str, Any]:
        """What may be shown before the reveal (no answer)."""
        return {"id": self.id, "kind": "numeric", "prompt": self.prompt, "unit": self.unit}


@dataclass(frozen=True)
class ChoiceQuestion:
    """A multiple-choice question: 2-6 options, exactly one correct."""

    id: str
    prompt: Text
    options: tuple[Text, ...]
    correct: int

    def public(self) -> dict[str, Any]:
        """What may be shown before the reveal (no answer)."""
        return {"id": self.id, "kind": "choice", "prompt": self.prompt, "options": list(self.options)}


def parse_content(content: Any) -> tuple[tuple[NumericQuestion, ...], tuple[ChoiceQuestion, ...]]:
    """The question decks of a game's content, checked."""
    if not isinstance(content, dict):
        raise InvalidSettings("the game's content must be an object with numeric and choice questions", "content")
    numeric, choice = [], []
    for i, item in enumerate(content.get("numeric") or []):
        where = f"numeric[{i}]"
        answer = item.get("answer") if isinstance(item, dict) else None
        if isinstance(answer, bool) or not isinstance(answer, int) or not 0 <= answer <= MAX_NUMBER:
            raise InvalidSettings(f"{where}.answer must be a whole number from 0 to {MAX_NUMBER}", where)
        unit = item.get("unit")
        numeric.append(NumericQuestion(str(item.get("id", where)), checked_text(item.get("prompt"), f"{where}.prompt"),
                                       answer, None if unit is None else checked_text(unit, f"{where}.unit")))
    for i, item in enumerate(content.get("choice") or []):
        where = f"choice[{i}]"
        if not isinstance(item, dict) or not isinstance(item.get("options"), list):
            raise InvalidSettings(f"{where} must have options", where)
        options = tuple(checked_text(o, f"{where}.options[{k}]") for k, o in enumerate(item["options"]))
        correct = item.get("correct")
        if not 2 <= len(options) <= 6:
            raise InvalidSettings(f"{where} must have 2 to 6 options", where)
        if isinstance(correct, bool) or not isinstance(correct, int) or not 0 <= correct < len(options):
            raise InvalidSettings(f"{where}.correct must be the index of one option", where)
        choice.append(ChoiceQuestion(str(item.get("id", where)), checked_text(item.get("prompt"), f"{where}.prompt"),
                                     options, correct))
    if not numeric or not choice:
        raise InvalidSettings("a Short Campaign needs numeric and multiple-choice questions", "content")
    return tuple(numeric), tuple(choice)

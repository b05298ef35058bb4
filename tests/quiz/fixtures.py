"""Quiz games built straight from pack questions, and the moves of a test written as the room would make them."""

from __future__ import annotations

from typing import Any

from engine.core import Context, Slot, Timing
from engine.quiz.game import QuizGame
from questions.library import Entry
from questions.model import Question

GAME = QuizGame()


def choice(i: int, correct: int = 0, options: int = 4, time: int | None = None, pack: str = "p",
           image: str | None = None, points: int = 1) -> Entry:
    """A multiple-choice question ``pack:i`` with ``options`` options, the right one at ``correct``."""
    return Entry(f"{pack}:{i}", "en", Question("choice", f"Choice {i}?", "general", "easy",
                                               options=tuple(f"option {k}" for k in range(options)),
                                               correct=correct, time=time, image=image, points=points))


def numeric(i: int, answer: int = 100, time: int | None = None, pack: str = "p", margin: int | None = None,
            low: int | None = None, high: int | None = None, points: int = 1) -> Entry:
    """A numeric question ``pack:i`` whose answer is ``answer`` (its own margin and slider bounds if given)."""
    return Entry(f"{pack}:{i}", "en", Question("numeric", f"Number {i}?", "general", "easy", answer=answer,
                                               unit="m", time=time, margin=margin, low=low, high=high,
                                               points=points))


def multi(i: int, rights: tuple[int, ...] = (0, 2), options: int = 4, points: int = 1, pack: str = "p") -> Entry:
    """A choose-all-that-apply question ``pack:i``: ``options`` options, the right ones ``rights``."""
    return Entry(f"{pack}:{i}", "en", Question("multi", f"Multi {i}?", "general", "easy",
                                               options=tuple(f"option {k}" for k in range(options)), rights=rights,
                                               points=points))


def poll(i: int, options: int = 3, pack: str = "p") -> Entry:
    """A poll ``pack:i`` with ``options`` options and no right one."""
    return Entry(f"{pack}:{i}", "en", Question("poll", f"Poll {i}?", "general", "easy",
                                               options=tuple(f"option {k}" for k in range(options))))


def order(i: int, items: int = 4, points: int = 1, pack: str = "p") -> Entry:
    """An order question ``pack:i``: items "item 0".. listed in the right order."""
    return Entry(f"{pack}:{i}", "en", Question("order", f"Order {i}?", "general", "easy",
                                               options=tuple(f"item {k}" for k in range(items)), points=points))


def text(i: int, accepted: tuple[str, ...] = ("Paris",), points: int = 1, pack: str = "p") -> Entry:
    """A type-answer question ``pack:i`` with these accepted answers."""
    return Entry(f"{pack}:{i}", "en", Question("text", f"Text {i}?", "general", "easy", accepted=accepted,
                                               points=points))


ACTION_KEYS = {"choice": "choice", "poll": "choice", "numeric": "answer", "multi": "multi", "order": "order",
               "text": "text"}


def settings(**chosen: Any) -> dict[str, Any]:
    """Every setting: the defaults, pack order (so a test knows the order), then ``chosen``."""
    return {**GAME.info.default_settings(), "order": "pack", **chosen}


def start(entries: list[Entry] | None = None, players: int = 3, seed: int = 1, now: int = 0,
          seen: set[str] | None = None, **chosen: Any) -> Any:
    """A new quiz for ``players`` seats over these questions (default: five multiple-choice), at its first question."""
    entries = entries if entries is not None else [choice(i) for i in range(5)]
    picked = settings(**chosen)
    content = GAME.prepare(picked, seed, {"questions": entries, "seen": seen or set()})
    return GAME.setup([Slot(i, f"P{i}") for i in range(players)], Context(seed, picked, 1.0, content), now)


def view(state: Any, seat: int | None = None) -> dict[str, Any]:
    return GAME.view(state, seat)


def unlock(state: Any) -> Any:
    """Let the "get ready" lock pass: the question opens for answers."""
    assert view(state)["phase"] == "question" and GAME.answer_window(state, 0) is None
    state = GAME.on_timeout(state, GAME.deadline(state))
    assert GAME.answer_window(state, 0) is not None
    return state


def answer(state: Any, slot: int, value: Any, ms: int) -> Any:
    """The seat's answer, ``ms`` after the unlock by the room's fair timing, as a phone would send it."""
    opens = view(state)["question"]["opens_ms"]
    key = ACTION_KEYS[view(state)["question"]["kind"]]
    action = GAME.parse_action({key: value})
    return GAME.apply(state, slot, action, opens + ms, Timing(ms, opens + ms, opens))


def close(state: Any) -> Any:
    """Time runs out on the open question."""
    assert view(state)["phase"] == "question"
    return GAME.on_timeout(state, GAME.deadline(state))


def onwards(state: Any) -> Any:
    """The reveal's (or standings') time passes."""
    assert view(state)["phase"] in ("reveal", "standings")
    return GAME.on_timeout(state, GAME.deadline(state))


def results(state: Any) -> dict[int, dict[str, Any]]:
    """The revealed question's results by slot."""
    return {r["slot"]: r for r in view(state)["reveal"]["results"]}


def scores(state: Any) -> list[int]:
    return [p["score"] for p in view(state)["players"]]

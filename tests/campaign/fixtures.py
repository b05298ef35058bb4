"""Compact Short Campaign positions: a small grid map and a one-line board description.

A board is written as one character per territory, row by row: ``.`` free, ``a``/``b``/``c`` owned by seat 0/1/2,
upper case ``A``/``B``/``C`` that seat's castle. ``board("A a . / . b B / c . C")`` on the 3x3 grid.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from engine.campaign.game import CASTLE_VALUE, PICK_VALUE, CampaignGame, CampaignState
from engine.campaign.maps import CampaignMap, parse_map, register_map
from engine.core import Context, Slot

GAME = CampaignGame()


def grid_map_data(rows: int, cols: int, map_id: str | None = None) -> dict[str, Any]:
    """The JSON of a rows x cols grid of square territories, neighbours up, down, left and right."""
    territories = []
    for r in range(rows):
        for c in range(cols):
            near = [f"t{rr}-{cc}" for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
                    if 0 <= rr < rows and 0 <= cc < cols]
            x, y = c * 100, r * 100
            territories.append({"id": f"t{r}-{c}", "name": {"en": f"T{r}{c}", "fa": f"ت{r}{c}", "ro": f"T{r}{c}"},
                                "path": f"M{x},{y} L{x + 100},{y} L{x + 100},{y + 100} L{x},{y + 100} Z",
                                "label": [x + 50, y + 50], "neighbours": near})
    return {"format": "throneroom-map/1", "id": map_id or f"grid-{rows}x{cols}",
            "name": {"en": "Grid", "fa": "شبکه", "ro": "Grilă"}, "credits": "test fixture",
            "view_box": [0, 0, cols * 100, rows * 100], "territories": territories}


def grid_map(rows: int, cols: int, map_id: str | None = None) -> CampaignMap:
    """A grid map, validated and registered so games can be played on it."""
    game_map = parse_map(grid_map_data(rows, cols, map_id))
    register_map(game_map)
    return game_map


def start(seed: int = 1, rows: int = 3, cols: int = 3, now: int = 0, **settings: Any) -> CampaignState:
    """A new game on a grid map, at its first question."""
    game_map = grid_map(rows, cols)
    chosen = {**GAME.info.default_settings(), "map": game_map.id, **settings}
    ctx = Context(seed, chosen, 1.0, GAME.prepare(chosen, seed))
    return GAME.setup([Slot(i, "ABC"[i]) for i in range(3)], ctx, now)


def board(state: CampaignState, layout: str, scores: tuple[int, int, int] | None = None, **changes: Any
          ) -> CampaignState:
    """The state with territories owned as the layout says (values: castles 1000, others 200)."""
    cells = layout.replace("/", " ").split()
    assert len(cells) == len(state.owner), (len(cells), len(state.owner))
    owner: list[int | None] = []
    value: list[int] = []
    castles = [0, 0, 0]
    for i, cell in enumerate(cells):
        if cell == ".":
            owner.append(None)
            value.append(0)
        else:
            seat = "abc".index(cell.lower())
            owner.append(seat)
            value.append(CASTLE_VALUE if cell.isupper() else PICK_VALUE)
            if cell.isupper():
                castles[seat] = i
    score = scores or tuple(sum(v for o, v in zip(owner, value) if o == s) for s in range(3))
    return replace(state, owner=tuple(owner), value=tuple(value), castle_of=tuple(castles), score=tuple(score),
                   scores_log=tuple((s, score[s], "fixture") for s in range(3)), **changes)


def tid(state: CampaignState, index: int) -> str:
    """The id of a territory by index."""
    return state.game_map.territories[index].id

"""Short Campaign maps as data (CAMP-D1): the format, the loader and the validator.

A map file is JSON (format ``throneroom-map/1``, documented in docs/maps.md). The validator names every problem
with its place in the file (``territories[3].neighbours[1]``), and a map is valid when its adjacency is symmetric,
its graph connected, and at least three pairwise non-adjacent territories exist for the castles.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from itertools import combinations
from pathlib import Path
from typing import Any

FORMAT = "throneroom-map/1"
LANGUAGES = ("en", "fa", "ro")
MAPS_DIR = Path(__file__).with_name("maps")
SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")
PATH_TOKENS = re.compile(r"\s*(?:([MmLlHhVvCcSsQqTtAaZz])|(-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?))\s*,?")
MIN_TERRITORIES, MAX_TERRITORIES = 4, 60
BACKGROUND_KINDS = ("sea", "land", "lake", "mountains", "river", "forest", "lane")
MAX_FILE_BYTES = 2 * 1024 * 1024


class MapError(ValueError):
    """A map that cannot be used; ``problems`` lists every problem found, each naming its place."""

    def __init__(self, problems: list[str]):
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class Territory:
    """One territory: its id, names, outline, label point and index in the map."""

    index: int
    id: str
    name: dict[str, str]
    path: str
    label: tuple[float, float]


@dataclass(frozen=True)
class CampaignMap:
    """A validated map: territories in file order and adjacency as index sets."""

    id: str
    name: dict[str, str]
    credits: str
    view_box: tuple[float, float, float, float]
    territories: tuple[Territory, ...]
    neighbours: tuple[frozenset[int], ...]
    background: tuple[dict[str, str], ...]
    sea_lanes: tuple[tuple[int, int], ...]

    @property
    def size(self) -> int:
        """How many territories the map has."""
        return len(self.territories)

    def index_of(self, territory_id: str) -> int | None:
        """The index of a territory id, if the map has it."""
        for territory in self.territories:
            if territory.id == territory_id:
                return territory.index
        return None

    def is_adjacent(self, a: int, b: int) -> bool:
        """Whether two territories share a border."""
        return b in self.neighbours[a]

    def castle_triples(self) -> list[tuple[int, int, int]]:
        """Every set of three pairwise non-adjacent territories, in a fixed order (computed once per map)."""
        cached = self.__dict__.get("_triples")
        if cached is None:
            cached = [t for t in combinations(range(self.size), 3) if not (
                self.is_adjacent(t[0], t[1]) or self.is_adjacent(t[0], t[2]) or self.is_adjacent(t[1], t[2]))]
            object.__setattr__(self, "_triples", cached)
        return cached

    def drawing(self) -> dict[str, Any]:
        """What a page needs to draw the map (no game state)."""
        return {
            "id": self.id,
            "name": self.name,
            "credits": self.credits,
            "view_box": list(self.view_box),
            "background": list(self.background),
            "territories": [{"id": t.id, "name": t.name, "path": t.path, "label": list(t.label)}
                            for t in self.territories],
            "sea_lanes": [[self.territories[a].id, self.territories[b].id] for a, b in self.sea_lanes],
        }


def _names(value: Any, where: str, problems: list[str]) -> dict[str, str]:
    if not isinstance(value, dict):
        problems.append(f"{where}: must be an object with a name in each of {', '.join(LANGUAGES)}")
        return {}
    names = {}
    for language in LANGUAGES:
        text = value.get(language)
        if not isinstance(text, str) or not text.strip():
            problems.append(f"{where}.{language}: missing or empty")
        elif len(text) > 40:
            problems.append(f"{where}.{language}: longer than 40 characters")
        else:
            names[language] = text.strip()
    return names


def _check_path(value: Any, where: str, problems: list[str]) -> str:
    if not isinstance(value, str) or not value.strip():
        problems.append(f"{where}: must be a non-empty SVG path")
        return ""
    position = 0
    commands = 0
    while position < len(value):
        match = PATH_TOKENS.match(value, position)
        if match is None or match.end() == position:
            problems.append(f"{where}: not an SVG path at character {position + 1} ({value[position:position + 12]!r})")
            return ""
        commands += 1 if match.group(1) else 0
        position = match.end()
    if not value.lstrip().startswith(("M", "m")) or commands < 2:
        problems.append(f"{where}: an outline starts with M and has at least one more command")
        return ""
    return value.strip()


def _number_list(value: Any, count: int) -> tuple[float, ...] | None:
    if (isinstance(value, list) and len(value) == count
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)):
        return tuple(float(v) for v in value)
    return None


def parse_map(data: Any) -> CampaignMap:
    """A validated map from parsed JSON, or MapError listing every problem."""
    problems: list[str] = []
    if not isinstance(data, dict):
        raise MapError(["the file must hold a JSON object"])
    if data.get("format") != FORMAT:
        problems.append(f"format: must be {FORMAT!r}")
    map_id = data.get("id")
    if not isinstance(map_id, str) or not SLUG.match(map_id):
        problems.append("id: must be a lowercase slug (letters, digits, hyphens)")
        map_id = "?"
    name = _names(data.get("name"), "name", problems)
    credits = data.get("credits", "")
    if not isinstance(credits, str):
        problems.append("credits: must be text")
        credits = ""
    box = _number_list(data.get("view_box"), 4)
    view_box = (0.0, 0.0, 1.0, 1.0)
    if box is None or box[2] <= 0 or box[3] <= 0:
        problems.append("view_box: must be [x, y, width, height] with a positive width and height")
    else:
        view_box = (box[0], box[1], box[2], box[3])

    background = []
    raw_background = data.get("background", [])
    if not isinstance(raw_background, list):
        problems.append("background: must be a list")
        raw_background = []
    for i, item in enumerate(raw_background):
        where = f"background[{i}]"
        if not isinstance(item, dict) or item.get("kind") not in BACKGROUND_KINDS:
            problems.append(f"{where}.kind: must be one of {', '.join(BACKGROUND_KINDS)}")
            continue
        path = _check_path(item.get("path"), f"{where}.path", problems)
        if path:
            background.append({"kind": item["kind"], "path": path})

    raw = data.get("territories")
    if not isinstance(raw, list):
        raise MapError([*problems, "territories: must be a list"])
    if not MIN_TERRITORIES <= len(raw) <= MAX_TERRITORIES:
        problems.append(f"territories: a map has {MIN_TERRITORIES} to {MAX_TERRITORIES} territories, not {len(raw)}")
    ids: dict[str, int] = {}
    territories = []
    raw_neighbours: list[list[Any]] = []
    for i, item in enumerate(raw):
        where = f"territories[{i}]"
        if not isinstance(item, dict):
            problems.append(f"{where}: must be an object")
            raw_neighbours.append([])
            continue
        tid = item.get("id")
        if not isinstance(tid, str) or not SLUG.match(tid):
            problems.append(f"{where}.id: must be a lowercase slug (letters, digits, hyphens)")
            tid = f"?{i}"
        elif tid in ids:
            problems.append(f"{where}.id: {tid!r} is already used by territories[{ids[tid]}]")
        ids.setdefault(tid, i)
        names = _names(item.get("name"), f"{where}.name", problems)
        path = _check_path(item.get("path"), f"{where}.path", problems)
        label = _number_list(item.get("label"), 2)
        if label is None:
            problems.append(f"{where}.label: must be [x, y]")
            label = (0.0, 0.0)
        elif not (view_box[0] <= label[0] <= view_box[0] + view_box[2]
                  and view_box[1] <= label[1] <= view_box[1] + view_box[3]):
            problems.append(f"{where}.label: {list(label)} is outside the view_box")
        neighbours = item.get("neighbours")
        if not isinstance(neighbours, list):
            problems.append(f"{where}.neighbours: must be a list of territory ids")
            neighbours = []
        raw_neighbours.append(neighbours)
        territories.append(Territory(i, tid, names, path, (label[0], label[1])))

    adjacency: list[set[int]] = [set() for _ in raw]
    for i, neighbours in enumerate(raw_neighbours):
        for j, other in enumerate(neighbours):
            where = f"territories[{i}].neighbours[{j}]"
            if not isinstance(other, str) or other not in ids:
                problems.append(f"{where}: {other!r} is not a territory of this map")
            elif ids[other] == i:
                problems.append(f"{where}: a territory cannot border itself")
            elif ids[other] in adjacency[i]:
                problems.append(f"{where}: {other!r} is listed twice")
            else:
                adjacency[i].add(ids[other])
    for i, near in enumerate(adjacency):
        for j in sorted(near):
            if i not in adjacency[j]:
                problems.append(f"territories[{j}].neighbours: {raw[i].get('id')!r} lists {raw[j].get('id')!r} "
                                f"as a neighbour but not the other way round (adjacency must be symmetric)")

    lanes = []
    raw_lanes = data.get("sea_lanes", [])
    if not isinstance(raw_lanes, list):
        problems.append("sea_lanes: must be a list of [id, id] pairs")
        raw_lanes = []
    for k, pair in enumerate(raw_lanes):
        if (not isinstance(pair, list) or len(pair) != 2 or not all(isinstance(p, str) and p in ids for p in pair)):
            problems.append(f"sea_lanes[{k}]: must be two territory ids of this map")
        elif ids[pair[1]] not in adjacency[ids[pair[0]]]:
            problems.append(f"sea_lanes[{k}]: {pair[0]!r} and {pair[1]!r} must also be neighbours")
        else:
            lanes.append((ids[pair[0]], ids[pair[1]]))

    if raw and not problems:
        seen = {0}
        frontier = [0]
        while frontier:
            for j in adjacency[frontier.pop()]:
                if j not in seen:
                    seen.add(j)
                    frontier.append(j)
        if len(seen) != len(raw):
            cut = sorted(territories[i].id for i in set(range(len(raw))) - seen)
            problems.append(f"territories: the map is not connected; cannot reach {', '.join(cut)} "
                            f"from {territories[0].id}")
    if problems:
        raise MapError(problems)
    result = CampaignMap(map_id, name, credits, view_box, tuple(territories),
                         tuple(frozenset(a) for a in adjacency), tuple(background), tuple(lanes))
    if not result.castle_triples():
        raise MapError(["territories: no three territories are pairwise non-adjacent, so castles cannot be placed"])
    return result


def load_map_file(path: str | Path) -> CampaignMap:
    """A validated map from a file; MapError (problems named) for a bad file."""
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError as error:
        raise MapError([f"{path}: cannot read ({error.strerror})"]) from None
    if size > MAX_FILE_BYTES:
        raise MapError([f"{path}: the file is larger than {MAX_FILE_BYTES // 1024} KB"])
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as error:
        raise MapError([f"{path}: not UTF-8 (byte {error.start + 1})"]) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise MapError([f"{path}: not JSON: {error.msg} at line {error.lineno}, column {error.colno}"]) from None
    return parse_map(data)


def builtin_map_ids() -> tuple[str, ...]:
    """The maps shipped with the game, by id."""
    return tuple(sorted(p.stem for p in MAPS_DIR.glob("*.json")))


EXTRA_MAPS: dict[str, CampaignMap] = {}


def register_map(game_map: CampaignMap) -> None:
    """Make a validated map playable by id (custom maps, test fixtures)."""
    EXTRA_MAPS[game_map.id] = game_map


def builtin_map(map_id: str) -> CampaignMap:
    """A playable map by id: a registered one, else a built-in one."""
    if map_id in EXTRA_MAPS:
        return EXTRA_MAPS[map_id]
    return _load_builtin(map_id)


@cache
def _load_builtin(map_id: str) -> CampaignMap:
    if map_id not in builtin_map_ids():
        raise MapError([f"no built-in map {map_id!r}; there are {', '.join(builtin_map_ids())}"])
    return load_map_file(MAPS_DIR / f"{map_id}.json")

"""Map files (CAMP-D1): the validator names every problem; the built-in maps are valid."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.campaign.maps import MapError, builtin_map, builtin_map_ids, load_map_file, parse_map
from tests.campaign.fixtures import grid_map_data
from tests.conftest import ROOT


def problems(data) -> list[str]:
    with pytest.raises(MapError) as error:
        parse_map(data)
    return error.value.problems


def test_a_grid_is_valid_and_knows_its_castle_places():
    # CAMP-D1
    game_map = parse_map(grid_map_data(3, 3))
    assert game_map.size == 9 and game_map.is_adjacent(0, 1) and not game_map.is_adjacent(0, 4)
    for a, b, c in game_map.castle_triples():
        assert not (game_map.is_adjacent(a, b) or game_map.is_adjacent(b, c) or game_map.is_adjacent(a, c))
    assert (0, 2, 6) in game_map.castle_triples()


def test_asymmetric_adjacency_is_named():
    # CAMP-D1
    data = grid_map_data(3, 3)
    data["territories"][0]["neighbours"].append("t1-1")
    found = problems(data)
    assert any("territories[4].neighbours" in p and "symmetric" in p for p in found), found


def test_a_disconnected_map_is_named():
    # CAMP-D1
    data = grid_map_data(1, 5)
    data["territories"][1]["neighbours"].remove("t0-2")
    data["territories"][2]["neighbours"].remove("t0-1")
    found = problems(data)
    assert any("not connected" in p and "t0-2" in p for p in found), found


def test_no_room_for_three_castles_is_named():
    # CAMP-D1
    data = grid_map_data(2, 2)
    for t in data["territories"]:
        t["neighbours"] = [o["id"] for o in data["territories"] if o["id"] != t["id"]]
    assert any("castles cannot be placed" in p for p in problems(data))


@pytest.mark.parametrize("change,where", [
    (lambda d: d.update(format="other"), "format"),
    (lambda d: d.update(id="Bad Id"), "id"),
    (lambda d: d["name"].pop("fa"), "name.fa"),
    (lambda d: d.update(view_box=[0, 0, -1, 5]), "view_box"),
    (lambda d: d["territories"][2].update(id="t0-0"), "territories[2].id"),
    (lambda d: d["territories"][3].update(path="M 0 0 X 5"), "territories[3].path"),
    (lambda d: d["territories"][3].update(path=""), "territories[3].path"),
    (lambda d: d["territories"][4].update(label=[5000, 5]), "territories[4].label"),
    (lambda d: d["territories"][4].update(label="middle"), "territories[4].label"),
    (lambda d: d["territories"][5]["neighbours"].append("nowhere"), "territories[5].neighbours[3]"),
    (lambda d: d["territories"][5]["neighbours"].append("t1-2"), "territories[5].neighbours[3]"),
    (lambda d: d["territories"][5].update(neighbours="t0-2"), "territories[5].neighbours"),
    (lambda d: d["territories"][6]["name"].update(ro=""), "territories[6].name.ro"),
    (lambda d: d.update(background=[{"kind": "lava", "path": "M0 0 L1 1"}]), "background[0].kind"),
    (lambda d: d.update(sea_lanes=[["t0-0", "t2-2"]]), "sea_lanes[0]"),
    (lambda d: d.update(territories=d["territories"][:3]), "territories"),
])
def test_each_problem_names_its_place(change, where):
    # CAMP-D1
    data = copy.deepcopy(grid_map_data(3, 3))
    change(data)
    found = problems(data)
    assert any(p.startswith(where) for p in found), found


def test_every_problem_is_listed_at_once():
    data = grid_map_data(3, 3)
    data["territories"][0]["name"].pop("en")
    data["territories"][8]["path"] = "nonsense"
    assert len(problems(data)) >= 2


def test_bad_files(tmp_path: Path):
    for name, content in (("bad.json", b"{nope"), ("latin.json", "é".encode("latin-1")), ("list.json", b"[1,2]")):
        path = tmp_path / name
        path.write_bytes(content)
        with pytest.raises(MapError):
            load_map_file(path)
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (3 * 1024 * 1024))
    with pytest.raises(MapError, match="larger"):
        load_map_file(big)


def test_the_built_in_maps_have_15_and_19_territories_and_credits():
    # CAMP-D1
    sizes = sorted(builtin_map(m).size for m in builtin_map_ids())
    assert 15 in sizes and 19 in sizes
    for map_id in builtin_map_ids():
        game_map = builtin_map(map_id)
        assert game_map.credits and len(game_map.castle_triples()) >= 20
        assert all(2 <= len(n) <= 7 for n in game_map.neighbours)


def test_map_validate_command(tmp_path: Path):
    # CAMP-D1
    good = tmp_path / "good.json"
    good.write_text(json.dumps(grid_map_data(3, 4, "my-grid")))
    result = subprocess.run([sys.executable, "-m", "host.cli", "map", "validate", str(good)], cwd=ROOT,
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0 and "valid map 'my-grid'" in result.stdout and "12 territories" in result.stdout
    bad_data = grid_map_data(3, 3)
    bad_data["territories"][0]["neighbours"].append("t2-2")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(bad_data))
    result = subprocess.run([sys.executable, "-m", "host.cli", "map", "validate", str(bad)], cwd=ROOT,
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 1 and "territories[8].neighbours" in result.stderr

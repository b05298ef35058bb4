"""[10] The standings of a game the host ends before its rules do (Game.standings), the lobby's timer scale, and a
room code checked before any name form."""

from __future__ import annotations

import json
from typing import Any

from bench.games.buzz import BuzzGame
from engine.core import ENDED_BY_HOST, Context, Outcome, Slot, shared_places
from engine.crown.game import public_crowns
from tests.avignon import fixtures as avignon
from tests.campaign import fixtures as campaign
from tests.conftest import Harness, control, last_state
from tests.crown import fixtures as crown
from tests.games.tally import TallyGame
from tests.games.tally import replace as tally_replace
from tests.hierarchy import fixtures as hierarchy


def places(outcome: Outcome) -> list[tuple[int, int]]:
    return list(zip(outcome.ranking, outcome.place_list(), strict=True))


def test_shared_places_give_tied_seats_the_better_place():
    scores = {0: 5, 1: 9, 2: 5, 3: 1}
    assert shared_places((1, 0, 2, 3), scores.__getitem__) == (1, 2, 2, 4)
    assert Outcome((2, 0, 1)).place_list() == [1, 2, 3]


def test_the_default_ranks_the_seats_in_order_and_tells_no_one_apart():
    state = TallyGame().setup([Slot(0, "A"), Slot(1, "B"), Slot(2, "C")], Context(1, {"target": 10,
                                                                                       "turn_seconds": 10}), 0)
    outcome = super(TallyGame, TallyGame()).standings(state, 3)  # the Game interface's own default
    assert outcome.ranking == (0, 1, 2) and outcome.place_list() == [1, 1, 1]
    assert outcome.reason_key == ENDED_BY_HOST


def test_a_finished_game_keeps_its_outcome():
    game = TallyGame()
    state = game.setup([Slot(0, "A"), Slot(1, "B")], Context(1, {"target": 10, "turn_seconds": 10}), 0)
    over = tally_replace(state, winner=1, total=10)
    assert game.standings(over, 2) == game.outcome(over)
    unfinished = game.standings(state, 2)
    assert unfinished.reason_key == ENDED_BY_HOST and unfinished.place_list() == [1, 1]  # a shared total


def test_buzz_ranks_by_round_wins_so_far():
    game = BuzzGame()
    state = game.setup([Slot(i, str(i)) for i in range(3)],
                       Context(1, {"rounds": 5, "preview_ms": 400, "answer_ms": 1500, "reveal_ms": 200}), 0)
    outcome = game.standings(tally_replace(state, wins=(1, 3, 1)), 3)
    assert places(outcome) == [(1, 1), (0, 2), (2, 2)]


def test_campaign_ranks_survivors_by_score_then_the_later_eliminated_higher():
    # CAMP-D12: highest score first; eliminated below survivors, later elimination higher; no tiebreak question
    # is asked for a game the host ended, so tied scores share a place.
    state = campaign.start()
    outcome = campaign.GAME.standings(campaign.board(state, "A b . / . B . / . . C", scores=(1400, 1200, 1400)), 3)
    assert outcome.reason_key == ENDED_BY_HOST
    assert places(outcome) == [(0, 1), (2, 1), (1, 3)]
    assert outcome.detail["scores"] == [1400, 1200, 1400]
    out = campaign.board(state, "A a . / . A . / . . C", scores=(2400, 0, 1000), eliminated=(1,))
    assert places(campaign.GAME.standings(out, 3)) == [(0, 1), (2, 2), (1, 3)]
    # a tie already played off keeps its order (CAMP-D12)
    settled = campaign.board(state, "A b . / . B . / . . C", scores=(1400, 1200, 1400), settled=((2, 0),))
    assert places(campaign.GAME.standings(settled, 3)) == [(2, 1), (0, 2), (1, 3)]


def test_campaign_standings_of_a_fresh_game_are_all_first():
    outcome = campaign.GAME.standings(campaign.start(), 3)
    assert sorted(outcome.ranking) == [0, 1, 2] and outcome.place_list() == [1, 1, 1]


def test_crown_ranks_by_public_crowns_only():
    # CROWN-D5, R75: the totals last announced and the ruler's own; real totals and prestige stay secret.
    state = crown.day("L R L L L", crowns=[3, 5, 4, 0, 1], prestige=[90, 10, 50, 50, 80])
    announced = crown.evolve(state, crowns_announced={"day": 1, "crowns": [1, 2, 1, 0, 1]})
    assert public_crowns(announced) == [1, 5, 1, 0, 1]  # the ruler's current total is public
    outcome = crown.GAME.standings(announced, 5)
    assert outcome.reason_key == ENDED_BY_HOST
    assert places(outcome) == [(1, 1), (0, 2), (2, 2), (4, 2), (3, 5)]  # no prestige breaks the tie
    assert outcome.detail["crowns"] == [1, 5, 1, 0, 1]
    assert "prestige" not in json.dumps(outcome.detail) and 90 not in outcome.detail["crowns"]
    # before any announcement only the ruler's crowns are known
    assert public_crowns(crown.evolve(state, crowns_announced=None)) == [0, 5, 0, 0, 0]


def test_crown_standings_in_the_first_council_are_all_first():
    outcome = crown.GAME.standings(crown.start(), 5)
    assert sorted(outcome.ranking) == [0, 1, 2, 3, 4] and outcome.place_list() == [1] * 5


def test_hierarchy_unfinished_is_a_draw():
    # HIER-D4: only a player who cannot play loses; nothing else is counted.
    outcome = hierarchy.GAME.standings(hierarchy.start(), 2)
    assert outcome.reason_key == ENDED_BY_HOST and places(outcome) == [(0, 1), (1, 1)]


def test_avignon_ranks_by_the_characters_in_each_conclave():
    # AVIG-D5: three characters in one's conclave win; the conclaves are public (AVIG-D6).
    state = avignon.board("M2 A2 . . .", avignon="K", rome="NP")
    outcome = avignon.GAME.standings(state, 2)
    assert outcome.reason_key == ENDED_BY_HOST and places(outcome) == [(1, 1), (0, 2)]
    even = avignon.board("M2 A2 . . .", avignon="K", rome="N")
    assert places(avignon.GAME.standings(even, 2)) == [(0, 1), (1, 1)]


def test_end_game_sends_the_standings_as_the_outcome():
    harness = Harness()
    code, tv = harness.host_room()
    ana, _ = harness.join(code, "Ana")
    assert control(tv, "select_game", game="campaign")["ok"] and control(tv, "start")["ok"]
    assert last_state(tv, "/tv")["game"]["outcome"] is None
    assert control(tv, "end")["ok"]
    for client, namespace in ((tv, "/tv"), (ana, "/play")):
        game = last_state(client, namespace)["game"]
        assert game["aborted"] and game["outcome"]["reason_key"] == ENDED_BY_HOST
        assert sorted(game["outcome"]["ranking"]) == [0, 1, 2] and game["outcome"]["places"] == [1, 1, 1]


def test_the_lobby_tells_the_timer_scale_and_which_settings_are_timers():
    harness = Harness(TIMER_SCALE=0.3)
    _, tv = harness.host_room()
    state = last_state(tv, "/tv")
    assert state["timer_scale"] == 0.3
    settings = {g["id"]: {s["key"]: s["unit"] for s in g["settings"]} for g in state["games"]}
    assert settings["campaign"]["numeric_seconds"] == "s" and settings["campaign"]["map"] == ""
    assert settings["crown"]["day_minutes"] == "min" and settings["crown"]["council_seconds"] == "s"
    assert settings["hierarchy"]["turn_seconds"] == "s" and settings["avignon"]["turn_seconds"] == "s"
    assert settings["buzz"]["answer_ms"] == ""  # the speed bench's timers are not scaled


def test_a_missing_room_is_told_before_any_name_form(harness: Any):
    client = harness.app.test_client()
    page = client.get("/join/ZZZZ")
    assert page.status_code == 404 and b'data-room="missing"' in page.data and b'id="no-room"' in page.data
    assert client.get("/join?code=zzzz").headers["Location"].endswith("/?error=unknown_room&code=ZZZZ")
    landing = client.get("/?error=unknown_room&code=ZZZZ&lang=ro")
    assert "Nu există nicio cameră cu acest cod." in landing.get_data(as_text=True)
    answer = client.get("/api/rooms/ZZZZ")
    assert answer.status_code == 404 and answer.get_json()["error"]["code"] == "unknown_room"
    assert client.get("/api/rooms/Z1").get_json()["error"]["code"] == "invalid_code"
    code, _ = harness.host_room()
    assert client.get(f"/join/{code}").status_code == 200
    assert client.get(f"/join?code={code.lower()}").headers["Location"].endswith(f"/join/{code}")
    found = client.get(f"/api/rooms/{code.lower()}").get_json()
    assert found == {"ok": True, "code": code, "locked": False, "language": "en"}

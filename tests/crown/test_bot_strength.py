"""The strong Crown bot (engine/crown/strong.py): it plays only its view's offers and sees only its own view
(CROWN-D7), it reasons about the ruler's crown clock, and measured with ``throneroom simulate crown`` it is fair
against itself and beats the simple bot. The simulator runs as the CLI runs it; its JSON summary is parsed, never
timed (the decision times it prints are reported, not asserted)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from engine.core import Rng
from engine.crown import bots, strong
from engine.crown.game import DAY, OVER, CrownGame, view_payloads
from engine.simulate import replay
from host.cli import CROWN_MAX_DAYS, crown_game
from host.cli import crown_levels as table
from tests.crown.fixtures import GAME, act, day, start
from tests.crown.playout import random_playout

ROOT = Path(__file__).resolve().parents[2]


def simulate(*args: str) -> dict:
    """``throneroom simulate crown ARGS``: the summary line, after checking one JSON line per game."""
    done = subprocess.run([sys.executable, "-m", "host.cli", "simulate", "crown", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    summary = lines[-1]
    assert summary["summary"] and len(lines) == summary["games"] + 1
    assert all(line["reason"] in ("throne", "unfinished") for line in lines[:-1])
    return summary


def test_strong_bot_plays_only_offers_and_decides_from_its_own_view():
    # CROWN-D7: a bot takes only legal actions (one of its view's offers) and uses only what its house may know;
    # CROWN-D5, R14, A8: other houses' prestige and statuses and the RNG are hidden, so changing them changes
    # neither the house's view nor the strong bot's decision.
    seen = {"n": 0, "acts": 0}

    def on_state(state, _record):
        if state.phase == OVER:
            return
        for h in range(5):
            view = GAME.view(state, h)
            choice = strong.decide(view, Rng(11))
            if choice is not None:
                assert choice in view_payloads(view)
                assert GAME.parse_action(choice) in GAME.legal_actions(state, h)
                seen["acts"] += 1
            hidden = [dict(x) for x in state.houses]
            for x in range(5):
                if x not in (h, state.ruler):
                    hidden[x]["prestige"] = (hidden[x]["prestige"] + 41) % 101
                    hidden[x]["streak"] = hidden[x]["streak"] + 3
                    if hidden[x]["status"] in ("loyal", "enemy"):
                        hidden[x]["status"] = "enemy" if hidden[x]["status"] == "loyal" else "loyal"
            other = type(state)(**{**state.__dict__, "houses": tuple(hidden), "rng_state": state.rng_state ^ 0xF00D})
            if GAME.view(other, h) != view:
                continue  # a flipped status shows in this house's offers (e.g. an open hush demand): not hidden
            assert strong.decide(GAME.view(other, h), Rng(11)) == choice
            seen["n"] += 1

    for seed in range(4):
        random_playout(seed, on_state=on_state)
    assert seen["n"] > 200 and seen["acts"] > 100


def test_the_strong_house_attacks_a_ruler_about_to_win_only_when_needed():
    # CROWN-R73, R75, R76: a ruler on its third reign day with 7 crowns reaches 13 at the next day start, so the
    # throne must fall today; CROWN-R37: three attackers depose it; CROWN-R34, R74: each attack is treason and
    # costs the attacker its crown streak, so a strong house attacks only while fewer than three have.
    state = day("R L L L L", crowns=[7, 2, 2, 2, 2], reign_day=3)
    assert strong.decide(GAME.view(state, 1), Rng(1)) == {"kind": "attack", "target": 0}
    for h in (2, 3, 4):
        state = act(state, h, "attack", target=0)
    assert strong.decide(GAME.view(state, 1), Rng(1)) != {"kind": "attack", "target": 0}
    # CROWN-R73: on its first reign day (1 crown, 3 and 7 to come) the ruler is no threat yet: no treason
    calm = day("R L L L L", crowns=[1, 0, 0, 0, 0], reign_day=1)
    for h in range(1, 5):
        assert strong.decide(GAME.view(calm, h), Rng(h)) != {"kind": "attack", "target": 0}


def test_the_strong_house_keeps_the_ruler_within_reach_of_war():
    # CROWN-R52, R37: a pact forbids attacking the ruler; with two pacts only two houses could attack, so a
    # strong loyal house refuses the alliance that would leave fewer than three free attackers.
    state = day("R L L L L", crowns=[3, 0, 0, 0, 0], reign_day=2, pacts=[(0, 2)])
    state = act(state, 0, "propose_alliance", target=1)
    assert strong.decide(GAME.view(state, 1), Rng(1)) == {"kind": "answer_alliance", "proposer": 0, "accept": False}
    free = day("R L L L L", crowns=[1, 0, 0, 0, 0], reign_day=1)
    free = act(free, 0, "propose_alliance", target=1)
    assert strong.decide(GAME.view(free, 1), Rng(1)) == {"kind": "answer_alliance", "proposer": 0, "accept": True}


def test_the_strong_house_condemns_a_ruler_it_cannot_depose_by_war():
    # CROWN-R17, R20: the council can remove a ruler that pacts shield from war (CROWN-R52, R37); the vote is
    # free if the ruler falls (the R21 flip is dropped with the reign, CROWN-A3, A21)
    state = day("R L L L L", crowns=[7, 0, 0, 0, 0], reign_day=3, pacts=[(0, 2), (0, 3)])
    state = GAME.on_timeout(state, state.deadline_ms)
    assert state.phase == "judgment"
    assert strong.decide(GAME.view(state, 1), Rng(1)) == {"kind": "vote", "choice": 0}


def test_the_lobby_setting_chooses_the_bot_level_of_a_room():
    # CROWN-D7: bots play houses without people; the room's "bot level" setting picks the policy (default strong)
    spec = next(s for s in GAME.info.settings if s.key == "bot_level")
    assert spec.default == "strong" and set(spec.choices) == {"strong", "simple"}
    assert start().bot_levels == ("strong",) * 5
    simple = start(bot_level="simple")
    assert simple.bot_levels == ("simple",) * 5
    from host.i18n import catalog

    for language in ("en", "fa", "ro"):
        assert catalog(language)[spec.label_key] and all(catalog(language)[f"choice.{c}"] for c in spec.choices)
    state = day("R L L E E", bot_level="simple")
    for h in range(5):
        assert GAME.bot_action(state, h, Rng(h))[0] == bots.decide(GAME.view(state, h), Rng(h))
    state = day("R L L E E")
    for h in range(5):
        assert GAME.bot_action(state, h, Rng(h))[0] == strong.decide(GAME.view(state, h), Rng(h))


def test_the_simulator_validates_its_bot_levels():
    assert table("mix", 7) == ("simple", "simple", "strong", "simple", "simple")
    assert table("simple,strong,simple,simple,strong", 0)[4] == "strong"
    done = subprocess.run([sys.executable, "-m", "host.cli", "simulate", "crown", "--crown-bots", "best"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2 and "--crown-bots must be" in done.stderr


def test_strong_bots_among_themselves_are_fair_by_seat_and_by_first_ruler():
    """CROWN-R2 (only one house wins), R3 (a council picks the first ruler), R4 and R73 (the ruler's crowns):
    with five strong houses no starting seat and no first ruler should win more than 35% (the target, measured on
    1,000 games in the closing note). Here 40 games (20-40 s on a loaded 2-core machine): a share estimated from
    40 games has a standard error of at most sqrt(0.35 * 0.65 / 40) = 0.075, so a bot at the 35% target exceeds
    0.55 with a probability under 0.5% (2.6 standard errors), while a bot handing the game to the first ruler
    (72% of games, as an early version of this one did) passes with a probability near 1%; the largest of five seat
    shares, each near 20% (standard error 0.063), stays below 0.45 unless one seat is favoured (4 standard
    errors)."""
    summary = simulate("--games", "40", "--seed", "4242", "--crown-bots", "strong")
    assert summary["games"] == 40 and summary["reasons"].get("throne", 0) >= 38
    assert summary["first_ruler_share"] <= 0.55, summary
    assert summary["max_house_share"] <= 0.45, summary
    assert sum(summary["wins_by_house"]) == summary["reasons"]["throne"]
    assert "slowest_decision_ms" in summary  # reported, never asserted


def test_one_strong_house_beats_four_simple_ones():
    """CROWN-R2, R8 (loyal houses bank crowns), R27 and R70 (debts move votes), R37 (war deposes a ruler): one
    strong house against four simple ones, its seat rotating game by game so seat advantages cancel, should win at
    least 60% of games (the target, measured on 1,000 games in the closing note). Here 60 games (10-30 s): at
    the 60% target the standard error is sqrt(0.6 * 0.4 / 60) = 0.063, so asserting 45% leaves 2.4 standard
    errors (a bot at the target fails with a probability under 1%), while a house no better than the others
    (20%, standard error 0.052) would need nearly 5 standard errors of luck to pass."""
    summary = simulate("--games", "60", "--seed", "777", "--crown-bots", "mix")
    assert summary["mixed_games"] == 60
    assert summary["strong_share"] >= 0.45, summary
    assert summary["strong_wins"] == round(summary["strong_share"] * 60)


# ----- the bots in whole games (moved from the former tests/crown/test_conformance.py) -----


def test_simulated_games_end_and_replay():
    played = crown_game(5)
    reason = played.state.reason if played.finished else "unfinished"  # stopped after CROWN_MAX_DAYS
    assert reason in ("throne", "unfinished") and played.state.rulers
    assert replay(played.table, played.log) == played.state  # the simulator's log is a room's log
    capped = crown_game(6, {"last_day": 3})
    assert capped.finished and capped.state.day <= 3 and capped.state.reason in ("throne", "last_day")


def test_bots_answer_prompts_and_only_take_legal_actions(monkeypatch):
    # CROWN-D7: in all-bot games no prompt to a bot runs out, and every bot move is legal when the bot decides it.
    # (A move can still meet a race inside a window, e.g. an alliance accepted meanwhile forbids the planned
    # attack: the room then drops it and asks again, as the simulator does; such refusals stay rare.)
    decide = GAME.bot_action
    moves = {"n": 0}

    def checked(state, house, rng):
        decision = decide(state, house, rng)
        if decision is not None:
            assert GAME.parse_action(decision[0]) in GAME.legal_actions(state, house)
            moves["n"] += 1
        return decision

    monkeypatch.setattr(CrownGame, "bot_action", lambda _self, state, house, rng: checked(state, house, rng))
    refused = 0
    for seed in range(8):
        played = crown_game(100 + seed, {"last_day": 8})
        state = played.state
        refused += played.refused
        expired = [e for e in state.feed if e["key"] == "crown.log.alliance_expired"]
        expired += [e for c in state.chron for e in c if e["key"] in ("crown.log.conspiracy_expired",
                                                                       "crown.log.hush_expired")]
        assert not expired
        assert any(e["key"] in ("crown.log.vote", "crown.log.vote_abstain") for e in state.feed)  # bots vote
    assert refused <= moves["n"] // 50


def test_bots_decide_from_their_own_view_only():
    # CROWN-D7: change what a house may not know (others' prestige and statuses, the RNG): same view, same move
    seen = {"n": 0}

    def on_state(state, _record):
        if state.phase == OVER:
            return
        for h in range(5):
            hidden = [dict(x) for x in state.houses]
            for x in range(5):
                if x != h:
                    hidden[x]["prestige"] = (hidden[x]["prestige"] + 37) % 101
            other = type(state)(**{**state.__dict__, "houses": tuple(hidden), "rng_state": state.rng_state ^ 0xBEEF})
            assert GAME.view(other, h) == GAME.view(state, h)
            assert GAME.bot_action(state, h, Rng(3)) == GAME.bot_action(other, h, Rng(3))
            seen["n"] += 1

    for seed in range(3):
        random_playout(seed, on_state=on_state)
    assert seen["n"] > 100


def test_bot_moves_are_legal_with_short_delays():
    state = day("R L L E E")
    for h in range(5):
        decision = GAME.bot_action(state, h, Rng(h))
        assert decision is not None
        payload, delay = decision
        assert GAME.parse_action(payload) in GAME.legal_actions(state, h)
        assert 50 <= delay <= state.window_ms // 12


def test_all_bot_games_mostly_end_by_the_throne():
    # the report's figure: throneroom simulate crown --games 200 --seed 1 (no last day)
    results = [crown_game(500 + s) for s in range(20)]
    assert all(r.state.reason == "throne" for r in results if r.finished)  # the others stopped unfinished
    assert sum(r.finished and r.state.reason == "throne" for r in results) >= 18
    assert any(len(r.state.rulers) > 1 for r in results)  # thrones do change hands
    assert all(r.state.phase == OVER or r.state.day > CROWN_MAX_DAYS for r in results)
    assert DAY != OVER

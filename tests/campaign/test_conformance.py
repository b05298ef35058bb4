"""Conformance: random playouts end, scores equal their log, seeds decide everything, replays match, views leak
nothing."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from engine.campaign.game import CampaignState
from engine.campaign.simulate import new_game, play, replay
from engine.core import Rng
from tests.campaign.fixtures import GAME, grid_map

PLAYOUTS = 2000


def random_action(state: CampaignState, seat: int, rng: Rng) -> dict[str, Any]:
    """Any legal action, chosen blindly (answers near or far from the truth)."""
    kind, value = GAME.legal_actions(state, seat)[rng.randbelow(len(GAME.legal_actions(state, seat)))]
    if kind == "answer":
        truth = state.numeric[state.asking.question].answer
        return {"answer": max(0, truth + rng.randint(-3, 3) * rng.choice((0, 1, 10, 1000)))}
    return {kind: value}


def random_playout(seed: int, map_id: str, check_views: bool = False) -> tuple[CampaignState, list]:
    _game, state, _ = new_game(seed, {"map": map_id})
    rng = Rng(seed * 7919 + 1)
    now, log = 0, []
    for _ in range(5000):
        if state.stage == "over":
            return state, log
        if check_views:
            assert_no_leak(state)
        actors = [s for s in range(3) if GAME.legal_actions(state, s)]
        if actors and rng.randbelow(5):
            seat = rng.choice(actors)
            now = max(now, (state.deadline_ms or now) - 1 - rng.randbelow(200))
            payload = random_action(state, seat, rng)
            state = GAME.apply(state, seat, GAME.parse_action(payload), now)
            log.append(("action", seat, payload, now))
        else:
            now = state.deadline_ms
            state = GAME.on_timeout(state, now)
            log.append(("timeout", -1, None, now))
    raise AssertionError(f"playout {seed} did not end")


def assert_no_leak(state: CampaignState) -> None:
    """No view holds an answer before the reveal, another seat's answer, or a question not yet asked."""
    asking = state.asking
    for seat in (None, 0, 1, 2):
        view = GAME.view(state, seat)
        question = view["question"]
        if asking is not None and not asking.revealed:
            assert not {"correct", "answers", "ranking"} & set(question), (seat, question)
            if seat is None:
                assert "yours" not in question
            else:
                own = asking.answer_of(seat)
                assert question.get("yours") == (own.value if own else None)
        text = json.dumps(view, ensure_ascii=False)
        upcoming = state.numeric[(state.next_numeric) % len(state.numeric)]
        assert json.dumps(upcoming.prompt, ensure_ascii=False)[1:-1] not in text or (
            asking is not None and asking.kind == "numeric" and state.numeric[asking.question] == upcoming)


@pytest.fixture(scope="module", autouse=True)
def maps() -> None:
    grid_map(3, 3)
    grid_map(4, 4)


def test_random_playouts_end_with_scores_equal_to_their_log():
    # CAMP-R24 CAMP-D12
    for seed in range(PLAYOUTS):
        state, _ = random_playout(seed, "grid-3x3" if seed % 2 else "grid-4x4")
        for seat in range(3):
            assert state.score[seat] == sum(change for s, change, _ in state.scores_log if s == seat), seed
        assert sorted(state.final_ranking) == [0, 1, 2]
        assert all(o is not None for o in state.owner)
        for seat in state.eliminated:
            assert state.score[seat] == 0 and seat not in state.owner


def test_views_leak_nothing_during_random_games():
    # CAMP-D5 CAMP-R16
    for seed in range(60):
        random_playout(seed, "grid-3x3", check_views=True)


def test_the_same_seed_gives_the_same_game_whatever_the_global_random_does():
    for seed in (1, 2, 3, 42):
        random.seed(seed)
        first = play(seed, {"map": "grid-4x4"})
        random.seed(seed + 1000)
        for _ in range(seed):
            random.random()
        second = play(seed, {"map": "grid-4x4"})
        assert first.state == second.state and first.log == second.log


def test_replaying_the_log_reproduces_the_state():
    for seed in range(40):
        state, log = random_playout(seed, "grid-4x4")
        assert replay(seed, log, {"map": "grid-4x4"}) == state
    played = play(77, {"map": "grid-3x3"})
    assert replay(77, played.log, {"map": "grid-3x3"}) == played.state


def test_bots_on_every_level_finish_games():
    for level in ("easy", "normal", "hard"):
        for seed in range(10):
            assert play(seed, {"map": "grid-4x4", "bot_level": level}).state.stage == "over"

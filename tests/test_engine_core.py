"""The engine contract and its shared parts, checked on the built-in Tally game."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from engine import registry
from engine.core import Context, IllegalAction, InvalidAction, InvalidSettings, Rng, SettingSpec, Slot
from tests.games.tally import TallyGame

GAME = TallyGame()


def new_state(players: int = 3, seed: int = 7, **settings: int):
    ctx = Context(seed, {**GAME.info.default_settings(), **settings})
    return GAME.setup([Slot(i, f"P{i}") for i in range(players)], ctx, 0)


def test_rng_is_deterministic_and_independent_of_the_global_random():
    a, b = Rng(42), Rng(42)
    random.seed(1)
    first = [a.randbelow(10) for _ in range(50)]
    random.seed(2)
    random.random()
    assert first == [b.randbelow(10) for _ in range(50)]
    assert Rng(43).next_u64() != Rng(42).next_u64()


def test_rng_range_shuffle_and_copy():
    rng = Rng(1)
    values = [rng.randint(3, 5) for _ in range(3000)]
    assert set(values) == {3, 4, 5}
    assert all(800 < values.count(v) < 1200 for v in (3, 4, 5))
    items = list(range(10))
    rng.shuffle(items)
    assert sorted(items) == list(range(10))
    twin = rng.copy()
    assert twin == rng and twin.next_u64() == rng.next_u64()
    with pytest.raises(ValueError):
        rng.randbelow(0)


def test_settings_are_validated_by_their_specs():
    info = GAME.info
    assert info.parse_settings({"target": 20})["target"] == 20
    for bad, field in (({"target": 2}, "target"), ({"target": "9"}, "target"), ({"target": True}, "target"),
                       ({"nope": 1}, "nope"), ({"bots": 1}, "bots")):
        with pytest.raises(InvalidSettings) as error:
            info.parse_settings(bad)
        assert error.value.field == field
    with pytest.raises(InvalidSettings):
        info.parse_settings([1, 2])
    choice = SettingSpec("level", "choice", "easy", "x", choices=("easy", "hard"))
    assert choice.parse("hard") == "hard"
    with pytest.raises(InvalidSettings):
        choice.parse("medium")


def test_registry_lists_the_five_games_and_hides_the_test_game():
    listed = [info.id for info, _ in registry.lobby_games()]
    assert listed == ["campaign", "crown", "hierarchy", "avignon", "quiz"]
    assert "tally" in [info.id for info, _ in registry.lobby_games(include_unlisted=True)]
    assert registry.get("tally") is not None and not registry.info("tally").listed


def test_parse_action_refuses_bad_payloads():
    assert GAME.parse_action({"add": 2}) == 2
    for bad in (None, 2, "add", {"add": 3}, {"add": True}, {"add": 1, "x": 1}, {}, [1]):
        with pytest.raises(InvalidAction):
            GAME.parse_action(bad)


def test_apply_checks_turn_and_never_mutates_its_input():
    state = new_state()
    other = next(s for s in range(3) if s != state.current)
    with pytest.raises(IllegalAction):
        GAME.apply(state, other, 1, 100)
    before = replace(state)
    after = GAME.apply(state, state.current, 2, 100)
    assert state == before and after.total == 2 and after.current != state.current
    assert after.deadline_ms == 100 + state.turn_ms


def test_timeout_is_an_action_drawn_from_the_state_rng():
    state = new_state()
    one = GAME.on_timeout(state, state.deadline_ms)
    two = GAME.on_timeout(state, state.deadline_ms)
    assert one == two  # same state, same draw
    assert one.history[-1][2] is True and one.rng_state != state.rng_state


def test_random_playouts_end_and_replay_identically():
    for seed in range(30):
        rng = Rng(seed)
        state = new_state(players=2 + seed % 3, seed=seed, target=7 + seed % 9)
        log = []
        now = 0
        for _ in range(200):
            if GAME.is_over(state):
                break
            now += 500
            if rng.randbelow(4) == 0:
                state = GAME.on_timeout(state, now)
                log.append(("timeout", now))
            else:
                amount = rng.choice(GAME.legal_actions(state, state.current))
                state = GAME.apply(state, state.current, amount, now)
                log.append((amount, now))
        assert GAME.is_over(state), seed
        outcome = GAME.outcome(state)
        assert sorted(outcome.ranking) == list(range(len(state.order)))
        replay = new_state(players=2 + seed % 3, seed=seed, target=7 + seed % 9)
        random.seed(seed + 99)  # disturbing the global RNG changes nothing
        for entry, at in log:
            replay = GAME.on_timeout(replay, at) if entry == "timeout" else GAME.apply(replay, replay.current, entry, at)
        assert replay == state


def test_views_tell_each_seat_what_it_may_do():
    state = new_state()
    tv = GAME.view(state, None)
    assert "legal" not in tv and "you" not in tv
    assert GAME.view(state, state.current)["legal"] == [1, 2]
    other = next(s for s in range(3) if s != state.current)
    assert GAME.view(state, other)["legal"] == []


def test_bot_takes_the_win_when_it_can():
    state = replace(new_state(), total=9)
    action, delay = GAME.bot_action(state, state.current, Rng(3))
    assert action == {"add": 1} and 0 < delay < 5000
    assert GAME.bot_action(state, (state.current + 1) % 3, Rng(3)) is None

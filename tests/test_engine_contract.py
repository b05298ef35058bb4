"""The engine contract (engine/core.py), checked on every registered game, the Quiz and the test games included: a
game added to the registry is covered at once (tests/contract.py holds the few per-game adapters).

For each game: random legal play ends within a bound, for many seeds; the same seed and the same actions give the
same game, whatever the global ``random`` does; replaying the log gives exactly the live states and views; no view
holds what its viewer may not know; every payload is validated (junk is an ``InvalidAction`` and nothing else,
legal actions apply without changing the state they are given, a seat that may not act is refused with
``IllegalAction``); views are plain JSON; bots take legal actions only and finish their games; a timeout the screens
foresee (``Game.foreseen``) keeps the step.

The game-specific checks the former per-game conformance tests made live with each game's other tests:
tests/campaign/test_rules.py, tests/hierarchy/test_rules.py and test_bots.py, tests/avignon/test_rules.py,
tests/crown/test_rules_more.py and test_bot_strength.py.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from engine import registry
from engine.core import Game, GameError, IllegalAction, InvalidAction, Rng
from engine.simulate import TIMEOUT, apply_event, play, replay
from tests.contract import (
    adapter_of,
    cached_game,
    contract_games,
    default_disguises,
    new_table,
    random_game,
    seats_of,
)
from tests.games.tally import TallyGame
from tests.games.tally import replace as tally_replace

GAMES = contract_games()
JUNK: list[Any] = [None, 0, 1, -1, 2.5, True, "", "x", "💥" * 50, [], [1, 2], {}, {"": None}, {"kind": None},
                   {"no_such_field": 1}, {"kind": "no_such_kind"}, {"kind": ["attack"]}, {"a": 1, "b": 2, "c": 3},
                   {"kind": {"nested": {"deeper": [1]}}}, {"__class__": "x"}]
JUNK_VALUES: list[Any] = [None, True, -1, 10**30, 1.5, float("nan"), "", "x" * 200, "💥", [], {}, [1], {"x": 1}]
CHECKED = 8  # games per game id whose every state the heavier checks walk


def game_of(game_id: str) -> Game:
    return registry.GAMES[game_id]


def viewers(game_id: str) -> list[int | None]:
    return [None, *range(seats_of(game_of(game_id)))]


def views(game: Game, state: Any, game_id: str) -> list[dict[str, Any]]:
    return [game.view(state, v) for v in viewers(game_id)]


def test_every_registered_game_is_covered():
    # the list is read from the registry: the five games and the three test games, and any game added later
    assert {"campaign", "crown", "hierarchy", "avignon", "quiz", "tally", "teamtally", "buzz"} <= set(GAMES)
    assert GAMES == sorted(registry.GAMES)


@pytest.mark.parametrize("game_id", GAMES)
def test_random_legal_play_ends_with_a_ranking_of_every_seat(game_id):
    game = game_of(game_id)
    adapter = adapter_of(game_id)
    seats = seats_of(game)
    timeouts = 0
    for seed in range(adapter.seeds):
        played = cached_game(game_id, seed).played if seed < CHECKED else random_game(game_id, seed).played
        assert played.finished, (game_id, seed)  # within adapter.max_events, else GameDidNotEnd was raised
        timeouts += played.timeouts
        state = played.state
        outcome = game.outcome(state)
        assert outcome is not None and game.is_over(state)
        assert sorted(outcome.ranking) == list(range(seats)), (seed, outcome)
        places = outcome.place_list()
        assert len(places) == seats and places[0] == 1 and places == sorted(places)
        assert game.standings(state, seats) == outcome  # a finished game's standings are its outcome
        assert not any(game.legal_actions(state, s) for s in range(seats))
        json.dumps({"detail": dict(outcome.detail)}, allow_nan=False)
    assert timeouts > 0  # the deadlines were exercised too


@pytest.mark.parametrize("game_id", GAMES)
def test_the_same_seed_and_actions_give_the_same_game_whatever_the_global_random_does(game_id):
    game = game_of(game_id)
    kind = type(game)
    own = kind.__dict__.get("apply")  # restored afterwards (None: the class inherits it)
    original = kind.apply

    def disturbed(self: Game, *args: Any, **kwargs: Any) -> Any:
        random.random()
        random.shuffle(list(range(10)))
        return original(self, *args, **kwargs)

    for seed in (1, 2, 7):
        random.seed(seed)
        first = random_game(game_id, seed)
        random.seed(seed + 1000)
        kind.apply = disturbed  # type: ignore[method-assign]  # the global random is drawn from between steps
        try:
            second = random_game(game_id, seed)
        finally:
            if own is None:
                del kind.apply
            else:
                kind.apply = own  # type: ignore[method-assign]
        assert first.played.log == second.played.log and first.played.state == second.played.state
        assert views(game, first.played.state, game_id) == views(game, second.played.state, game_id)
        assert new_table(game_id, seed).state == first.played.table.state  # setup depends on the seed alone


@pytest.mark.parametrize("game_id", GAMES)
def test_replaying_the_log_gives_exactly_the_live_states_and_views(game_id):
    game = game_of(game_id)
    for seed in range(CHECKED):
        live = cached_game(game_id, seed)
        played = live.played
        assert replay(new_table(game_id, seed), played.log) == played.state  # from a fresh setup of the same seed
        state = played.table.state
        for event, (expected, _at) in zip(played.log, live.states[1:], strict=True):
            state = apply_event(game, state, event)
            assert state == expected, (seed, event)  # after every event, not only at the end
        assert views(game, state, game_id) == views(game, played.state, game_id)
        if played.log:  # the comparison can fail: a log one event short leads elsewhere
            assert replay(played.table, played.log[:-1]) != played.state


@pytest.mark.parametrize("game_id", GAMES)
def test_no_view_holds_what_its_viewer_may_not_know(game_id):
    game = game_of(game_id)
    adapter = adapter_of(game_id)
    disguised = seen_by_others = 0
    for seed in range(CHECKED):
        for state, _at in cached_game(game_id, seed).states:
            plain = {v: game.view(state, v) for v in viewers(game_id)}
            for viewer in viewers(game_id):
                for other in adapter.disguises(state, viewer):
                    if other == state:
                        continue  # nothing to hide here (no other seat answered yet, say)
                    assert game.view(other, viewer) == plain[viewer], (seed, viewer)
                    disguised += 1
                    seen_by_others += any(game.view(other, v) != plain[v] for v in plain if v != viewer)
    if adapter.disguises is not default_disguises or hasattr(cached_game(game_id, 0).played.state, "rng_state"):
        assert disguised > 0  # the game has secrets (at least its RNG), and they were checked
    if adapter.owned_secrets:
        assert seen_by_others > 0  # the disguises hide what some seat does see: they test real secrets


@pytest.mark.parametrize("game_id", GAMES)
def test_views_are_plain_json(game_id):
    game = game_of(game_id)

    def plain(value: Any, where: str) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                assert isinstance(key, str), (where, key)
                plain(item, f"{where}.{key}")
        elif isinstance(value, (list, tuple)):
            for i, item in enumerate(value):
                plain(item, f"{where}[{i}]")
        else:
            assert value is None or isinstance(value, (str, int, float, bool)), (where, type(value))

    for seed in range(CHECKED):
        for state, _at in cached_game(game_id, seed).states:
            for viewer in viewers(game_id):
                view = game.view(state, viewer)
                plain(view, f"view[{viewer}]")
                json.dumps(view, allow_nan=False)


def mutations(payload: Any) -> list[Any]:
    """A legal payload with each of its values swapped for junk, one field at a time, and with a field added."""
    if not isinstance(payload, dict):
        return [[payload], {"action": payload}]
    result: list[Any] = [{**payload, "unexpected": 1}]
    for key in payload:
        result += [{**payload, key: junk} for junk in JUNK_VALUES]
    return result


@pytest.mark.parametrize("game_id", GAMES)
def test_every_action_is_validated(game_id):
    game = game_of(game_id)
    adapter = adapter_of(game_id)
    seats = seats_of(game)
    applied = refused_seats = mutated = 0
    pool: list[Any] = []  # legal payloads met in this game, for seats that may not act
    for seed in range(CHECKED):
        rng = Rng(seed)
        for n, (state, at) in enumerate(cached_game(game_id, seed).states):
            for junk in JUNK:
                with pytest.raises(InvalidAction):
                    game.parse_action(junk)
            frozen = copy.deepcopy(state)
            legal_payloads = []
            for seat in range(seats):
                for action in game.legal_actions(state, seat)[:4]:
                    payload = adapter.payload(game, state, seat, action, rng)
                    legal_payloads.append(payload)
                    after = game.apply(state, seat, game.parse_action(payload), at)  # a legal action applies
                    assert after is not state
                    applied += 1
            pool = (legal_payloads + pool)[:12]
            for seat in range(seats):
                if game.legal_actions(state, seat):
                    continue
                for payload in pool[:4]:
                    with pytest.raises(IllegalAction):  # a seat that may not act now is refused
                        game.apply(state, seat, game.parse_action(payload), at)
                    refused_seats += 1
            if n % 3 == 0:
                for payload in legal_payloads[:2]:
                    for bad in mutations(payload):
                        try:
                            action = game.parse_action(bad)
                        except InvalidAction:
                            mutated += 1
                            continue
                        for seat in range(seats):
                            try:
                                game.apply(state, seat, action, at)
                            except GameError:
                                pass  # refused with a clear reason; any other exception fails the test
            assert state == frozen, (seed, n)  # apply never changed the state it was given
    assert applied > 0 and mutated > 0
    if game_id != "buzz" or seats > 1:
        assert refused_seats > 0


@pytest.mark.parametrize("game_id", GAMES)
def test_bots_take_legal_actions_only_and_finish_their_games(game_id):
    game = game_of(game_id)
    adapter = adapter_of(game_id)
    decided = 0

    def checked(state: Any, seat: int, rng: Rng) -> Any:
        nonlocal decided
        decision = game.bot_action(state, seat, rng)
        if decision is not None:
            payload, delay = decision
            assert delay >= 0
            assert adapter.is_legal(game, state, seat, game.parse_action(payload)), (seat, payload)
            decided += 1
        return decision

    for seed in range(3):
        table = new_table(game_id, seed)  # every seat a bot
        played = play(table, dict.fromkeys(range(len(table.slots)), checked), max_events=adapter.max_events)
        assert played.finished and game.outcome(played.state) is not None
        assert replay(table, played.log) == played.state
        assert play(new_table(game_id, seed), max_events=adapter.max_events).log == played.log  # the same again
    assert decided > 0


@pytest.mark.parametrize("game_id", GAMES)
def test_a_foreseen_timeout_keeps_the_step(game_id):
    """``Game.foreseen``: a timeout every screen makes by itself at its shown time is sent to nobody, so a phone still
    holds the state before it and answers with that state's step, which must therefore stay. A game that declares
    such timeouts (the Short Campaign's preview, the Quiz's "get ready") has them in its random games."""
    game = game_of(game_id)
    foreseen = 0
    for seed in range(CHECKED):
        live = cached_game(game_id, seed)
        for event, (before, _), (after, _) in zip(live.played.log, live.states[:-1], live.states[1:], strict=True):
            if event[0] == TIMEOUT and game.foreseen(before, after):
                foreseen += 1
                assert game.step(after) == game.step(before), (seed, event)
    if type(game).foreseen is not Game.foreseen:
        assert foreseen > 0, "a game that declares foreseen timeouts never had one"


# ----- the checks themselves can fail: each one on a copy of Tally broken the way it looks for -----

class LeakyTally(TallyGame):
    def view(self, state: Any, seat: int | None) -> dict[str, Any]:
        return {**super().view(state, seat), "next_draw": state.rng_state % 2}  # the RNG decides timeouts' amounts


class GlobalRandomTally(TallyGame):
    def on_timeout(self, state: Any, now_ms: int) -> Any:
        return self._add(state, state.current, random.choice((1, 2)), now_ms, timed_out=True)


class SloppyTally(TallyGame):
    def parse_action(self, payload: Any) -> int:
        return int(payload["add"])  # a KeyError or TypeError for junk, not an InvalidAction


class MutatingTally(TallyGame):
    def apply(self, state: Any, seat: int, action: int, now_ms: int, timing: Any = None) -> Any:
        after = super().apply(state, seat, action, now_ms, timing)
        object.__setattr__(state, "total", after.total)  # changes the state it was given
        return after


class CountingTally(TallyGame):
    calls = 0

    def apply(self, state: Any, seat: int, action: int, now_ms: int, timing: Any = None) -> Any:
        CountingTally.calls += 1  # a hidden input: a replay is not the live game
        return tally_replace(super().apply(state, seat, action, now_ms, timing), target=state.target + self.calls % 2)


class EndlessTally(TallyGame):
    def outcome(self, state: Any) -> Any:
        return None  # never over


class SetViewTally(TallyGame):
    def view(self, state: Any, seat: int | None) -> dict[str, Any]:
        return {**super().view(state, seat), "seats": set(state.order)}


class CarelessTally(TallyGame):
    def apply(self, state: Any, seat: int, action: int, now_ms: int, timing: Any = None) -> Any:
        return super().apply(state, state.current, action, now_ms, timing)  # whoever sent it


class ForeseeingTally(TallyGame):
    def foreseen(self, before: Any, after: Any) -> bool:
        return True  # every timeout, though each one moves the step


class IllegalBotTally(TallyGame):
    def bot_action(self, state: Any, seat: int, rng: Rng) -> Any:
        return {"add": 3}, 100  # not a move of the game


@pytest.mark.parametrize("broken, check", [
    (LeakyTally, test_no_view_holds_what_its_viewer_may_not_know),
    (GlobalRandomTally, test_the_same_seed_and_actions_give_the_same_game_whatever_the_global_random_does),
    (SloppyTally, test_every_action_is_validated),
    (MutatingTally, test_every_action_is_validated),
    (CountingTally, test_replaying_the_log_gives_exactly_the_live_states_and_views),
    (EndlessTally, test_random_legal_play_ends_with_a_ranking_of_every_seat),
    (SetViewTally, test_views_are_plain_json),
    (CarelessTally, test_every_action_is_validated),
    (IllegalBotTally, test_bots_take_legal_actions_only_and_finish_their_games),
    (ForeseeingTally, test_a_foreseen_timeout_keeps_the_step),
])
def test_each_check_fails_on_a_game_broken_its_way(broken, check, monkeypatch):
    monkeypatch.setitem(registry.GAMES, "tally", broken())
    cached_game.cache_clear()
    try:
        with pytest.raises((Exception, pytest.fail.Exception)):  # an assertion, or the broken game's own error
            check("tally")
    finally:
        cached_game.cache_clear()

"""The move log (issue [13]): every action of the game, with its turn and who took it, and what it did, kept in the
engine state (so a restart that replays the actions shows the same log) and bounded; and the card texts every screen
may show (the petitions of cards.json, AVIG-D1), sent in the view to both players and to spectators."""

from __future__ import annotations

import json

from engine.avignon.game import CARDS_FILE, LOG_ACTIONS
from engine.core import Rng
from tests.avignon.fixtures import AVIGNON, GAME, ROME, act, banish, board, card, pull, push, start


def petition(lane, **extra):
    return {"action": "petition", "lane": lane, **extra}


def actions(state):
    return [e for e in state.history if e["kind"] == "action"]


def test_each_action_is_logged_with_its_turn_and_role():
    # AVIG-R3: Rome starts; AVIG-R8: Rome's first turn has one action; AVIG-R7: then two actions a turn
    state = start(3)
    first = act(state, pull(1))
    second = act(first, pull(2), push(3))
    logged = actions(second)
    assert [(e["turn"], e["role"], e["action"], e["lane"]) for e in logged] == [
        (1, "rome", "pull", 1), (2, "avignon", "pull", 2), (2, "avignon", "push", 3)]
    assert [e["seat"] for e in logged] == [state.seat_of[ROME], state.seat_of[AVIGNON], state.seat_of[AVIGNON]]
    assert second.history[0]["kind"] == "start"  # who plays Rome and who Avignon (AVIG-D7)


def test_pull_push_banish_and_petition_are_logged_with_what_they_did():
    # AVIG-R9 pull, AVIG-R10 push, AVIG-R11 banish (the replacement drawn into the same place), AVIG-R12 petition
    state = board("M2 A1 B2 K3 N2", deck="kP", to_move=ROME)
    state = act(state, pull(1), banish(4))
    kinds = [e["kind"] for e in state.history]
    assert kinds == ["action", "pull", "move", "action", "banish", "draw"]
    assert state.history[2] == {"kind": "move", "lane": 1, "card": card("M"), "from": "genoa", "location": "florence"}
    assert state.history[4]["card"] == card("K") and state.history[5] == {
        "kind": "draw", "lane": 4, "card": card("k"), "location": "florence"}
    state = act(state, petition(3, target=2, direction="avignon"), push(5))
    logged = state.history[6:]
    assert logged[0] == {"kind": "action", "seat": state.seat_of[AVIGNON], "role": "avignon", "turn": 6,
                         "action": "petition", "lane": 3, "target": 2, "direction": "avignon"}
    assert logged[1]["kind"] == "petition" and logged[1]["card"] == card("B") and logged[1]["petition"] == "bishop_nudge"
    assert logged[2] == {"kind": "move", "lane": 2, "card": card("A"), "from": "nice", "location": "avignon"}
    assert [e["kind"] for e in logged[3:]] == ["action", "push", "move"]


def test_a_character_leaving_the_board_and_the_win_are_logged():
    # AVIG-R15, AVIG-R16: into the conclave, a new card at Genoa; AVIG-R19, AVIG-D5: the third one wins at once
    state = board("M4 A1 B2 K3 N2", rome="Pp", deck="k")
    state = act(state, pull(1))
    tail = [e["kind"] for e in state.history]
    assert tail == ["action", "pull", "conclave", "over"]
    assert state.history[2]["role"] == "rome" and state.history[3] == {
        "kind": "over", "winner": state.seat_of[ROME], "reason": "three"}


def test_the_log_is_bounded_and_keeps_the_newest_actions():
    # AVIG-D9 makes every game end, but a long one must not grow the state (and every view) without bound
    state = start(8)
    rng = Rng(5)
    done = []
    while state.winner is None and len(done) < 3 * LOG_ACTIONS:
        seat = state.seat_of[state.to_move]
        action = rng.choice(GAME.legal_actions(state, seat))
        state = GAME.apply(state, seat, action, 0)
        done.append(GAME.action_to_json(action))
        assert len(actions(state)) <= LOG_ACTIONS
        assert state.history[0]["kind"] in ("start", "action")  # it never starts with an orphaned effect
    assert len(done) > LOG_ACTIONS
    kept = [{k: v for k, v in e.items() if k not in ("kind", "seat", "role", "turn")} for e in actions(state)]
    assert kept == done[-len(kept):]
    assert len(kept) == LOG_ACTIONS
    assert GAME.view(state, None)["history"] == list(state.history)


def test_a_replay_rebuilds_the_same_log():
    # a restart replays the actions: the log comes out the same (it lives in the engine state only)
    def play():
        state = start(12)
        rng = Rng(77)
        for _ in range(30):
            if state.winner is not None:
                break
            seat = state.seat_of[state.to_move]
            state = GAME.apply(state, seat, rng.choice(GAME.legal_actions(state, seat)), 0)
        return state

    assert play().history == play().history


def test_every_screen_gets_every_card_text_in_every_language():
    # AVIG-R23 / AVIG-A11: the cards are not turned to be read; the digital table shows every card's text to both
    # players and to spectators, from the one card file (AVIG-D1)
    data = json.loads(CARDS_FILE.read_text(encoding="utf-8"))["cards"]
    state = start(2)
    for seat in (0, 1, None):
        view = GAME.view(state, seat)
        assert view["texts"] == [c["text"] for c in data]
        assert view["names"] and view["classes"] == [c["class"] for c in data]
        for text in view["texts"]:
            assert set(text) == {"en", "fa", "ro"} and all(text.values())

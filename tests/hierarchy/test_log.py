"""Hierarchy's move log and card reference in the engine's views (issue [13]): every play (an Impostor with its copy),
every Tower burn and every Surgeon return is written into the state, bounded, so a restart's replay rebuilds it;
every card's number, royal mark and full text travel in the view from cards.json. Each test cites the HIER IDs it
checks (docs/rules/hierarchy.md)."""

from __future__ import annotations

import json
import random
from pathlib import Path

from engine.hierarchy import rules
from engine.hierarchy.game import LOG_CAP, replace
from tests.hierarchy.fixtures import GAME, give_back, play, pos, render, start


def entries(state, *keys):
    """The log, oldest first, each entry cut to the given keys."""
    return [tuple(e.get(k) for k in keys) for e in state.history]


def test_the_log_tells_each_play_and_the_towers_burn_in_order():
    # HIER-R10 HIER-R11 HIER-R12: the Line of Power grows one card a turn, and the log tells each one;
    # HIER-R24 HIER-D10: the Tower on a higher card burns a card, and the log says which
    state = pos("tower king queen", "prince", "b:dragon")
    state = play(state, "tower", burn="king")
    state = play(state, "prince")
    state = play(state, "queen")
    assert entries(state, "kind", "seat", "card", "burn") == [
        ("play", 0, "tower", "king"), ("play", 1, "prince", None), ("play", 0, "queen", None),
        ("lost", 1, None, None)]
    assert [render(e["message"]) for e in state.history] == [
        "The Tower on the Dragon: allowed by the Tower, burning the King",
        "The Prince on the Tower: higher number (10 > 4)",
        "The Queen on the Prince: higher number (12 > 10)",
        "Bob cannot play (no cards left): Ann wins"]
    view = GAME.view(state, None)
    assert view["history"] == [dict(e) for e in state.history]  # the TV gets the whole log, oldest first
    assert view["burned"][0]["card"] == "king" and state.plays == 3 and state.winner == 0


def test_the_log_tells_both_surgeon_returns_and_an_impostors_copy():
    # HIER-R25 HIER-D1 Surgeon HIER-A8: the Surgeon's player returns an opponent's card, then the opponent returns
    # one of the Surgeon player's cards (not the Surgeon); each return is a log entry, by its chooser
    state = pos("surgeon king", "queen impostor", "b:assassin a:peasant b:leper")
    state = play(state, "surgeon")
    assert state.history[-1]["kind"] == "play" and state.pending == (1, 0, 0)
    state = give_back(state, "leper")
    state = give_back(state, "peasant")
    assert entries(state, "kind", "seat", "card", "owner") == [
        ("play", 0, "surgeon", None), ("return", 0, "leper", 1), ("return", 1, "peasant", 0)]
    assert [render(e["message"]) for e in state.history[1:]] == [
        "The Leper returns to Bob's hand", "The Peasant returns to Ann's hand"]
    # HIER-R28 HIER-D9: the Impostor's play is logged with the card it copies
    state = play(pos("impostor king", "queen", "b:dragon a:assassin b:knight"), "impostor", copy="dragon")
    assert entries(state, "kind", "card", "copy")[0] == ("play", "impostor", "dragon")
    assert render(state.history[0]["message"]) == "The Impostor as the Dragon on the Knight: higher number (9 > 6)"


def test_the_log_is_bounded_and_the_play_count_is_not():
    # HIER-D6: a game is finite, the log is capped all the same; the count of plays (the result's) stays exact
    old = tuple({"kind": "play", "seat": i % 2, "card": "king", "n": i} for i in range(LOG_CAP))
    state = replace(pos("king", "assassin", "b:dragon"), history=old, plays=LOG_CAP)
    after = play(state, "king")
    assert len(after.history) == LOG_CAP
    assert after.history[0] == old[1] and after.history[-2] == old[-1]  # the oldest is dropped
    assert after.history[-1]["card"] == "king" and after.history[-1]["kind"] == "play"
    assert after.plays == LOG_CAP + 1
    assert len(GAME.view(after, None)["history"]) == LOG_CAP


def test_a_replay_rebuilds_the_same_log():
    # HIER-D4 HIER-R21: games end with the player who cannot play; HIER-R5 HIER-D3: the sides are dealt with the
    # cards; a restart replays the logged actions on the same deal, so the log (in the state) comes back the same
    chooser = random.Random(7)
    for seed in range(12):
        state, actions = start(seed), []
        while state.winner is None:
            seat = state.actor
            action = chooser.choice(GAME.legal_actions(state, seat))
            actions.append((seat, action))
            state = GAME.apply(state, seat, action, 1000)
        again = start(seed)
        for seat, action in actions:
            again = GAME.apply(again, seat, action, 1000)
        assert again.history == state.history and GAME.view(again, None) == GAME.view(state, None)
        assert state.history[-1]["kind"] == "lost"
        assert state.plays == sum(1 for e in state.history if e["kind"] == "play")
        assert GAME.outcome(state).detail["plays"] == state.plays


def test_the_view_carries_every_cards_text_and_names_the_sides():
    # HIER-R2 HIER-R3: each player's reference card, here the view's card table: every card's number, royal mark
    # (HIER-R22) and full text in every language, from the data file (HIER-D1), never copied elsewhere;
    # HIER-R5 HIER-D3: one player is Gold, the other Purple
    data = json.loads((Path(rules.__file__).with_name("cards.json")).read_text(encoding="utf-8"))
    view = GAME.view(start(3), 0)
    json.dumps(view)
    assert list(view["cards"]) == [c["id"] for c in data["cards"]]
    for card in data["cards"]:
        shown = view["cards"][card["id"]]
        assert shown["text"] == card["text"] and set(shown["text"]) == {"en", "fa", "ro"}
        assert shown["number"] == card["number"] and shown["royal"] == bool(card["royal"])
    assert sorted(p["colour"] for p in view["players"]) == ["gold", "purple"]

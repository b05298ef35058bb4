"""The events pages send most, a game move (``action``), the clock sync (``ping``, every 2 s from every page) and a
spectator's answer (``audience``, a crowd's in the same second), are handled without a Flask request context
(host/sockets.py ``SafeNamespace.LIGHT_EVENTS``): building one for each event (a request object, a URL adapter, a
routing match, a session) was a twentieth of the party benchmark's server. They are still answered, refused and
guarded as every other event."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import Harness, control
from tests.test_audience import campaign_room, errcode, open_question, send


@pytest.fixture
def contexts(harness: Harness, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The Flask request contexts made from now on (Flask-SocketIO makes one for each event it handles), by path."""
    made: list[str] = []
    original = harness.app.request_context

    def counted(environ: dict[str, Any]) -> Any:
        made.append(environ.get("PATH_INFO", ""))
        return original(environ)

    monkeypatch.setattr(harness.app, "request_context", counted)
    return made


def started_campaign(harness: Harness) -> tuple[str, Any, dict[str, Any]]:
    code, tv = harness.host_room()
    phones = {name: harness.join(code, name)[0] for name in ("Ana", "Bob", "Cy")}
    assert control(tv, "select_game", game="campaign")["ok"]
    assert control(tv, "settings", game="campaign", settings={"bots": False, "preview_seconds": 0})["ok"]
    assert control(tv, "start")["ok"]
    return code, tv, phones


def test_a_move_and_a_clock_sync_make_no_request_context(harness: Harness, contexts: list[str]):
    code, tv, phones = started_campaign(harness)
    contexts.clear()
    answer = phones["Ana"].emit("action", {"action": {"answer": "12"}}, namespace="/play", callback=True)
    room = harness.service.room(code)
    assert answer == {"ok": True, "version": room.version}
    assert room.session.state.asking.answer_of(0).value == 12  # the move was applied
    synced = phones["Bob"].emit("ping", {"t": 5}, namespace="/play", callback=True)
    assert synced["ok"] and synced["t"] == 5 and synced["running"] is True
    assert synced["game_ms"] == harness.service.clocks.game_now(room)
    on_tv = tv.emit("ping", {"t": 6}, namespace="/tv", callback=True)
    assert on_tv["ok"] and on_tv["t"] == 6
    assert contexts == []
    assert phones["Cy"].emit("rename", {"name": "Cyrus"}, namespace="/play", callback=True)["ok"]
    assert len(contexts) == 1  # any other event: as Flask-SocketIO always made it


def test_a_move_without_a_request_context_is_still_checked_and_guarded(harness: Harness, contexts: list[str],
                                                                      monkeypatch: pytest.MonkeyPatch):
    _code, _tv, phones = started_campaign(harness)
    stranger = harness.phone()
    contexts.clear()  # (a socket's connect is handled in one, as before)
    refusals = [
        (stranger, {"action": {"answer": "1"}}, "not_joined"),
        (phones["Ana"], "not an object", "invalid"),
        (phones["Ana"], {"action": {"answer": "x\ud800"}}, "invalid"),  # a lone surrogate: named before any handler
        (phones["Ana"], {"action": {"pick": "nowhere"}}, "illegal_action"),
    ]
    for client, payload, code_ in refusals:
        answer = client.emit("action", payload, namespace="/play", callback=True)
        assert answer["ok"] is False and answer["error"]["code"] == code_, (payload, answer)
    assert phones["Ana"].emit("ping", {"t": float("nan")}, namespace="/play", callback=True)["error"]["field"] == "t"

    def broken(*_args: Any, **_kwargs: Any) -> Any:
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(harness.service, "act", broken)
    answer = phones["Bob"].emit("action", {"action": {"answer": "3"}}, namespace="/play", callback=True)
    assert answer["ok"] is False and answer["error"]["code"] == "internal"  # answered, and the server goes on
    assert contexts == []


def test_an_audience_answer_makes_no_request_context_and_is_still_checked():
    """A crowd's answers arrive in the same second (the big-room benchmark's 5,000 phones): each is a light event."""
    harness = Harness(TIMER_SCALE=0.5)
    original = harness.app.request_context
    made: list[str] = []
    harness.app.request_context = lambda environ: made.append(environ.get("PATH_INFO", "")) or original(environ)
    code, _tv, phones = campaign_room(harness, ("Sam",))
    sam = phones["Sam"]
    open_question(harness, code, "numeric")
    harness.clock.advance(300)
    made.clear()
    assert errcode(sam.emit("audience", ["not", "an", "object"], namespace="/play", callback=True)) == "invalid"
    assert errcode(send(sam, {"answer": "twelve"})) == "invalid"
    answer = send(sam, {"answer": 5}, ms=250)
    assert answer["ok"], answer
    own = [m["args"][0] for m in sam.get_received("/play") if m["name"] == "state"][-1]
    assert own["audience"]["you"]["yours"] == 5  # its own state, at once
    assert errcode(send(sam, {"answer": 6}, ms=250)) == "already_answered"
    assert made == []


def test_a_light_event_on_a_namespace_without_it_and_private_names_are_unknown(harness: Harness):
    """A TV has no moves to make, and a name that is not an event (a method's, a server-only one) is refused by name."""
    _code, tv, phones = started_campaign(harness)
    for client, namespace, event in ((tv, "/tv", "action"), (tv, "/tv", "audience"), (phones["Ana"], "/play", "_seat"),
                                     (phones["Ana"], "/play", "light_action"), (phones["Ana"], "/play", "connect")):
        answer = client.emit(event, {"action": {"answer": "1"}}, namespace=namespace, callback=True)
        assert answer["ok"] is False and answer["error"]["code"] == "unknown_event", (namespace, event, answer)

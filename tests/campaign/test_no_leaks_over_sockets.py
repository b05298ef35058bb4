"""No message a phone or the TV receives holds the open question's answer, or another seat's answer, before the
reveal: checked on every state message of a whole campaign played through sockets (CAMP-R16, CAMP-D5)."""

from __future__ import annotations

from tests.conftest import Harness, control


def test_no_socket_message_leaks_an_answer_before_the_reveal():
    harness = Harness(TIMER_SCALE=0.2)
    code, tv = harness.host_room()
    ana, _ = harness.join(code, "Ana")
    watcher, _ = harness.join(code, "Wes", "spectator")
    assert control(tv, "select_game", game="campaign")["ok"]
    assert control(tv, "start")["ok"]
    room = harness.service.room(code)
    checked = 0
    for _ in range(6000):
        if room.phase != "playing":
            break
        harness.clock.advance(100)
        harness.service.tick()
        state = room.session.state
        asking = state.asking
        for client, ns in ((tv, "/tv"), (ana, "/play"), (watcher, "/play")):
            for message in client.get_received(ns):
                if message["name"] != "state" or not message["args"][0].get("game"):
                    continue
                question = message["args"][0]["game"]["view"].get("question")
                if question and not question["revealed"]:
                    checked += 1
                    assert "correct" not in question and "answers" not in question and "ranking" not in question
                    mine = message["args"][0]["game"]["you"]
                    assert question.get("yours") is None or mine is not None
        if asking is not None and not asking.revealed and state.phase == "answer" and 0 in asking.seats \
                and asking.answer_of(0) is None and harness.clock.now % 700 == 0:
            payload = {"answer": 5} if asking.kind == "numeric" else {"choice": 0}
            ana.emit("action", {"action": payload}, namespace="/play", callback=True)
    assert room.phase == "finished" and checked > 20

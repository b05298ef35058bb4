"""A server stopped the usual way (SIGTERM, as a service manager or Ctrl-C does) right after a spectator's answer
still writes that answer: audience answers are batched by the ticker, and the stop writes the last batch."""

from __future__ import annotations

import time
from pathlib import Path

from sqlmodel import Session, create_engine, select

from host.audience import AudienceAnswerRecord
from tests.conftest import Servers
from tests.live import HostedRoom, first_audience_answer


def test_an_answer_accepted_just_before_a_stop_is_kept(tmp_path: Path, servers: Servers):
    server = servers.start("stop", timer_scale=0.5)
    try:
        room = HostedRoom(server.url)
        viewers = room.spectators(["Vera", "Walt", "Xena"])
        room.play("campaign", {"bots": True})
        first_audience_answer(viewers[0])
        time.sleep(0.2)  # the ticker writes the first answer; the next two wait for its next turn...
        for viewer in viewers[1:]:
            assert viewer.call("audience", {"action": {"answer": 7}}, namespace="/play")["ok"]
        server.process.terminate()  # ... but the server is stopped at once
        server.process.wait(10)
        room.close()
        for viewer in viewers:
            viewer.disconnect()
    finally:
        server.stop()
    with Session(create_engine(f"sqlite:///{tmp_path / 'stop.db'}")) as session:
        rows = session.exec(select(AudienceAnswerRecord)).all()
    assert sorted(r.value for r in rows) == [7, 7, 7]

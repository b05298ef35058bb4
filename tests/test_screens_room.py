"""Screen checker, the room itself: the lobby of a full room with every game picked, the packs, spectators, a
paused game and the host's end of a game, on every TV and phone size in every language (tests/screens/)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import LiveServer
from tests.screens.harness import StressRoom, stress_names

pytestmark = pytest.mark.e2e


@pytest.fixture
def slow_server(tmp_path: Path) -> Iterator[LiveServer]:
    live = LiveServer(tmp_path / "screens.db", timer_scale=10)  # nothing moves by itself while a stage is judged
    live.start()
    yield live
    live.stop()


def test_the_lobby_of_a_full_room_fits_every_screen(browser: Any, slow_server: LiveServer) -> None:
    room = StressRoom(browser, slow_server, "room")
    names = stress_names()
    room.phone("player", names[0])
    room.phone("spectator", names[1], role="spectator")
    for name in names[2:12]:
        room.robot(name)
    for name in ("Spectator One", "Spectator Two"):
        room.robot(name, role="spectator")
    room.check("lobby-no-game")
    for game in ("campaign", "crown", "hierarchy", "avignon"):
        room.control("select_game", game=game)
        room.tv.wait_for_selector(f"[data-game={game}][aria-pressed=true]")
        room.check(f"lobby-{game}", phones=["player"])
    room.finish()

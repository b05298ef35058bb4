"""Which games a room can host.

``GAMES`` holds the games whose engines are implemented; ``ANNOUNCED`` holds the lobby information of the
games whose engines are still to come, so the TV can list them all from the start and show which are ready. Games
that do not ship (the test games, tests/games) are registered at start-up from a games module (host/app.py
``load_games_module``).
"""

from __future__ import annotations

from typing import Any

from engine.avignon.game import AvignonGame
from engine.campaign.game import CampaignGame
from engine.core import Game, GameInfo
from engine.crown.game import CrownGame
from engine.hierarchy.game import HierarchyGame
from engine.quiz.game import QuizGame

GAMES: dict[str, Game[Any, Any]] = {}

ANNOUNCED: dict[str, GameInfo] = {}

LOBBY_ORDER = ("campaign", "crown", "hierarchy", "avignon", "quiz")


def register(game: Game[Any, Any]) -> None:
    """Make a game available to rooms (replacing its announcement)."""
    GAMES[game.info.id] = game


def get(game_id: str) -> Game[Any, Any] | None:
    """The implemented game with this id, if any."""
    return GAMES.get(game_id)


def info(game_id: str) -> GameInfo | None:
    """The lobby information of an implemented or announced game."""
    game = GAMES.get(game_id)
    return game.info if game is not None else ANNOUNCED.get(game_id)


def is_playable(game_id: str, include_unready: bool = False) -> bool:
    """Whether a room may start this game: its engine exists and (outside tests) its screens too."""
    game = GAMES.get(game_id)
    return game is not None and (game.info.ready or include_unready)


def lobby_games(include_unlisted: bool = False) -> list[tuple[GameInfo, bool]]:
    """The games the lobby shows, as (info, playable): the four in order, then unlisted ones if asked.
    Tests (``include_unlisted``) may also start games whose screens are not ready."""
    result = [(shown, is_playable(gid, include_unlisted)) for gid in LOBBY_ORDER if (shown := info(gid)) is not None]
    if include_unlisted:
        result += [(g.info, True) for gid, g in GAMES.items() if not g.info.listed]
    return result


register(CampaignGame())
register(HierarchyGame())
register(AvignonGame())
register(CrownGame())
register(QuizGame())

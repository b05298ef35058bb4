"""The benchmark's own game, Buzz (the fair-timing bench): a games module (host/app.py ``load_games_module``) that
``throneroom bench`` loads into its server with ``--games-module bench.games``. It ships with the benchmark, not
with the tests (a benchmark never imports tests), and no room sees it otherwise. Buzz has no screens: the fair-timing
bench and tests drive it over sockets only."""

from __future__ import annotations

from pathlib import Path

from bench.games.buzz import BuzzGame
from engine.core import Game

GAMES: tuple[Game, ...] = (BuzzGame(),)
CATALOGS = Path(__file__).resolve().parent / "i18n"

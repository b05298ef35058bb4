"""The test games: Tally and TeamTally (Tally in three teams), with the benchmark's Buzz (bench/games, the fair-timing
bench). They never ship: a server offers them only when started with ``--games-module tests.games`` (app config
``GAMES_MODULES``), and the test process loads them once in tests/conftest.py.

A games module (host/app.py ``load_games_module``) gives ``GAMES``, the engines to register, and may give
``STATIC`` (a folder the server serves at /extra/<module>/), ``SCRIPTS`` and ``STYLES`` (files in it that every page
loads after the built-in games' own) and ``CATALOGS`` (a folder of message fragments ``<part>.<lang>.json``, merged
into the catalogs like host/i18n's own).
"""

from __future__ import annotations

from pathlib import Path

from bench.games.buzz import BuzzGame
from engine.core import Game
from host.app import load_games_module
from tests.games.tally import TallyGame, TeamTallyGame

HERE = Path(__file__).resolve().parent

GAMES: tuple[Game, ...] = (TallyGame(), TeamTallyGame(), BuzzGame())
STATIC = HERE / "static"
SCRIPTS = ("tally.js",)  # Buzz has no screens: the fair-timing bench and tests drive it over sockets only
STYLES = ("tally.css",)
CATALOGS = HERE / "i18n"  # Tally's; Buzz's come with bench.games, loaded below

load_games_module("bench.games")

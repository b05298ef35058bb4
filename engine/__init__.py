"""Throneroom's pure game engines: a shared core (``engine.core``) and one package per game."""

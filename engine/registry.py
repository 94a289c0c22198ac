"""The games Pečeť knows, by id: which have an engine and which rooms can host."""

from __future__ import annotations

import importlib

from engine.core import GameRules

# Game id -> dotted path of the module whose ``RULES`` object implements the protocol.
_GAME_MODULES: dict[str, str] = {
    "hidden_leaders": "engine.hidden_leaders",
    "heirs": "engine.heirs",
    "legions": "engine.legions",
}

# Games a room can host: their engine is complete and so are their phone and board pages.
_HOSTED: tuple[str, ...] = ("hidden_leaders", "legions", "heirs")

# Every game the product knows of (the room API answers 422 for the ones not hosted yet).
KNOWN_GAMES: tuple[str, ...] = ("heirs", "hidden_leaders", "legions")


def available_games() -> tuple[str, ...]:
    """Games a room can be opened for."""
    return _HOSTED


def engine_games() -> tuple[str, ...]:
    """Games whose rules engine is complete (bots can play them, e.g. ``pecet simulate``)."""
    return tuple(_GAME_MODULES)


def get_rules(game_id: str) -> GameRules:
    """The rules object of ``game_id``; ``KeyError`` if it has no engine."""
    module = importlib.import_module(_GAME_MODULES[game_id])
    rules: GameRules = module.RULES
    return rules

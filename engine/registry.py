"""The games this server hosts, by id."""

from __future__ import annotations

from engine.core import GameRules

# Game id -> dotted path of the module whose ``RULES`` object implements the protocol.
# A game is listed here only once its engine is complete.
_GAME_MODULES: dict[str, str] = {
    "hidden_leaders": "engine.hidden_leaders",
}

# Every game the product knows of, built or not (the room API answers 422 for the rest).
KNOWN_GAMES: tuple[str, ...] = ("heirs", "hidden_leaders", "legions")


def available_games() -> tuple[str, ...]:
    return tuple(_GAME_MODULES)


def get_rules(game_id: str) -> GameRules:
    """The rules object of ``game_id``; ``KeyError`` if it is not hosted here."""
    import importlib

    module = importlib.import_module(_GAME_MODULES[game_id])
    rules: GameRules = module.RULES
    return rules

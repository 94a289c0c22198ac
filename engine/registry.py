"""The games Pečeť knows, by id: one table, from which every list of games is derived.

A game lives in its own packages (``engine/<game>/``, ``app/games/<game>.py`` and its
templates); its line in :data:`GAMES` is all the rest of the project needs of it. What is
particular to a game (its tournament scoring, tie-break, rematches, timed-out orders, what
carries from one match to the next) is asked of its rules object through the protocol of
``engine/core.py``, never decided here or in the app by its id.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from engine.core import GameInfo, GameRules


@dataclass(frozen=True, slots=True)
class GameEntry:
    """Where a game's engine lives and whether rooms may open it."""

    module: str
    """Dotted path of the module whose ``RULES`` object implements the protocol."""
    hosted: bool = True
    """Its phone and board pages are complete: a room can be opened for it. An engine that
    is not hosted yet still plays with bots (``pecet simulate``); the room API answers 422."""


GAMES: dict[str, GameEntry] = {
    # In the order the host's menu offers them.
    "hidden_leaders": GameEntry("engine.hidden_leaders"),
    "legions": GameEntry("engine.legions"),
    "heirs": GameEntry("engine.heirs"),
}

KNOWN_GAMES: tuple[str, ...] = tuple(sorted(GAMES))
"""Every game the product knows of, alphabetically (as refusals list them)."""


def available_games() -> tuple[str, ...]:
    """Games a room can be opened for, in the order the host's menu offers them."""
    return tuple(game for game, entry in GAMES.items() if entry.hosted)


def engine_games() -> tuple[str, ...]:
    """Games whose rules engine is complete (bots can play them, e.g. ``pecet simulate``)."""
    return tuple(GAMES)


def get_rules(game_id: str) -> GameRules:
    """The rules object of ``game_id``; ``KeyError`` if it has no engine."""
    module = importlib.import_module(GAMES[game_id].module)
    rules: GameRules = module.RULES
    return rules


def game_info(game_id: str) -> GameInfo:
    """The static facts of ``game_id`` (``KeyError`` if it has no engine)."""
    return get_rules(game_id).info

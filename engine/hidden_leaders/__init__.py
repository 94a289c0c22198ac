"""Hidden Leaders Duel (rules: shared/rules/hidden-leaders-duel.md, L1–L12).

``RULES`` implements :class:`engine.core.GameRules`. Seat 0 is player A (Row A, bottom),
seat 1 is player B (Row B, top).
"""

from __future__ import annotations

from engine.hidden_leaders.bot import bot_order_from_view
from engine.hidden_leaders.cards import FACTIONS, SLOTS, Cards, default_cards
from engine.hidden_leaders.rules import HiddenLeadersRules, final_state
from engine.hidden_leaders.scoring import (
    MAJORITY,
    TIE_BOTH,
    TIE_COUNT,
    TIE_INFLUENCE,
    FactionScore,
    Score,
    parse_row,
    score_position,
)
from engine.hidden_leaders.state import HLState, LastAction, PlaceOrder, Slot, TakeOrder

RULES = HiddenLeadersRules()

__all__ = [
    "FACTIONS",
    "MAJORITY",
    "RULES",
    "SLOTS",
    "TIE_BOTH",
    "TIE_COUNT",
    "TIE_INFLUENCE",
    "Cards",
    "FactionScore",
    "HLState",
    "HiddenLeadersRules",
    "LastAction",
    "PlaceOrder",
    "Score",
    "Slot",
    "TakeOrder",
    "bot_order_from_view",
    "default_cards",
    "final_state",
    "parse_row",
    "score_position",
]

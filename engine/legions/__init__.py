"""Legions — Necro-camp vs King (``rules/legions.md``). ``RULES`` implements the protocol."""

from __future__ import annotations

from engine.legions.rules import LegionsRules

RULES = LegionsRules()

__all__ = ["RULES", "LegionsRules"]

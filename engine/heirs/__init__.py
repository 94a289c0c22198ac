"""Heirs of the Axis: sealed orders, resolved heir by heir (spec: rules/heirs.md, H0–H23)."""

from engine.heirs.api import HeirsRules

RULES = HeirsRules()

__all__ = ["RULES", "HeirsRules"]

"""What each screen may not know in a Hidden Leaders Duel, worked out from the true states."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from engine.hidden_leaders.state import HLState


class SecretOracle:
    """Follows the true states of one game and says which card ids a screen must not see.

    A card id names its strength (L1.2), so an id in a payload is knowledge of that card. An id
    is public once the card has lain face up in a row (the board saw it); before that only its
    holder knows it (hand, council, leader, own blocking hero, L10.1), and nobody knows a
    face-down row hero, a pile card or a set-aside leader (L10.3).
    """

    def __init__(self) -> None:
        self.ever_public: set[str] = set()

    def observe(self, state: HLState) -> None:
        for slot in state.rows:
            if slot.hero is not None and slot.face_up:
                self.ever_public.add(slot.hero)

    def forbidden(self, state: HLState, viewer: int | None) -> set[str]:
        """Ids ``viewer`` (``None`` = the board) must not receive in this state."""
        if state.step == "over":
            return set(state.set_aside) - self.ever_public
        hidden: set[str] = set(state.pile) | set(state.set_aside)
        for slot in state.rows:
            if slot.hero is not None and not slot.face_up:
                hidden.add(slot.hero)
            if slot.blocker is not None and slot.blocker_owner != viewer:
                hidden.add(slot.blocker)
        for seat in (0, 1):
            if seat != viewer:
                hidden |= set(state.hands[seat]) | set(state.councils[seat])
                hidden.add(state.leaders[seat])
        if viewer is not None and state.active == viewer:
            hidden -= set(state.taken)
        return hidden - self.ever_public


def leaked(payload: Any, forbidden: Iterable[str]) -> list[str]:
    """The forbidden ids that occur as JSON strings in ``payload``."""
    text = payload if isinstance(payload, str) else json.dumps(payload)
    return sorted(card for card in forbidden if f'"{card}"' in text or f">{card}<" in text)

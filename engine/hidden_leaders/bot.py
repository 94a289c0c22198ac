"""The simple bot of L11. It reads only its own seat's view (never the raw state).

Each choice is made from a few facts of that view: for a TAKE, the takeable slots and the
face-up heroes on them; for a RETURN+PLACE, the hand, the factions present in the seat's
leader and council, and the open slots. :func:`bot_order_from_view` reads them from a view;
the rules hand the same facts straight to :func:`choose_take` and :func:`choose_place`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from engine.core import JSON
from engine.hidden_leaders.cards import FACTIONS, ROWS, SLOT_INDEX, Cards

FACE_DOWN_ESTIMATE = 3
"""L11: *est* of a face-down card (the average strength is 20/7 ≈ 2.9)."""


def _takeable(view: JSON) -> list[dict[str, Any]]:
    return [
        slot
        for row in ROWS
        for slot in view["rows"][row]
        if slot["hero"] is not None and slot["blocker"] is None
    ]


def bot_take(view: JSON, cards: Cards) -> JSON:
    """L11.1 on a view: see :func:`choose_take`."""
    seat = int(view["me"]["seat"])
    takeable = [
        (slot["slot"], slot["hero"]["card"] if slot["hero"].get("face_up") else None)
        for slot in _takeable(view)
    ]
    return choose_take(seat, takeable, cards)


def choose_take(seat: int, takeable: Sequence[tuple[str, str | None]], cards: Cards) -> JSON:
    """L11.1: the 2 takeable heroes with the highest *est*; on equal *est* the opponent's
    home row first, then Row A before Row B, the lower slot, the lower card id.

    ``takeable`` holds each takeable slot with its hero if it lies face up (else ``None``)."""
    opponent_row = ROWS[1 - seat]
    strength = cards.strength

    def key(entry: tuple[str, str | None]) -> tuple[int, int, int]:
        slot, card = entry
        est = FACE_DOWN_ESTIMATE if card is None else strength(card)
        # Row A before Row B, then the lower slot: the board order of the slots. Slots
        # are unique, so the card id never has to break a tie.
        return -est, 0 if slot[0] == opponent_row else 1, SLOT_INDEX[slot]

    count = min(2, len(takeable))
    chosen = sorted(takeable, key=key)[:count]
    return {"type": "take", "slots": [slot for slot, _ in chosen]}


def bot_place(view: JSON, cards: Cards) -> JSON:
    """L11.2 and L11.3 on a view: see :func:`choose_place`."""
    me = view["me"]
    return choose_place(
        int(me["seat"]),
        [c["card"] for c in me["hand"]],
        [f for f in FACTIONS if me["presence"][f]],
        list(view["open_slots"]),
        cards,
    )


def choose_place(
    seat: int,
    hand: list[str],
    present: Iterable[str],
    open_slots: list[str],
    cards: Cards,
) -> JSON:
    """L11.2 return and L11.3 place (always the council). ``present`` are the factions of
    the seat's leader and council heroes."""
    home_row = ROWS[seat]
    strength: Mapping[str, int] = cards.strengths
    faction: Mapping[str, str] = cards.hero_factions
    rank: Mapping[str, int] = cards.ranks
    present = set(present)
    missing = [f for f in FACTIONS if f not in present]
    n = len(open_slots)

    def weakest(pool: list[str]) -> str:
        # Ties: the general L11 tie-break, the lower card id.
        return min(pool, key=lambda c: (strength[c], rank[c]))

    def strongest_first(pool: list[str]) -> list[str]:
        # L11.2.3: on equal strength the lower card id counts as stronger.
        return sorted(pool, key=lambda c: (-strength[c], rank[c]))

    # L11.2.1: keep the weakest card of each missing faction as cheap presence.
    aside = {
        weakest([c for c in hand if faction[c] == f])
        for f in missing
        if any(faction[c] == f for c in hand)
    }
    # L11.2.2: return the strongest of the rest (or of the whole hand if too few remain).
    rest = [c for c in hand if c not in aside]
    pool = rest if len(rest) >= n else hand
    returned = strongest_first(pool)[:n]  # already strongest first

    # L11.2.3: pair returned cards with the open slots.
    returns: dict[str, str] = {}
    if n == 1:
        returns[open_slots[0]] = returned[0]
    elif n == 2:
        first, second = open_slots
        if first[0] != second[0]:
            home = first if first[0] == home_row else second
            away = second if home == first else first
            returns[home], returns[away] = returned[0], returned[1]
        else:
            low, high = sorted(open_slots, key=lambda s: int(s[1:]))
            returns[low], returns[high] = returned[0], returned[1]

    # L11.3: the council gets the weakest card of a missing faction, else the weakest card.
    remaining = [c for c in hand if c not in returned]
    of_missing = [c for c in remaining if faction[c] in missing]
    card = weakest(of_missing) if of_missing else weakest(remaining)
    ordered = {s: returns[s] for s in open_slots}
    return {"type": "place", "returns": ordered, "placement": {"to": "council", "card": card}}


def bot_order_from_view(view: JSON, cards: Cards) -> JSON:
    """The L11 order for the seat whose view this is (its step is read from the view)."""
    if view.get("me") is None or view["step"] not in ("take", "place"):
        raise ValueError("the bot needs a seat's view of a running game")
    if view["step"] == "take":
        return bot_take(view, cards)
    return bot_place(view, cards)

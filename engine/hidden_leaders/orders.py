"""Checking the two orders of a turn (L3.5) against a state. Every refusal is an
:class:`~engine.core.IllegalOrder` with a message a player can read."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeGuard

from engine.core import IllegalOrder, quoted
from engine.hidden_leaders.cards import SLOT_INDEX, Cards
from engine.hidden_leaders.state import (
    STEP_PLACE,
    STEP_TAKE,
    HLState,
    PlaceOrder,
    TakeOrder,
)

_TAKE_KEYS = frozenset({"type", "slots"})
_PLACE_KEYS = frozenset({"type", "returns", "placement"})
_PLACEMENT_KEYS = frozenset({"to", "card", "slot"})


def _slot_list(slots: list[str]) -> str:
    return ", ".join(slots)


def _check_keys(raw: Mapping[Any, Any], allowed: frozenset[str], where: str) -> None:
    for key in raw:
        if not isinstance(key, str) or key not in allowed:
            raise IllegalOrder(
                f"Unknown field {quoted(key)} in {where}; "
                f"allowed fields: {', '.join(sorted(allowed))}.",
                code="malformed",
                field=str(key)[:40],
            )


def _check_slot_name(value: object, where: str) -> str:
    if not isinstance(value, str):
        raise IllegalOrder(f'{where} must be a slot name such as "A1" or "B7".', code="malformed")
    if value not in SLOT_INDEX:
        raise IllegalOrder(
            f"There is no slot {quoted(value)}: the slots are A1–A7 and B1–B7.",
            code="unknown_slot",
            slot=value[:40],
        )
    return value


def _check_hand_card(value: object, hand: tuple[str, ...], cards: Cards, where: str) -> str:
    if not isinstance(value, str):
        raise IllegalOrder(f'{where} must be a card id such as "WF1".', code="malformed")
    if not cards.is_hero(value):
        raise IllegalOrder(
            f"There is no hero card {quoted(value)}.", code="unknown_card", card=value[:40]
        )
    if value not in hand:
        raise IllegalOrder(f"{value} is not in your hand.", code="not_in_hand", card=value)
    return value


def _is_mapping(value: object) -> TypeGuard[Mapping[Any, Any]]:
    # A plain dict, as nearly every order is, skips the slower abstract-class check.
    return type(value) is dict or isinstance(value, Mapping)


def parse_order(state: HLState, order: object, cards: Cards) -> TakeOrder | PlaceOrder:
    """The validated order for the active seat's current step, or ``IllegalOrder``."""
    if not _is_mapping(order):
        raise IllegalOrder("An order must be a JSON object.", code="malformed")
    kind = order.get("type")
    if kind not in ("take", "place"):
        raise IllegalOrder(
            'An order needs "type": "take" (take heroes) or "place" (return and place).',
            code="bad_type",
        )
    if state.step == STEP_TAKE and kind != "take":
        raise IllegalOrder(
            'First take heroes from the rows: send a "take" order.', code="wrong_step"
        )
    if state.step == STEP_PLACE and kind != "place":
        raise IllegalOrder(
            'You have already taken heroes: now send a "place" order (return and place).',
            code="wrong_step",
        )
    if kind == "take":
        return _parse_take(state, order)
    return _parse_place(state, order, cards)


def _parse_take(state: HLState, order: Mapping[Any, Any]) -> TakeOrder:
    _check_keys(order, _TAKE_KEYS, "a take order")
    raw_slots = order.get("slots")
    if not isinstance(raw_slots, list | tuple):
        raise IllegalOrder(
            'The "slots" field must be a list of slot names, such as ["A1", "B3"].',
            code="malformed",
        )
    takeable = state.takeable_slots()
    count = min(2, len(takeable))
    slots: list[str] = []
    for value in raw_slots:
        slot = _check_slot_name(value, 'Each entry of "slots"')
        if slot in slots:
            raise IllegalOrder(
                f"You named slot {slot} twice: take two different heroes.",
                code="duplicate_slot",
                slot=slot,
            )
        slots.append(slot)
    if len(slots) != count:
        if count == 2:
            message = f"Take exactly 2 heroes (you named {len(slots)})."
        else:
            message = f"Only 1 hero can be taken now ({takeable[0]}): take exactly 1."
        raise IllegalOrder(message, code="wrong_count", expected=count, got=len(slots))
    for slot in slots:
        target = state.slot(slot)
        if target.blocker is not None:
            raise IllegalOrder(
                f"{slot} is blocked: neither a blocked hero nor the blocking hero on it "
                "can be taken.",
                code="blocked",
                slot=slot,
            )
        if target.hero is None:  # pragma: no cover - no open slot exists during TAKE
            raise IllegalOrder(f"{slot} is empty.", code="empty_slot", slot=slot)
    return TakeOrder(slots=tuple(slots))


def _parse_place(state: HLState, order: Mapping[Any, Any], cards: Cards) -> PlaceOrder:
    _check_keys(order, _PLACE_KEYS, "a place order")
    hand = state.hands[state.active]
    open_slots = list(state.open_slots)
    raw_returns = order.get("returns")
    if not _is_mapping(raw_returns):
        raise IllegalOrder(
            'The "returns" field must map each open slot to a hand card, such as {"A1": "WF1"}.',
            code="malformed",
        )
    used: list[str] = []
    returns: dict[str, str] = {}
    for key, value in raw_returns.items():
        slot = _check_slot_name(key, 'Each key of "returns"')
        if slot not in open_slots:
            raise IllegalOrder(
                f"{slot} is not one of the slots you opened ({_slot_list(open_slots)}); "
                "return cards only there.",
                code="wrong_slots",
                slot=slot,
            )
        card = _check_hand_card(value, hand, cards, f"The card returned to {slot}")
        if card in used:
            raise IllegalOrder(
                f"You used {card} twice: each card can go to one place only.",
                code="duplicate_card",
                card=card,
            )
        used.append(card)
        returns[slot] = card
    missing = [s for s in open_slots if s not in returns]
    if missing:
        raise IllegalOrder(
            f"Return one card to each slot you opened ({_slot_list(open_slots)}); "
            f"missing: {_slot_list(missing)}.",
            code="wrong_slots",
            missing=missing,
        )

    placement = order.get("placement")
    if not _is_mapping(placement):
        raise IllegalOrder(
            'The "placement" field must be {"to": "council", "card": ...} or '
            '{"to": "block", "card": ..., "slot": ...}.',
            code="malformed",
        )
    _check_keys(placement, _PLACEMENT_KEYS, '"placement"')
    to = placement.get("to")
    if to not in ("council", "block"):
        raise IllegalOrder(
            'The placement must go "to": "council" or "to": "block".', code="bad_placement"
        )
    card = _check_hand_card(placement.get("card"), hand, cards, "The placed card")
    if card in used:
        raise IllegalOrder(
            f"You used {card} twice: a returned card cannot also be placed.",
            code="duplicate_card",
            card=card,
        )
    block_slot: str | None = None
    if to == "council":
        if placement.get("slot") is not None:
            raise IllegalOrder(
                'A council placement takes no slot; to block, send "to": "block".',
                code="bad_placement",
            )
    else:
        if "slot" not in placement or placement.get("slot") is None:
            raise IllegalOrder('Name the slot to block, such as "B2".', code="bad_placement")
        block_slot = _check_slot_name(placement.get("slot"), "The block's slot")
        target = state.slot(block_slot)
        if target.blocker is not None:
            raise IllegalOrder(
                f"{block_slot} already has a blocking hero: a blocking hero cannot be blocked, "
                "choose an unblocked hero.",
                code="already_blocked",
                slot=block_slot,
            )
    ordered = tuple(sorted(returns.items(), key=lambda kv: SLOT_INDEX[kv[0]]))
    return PlaceOrder(returns=ordered, to=str(to), card=card, slot=block_slot)

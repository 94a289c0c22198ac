"""Builders for Legions scenario tests (no tests here): set up a position the way the
worked examples of G14 describe it, then drive it through the protocol."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.core import JSON, Event, IllegalOrder
from engine.legions import RULES
from engine.legions.state import (
    LEADERSHIP,
    STEPS,
    LegionsState,
    PlayerState,
    RecruitedHero,
    RowSlot,
    Stage,
    TurnFlags,
)

N, K = 0, 1  # in every scenario seat 0 plays Necro-camp and seat 1 the King
ORDER = ("Y", "R", "B", "P", "G")


def _sides(cards: Mapping[str, list[str]] | None) -> dict[str, list[str]]:
    cards = cards or {}
    return {loc: list(cards.get(loc, [])) for loc in ORDER}


def build(
    *,
    n_hand: list[str],
    k_hand: list[str],
    row: list[tuple[str, bool]] | None = None,
    n_face_up: Mapping[str, list[str]] | None = None,
    k_face_up: Mapping[str, list[str]] | None = None,
    n_routed: Mapping[str, list[str]] | None = None,
    k_routed: Mapping[str, list[str]] | None = None,
    tokens: Mapping[str, int | None] | None = None,
    hero_row: list[str] | None = None,
    hero_deck_top: list[str] | None = None,
    n_heroes: list[tuple[str, list[str]]] | None = None,
    k_heroes: list[tuple[str, list[str]]] | None = None,
    n_stratagem: str = "N1",
    k_stratagem: str = "K3",
    n_used: bool = False,
    k_used: bool = False,
    deck_top: list[str] | None = None,
    deck_size: int | None = None,
    turn: int = 5,
) -> LegionsState:
    """A position at the start of a turn (leadership). Every legion and hero not named is
    put in its deck (named tops first), so cards are conserved unless ``deck_size`` cuts
    the legion deck short (for end-of-game positions)."""
    row = row if row is not None else []
    n_heroes = n_heroes or []
    k_heroes = k_heroes or []
    hero_row = hero_row if hero_row is not None else ["H01", "H05", "H13", "H17", "H11"]
    placed: list[str] = [*n_hand, *k_hand, *(c for c, _ in row)]
    for cards in (n_face_up, k_face_up, n_routed, k_routed):
        for pile in (cards or {}).values():
            placed += pile
    for _, legions in [*n_heroes, *k_heroes]:
        placed += legions
    deck_top = deck_top or []
    rest = [c for c in sorted(RULES.content.legions) if c not in placed and c not in deck_top]
    deck = [*deck_top, *rest]
    if deck_size is not None:
        deck = deck[:deck_size]
    used_heroes = [*hero_row, *(h for h, _ in n_heroes), *(h for h, _ in k_heroes)]
    hero_deck_top = hero_deck_top or []
    hero_rest = [
        h for h in sorted(RULES.content.heroes) if h not in used_heroes and h not in hero_deck_top
    ]
    players = [
        PlayerState(
            side="necro",
            hand=list(n_hand),
            stratagem=n_stratagem,
            stratagem_used=n_used,
            face_up=_sides(n_face_up),
            routed=_sides(n_routed),
            heroes=[RecruitedHero(h, list(ls)) for h, ls in n_heroes],
        ),
        PlayerState(
            side="king",
            hand=list(k_hand),
            stratagem=k_stratagem,
            stratagem_used=k_used,
            face_up=_sides(k_face_up),
            routed=_sides(k_routed),
            heroes=[RecruitedHero(h, list(ls)) for h, ls in k_heroes],
        ),
    ]
    token_map: dict[str, int | None] = dict.fromkeys(ORDER)
    token_map.update(tokens or {})
    return LegionsState(
        rng=12345,
        turn=turn,
        phase=LEADERSHIP,
        players=players,
        tokens=token_map,
        legion_row=[RowSlot(c, up) for c, up in row],
        legion_deck=deck,
        hero_row=list(hero_row),
        hero_deck=[*hero_deck_top, *hero_rest],
        flags=TurnFlags(deck_at_start=len(deck)),
        deal_first=0,
    )


def at_stage(state: LegionsState, seat: int, kind: str, leader: int, **data: Any) -> LegionsState:
    """Jump a built position into the steps: ``seat`` must decide ``kind``."""
    state.phase = STEPS
    state.leader = leader
    state.stage = Stage(seat, kind, dict(data))
    return state


def act(state: LegionsState, seat: int, order: JSON) -> tuple[LegionsState, list[Event]]:
    """Submit one order and resolve it (a sequential step)."""
    state = RULES.submit(state, seat, order)
    assert RULES.ready(state)
    return RULES.resolve(state)


def seal(state: LegionsState, n_card: str, k_card: str) -> tuple[LegionsState, list[Event]]:
    state = RULES.submit(state, N, {"kind": "seal", "legion": n_card})
    assert not RULES.ready(state)
    state = RULES.submit(state, K, {"kind": "seal", "legion": k_card})
    assert RULES.ready(state)
    return RULES.resolve(state)


def orders(state: LegionsState, seat: int) -> list[JSON]:
    prompt = RULES.prompt(state, seat)
    assert prompt is not None, f"seat {seat} has nothing to decide"
    return [o["order"] for o in prompt["options"]]


def kinds(events: list[Event]) -> list[str]:
    return [e.kind for e in events]


def rejected(state: LegionsState, seat: int, order: JSON) -> IllegalOrder:
    try:
        RULES.submit(state, seat, order)
    except IllegalOrder as error:
        return error
    raise AssertionError(f"{order} was accepted")


def face_up(state: LegionsState, seat: int) -> dict[str, list[str]]:
    return {loc: sorted(cards) for loc, cards in state.players[seat].face_up.items() if cards}


def routed(state: LegionsState, seat: int) -> dict[str, list[str]]:
    return {loc: sorted(cards) for loc, cards in state.players[seat].routed.items() if cards}

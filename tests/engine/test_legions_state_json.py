"""Legions' hand-written ``state_to_json`` gives exactly what ``dataclasses.asdict`` gives,
and shares nothing mutable with the state (saved snapshots and board steps rely on it)."""

from __future__ import annotations

from dataclasses import asdict, replace
from typing import Any

from engine.core import Rng
from engine.legions import RULES
from engine.legions.state import (
    LEADERSHIP,
    LegionsState,
    clone,
    state_to_json,
    with_pending,
    with_sealed,
)
from tests.engine.kit import dumps


def game_fields(state: LegionsState) -> dict[str, Any]:
    """``asdict`` of the state without what is not part of the game (``shares_with``)."""
    fields = asdict(state)
    del fields["shares_with"]
    return fields


def test_state_to_json_is_asdict_for_every_state_of_random_games() -> None:
    for seed in range(15):
        rng = Rng.from_seed(seed)
        state = RULES.setup(2, seed, {})
        while True:
            # A resolution's state lets go of the one it came from once it is done.
            assert state.shares_with is None
            raw = state_to_json(state)
            assert raw == game_fields(state)
            assert dumps(raw) == dumps(game_fields(state))
            if RULES.outcome(state) is not None:
                break
            for seat in (0, 1):
                if RULES.prompt(state, seat) is not None:
                    state = RULES.submit(state, seat, RULES.random_order(state, seat, rng))
            if RULES.ready(state):
                state = RULES.resolve(state)[0]


def test_state_to_json_shares_nothing_mutable() -> None:
    state = RULES.setup(2, 7, {})
    before = dumps(state_to_json(state))
    raw = state_to_json(state)
    raw["players"][0]["hand"].append("L99")
    raw["players"][0]["face_up"]["Y"].append("L99")
    raw["tokens"]["Y"] = 0
    raw["legion_deck"].clear()
    raw["flags"]["placed_at"][0] = "Y"
    assert dumps(state_to_json(state)) == before


def test_copies_keep_every_field_in_its_place() -> None:
    """``clone``, ``with_pending`` and ``with_sealed`` build states field by field in the
    dataclasses' order: each gives what ``dataclasses.replace`` gives, in every state of
    random games."""
    for seed in range(6):
        rng = Rng.from_seed(seed)
        state = RULES.setup(2, seed, {})
        while RULES.outcome(state) is None:
            assert clone(state) == state
            assert clone(state, keep_pending=False) == replace(state, pending=None)
            order = {"kind": "skip"}
            assert with_pending(state, order) == replace(state, pending=order)
            for seat in (0, 1):
                player = state.players[seat]
                if state.phase == LEADERSHIP and player.sealed is None:
                    card = player.hand[0]
                    hand = [c for c in player.hand if c != card]
                    players = list(state.players)
                    players[seat] = replace(player, hand=hand, sealed=card)
                    assert with_sealed(state, seat, card) == replace(state, players=players)
            for seat in (0, 1):
                if RULES.prompt(state, seat) is not None:
                    state = RULES.submit(state, seat, RULES.random_order(state, seat, rng))
            if RULES.ready(state):
                state = RULES.resolve(state)[0]

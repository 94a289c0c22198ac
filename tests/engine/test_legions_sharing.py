"""Legions states share what the rules never change in place (``engine/legions/state.py``):
row slots, heroes, notes and the piles of legions at each location. Conformance promise 6
plays a few games; here random games reach every power and stratagem, and every state they
return (after setup, each order and each board step of a resolution) still reads at the
end of its game as it did when it was returned."""

from __future__ import annotations

from engine.core import Rng
from engine.legions import RULES
from engine.legions.state import LegionsState, state_to_json
from tests.engine.kit import dumps

GAMES = 40


def test_no_state_changes_once_returned_whatever_the_powers_and_stratagems() -> None:
    powers_used: set[str] = set()
    stratagems_used: set[str] = set()
    kinds: set[str] = set()
    for seed in range(GAMES):
        rng = Rng.from_seed(seed ^ 0x5EED)
        state = RULES.setup(2, seed, {})
        returned: list[tuple[LegionsState, str]] = [(state, dumps(state_to_json(state)))]
        while RULES.outcome(state) is None:
            for seat in (0, 1):
                if RULES.prompt(state, seat) is not None:
                    state = RULES.submit(state, seat, RULES.random_order(state, seat, rng))
                    returned.append((state, dumps(state_to_json(state))))
            if RULES.ready(state):
                for step in RULES.resolve_steps(state):
                    returned.append((step.state, dumps(state_to_json(step.state))))
                    for event in step.events:
                        kinds.add(event.kind)
                        if event.kind == "power" and event.data["used"]:
                            power = RULES.content.heroes[event.data["hero"]].power
                            assert power is not None
                            powers_used.add(power)
                        elif event.kind == "stratagem":
                            stratagems_used.add(event.data["stratagem"]["id"])
                state = step.state
        for number, (kept, text) in enumerate(returned):
            assert dumps(state_to_json(kept)) == text, f"seed {seed}: state {number} changed"
    assert powers_used == {h.power for h in RULES.content.heroes.values() if h.power is not None}
    assert stratagems_used == set(RULES.content.stratagems)
    assert {"collect", "rout", "shield", "under", "take", "majority"} <= kinds


def test_a_resolution_copies_only_the_players_and_flags_it_changes() -> None:
    """A resolution shares with the state it resolves the players and the turn's flags it
    leaves alone (``working_copy``): a placement changes its own seat's player and the flags,
    not the other player; a skipped recruit changes neither player nor the flags."""
    placements = skips = 0
    for seed in range(6):
        state = RULES.setup(2, seed, {})
        while RULES.outcome(state) is None:
            for seat in (0, 1):
                if RULES.prompt(state, seat) is not None:
                    state = RULES.submit(state, seat, RULES.bot_order(state, seat))
            if not RULES.ready(state):
                continue
            before = state
            state = RULES.resolve(state)[0]
            stage, order = before.stage, before.pending
            if stage is None or order is None:
                continue
            other = 1 - stage.seat
            if order["kind"] == "place":
                placements += 1
                assert state.players[other] is before.players[other]
                assert state.players[stage.seat] is not before.players[stage.seat]
                assert state.flags is not before.flags
            elif stage.kind == "recruit" and order["kind"] == "skip":
                skips += 1
                assert state.players == before.players
                assert all(a is b for a, b in zip(state.players, before.players, strict=True))
                assert state.flags is before.flags
    assert placements > 50 and skips > 10

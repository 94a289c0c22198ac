"""Hand-built positions for tests, tutorials and the worked examples E1–E10.

A scenario starts from a normal auto-setup game and then strips it to the spec's example
baseline: no character, no artifact, no find on the map, Quiet Night (or the given omen).
"""

from __future__ import annotations

from typing import Any

from engine.core import JSON
from engine.heirs.state import HeirsState, clone_state

FIELD_ATTRIBUTES = ("owner", "conquered", "finds", "shards")


def scenario(
    rules: Any,
    players: int,
    *,
    round_number: int = 1,
    rounds: int = 12,
    omen: str = "quiet_night",
    start_player: int = 0,
    seed: int = 7,
    variants: tuple[str, ...] = (),
) -> HeirsState:
    """Sealing phase of ``round_number`` with plain heirs in their capitals, played with
    the given variants (H13.1; none: the sheet's numbers)."""
    options = {
        "auto_setup": True,
        "rounds": rounds,
        "start_player": start_player,
        "variants": list(variants),
    }
    base = rules.setup(players, seed, options)
    st = clone_state(base)
    st.round = round_number
    st.omens = [omen] * rounds
    st.start_player = start_player
    st.pedestals = [(start_player + i) % players for i in range(players)]
    st.finds = [""] * len(st.finds)
    for heir in st.heirs:
        heir.character = ""
        heir.start_artifact = ""
        heir.buildings = [0] * 6
        heir.abilities = [0] * 4
        heir.hand = []
        heir.intel = []
        heir.portraits = []
    return st


def edit_heir(rules: Any, st: HeirsState, seat: int, **values: Any) -> None:
    """Set heir attributes; ``buildings``/``abilities`` take a {name: level} dict and
    ``position`` takes a field id."""
    from engine.heirs.content import ABILITIES, BUILDINGS

    heir = st.heirs[seat]
    for name, value in values.items():
        if name == "buildings":
            for building, level in value.items():
                heir.buildings[BUILDINGS.index(building)] = level
        elif name == "abilities":
            for ability, level in value.items():
                heir.abilities[ABILITIES.index(ability)] = level
        elif name == "position":
            heir.position = rules.field_index(value)
        else:
            setattr(heir, name, value)


def give_fields(
    rules: Any, st: HeirsState, seat: int, *field_ids: str, conquered: bool = False
) -> None:
    for field_id in field_ids:
        index = rules.field_index(field_id)
        st.owner[index] = seat
        st.conquered[index] = conquered


def seal(rules: Any, st: HeirsState, orders: dict[int, JSON]) -> HeirsState:
    """Submit each seat's order through the real sealing check; others stay."""
    for seat in range(st.players):
        if st.heirs[seat].fallen:
            continue
        st = rules.submit(st, seat, orders.get(seat, {}))
    return st

"""The game state of Heirs of the Axis and its JSON form.

Representation, chosen for speed: plain ``slots`` dataclasses holding ints, strings and small
lists. The public functions never mutate a state they were given: ``submit`` and ``resolve``
take one private working copy with :func:`clone_state` (a hand-written copy of exactly the
mutable parts, far cheaper than ``copy.deepcopy``), mutate that copy, and return it. Dicts
stored in the state (sealed orders, intel entries, options) are never mutated after they are
stored, so copies share them safely.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from engine.core import JSON

PHASE_SETUP = "setup"
PHASE_ORDERS = "orders"
PHASE_OVER = "over"


@dataclass(slots=True)
class Heir:
    """One player's heir and dynasty. Everything here is secret to its seat except what
    :func:`engine.heirs.views` publishes (position, colour, Signs, fallen, sealed)."""

    seat: int
    colour: str = ""
    offered: list[str] = field(default_factory=list)
    character: str = ""
    start_artifact: str = ""
    backpack: list[str] = field(default_factory=list)
    soldiers: int = 0
    people: int = 0
    gold: int = 0
    knowledge: int = 0
    buildings: list[int] = field(default_factory=lambda: [0] * 6)
    abilities: list[int] = field(default_factory=lambda: [0] * 4)
    portraits: list[int] = field(default_factory=list)
    signs: list[int] = field(default_factory=list)
    won_battles: int = 0
    position: int = 0
    fallen: bool = False
    fell_round: int = 0
    entered_axis: int = 0
    """Round in which the heir entered the Axis (0 = not in the Axis)."""
    hand: list[str] = field(default_factory=list)
    order: JSON | None = None
    setup_choice: JSON | None = None
    intel: list[JSON] = field(default_factory=list)
    """What this seat learnt (Spy, Scout, Seer's Eye, Comet's Sight), each with its round."""
    revealed: list[int] = field(default_factory=list)
    """Siblings whose starting artifact this seat knows (Comet's Sight)."""


@dataclass(slots=True)
class HeirsState:
    players: int
    rounds: int
    options: JSON
    phase: str
    round: int
    rng: int
    start_player: int
    pedestals: list[int]
    """Seats in this round's resolution order: ``pedestals[0]`` shows pedestal number 1."""
    omens: list[str]
    """The secret schedule (H15.2): ``omens[r - 1]`` is round r's omen."""
    capitals: list[int]
    owner: list[int]
    """Owner seat per field, -1 when free (capitals included while their dynasty lives)."""
    conquered: list[bool]
    finds: list[str]
    """Discovery find per field, "" when none (H8.6)."""
    shards: list[str]
    """Comet artifact lying on a field as a shard, "" when none (H15.3)."""
    comet_pool: list[str]
    """Comet artifacts not yet placed as shards."""
    heirs: list[Heir]
    outcome: JSON | None = None
    memo: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)
    """Derived data (prompts, the board view, checked orders) cached on a state that is
    never changed again; not part of the game, not saved, not compared."""


def clone_heir(heir: Heir) -> Heir:
    # Positional arguments in field order: with 24 keyword arguments the call took 2.5 times
    # as long, and a copy is made at every seal, dry run and resolution. A wrong order
    # breaks the pinned bots games (tests/engine/test_heirs_bots.py).
    return Heir(
        heir.seat,
        heir.colour,
        heir.offered,  # never mutated after setup
        heir.character,
        heir.start_artifact,
        heir.backpack.copy(),
        heir.soldiers,
        heir.people,
        heir.gold,
        heir.knowledge,
        heir.buildings.copy(),
        heir.abilities.copy(),
        heir.portraits.copy(),
        heir.signs.copy(),
        heir.won_battles,
        heir.position,
        heir.fallen,
        heir.fell_round,
        heir.entered_axis,
        heir.hand.copy(),
        heir.order,
        heir.setup_choice,
        heir.intel.copy(),
        heir.revealed.copy(),
    )


def clone_state(state: HeirsState, heirs: bool = True, board: bool = True) -> HeirsState:
    """A working copy whose mutable parts are independent of ``state``.

    ``heirs=False`` shares the heirs (replace the ones you change); ``board=False`` shares
    the per-field lists too, for copies that never change the board (sealing, dry runs).
    """
    # Positional arguments in field order, as in clone_heir (a copy per seal and round).
    if not board:
        return HeirsState(
            state.players,
            state.rounds,
            state.options,
            state.phase,
            state.round,
            state.rng,
            state.start_player,
            state.pedestals,
            state.omens,
            state.capitals,
            state.owner,
            state.conquered,
            state.finds,
            state.shards,
            state.comet_pool,
            state.heirs.copy(),
            state.outcome,
        )
    return HeirsState(
        state.players,
        state.rounds,
        state.options,
        state.phase,
        state.round,
        state.rng,
        state.start_player,
        state.pedestals.copy(),
        state.omens,  # fixed at setup, never mutated
        state.capitals,  # fixed at setup, never mutated
        state.owner.copy(),
        state.conquered.copy(),
        state.finds.copy(),
        state.shards.copy(),
        state.comet_pool.copy(),
        [clone_heir(h) for h in state.heirs] if heirs else state.heirs.copy(),
        state.outcome,
    )


_HEIR_FIELDS = tuple(f.name for f in fields(Heir))
_STATE_FIELDS = tuple(f.name for f in fields(HeirsState) if f.name not in ("heirs", "memo"))


def state_to_json(state: HeirsState) -> JSON:
    raw: JSON = {name: getattr(state, name) for name in _STATE_FIELDS}
    raw = {k: (list(v) if isinstance(v, list) else v) for k, v in raw.items()}
    raw["heirs"] = [{name: _plain(getattr(h, name)) for name in _HEIR_FIELDS} for h in state.heirs]
    return raw


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, list) else value


def state_from_json(raw: dict[str, Any]) -> HeirsState:
    values = {name: raw[name] for name in _STATE_FIELDS}
    for name, value in values.items():
        if isinstance(value, list):
            values[name] = list(value)
    heirs = [Heir(**{name: _plain(h[name]) for name in _HEIR_FIELDS}) for h in raw["heirs"]]
    return HeirsState(heirs=heirs, **values)

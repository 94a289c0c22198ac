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
    return Heir(
        seat=heir.seat,
        colour=heir.colour,
        offered=heir.offered,  # never mutated after setup
        character=heir.character,
        start_artifact=heir.start_artifact,
        backpack=heir.backpack.copy(),
        soldiers=heir.soldiers,
        people=heir.people,
        gold=heir.gold,
        knowledge=heir.knowledge,
        buildings=heir.buildings.copy(),
        abilities=heir.abilities.copy(),
        portraits=heir.portraits.copy(),
        signs=heir.signs.copy(),
        won_battles=heir.won_battles,
        position=heir.position,
        fallen=heir.fallen,
        fell_round=heir.fell_round,
        entered_axis=heir.entered_axis,
        hand=heir.hand.copy(),
        order=heir.order,
        setup_choice=heir.setup_choice,
        intel=heir.intel.copy(),
        revealed=heir.revealed.copy(),
    )


def clone_state(state: HeirsState, heirs: bool = True, board: bool = True) -> HeirsState:
    """A working copy whose mutable parts are independent of ``state``.

    ``heirs=False`` shares the heirs (replace the ones you change); ``board=False`` shares
    the per-field lists too, for copies that never change the board (sealing, dry runs).
    """
    if not board:
        return HeirsState(
            players=state.players,
            rounds=state.rounds,
            options=state.options,
            phase=state.phase,
            round=state.round,
            rng=state.rng,
            start_player=state.start_player,
            pedestals=state.pedestals,
            omens=state.omens,
            capitals=state.capitals,
            owner=state.owner,
            conquered=state.conquered,
            finds=state.finds,
            shards=state.shards,
            comet_pool=state.comet_pool,
            heirs=state.heirs.copy(),
            outcome=state.outcome,
        )
    return HeirsState(
        players=state.players,
        rounds=state.rounds,
        options=state.options,
        phase=state.phase,
        round=state.round,
        rng=state.rng,
        start_player=state.start_player,
        pedestals=state.pedestals.copy(),
        omens=state.omens,  # fixed at setup, never mutated
        capitals=state.capitals,  # fixed at setup, never mutated
        owner=state.owner.copy(),
        conquered=state.conquered.copy(),
        finds=state.finds.copy(),
        shards=state.shards.copy(),
        comet_pool=state.comet_pool.copy(),
        heirs=[clone_heir(h) for h in state.heirs] if heirs else state.heirs.copy(),
        outcome=state.outcome,
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

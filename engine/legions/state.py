"""The Legions game state: plain dataclasses of JSON-ready values.

Public functions of the rules never mutate a state they were given: they work on
:func:`working_copy` (a resolution) or :func:`clone` and return the copy, so every state a
caller holds stays valid. Callers do not change states either: the rules keep the prompts
of the latest state they were asked about, and ``submit`` returns a state that shares all
but its pending order (or the sealing seat's hand) with the old.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.core import JSON

# Phases of a turn.
LEADERSHIP = "leadership"  # G4: both seats seal a legion at the same time
STEPS = "steps"  # G5/G6: one seat at a time decides
OVER = "over"


@dataclass(slots=True, frozen=True)
class RowSlot:
    """One card of the legion row (G2.5). Never changed, replaced: states share it."""

    card: str
    face_up: bool


@dataclass(slots=True, frozen=True)
class RecruitedHero:
    """A hero and the exactly 2 legions slid under it (G8.3); fixed for the game (G8.7),
    so states share it."""

    hero: str
    legions: list[str]


@dataclass(slots=True)
class PlayerState:
    side: str
    hand: list[str]
    stratagem: str
    stratagem_used: bool
    face_up: dict[str, list[str]]
    """Face-up legions on this player's side, by location id. A pile (the list at one
    location) is never changed in place, only replaced in its dict: states share piles."""
    routed: dict[str, list[str]]
    """Routed (face-down) legions on this player's side, by location id (G7.4); its piles
    are replaced, never changed, as ``face_up``'s."""
    heroes: list[RecruitedHero] = field(default_factory=list)
    sealed: str | None = None
    """The legion sealed for leadership, until both are revealed (G4.1)."""
    revealed: str | None = None
    """The revealed legion waiting to be placed in step 1 (G4.4)."""
    notes: list[JSON] = field(default_factory=list)
    """What only this player saw this turn (peeks, Oracle, Broker); cleared at turn end.
    A note is never changed once written: states share it."""


@dataclass(slots=True, frozen=True)
class Stage:
    """The decision the game waits for during the steps: who decides, and what. Replaced
    at each decision, its ``data`` never changed: states share it."""

    seat: int
    kind: str
    data: JSON = field(default_factory=dict)


@dataclass(slots=True)
class TurnFlags:
    """Facts that last until the end of the current turn."""

    deck_at_start: int
    placed_at: list[str | None] = field(default_factory=lambda: [None, None])
    """Where each seat placed its revealed legion in step 1 (N2 names that location)."""
    recruited: list[bool] = field(default_factory=lambda: [False, False])
    shield_wall: int | None = None
    """The seat whose legions cannot be routed this turn (K1)."""
    royal_summons: int | None = None
    """The seat that may recruit with 2 legions this turn (K2)."""
    royal_decree: int | None = None
    """The seat that wins ties at this turn's end (K3)."""


@dataclass(slots=True)
class LegionsState:
    rng: int
    turn: int
    phase: str
    players: list[PlayerState]
    tokens: dict[str, int | None]
    """Majority token holder (seat) per location; ``None`` = neutral space. Like the rows
    and decks below, never changed in place, only replaced: states share them."""
    legion_row: list[RowSlot]
    legion_deck: list[str]
    """Top of the deck first."""
    hero_row: list[str]
    hero_deck: list[str]
    """Top of the deck first."""
    flags: TurnFlags
    deal_first: int
    leader: int | None = None
    stage: Stage | None = None
    pending: JSON | None = None
    """The order the acting seat submitted, waiting for ``resolve``."""
    extra_placements: int = 0
    """Legions placed by H20 Sower (G17: they add to the battlefield count)."""
    result: JSON | None = None
    first_leader: int | None = None
    """The seat that led turn 1 (reported in the result, for balance figures)."""
    shares_with: LegionsState | None = field(default=None, compare=False, repr=False)
    """While a resolution works on this state (:func:`working_copy`), the state it
    resolves, whose players and turn flags this one holds until it changes them; ``None``
    otherwise. Not part of the game: never stored, compared or shown."""


def _copy_json(value: Any) -> Any:
    """A deep copy of plain JSON data (much faster than ``copy.deepcopy``)."""
    if isinstance(value, dict):
        return {k: _copy_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy_json(v) for v in value]
    return value


def clone(state: LegionsState, *, keep_pending: bool = True) -> LegionsState:
    """A copy that changing as the rules do never changes ``state``: what it shares with
    ``state`` (below) is only ever replaced, never changed in place. Without ``keep_pending``
    the copy has no pending order.

    Written out field by field, positionally (the fields' order in the dataclasses above,
    which a test checks), copying lists by slicing. What the rules never change in place
    is shared, not copied: the tokens, the rows and decks, row slots, recruited heroes,
    notes, the piles of legions at each location (a player's dicts of them are copied, the
    lists in them shared), the stage, the pending order and the result (frozen, or only
    ever replaced; conformance promise 6 checks that no state changes once returned)."""
    return _copy(
        state,
        [copy_player(p) for p in state.players],
        copy_flags(state.flags),
        state.pending if keep_pending else None,
    )


def working_copy(state: LegionsState) -> LegionsState:
    """The copy a resolution works on: :func:`clone` without the pending order (the
    resolution takes it out of the state it plays), but holding ``state``'s very players
    (in a list of its own) and turn flags. Most resolutions change one player or none and
    leave the flags alone, so the rules copy a player (:func:`copy_player`) or the flags
    (:func:`copy_flags`) only before they change it; ``shares_with`` names ``state`` until
    the resolution ends."""
    copy = _copy(state, state.players[:], state.flags, None)
    copy.shares_with = state
    return copy


def _copy(
    state: LegionsState, players: list[PlayerState], flags: TurnFlags, pending: JSON | None
) -> LegionsState:
    return LegionsState(
        state.rng,
        state.turn,
        state.phase,
        players,
        state.tokens,
        state.legion_row,
        state.legion_deck,
        state.hero_row,
        state.hero_deck,
        flags,
        state.deal_first,
        state.leader,
        state.stage,
        pending,
        state.extra_placements,
        state.result,
        state.first_leader,
    )


def copy_flags(flags: TurnFlags) -> TurnFlags:
    """A copy of a turn's flags that the rules may change without changing ``flags``."""
    return TurnFlags(
        flags.deck_at_start,
        flags.placed_at[:],
        flags.recruited[:],
        flags.shield_wall,
        flags.royal_summons,
        flags.royal_decree,
    )


def copy_player(p: PlayerState) -> PlayerState:
    """A copy of a player that the rules may change without changing ``p``."""
    return PlayerState(
        p.side,
        p.hand[:],
        p.stratagem,
        p.stratagem_used,
        p.face_up.copy(),
        p.routed.copy(),
        p.heroes[:],
        p.sealed,
        p.revealed,
        p.notes[:],
    )


def with_pending(state: LegionsState, pending: JSON) -> LegionsState:
    """``state`` with a submitted order waiting for ``resolve``: a new state sharing every
    other part with ``state``."""
    return _sharing(state, state.players, pending)


def with_sealed(state: LegionsState, seat: int, legion: str) -> LegionsState:
    """``state`` after ``seat`` sealed ``legion`` from its hand (G4.1): a new state with a
    new hand and a new player for that seat, sharing every other part with ``state``."""
    old = state.players[seat]
    hand = old.hand[:]
    hand.remove(legion)
    players = state.players[:]
    players[seat] = PlayerState(
        old.side,
        hand,
        old.stratagem,
        old.stratagem_used,
        old.face_up,
        old.routed,
        old.heroes,
        legion,
        old.revealed,
        old.notes,
    )
    return _sharing(state, players, state.pending)


def _sharing(state: LegionsState, players: list[PlayerState], pending: JSON | None) -> LegionsState:
    """A new state with these ``players`` and ``pending`` order, sharing every other part
    with ``state`` (what ``dataclasses.replace`` gives, a few times faster: positional, in
    the fields' order, which a test checks)."""
    return _copy(state, players, state.flags, pending)


def state_to_json(state: LegionsState) -> JSON:
    """The state as JSON data, field by field: the same as ``dataclasses.asdict`` (which a
    test checks), about ten times faster."""
    flags = state.flags
    stage = state.stage
    return {
        "rng": state.rng,
        "turn": state.turn,
        "phase": state.phase,
        "players": [
            {
                "side": p.side,
                "hand": list(p.hand),
                "stratagem": p.stratagem,
                "stratagem_used": p.stratagem_used,
                "face_up": {loc: list(cards) for loc, cards in p.face_up.items()},
                "routed": {loc: list(cards) for loc, cards in p.routed.items()},
                "heroes": [{"hero": h.hero, "legions": list(h.legions)} for h in p.heroes],
                "sealed": p.sealed,
                "revealed": p.revealed,
                "notes": _copy_json(p.notes),
            }
            for p in state.players
        ],
        "tokens": dict(state.tokens),
        "legion_row": [{"card": slot.card, "face_up": slot.face_up} for slot in state.legion_row],
        "legion_deck": list(state.legion_deck),
        "hero_row": list(state.hero_row),
        "hero_deck": list(state.hero_deck),
        "flags": {
            "deck_at_start": flags.deck_at_start,
            "placed_at": list(flags.placed_at),
            "recruited": list(flags.recruited),
            "shield_wall": flags.shield_wall,
            "royal_summons": flags.royal_summons,
            "royal_decree": flags.royal_decree,
        },
        "deal_first": state.deal_first,
        "leader": state.leader,
        "stage": None
        if stage is None
        else {"seat": stage.seat, "kind": stage.kind, "data": _copy_json(stage.data)},
        "pending": _copy_json(state.pending),
        "extra_placements": state.extra_placements,
        "result": _copy_json(state.result),
        "first_leader": state.first_leader,
    }


def state_from_json(raw: dict[str, Any]) -> LegionsState:
    raw = _copy_json(dict(raw))
    players = [
        PlayerState(
            side=p["side"],
            hand=list(p["hand"]),
            stratagem=p["stratagem"],
            stratagem_used=bool(p["stratagem_used"]),
            face_up={k: list(v) for k, v in p["face_up"].items()},
            routed={k: list(v) for k, v in p["routed"].items()},
            heroes=[RecruitedHero(h["hero"], list(h["legions"])) for h in p["heroes"]],
            sealed=p["sealed"],
            revealed=p["revealed"],
            notes=list(p["notes"]),
        )
        for p in raw["players"]
    ]
    stage = raw["stage"]
    flags = raw["flags"]
    return LegionsState(
        rng=int(raw["rng"]),
        turn=int(raw["turn"]),
        phase=raw["phase"],
        players=players,
        tokens=dict(raw["tokens"]),
        legion_row=[RowSlot(s["card"], bool(s["face_up"])) for s in raw["legion_row"]],
        legion_deck=list(raw["legion_deck"]),
        hero_row=list(raw["hero_row"]),
        hero_deck=list(raw["hero_deck"]),
        flags=TurnFlags(
            deck_at_start=int(flags["deck_at_start"]),
            placed_at=list(flags["placed_at"]),
            recruited=list(flags["recruited"]),
            shield_wall=flags["shield_wall"],
            royal_summons=flags["royal_summons"],
            royal_decree=flags["royal_decree"],
        ),
        deal_first=int(raw["deal_first"]),
        leader=raw["leader"],
        stage=None if stage is None else Stage(stage["seat"], stage["kind"], dict(stage["data"])),
        pending=raw["pending"],
        extra_placements=int(raw["extra_placements"]),
        result=raw["result"],
        first_leader=raw.get("first_leader"),
    )

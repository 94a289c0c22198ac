"""The state of a Hidden Leaders Duel game: frozen dataclasses of tuples, exact JSON round trip."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from operator import attrgetter
from typing import Any

from engine.hidden_leaders.cards import (
    SLOT_INDEX,
    SLOTS,
    TURNS_PER_PLAYER,
    TURNS_TOTAL,
)

STATE_VERSION = 1

STEP_TAKE = "take"
STEP_PLACE = "place"
STEP_OVER = "over"
STEP_SCORING = "scoring"
"""Only in the states of a resolution's board steps between the last placement and the end
(L10.4): the game is decided but the board has shown ``scoring_shown`` parts of it."""
STEPS = (STEP_TAKE, STEP_PLACE, STEP_SCORING, STEP_OVER)


@dataclass(frozen=True, slots=True)
class Slot:
    """One row slot (L1.5): its slot hero (``None`` while it is an open slot during a turn)
    and at most one blocking hero, with the seat that placed it."""

    hero: str | None
    face_up: bool = False
    blocker: str | None = None
    blocker_owner: int | None = None

    @property
    def takeable(self) -> bool:
        """L3.1: a slot hero with no blocking hero on it."""
        return self.hero is not None and self.blocker is None

    def to_json(self) -> dict[str, Any]:
        return {
            "hero": self.hero,
            "face_up": self.face_up,
            "blocker": self.blocker,
            "blocker_owner": self.blocker_owner,
        }

    @staticmethod
    def from_json(raw: Mapping[str, Any]) -> Slot:
        return Slot(
            hero=raw["hero"],
            face_up=bool(raw["face_up"]),
            blocker=raw["blocker"],
            blocker_owner=raw["blocker_owner"],
        )


@dataclass(frozen=True, slots=True)
class TakeOrder:
    """A validated TAKE order (L3.5), slots in the order the player named them."""

    slots: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {"type": "take", "slots": list(self.slots)}


@dataclass(frozen=True, slots=True)
class PlaceOrder:
    """A validated RETURN+PLACE order (L3.5); ``returns`` sorted by slot."""

    returns: tuple[tuple[str, str], ...]
    to: str
    card: str
    slot: str | None = None

    def to_json(self) -> dict[str, Any]:
        placement: dict[str, Any] = {"to": self.to, "card": self.card}
        if self.slot is not None:
            placement["slot"] = self.slot
        return {"type": "place", "returns": dict(self.returns), "placement": placement}


Order = TakeOrder | PlaceOrder


def order_from_json(raw: Mapping[str, Any] | None) -> Order | None:
    if raw is None:
        return None
    if raw["type"] == "take":
        return TakeOrder(slots=tuple(raw["slots"]))
    placement = raw["placement"]
    returns = tuple(sorted(raw["returns"].items(), key=lambda kv: SLOT_INDEX[kv[0]]))
    return PlaceOrder(
        returns=returns, to=placement["to"], card=placement["card"], slot=placement.get("slot")
    )


@dataclass(frozen=True, slots=True)
class TakenSlot:
    """Public record of one taken slot: its faction, and the card only if it was face up."""

    slot: str
    faction: str
    card: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"slot": self.slot, "faction": self.faction, "card": self.card}

    @staticmethod
    def from_json(raw: Mapping[str, Any]) -> TakenSlot:
        return TakenSlot(slot=raw["slot"], faction=raw["faction"], card=raw["card"])


@dataclass(frozen=True, slots=True)
class LastAction:
    """The public summary of the latest turn (L10.2), filled in step by step."""

    seat: int
    turn: int
    taken: tuple[TakenSlot, ...]
    returns: tuple[tuple[str, str], ...] | None = None
    placement: str | None = None  # "council" | "block"
    block_slot: str | None = None
    block_faction: str | None = None
    drew: bool | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "turn": self.turn,
            "taken": [t.to_json() for t in self.taken],
            "returns": None if self.returns is None else [list(p) for p in self.returns],
            "placement": self.placement,
            "block_slot": self.block_slot,
            "block_faction": self.block_faction,
            "drew": self.drew,
        }

    @staticmethod
    def from_json(raw: Mapping[str, Any] | None) -> LastAction | None:
        if raw is None:
            return None
        returns = raw["returns"]
        return LastAction(
            seat=int(raw["seat"]),
            turn=int(raw["turn"]),
            taken=tuple(TakenSlot.from_json(t) for t in raw["taken"]),
            returns=None if returns is None else tuple((str(a), str(b)) for a, b in returns),
            placement=raw["placement"],
            block_slot=raw["block_slot"],
            block_faction=raw["block_faction"],
            drew=raw["drew"],
        )


def _pair(raw: Sequence[Sequence[str]]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    first, second = raw
    return tuple(first), tuple(second)


@dataclass(frozen=True, slots=True)
class HLState:
    """A whole game. Seat 0 is player A (Row A), seat 1 is player B (Row B).

    ``rows`` holds the 14 slots A1..A7, B1..B7. ``councils`` holds only the recruited heroes;
    the leaders are in ``leaders``. ``turn`` is the global turn 1..14 (it stays 14 once the
    game is over). ``open_slots`` and ``taken`` describe the current turn between its TAKE and
    its RETURN+PLACE; ``pending`` is the submitted, not yet resolved order.
    """

    rows: tuple[Slot, ...]
    hands: tuple[tuple[str, ...], tuple[str, ...]]
    councils: tuple[tuple[str, ...], tuple[str, ...]]
    leaders: tuple[str, str]
    set_aside: tuple[str, ...]
    pile: tuple[str, ...]
    first_player: int
    turn: int = 1
    step: str = STEP_TAKE
    open_slots: tuple[str, ...] = ()
    taken: tuple[str, ...] = ()
    pending: Order | None = None
    last: LastAction | None = None
    rng: int = 0
    scoring_shown: int = 0
    """While ``step`` is ``"scoring"``: the parts of the L10.4 scoring the board shows so far
    (0 none, 1 the reveal of L6.1, then one more per faction resolved, L6.2)."""

    # -- derived facts ---------------------------------------------------------------------
    @property
    def over(self) -> bool:
        return self.step == STEP_OVER

    @property
    def scoring(self) -> bool:
        """A board step of the final scoring (L10.4): decided, not yet all shown."""
        return self.step == STEP_SCORING

    @property
    def playing(self) -> bool:
        """A player has a decision to make (TAKE or RETURN+PLACE)."""
        return self.step == STEP_TAKE or self.step == STEP_PLACE

    @property
    def active(self) -> int:
        """The seat whose turn it is (L5.1): the first player on odd global turns."""
        return self.first_player if self.turn % 2 == 1 else 1 - self.first_player

    @property
    def own_turn(self) -> int:
        """The active player's own turn number, 1..7."""
        return (self.turn + 1) // 2

    def slot(self, slot_id: str) -> Slot:
        return self.rows[SLOT_INDEX[slot_id]]

    def with_slot(self, slot_id: str, slot: Slot) -> HLState:
        rows = list(self.rows)
        rows[SLOT_INDEX[slot_id]] = slot
        return self.evolve(rows=tuple(rows))

    def evolve(self, **changes: Any) -> HLState:
        """A copy with ``changes``: what ``dataclasses.replace`` does, without its per-call
        look over the fields' metadata (every order and resolution makes one)."""
        values = list(_read_fields(self))
        for name, value in changes.items():
            values[_FIELD_INDEX[name]] = value
        return HLState(*values)

    def takeable_slots(self) -> list[str]:
        """The slots whose hero may be taken (L3.1, what ``Slot.takeable`` says)."""
        return [
            sid
            for sid, s in zip(SLOTS, self.rows, strict=True)
            if s.hero is not None and s.blocker is None
        ]

    def block_targets(self) -> list[str]:
        """Slots a block may target this turn (L4.3): every slot without a blocking hero,
        including the open slots, which the return refills first (L3.3a)."""
        return [sid for sid, s in zip(SLOTS, self.rows, strict=True) if s.blocker is None]

    def blocks_of(self, seat: int) -> list[str]:
        """Slots holding a blocking hero placed by ``seat``."""
        return [sid for sid, s in zip(SLOTS, self.rows, strict=True) if s.blocker_owner == seat]

    def placements(self, seat: int) -> int:
        """Cards ``seat`` has placed so far (council heroes + own blocking heroes)."""
        return len(self.councils[seat]) + len(self.blocks_of(seat))

    def turns_played(self) -> int:
        """Completed turns (L7.2)."""
        if not self.playing:
            return TURNS_TOTAL
        return self.turn - 1

    # -- JSON ------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "version": STATE_VERSION,
            "rows": [s.to_json() for s in self.rows],
            "hands": [list(h) for h in self.hands],
            "councils": [list(c) for c in self.councils],
            "leaders": list(self.leaders),
            "set_aside": list(self.set_aside),
            "pile": list(self.pile),
            "first_player": self.first_player,
            "turn": self.turn,
            "step": self.step,
            "open_slots": list(self.open_slots),
            "taken": list(self.taken),
            "pending": None if self.pending is None else self.pending.to_json(),
            "last": None if self.last is None else self.last.to_json(),
            "rng": self.rng,
        }
        if self.step == STEP_SCORING:
            out["scoring_shown"] = self.scoring_shown
        return out

    @staticmethod
    def from_json(raw: Mapping[str, Any]) -> HLState:
        if raw.get("version") != STATE_VERSION:
            raise ValueError(f"unsupported hidden_leaders state version {raw.get('version')!r}")
        first, second = raw["leaders"]
        return HLState(
            rows=tuple(Slot.from_json(s) for s in raw["rows"]),
            hands=_pair(raw["hands"]),
            councils=_pair(raw["councils"]),
            leaders=(str(first), str(second)),
            set_aside=tuple(raw["set_aside"]),
            pile=tuple(raw["pile"]),
            first_player=int(raw["first_player"]),
            turn=int(raw["turn"]),
            step=str(raw["step"]),
            open_slots=tuple(raw["open_slots"]),
            taken=tuple(raw["taken"]),
            pending=order_from_json(raw["pending"]),
            last=LastAction.from_json(raw["last"]),
            rng=int(raw["rng"]),
            scoring_shown=int(raw.get("scoring_shown", 0)),
        )


_STATE_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(HLState))
_read_fields = attrgetter(*_STATE_FIELDS)
_FIELD_INDEX: dict[str, int] = {name: index for index, name in enumerate(_STATE_FIELDS)}

__all__ = [
    "STEPS",
    "STEP_OVER",
    "STEP_PLACE",
    "STEP_SCORING",
    "STEP_TAKE",
    "TURNS_PER_PLAYER",
    "HLState",
    "LastAction",
    "Order",
    "PlaceOrder",
    "Slot",
    "TakeOrder",
    "TakenSlot",
]

"""The components of Hidden Leaders Duel (L1), read from ``seeds/hidden_leaders/cards.json``.

The catalogue is loaded once, when the rules object is built; play never reads a file.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from types import MappingProxyType
from typing import Any

from engine.seeds import load_seed

SEED_PATH = "hidden_leaders/cards.json"

FACTIONS: tuple[str, ...] = ("IA", "HT", "WF", "UD")
"""The fixed faction order (L1.1, L6.2)."""

ROWS: tuple[str, ...] = ("A", "B")
"""Row A is seat 0's nearest row, Row B seat 1's (L2.1)."""

SLOTS_PER_ROW = 7
SLOTS: tuple[str, ...] = tuple(f"{row}{n}" for row in ROWS for n in range(1, SLOTS_PER_ROW + 1))
"""Slot ids in board order: A1..A7, then B1..B7 (index 0..13)."""

SLOT_INDEX: dict[str, int] = {slot: i for i, slot in enumerate(SLOTS)}

HEROES_TOTAL = 28
LEADERS_TOTAL = 8
HAND_DEAL = 3
TURNS_PER_PLAYER = 7
TURNS_TOTAL = 2 * TURNS_PER_PLAYER


def seat_row(seat: int) -> str:
    """The row nearest to ``seat``: A for seat 0, B for seat 1 (L2.1)."""
    return ROWS[seat]


@dataclass(frozen=True, slots=True)
class Hero:
    id: str
    faction: str
    strength: int


@dataclass(frozen=True, slots=True)
class Leader:
    id: str
    faction: str
    value: int


@dataclass(frozen=True, slots=True)
class Faction:
    id: str
    colour: str
    name: str
    """The English name; a screen shows it through the catalogs (``app.content``)."""

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "colour": self.colour}


class Cards:
    """The validated catalogue: 28 heroes, 8 leaders, 4 factions (immutable after build)."""

    __slots__ = (
        "_hero",
        "_leader",
        "_rank",
        "card_factions",
        "factions",
        "hero_factions",
        "heroes",
        "leaders",
        "ranks",
        "strengths",
    )

    def __init__(
        self,
        factions: tuple[Faction, ...],
        heroes: tuple[Hero, ...],
        leaders: tuple[Leader, ...],
    ) -> None:
        self.factions = factions
        self.heroes = heroes
        self.leaders = leaders
        self._hero: dict[str, Hero] = {h.id: h for h in heroes}
        self._leader: dict[str, Leader] = {ld.id: ld for ld in leaders}
        self._rank: dict[str, int] = {h.id: i for i, h in enumerate(heroes)}
        # Read-only tables for code that looks up many heroes in a row (the bot).
        self.strengths: Mapping[str, int] = MappingProxyType({h.id: h.strength for h in heroes})
        self.hero_factions: Mapping[str, str] = MappingProxyType({h.id: h.faction for h in heroes})
        self.ranks: Mapping[str, int] = MappingProxyType(self._rank)
        self.card_factions: Mapping[str, str] = MappingProxyType(
            {**self.hero_factions, **{ld.id: ld.faction for ld in leaders}}
        )
        """The faction of every hero and leader (what :meth:`faction` answers)."""

    # -- lookups ---------------------------------------------------------------------------
    def is_hero(self, card: object) -> bool:
        return isinstance(card, str) and card in self._hero

    def is_leader(self, card: object) -> bool:
        return isinstance(card, str) and card in self._leader

    def hero(self, card: str) -> Hero:
        return self._hero[card]

    def leader(self, card: str) -> Leader:
        return self._leader[card]

    def faction(self, card: str) -> str:
        """The faction of a hero or a leader."""
        if card in self._leader:
            return self._leader[card].faction
        return self._hero[card].faction

    def strength(self, card: str) -> int:
        return self._hero[card].strength

    def rank(self, card: str) -> int:
        """Position in the L1.2 table: by faction (IA, HT, WF, UD), strength, letter (L11)."""
        return self._rank[card]

    def sort_ids(self, cards: Iterable[str]) -> list[str]:
        return sorted(cards, key=self.rank)

    # -- JSON pieces -----------------------------------------------------------------------
    def hero_json(self, card: str) -> dict[str, Any]:
        hero = self.hero(card)
        return {"card": hero.id, "faction": hero.faction, "strength": hero.strength}

    def leader_json(self, card: str) -> dict[str, Any]:
        leader = self.leader(card)
        return {"card": leader.id, "faction": leader.faction, "value": leader.value}

    def factions_json(self) -> list[dict[str, Any]]:
        return [f.to_json() for f in self.factions]


def cards_from_json(raw: Mapping[str, Any]) -> Cards:
    """Build and check the catalogue (L1.1–L1.3); ``ValueError`` if the seed is wrong."""
    factions = tuple(
        Faction(
            id=str(f["id"]),
            colour=str(f["colour"]),
            name=str(f["name"]),
        )
        for f in raw["factions"]
    )
    heroes = tuple(
        Hero(id=str(h["id"]), faction=str(h["faction"]), strength=int(h["strength"]))
        for h in raw["heroes"]
    )
    leaders = tuple(
        Leader(id=str(ld["id"]), faction=str(ld["faction"]), value=int(ld["value"]))
        for ld in raw["leaders"]
    )
    if tuple(f.id for f in factions) != FACTIONS:
        raise ValueError(f"hidden_leaders seed: factions must be {FACTIONS}")
    if len(heroes) != HEROES_TOTAL or len({h.id for h in heroes}) != HEROES_TOTAL:
        raise ValueError("hidden_leaders seed: need 28 distinct heroes")
    if len(leaders) != LEADERS_TOTAL or len({ld.id for ld in leaders}) != LEADERS_TOTAL:
        raise ValueError("hidden_leaders seed: need 8 distinct leaders")
    all_cards: tuple[Hero | Leader, ...] = (*heroes, *leaders)
    for card in all_cards:
        if card.faction not in FACTIONS:
            raise ValueError(f"hidden_leaders seed: {card.id} has unknown faction")
    if {h.id for h in heroes} & {ld.id for ld in leaders}:
        raise ValueError("hidden_leaders seed: hero and leader ids overlap")
    if any(h.strength <= 0 for h in heroes) or any(ld.value <= 0 for ld in leaders):
        raise ValueError("hidden_leaders seed: strengths and values must be positive (L6.4)")
    return Cards(factions=factions, heroes=heroes, leaders=leaders)


@cache
def default_cards() -> Cards:
    """The shipped catalogue (read once through :func:`engine.seeds.load_seed`)."""
    return cards_from_json(load_seed(SEED_PATH))

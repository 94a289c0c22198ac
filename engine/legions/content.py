"""Legions content (G1): locations, legion cards, heroes, stratagems and sides, read from
``seeds/legions/*.json`` once, when the rules object is built."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.seeds import load_seed

NECRO = "necro"
KING = "king"
WHITE = "white"


@dataclass(frozen=True, slots=True)
class Location:
    id: str
    guild: str
    name: str
    effect: str
    effect_name: str
    effect_text: str
    token_vp: int
    token_banner: bool


@dataclass(frozen=True, slots=True)
class LegionCard:
    id: str
    number: int
    guild: str
    guild_name: str
    vp: int
    banner: bool
    location: str | None
    """The location its colour names; ``None`` for a white Ambassador (any location, G7.1)."""


@dataclass(frozen=True, slots=True)
class Hero:
    id: str
    guild: str
    location: str
    name: str
    power: str | None
    token: str | None
    power_text: str
    vp: int
    banner: bool


@dataclass(frozen=True, slots=True)
class Stratagem:
    id: str
    side: str
    name: str
    timing: str
    text: str


@dataclass(frozen=True, slots=True)
class Side:
    id: str
    name: str


@dataclass(frozen=True, slots=True)
class Content:
    locations: dict[str, Location]
    location_order: tuple[str, ...]
    legions: dict[str, LegionCard]
    heroes: dict[str, Hero]
    stratagems: dict[str, Stratagem]
    sides: dict[str, Side]
    guild_names: dict[str, str]
    """The English name of each guild colour (G1.3), white's Ambassadors too."""

    def stratagems_of(self, side: str) -> list[str]:
        return [s.id for s in self.stratagems.values() if s.side == side]


def load_content() -> Content:
    """Parse and check the seed files; a broken file fails loudly here, not mid-game."""
    raw_locations: list[dict[str, Any]] = load_seed("legions/locations.json")["locations"]
    locations = {
        raw["id"]: Location(
            id=raw["id"],
            guild=raw["guild"],
            name=raw["name"],
            effect=raw["effect"],
            effect_name=raw["effect_name"],
            effect_text=raw["effect_text"],
            token_vp=int(raw["token_vp"]),
            token_banner=bool(raw["token_banner"]),
        )
        for raw in raw_locations
    }
    location_of_guild = {loc.guild: loc.id for loc in locations.values()}

    legion_seed = load_seed("legions/legions.json")
    guild_names: dict[str, str] = legion_seed["guild_names"]
    legions = {
        raw["id"]: LegionCard(
            id=raw["id"],
            number=int(raw["number"]),
            guild=raw["guild"],
            guild_name=guild_names[raw["guild"]],
            vp=int(raw["vp"]),
            banner=bool(raw["banner"]),
            location=None if raw["guild"] == WHITE else location_of_guild[raw["guild"]],
        )
        for raw in legion_seed["legions"]
    }
    numbers = [card.number for card in legions.values()]
    if sorted(numbers) != list(range(1, len(numbers) + 1)):
        raise ValueError("legions.json: every number must appear exactly once (G1.3)")

    heroes = {
        raw["id"]: Hero(
            id=raw["id"],
            guild=raw["guild"],
            location=location_of_guild[raw["guild"]],
            name=raw["name"],
            power=raw["power"],
            token=raw["token"],
            power_text=raw["power_text"],
            vp=int(raw["vp"]),
            banner=bool(raw["banner"]),
        )
        for raw in load_seed("legions/heroes.json")["heroes"]
    }
    strat_seed = load_seed("legions/stratagems.json")
    stratagems = {
        raw["id"]: Stratagem(
            id=raw["id"],
            side=raw["side"],
            name=raw["name"],
            timing=raw["timing"],
            text=raw["text"],
        )
        for raw in strat_seed["stratagems"]
    }
    sides = {raw["id"]: Side(id=raw["id"], name=raw["name"]) for raw in strat_seed["sides"]}
    if set(sides) != {NECRO, KING}:
        raise ValueError("stratagems.json: the sides must be necro and king (G2.3)")
    return Content(
        locations=locations,
        location_order=tuple(raw["id"] for raw in raw_locations),
        legions=legions,
        heroes=heroes,
        stratagems=stratagems,
        sides=sides,
        guild_names=dict(guild_names),
    )

"""Heirs of the Axis content, read once from ``seeds/heirs/*.json``, and the fixed map (H2).

Everything here is computed once when the rules object is built; play never reads a file.
Fields are addressed by an integer index in *field order* (ascending ring, then index, H2.2);
ids such as ``"R2-3"`` appear only at the edges (orders, prompts, views, events).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any

from engine.core import quoted
from engine.seeds import load_seed

AXIS = 0
"""Field index of the Axis, R0-0 (first in field order)."""

RESOURCES: tuple[str, ...] = ("people", "gold", "knowledge")
BUILDINGS: tuple[str, ...] = ("farm", "mine", "academy", "barracks", "walls", "market")
ABILITIES: tuple[str, ...] = ("attack", "defense", "leadership", "mysticism")
WALLS = BUILDINGS.index("walls")
MARKET = BUILDINGS.index("market")
ATTACK, DEFENSE, LEADERSHIP, MYSTICISM = range(4)


@dataclass(frozen=True, slots=True)
class HexMap:
    """The radius-R hex map: coordinates, ids, rings, terrain and a distance table."""

    coords: tuple[tuple[int, int], ...]
    ids: tuple[str, ...]
    index_of: dict[str, int]
    ring: tuple[int, ...]
    distance: tuple[tuple[int, ...], ...]
    neighbours: tuple[tuple[int, ...], ...]
    forest_pattern: frozenset[int]
    discovery: tuple[int, ...]
    shard_candidates: tuple[int, ...]

    def capitals(self, players: int) -> tuple[int, ...]:
        """Capital fields of seats 0..n-1 (H2.5): R4-⌊j·24/n + ½⌋ for 0-based seat j."""
        radius = max(self.ring)
        ring_size = 6 * radius
        return tuple(
            self.index_of[f"R{radius}-{(j * 2 * ring_size + players) // (2 * players)}"]
            for j in range(players)
        )


def _matches(ring: int, index: int, patterns: list[dict[str, int]]) -> bool:
    return any(p["ring"] == ring and index % p["mod"] == p["rest"] for p in patterns)


def build_map(raw: dict[str, Any]) -> HexMap:
    radius: int = raw["radius"]
    directions = [tuple(d) for d in raw["ring_directions"]]
    coords: list[tuple[int, int]] = [(0, 0)]
    ids: list[str] = ["R0-0"]
    rings: list[int] = [0]
    forest: set[int] = set()
    discovery: list[int] = []
    for k in range(1, radius + 1):
        q, r = 0, -k
        index = 0
        for dq, dr in directions:
            for _ in range(k):
                field = len(coords)
                coords.append((q, r))
                ids.append(f"R{k}-{index}")
                rings.append(k)
                if _matches(k, index, raw["forest"]):
                    forest.add(field)
                if _matches(k, index, raw["discovery"]):
                    discovery.append(field)
                q, r = q + dq, r + dr
                index += 1
    count = len(coords)

    def hex_distance(a: tuple[int, int], b: tuple[int, int]) -> int:
        dq, dr = a[0] - b[0], a[1] - b[1]
        return max(abs(dq), abs(dr), abs(dq + dr))

    distance = tuple(
        tuple(hex_distance(coords[a], coords[b]) for b in range(count)) for a in range(count)
    )
    neighbours = tuple(tuple(b for b in range(count) if distance[a][b] == 1) for a in range(count))
    shard_rings = set(raw["shard_rings"])
    return HexMap(
        coords=tuple(coords),
        ids=tuple(ids),
        index_of={name: i for i, name in enumerate(ids)},
        ring=tuple(rings),
        distance=distance,
        neighbours=neighbours,
        forest_pattern=frozenset(forest),
        discovery=tuple(discovery),
        shard_candidates=tuple(i for i in range(count) if rings[i] in shard_rings),
    )


@dataclass(frozen=True, slots=True)
class Content:
    """All of Heirs' data, keyed for fast lookups."""

    map: HexMap
    map_raw: dict[str, Any]
    setup: dict[str, Any]
    characters: dict[str, dict[str, Any]]
    starting_artifacts: dict[str, dict[str, Any]]
    comet_artifacts: dict[str, dict[str, Any]]
    artifact_effects: dict[str, dict[str, Any]]
    backpack: int
    mirror_chance: tuple[int, int]
    omens: dict[str, dict[str, Any]]
    omen_schedule: dict[str, Any]
    trick_groups: tuple[tuple[str, ...], ...]
    new_portrait: str
    cards: dict[str, dict[str, Any]]
    card_group: dict[str, int]
    exposure_chance: tuple[int, int]
    building_costs: tuple[int, ...]
    buildings: dict[str, dict[str, Any]]
    ability_costs: tuple[int, ...]
    abilities: dict[str, dict[str, Any]]
    council: dict[str, int]
    ring_yield: dict[int, tuple[int, int]]
    ring_settle: dict[int, int]
    capital_income: tuple[int, int, int]
    variants: tuple[str, ...] = ()
    """The variants (H13.1) applied to the seeds, in the data's order; () is the sheet."""


def _pair(raw: list[int]) -> tuple[int, int]:
    """A chance written as [numerator, denominator]."""
    numerator, denominator = raw
    return numerator, denominator


SEED_FILES: tuple[str, ...] = (
    "map.json",
    "setup.json",
    "characters.json",
    "artifacts.json",
    "omens.json",
    "tricks.json",
    "buildings.json",
    "abilities.json",
    "council.json",
)
"""The seed files of ``seeds/heirs/`` that make up the game (and that a variant may patch)."""


@cache
def variant_table() -> dict[str, dict[str, Any]]:
    """H13.1: the named variants of ``seeds/heirs/variants.json`` by id, in the data's order
    (shared: do not mutate)."""
    return {v["id"]: v for v in load_seed("heirs/variants.json")["variants"]}


def check_variants(raw: object) -> tuple[str, ...]:
    """The ``variants`` game option (H13.1) as a tuple of ids in the data's order, so that
    the same set is the same game whatever order the host turned them on in.

    Raises ``ValueError`` naming the unknown ids and the known ones."""
    if raw is None:
        return ()
    if isinstance(raw, str) or not isinstance(raw, (list, tuple)):
        raise ValueError('variants must be a list of variant ids, e.g. ["elf_per_5"]')
    known = variant_table()
    wanted = list(raw)
    bad = [v for v in wanted if not isinstance(v, str) or v not in known]
    if bad:
        raise ValueError(
            f"unknown variant(s): {', '.join(quoted(v) for v in bad)}; "
            f"the variants of Heirs of the Axis are: {', '.join(known) or 'none'}"
        )
    if len(set(wanted)) != len(wanted):
        raise ValueError("a variant is listed more than once")
    return tuple(v for v in known if v in wanted)


def _patch(target: Any, patch: Any, where: str) -> Any:
    """``target`` with ``patch`` applied, sharing every part the patch does not touch.

    An object patches an object key by key (new keys are added) and a list of objects with
    ids entry by entry (the key names the id); any other value replaces the target."""
    if isinstance(patch, dict) and isinstance(target, list):
        patched = list(target)
        positions = {e["id"]: i for i, e in enumerate(target) if isinstance(e, dict) and "id" in e}
        for key, value in patch.items():
            if key not in positions:
                raise ValueError(f"{where}: no entry with the id {key!r} to change")
            patched[positions[key]] = _patch(target[positions[key]], value, f"{where}.{key}")
        return patched
    if isinstance(patch, dict) and isinstance(target, dict):
        merged = dict(target)
        for key, value in patch.items():
            merged[key] = _patch(target.get(key), value, f"{where}.{key}")
        return merged
    return patch


def load_content(variants: Iterable[str] = ()) -> Content:
    """The game's content: the sheet's numbers, with the named variants applied (H13.1)."""
    applied = check_variants(tuple(variants))
    table = variant_table()
    for variant in applied:
        for name in table[variant]["changes"]:
            if name not in SEED_FILES:
                raise ValueError(f"variant {variant!r} changes {name!r}, which is no seed file")

    def seed(name: str) -> Any:
        raw = load_seed(f"heirs/{name}")
        for variant in applied:
            changes = table[variant]["changes"]
            if name in changes:
                raw = _patch(raw, changes[name], f"{variant}: {name}")
        return raw

    map_raw = seed("map.json")
    setup = seed("setup.json")
    characters = seed("characters.json")["characters"]
    artifacts = seed("artifacts.json")
    omens = seed("omens.json")
    tricks = seed("tricks.json")
    buildings = seed("buildings.json")
    abilities = seed("abilities.json")
    council = seed("council.json")
    cards: dict[str, dict[str, Any]] = {}
    card_group: dict[str, int] = {}
    groups: list[tuple[str, ...]] = []
    new_portrait = ""
    for number, group in enumerate(tricks["groups"]):
        groups.append(tuple(card["id"] for card in group["cards"]))
        for card in group["cards"]:
            cards[card["id"]] = card
            card_group[card["id"]] = number
        if "without_portrait" in group:
            spare = group["without_portrait"]
            new_portrait = spare["id"]
            cards[spare["id"]] = spare
            card_group[spare["id"]] = number
    starting = {a["id"]: a for a in artifacts["starting"]}
    comet = {a["id"]: a for a in artifacts["comet"]}
    capital = map_raw["capital"]
    return Content(
        map=build_map(map_raw),
        map_raw=map_raw,
        setup=setup,
        characters={c["id"]: c for c in characters},
        starting_artifacts=starting,
        comet_artifacts=comet,
        artifact_effects={**starting, **comet},
        backpack=artifacts["backpack"],
        mirror_chance=_pair(artifacts["mirror_chance"]),
        omens={o["id"]: o for o in omens["omens"]},
        omen_schedule=omens,
        trick_groups=tuple(groups),
        new_portrait=new_portrait,
        cards=cards,
        card_group=card_group,
        exposure_chance=_pair(tricks["exposure_chance"]),
        building_costs=tuple(buildings["costs"]),
        buildings={b["id"]: b for b in buildings["buildings"]},
        ability_costs=tuple(abilities["costs"]),
        abilities={a["id"]: a for a in abilities["abilities"]},
        council=council,
        ring_yield={int(k): (v["people"], v["gold"]) for k, v in map_raw["rings"].items()},
        ring_settle={int(k): v["settle_cost"] for k, v in map_raw["rings"].items()},
        capital_income=(capital["people"], capital["gold"], capital["knowledge"]),
        variants=applied,
    )

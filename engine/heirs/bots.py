"""Bots for Heirs of the Axis. They read only ``view(state, seat)`` and the seat's prompt.

Each returns a list of candidate orders, best first; the rules object seals the first one the
sealing check accepts (the check depends only on what the seat itself may know), and every
list ends with simpler fallbacks down to the default order.
"""

from __future__ import annotations

import zlib
from typing import Any

from engine.core import JSON, Rng

STYLES: tuple[str, ...] = ("expander", "raider", "warlord", "novice")
"""expander: settles, builds, takes siblings' land held by militia alone and trusts the
Council; raider: hunts Signs and the Axis; warlord: plays for Last survivor only — all
warlords besiege the same sibling (the one with the least land) with invasions, capital
assaults, Curses and Bribery, and never enter the Axis; novice: an easy opponent that seals
random legal orders from its prompt (seeded from its own view, so still deterministic).
Every style keeps its character by the same style-independent pick (``choose_character``)."""

BUILD_TASTE: dict[str, tuple[str, ...]] = {
    "expander": ("farm", "mine", "walls", "academy", "market", "barracks"),
    "raider": ("barracks", "farm", "mine", "walls", "academy", "market"),
    "warlord": ("academy", "farm", "barracks", "mine", "walls", "market"),
}
LEARN_TASTE: dict[str, tuple[str, ...]] = {
    "expander": ("defense", "leadership", "mysticism", "attack"),
    "raider": ("attack", "leadership", "defense", "mysticism"),
    "warlord": ("mysticism", "attack", "leadership", "defense"),
}


WARLORD_DUEL = 16
"""A warlord attacks a field where an heir stands only with at least this many soldiers:
a lost battle against an heir hands that heir the warlord's Sign (and, with 2 players, the
Throne). Fields and capitals held by militia alone are attacked from 4 soldiers on."""

_GEOMETRY: dict[str, Any] = {}


def _geometry(view: JSON) -> tuple[dict[str, tuple[int, int]], dict[str, list[str]]]:
    """Coordinates and neighbours of the board's (static) map, computed once per process."""
    if not _GEOMETRY:
        coords = {f["id"]: (f["q"], f["r"]) for f in view["map"]["fields"]}
        by_coord = {c: name for name, c in coords.items()}
        neighbours = {
            name: [
                by_coord[(q + dq, r + dr)]
                for dq, dr in ((1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1))
                if (q + dq, r + dr) in by_coord
            ]
            for name, (q, r) in coords.items()
        }
        _GEOMETRY["coords"] = coords
        _GEOMETRY["neighbours"] = neighbours
        ids = [f["id"] for f in view["map"]["fields"]]
        _GEOMETRY["ids"] = ids
        _GEOMETRY["index_of"] = {name: i for i, name in enumerate(ids)}
        _GEOMETRY["neighbour_indices"] = [[ids.index(n) for n in neighbours[name]] for name in ids]
    return _GEOMETRY["coords"], _GEOMETRY["neighbours"]


def _coords(view: JSON) -> dict[str, tuple[int, int]]:
    return _geometry(view)[0]


def _distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    dq, dr = a[0] - b[0], a[1] - b[1]
    return max(abs(dq), abs(dr), abs(dq + dr))


def _walking_distances(
    view: JSON, goals: list[str], seat: int, wanted: list[str]
) -> dict[str, int]:
    """Breadth-first steps from the ``wanted`` fields to the nearest goal, walking only over
    free or own fields; a wanted field that cannot reach a goal is left out. The search
    stops as soon as every wanted field has its distance (later levels cannot change it)."""
    _geometry(view)
    index_of: dict[str, int] = _GEOMETRY["index_of"]
    neighbours: list[list[int]] = _GEOMETRY["neighbour_indices"]
    owners = view["owners"]
    axis = index_of[view["map"]["axis"]]
    far = len(owners)
    steps = [far] * far
    frontier = [index_of[g] for g in goals]
    for g in frontier:
        steps[g] = 0
    targets = [index_of[w] for w in wanted]
    distance = 0
    while frontier:
        if all(steps[t] != far for t in targets):
            break
        distance += 1
        following: list[int] = []
        for field in frontier:
            for nxt in neighbours[field]:
                if steps[nxt] != far or nxt == axis:
                    continue
                owner = owners[nxt]
                if owner is not None and owner != seat:
                    continue
                steps[nxt] = distance
                following.append(nxt)
        frontier = following
    return {w: steps[t] for w, t in zip(wanted, targets, strict=True) if steps[t] != far}


def _jitter(view: JSON, key: Any) -> int:
    """A tie-break that stays the same through a game but follows no direction of the map.

    Breaking ties by field order sent every bot the same absolute way round the board, so
    the same pairs of neighbours fought each other game after game, and in a pair the seat
    that the rotating start player (H4.2) resolves first more often won. The token mixes
    the seat's own secret draw (character, starting artifact), so it varies from game to
    game."""
    me = view["me"]
    draw = (me["seat"], me.get("character"), me.get("start_artifact"))
    prefix = _JITTER_PREFIX.get(draw)
    if prefix is None:
        # crc32(a + b) == crc32(b, crc32(a)): the seat's part is hashed once per draw.
        prefix = _JITTER_PREFIX[draw] = zlib.crc32(f"{draw[0]}:{draw[1]}:{draw[2]}:".encode())
    return zlib.crc32(f"{key}".encode(), prefix)


_JITTER_PREFIX: dict[tuple[Any, ...], int] = {}


def choose_character(view: JSON, offered: list[str]) -> str:
    """The kept character: the same for every style (H3.3's choice is not the style's).

    Choosing by style made ``wins_by_character`` measure the styles — the warlord, the
    strongest style, kept the Thief and the Knight, the expander the Merchant and the
    Builder. Here the pick is a hash of the seat's own secret draw (seat, starting artifact
    and the two cards offered), so every character is kept about equally often by every
    style and stays deterministic within a game."""
    me = view.get("me", {})
    token = f"{me.get('seat')}:{me.get('start_artifact')}:{','.join(sorted(offered))}"
    return sorted(offered)[zlib.crc32(token.encode()) % len(offered)]


def _ring(field_id: str) -> int:
    return int(field_id[1 : field_id.index("-")])


def decide(view: JSON, prompt: JSON, style: str) -> list[JSON]:
    if style not in STYLES:
        style = STYLES[0]
    if style == "novice":
        me = view.get("me", {})
        token = f"{view['round']}:{me.get('seat')}:{me.get('soldiers')}:{me.get('people')}"
        return random_candidates(prompt, Rng(zlib.crc32(token.encode())))
    if prompt["kind"] == "setup":
        character = choose_character(view, prompt["characters"])
        return [{"colour": colour, "character": character} for colour in prompt["colours"]]
    return _round_plan(view, prompt, style)


def _round_plan(view: JSON, prompt: JSON, style: str) -> list[JSON]:
    me = view["me"]
    seat = me["seat"]
    coords = _coords(view)
    here = prompt["position"]
    people, gold, knowledge = me["people"], me["gold"], me["knowledge"]
    owners = view["owners"]
    owner_of = dict(zip(_GEOMETRY["ids"], owners, strict=True))
    heirs = [h for h in view["heirs"] if h["seat"] != seat and not h["fallen"]]
    missing = [h for h in heirs if h["seat"] not in me["signs"]]
    tactic = style
    if style == "warlord":
        # Warlords gang up on the same victim, chosen from public facts only: the living
        # sibling with the least land (the weakest economy); ties rotate with the round.
        land = {h["seat"]: owners.count(h["seat"]) for h in heirs}
        players = len(view["heirs"])
        missing = sorted(
            heirs, key=lambda h: (land[h["seat"]], (h["seat"] - view["round"]) % players)
        )[:1]
        tactic = "warlord"
    expedition_options = prompt["expedition"]
    axis = view["map"]["axis"]

    order: JSON = {}
    settle_target = here
    # Expedition ---------------------------------------------------------------------------
    if axis in expedition_options["move"] and style != "warlord":
        order["expedition"] = {"kind": "move", "field": axis}
        settle_target = axis
    else:
        attack = _pick_attack(view, prompt, style, missing, owner_of)
        if style == "warlord" and attack is not None:
            victim = missing[0]["seat"] if missing else None
            positions = {h["position"]: h["seat"] for h in heirs}
            if positions.get(attack) != victim and owner_of.get(attack) != victim:
                attack = None
        if attack is not None:
            order["expedition"] = {"kind": "attack", "field": attack}
            settle_target = attack
        else:
            move = _pick_move(view, prompt, tactic, coords, missing, owner_of)
            if move is not None:
                order["expedition"] = {"kind": "move", "field": move}
                settle_target = move
            elif prompt["expedition"]["scout"] and view["shards"]:
                near = [f for f in prompt["expedition"]["scout"] if f in view["shards"]]
                if near:
                    order["expedition"] = {"kind": "scout", "field": near[0]}
    # Settling reserve ---------------------------------------------------------------------
    reserve = prompt["settle"]["costs"].get(settle_target, 0)
    if owner_of.get(settle_target) is not None:
        reserve = 0
    # Trick --------------------------------------------------------------------------------
    trick = _pick_trick(view, prompt, style, order, missing, coords)
    for resource, amount in (trick or {}).get("_cost", {}).items():
        if resource == "gold":
            gold -= amount
        elif resource == "knowledge":
            knowledge -= amount
    if trick is not None:
        trick = {k: v for k, v in trick.items() if k != "_cost"}
        order["trick"] = trick
    # City and Heir ------------------------------------------------------------------------
    buildings = {b["id"]: b for b in prompt["buildings"]}
    for name in BUILD_TASTE[style]:
        cost = buildings[name]["cost"]
        if cost is not None and cost <= gold:
            order["build"] = name
            gold -= cost
            break
    abilities = {a["id"]: a for a in prompt["abilities"]}
    for name in LEARN_TASTE[style]:
        cost = abilities[name]["cost"]
        if cost is not None and cost <= knowledge:
            order["learn"] = name
            break
    # Retinue ------------------------------------------------------------------------------
    per = prompt["recruit"]["people_per_soldier"]
    spare = max(0, people - reserve)
    recruit = min(prompt["recruit"]["cap"], spare // per)
    soldiers = me["soldiers"]
    if style == "expander" and soldiers + recruit > 22 + 5 * (gold // 2):
        recruit = max(0, 22 - soldiers)
    order["recruit"] = recruit
    # Market: turn spare gold into knowledge when an ability is close.
    market = prompt["market"]
    if market and gold >= 2 * market["give"] and "learn" not in order:
        order["exchanges"] = [{"give": "gold", "get": "knowledge", "trades": 1}]
    order["retreat"] = style == "expander" and soldiers < 10
    if style == "warlord":
        order["exchanges"] = []
        if market and gold >= market["give"] and "learn" not in order:
            order["exchanges"] = [{"give": "gold", "get": "knowledge", "trades": 1}]

    simpler = [
        {k: v for k, v in order.items() if k != "exchanges"},
        {k: v for k, v in order.items() if k not in ("exchanges", "trick")},
        {k: v for k, v in order.items() if k in ("expedition", "recruit")},
        {k: v for k, v in order.items() if k == "expedition"},
        {},
    ]
    return [order, *simpler]


def _pick_attack(
    view: JSON, prompt: JSON, style: str, missing: list[JSON], owner_of: dict[str, Any]
) -> str | None:
    me = view["me"]
    targets = prompt["expedition"]["attack"]
    if not targets:
        return None
    positions = {h["position"]: h for h in view["heirs"] if not h["fallen"]}
    missing_seats = {h["seat"] for h in missing}
    strong = me["soldiers"] >= {"raider": 8, "warlord": 4}.get(style, 16)
    if not strong:
        return None
    best: tuple[tuple[int, int], str] | None = None
    for target in targets:
        owner = owner_of.get(target)
        heir_there = positions.get(target)
        score = 0
        if heir_there is not None and heir_there["seat"] in missing_seats:
            score += 10
        if owner is not None and target in view["living_capitals"].values():
            score += 8 if owner in missing_seats else 2
        elif owner is not None:
            score += 3 if style == "raider" else 1
        if heir_there is not None and heir_there["seat"] not in missing_seats:
            score += 1
        if style == "expander" and score < 8 and (heir_there is not None or owner is None):
            # The expander takes land too, but only land held by militia alone: a won
            # invasion is a field and a won battle (Council), and losing to militia gives
            # no sibling its Sign.
            continue
        if style == "warlord" and heir_there is not None and me["soldiers"] < WARLORD_DUEL:
            continue  # a lost battle against an heir hands it the warlord's Sign
        ranked = (score, _jitter(view, target))
        if best is None or ranked > best[0]:
            best = (ranked, target)
    return None if best is None else best[1]


def _pick_move(
    view: JSON,
    prompt: JSON,
    style: str,
    coords: dict[str, tuple[int, int]],
    missing: list[JSON],
    owner_of: dict[str, Any],
) -> str | None:
    me = view["me"]
    options: list[str] = [f for f in prompt["expedition"]["move"] if f != view["map"]["axis"]]
    if not options:
        return None
    here = prompt["position"]
    costs = prompt["settle"]["costs"]
    if style == "warlord" and missing:
        # Besiege the victim's land, not its heir: its capital and fields stay put, so the
        # warlord does not leapfrog a heir that walks towards it in the same round.
        _, neighbours = _geometry(view)
        victim = missing[0]["seat"]
        axis_id = view["map"]["axis"]
        ids = _GEOMETRY["ids"]
        owners = view["owners"]
        targets = [ids[i] for i, o in enumerate(owners) if o == victim]
        if missing[0]["position"] is not None:
            targets.append(missing[0]["position"])
        goals = sorted(
            {
                n
                for t in targets
                for n in neighbours[t]
                if n != axis_id and owner_of[n] in (None, me["seat"])
            }
        )
        if goals:
            steps = _walking_distances(view, goals, me["seat"], [here, *options])
            far = len(coords)

            def siege(field_id: str) -> tuple[int, int]:
                return (steps.get(field_id, far), _ring(field_id))

            best = min(options, key=lambda f: (*siege(f), _jitter(view, f)))
            if siege(best) < siege(here):
                return best
            return None
        style = "raider"
    if style in ("raider", "warlord"):
        _, neighbours = _geometry(view)
        if missing:
            goals = sorted(
                {
                    n
                    for h in missing
                    if h["position"] is not None
                    for n in neighbours[h["position"]]
                    if n != view["map"]["axis"] and owner_of[n] in (None, me["seat"])
                }
            )
        else:
            goals = list(neighbours[view["map"]["axis"]])
        if not goals:
            return None
        steps = _walking_distances(view, goals, me["seat"], [here, *options])
        far = len(coords)

        def closeness(field_id: str) -> tuple[int, int]:
            return (steps.get(field_id, far), _ring(field_id))

        best = min(options, key=lambda f: (*closeness(f), _jitter(view, f)))
        if closeness(best) >= closeness(here) and here not in costs:
            return None
        return best
    # Expander: the best free field it can afford to settle, inner rings first.
    affordable = [f for f in options if f in costs and costs[f] <= me["people"]]
    occupied = {h["position"] for h in view["heirs"] if h["seat"] != me["seat"]}
    affordable = [f for f in affordable if f not in occupied]
    if affordable:
        return min(affordable, key=lambda f: (_ring(f), _jitter(view, f)))
    if len(me["signs"]) >= me.get("signs_required", 99):
        axis = coords[view["map"]["axis"]]
        return min(options, key=lambda f: (_distance(coords[f], axis), _jitter(view, f)))
    # Walk outwards from home territory towards free land.
    free_far = [f for f in options if owner_of.get(f) == me["seat"]]
    if free_far and here not in costs:
        turn: int = view["round"] + me["seat"]
        return free_far[turn % len(free_far)]
    return None


def _pick_trick(
    view: JSON,
    prompt: JSON,
    style: str,
    order: JSON,
    missing: list[JSON],
    coords: dict[str, tuple[int, int]],
) -> JSON | None:
    me = view["me"]
    attacking = order.get("expedition", {}).get("kind") == "attack"
    missing_seats = [h["seat"] for h in missing]
    for entry in prompt["tricks"]:
        card = entry["card"]
        if not entry["affordable"]:
            continue
        cost = entry["cost"]
        if card == "war_cry" and attacking:
            return {"card": card, "_cost": cost}
        if card == "shield_of_the_seal" and style == "expander":
            return {"card": card, "_cost": cost}
        if card in ("quick_recruitment", "hired_knights"):
            return {"card": card, "_cost": cost}
        if card == "mercenaries" and me["gold"] >= 10:
            return {"card": card, "_cost": cost}
        if card in ("curse", "bribery") and entry["targets"] and style == "raider":
            wanted = [s for s in entry["targets"] if s in missing_seats] or entry["targets"]
            target = min(wanted, key=lambda s: _jitter(view, ("sibling", s)))
            return {"card": card, "target": target, "_cost": cost}
        if card in ("curse", "bribery") and style == "warlord":
            victims = [h["seat"] for h in missing if h["seat"] in entry["targets"]]
            if victims:
                return {"card": card, "target": victims[0], "_cost": cost}
        if card == "new_portrait" and entry["targets"]:
            wanted = [s for s in entry["targets"] if s in missing_seats] or entry["targets"]
            target = (
                wanted[0]
                if style == "warlord"
                else min(wanted, key=lambda s: _jitter(view, ("sibling", s)))
            )
            return {"card": card, "target": target, "_cost": cost}
        if card == "shadow_path" and style == "raider" and not missing:
            fields = shadow_path_fields(entry, order)
            if fields:
                field = min(fields, key=lambda f: _jitter(view, f))
                return {"card": card, "field": field, "_cost": cost}
    return None


def shadow_path_fields(entry: JSON, order: JSON) -> list[str]:
    """H7.7: the prompt's Shadow path fields from where this order's expedition ends."""
    after: JSON = entry["fields_after"]
    expedition = order.get("expedition") or {"kind": "stay"}
    kind = expedition.get("kind", "stay")
    if kind in ("move", "attack"):
        fields: list[str] = after[kind].get(expedition.get("field"), [])
        return fields
    return list(after["stay"])


def random_candidates(prompt: JSON, rng: Rng) -> list[JSON]:
    """A random order and ever simpler fallbacks (the last is the default order)."""
    if prompt["kind"] == "setup":
        colours = rng.shuffled(prompt["colours"])
        character = rng.choice(prompt["characters"])
        return [{"colour": colour, "character": character} for colour in colours]
    order: JSON = {}
    options = prompt["expedition"]
    kind = rng.choice(("move", "attack", "scout", "stay"))
    if kind != "stay" and options[kind]:
        order["expedition"] = {"kind": kind, "field": rng.choice(options[kind])}
    order["settle"] = rng.chance(3, 4)
    order["retreat"] = rng.chance(1, 4)
    cap = min(prompt["recruit"]["cap"], prompt["recruit"]["affordable"])
    order["recruit"] = rng.between(0, cap) if cap > 0 else 0
    affordable_buildings = [b["id"] for b in prompt["buildings"] if b["affordable"]]
    if affordable_buildings and rng.chance(1, 2):
        order["build"] = rng.choice(affordable_buildings)
    affordable_abilities = [a["id"] for a in prompt["abilities"] if a["affordable"]]
    if affordable_abilities and rng.chance(1, 2):
        order["learn"] = rng.choice(affordable_abilities)
    cards = [t for t in prompt["tricks"] if t["affordable"]]
    if cards and rng.chance(2, 3):
        card = rng.choice(cards)
        trick: JSON = {"card": card["card"]}
        if "targets" in card:
            if card["targets"]:
                trick["target"] = rng.choice(card["targets"])
                order["trick"] = trick
        elif "fields" in card:
            fields = shadow_path_fields(card, order)
            if fields:
                trick["field"] = rng.choice(fields)
                order["trick"] = trick
        else:
            order["trick"] = trick
    if prompt["market"] and rng.chance(1, 3):
        resources = ["people", "gold", "knowledge"]
        give = rng.choice(resources)
        get = rng.choice([r for r in resources if r != give])
        order["exchanges"] = [{"give": give, "get": get, "trades": rng.between(1, 2)}]
    return [
        order,
        {k: v for k, v in order.items() if k != "exchanges"},
        {k: v for k, v in order.items() if k not in ("exchanges", "trick")},
        {k: v for k, v in order.items() if k in ("expedition", "settle", "retreat")},
        {},
    ]

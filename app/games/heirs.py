"""Heirs of the Axis at the table: the phone's setup and order sheet, the board's map drawn
from the step of the round being played out (H23), and the logs. Everything here reads
payloads (views, prompts and the events a screen may see) only, never the engine's state.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from functools import cache
from typing import Any

from app import i18n
from app.content import Entry, Kind, content_name, content_text
from app.games import COLOUR_HEX, form_values, names_read, seat_names
from engine.core import JSON
from engine.heirs import RULES
from engine.heirs.content import variant_table

HEX = 40.0
"""Hex size (centre to corner) of the board's SVG, in SVG units."""
SQRT3 = math.sqrt(3)
COLOURS = ("red", "blue", "green", "yellow", "purple", "white")
SYMBOLS = {"red": "▲", "blue": "●", "green": "■", "yellow": "★", "purple": "◆", "white": "✚"}
"""A shape per colour, so a colour-blind player can tell the dynasties apart."""
NO_COLOUR = "#8a8f9c"
RESOURCES = ("people", "gold", "knowledge")
PURSE = ("soldiers", *RESOURCES)
"""What an heir holds, in the order every purse line names it."""
EXCERPT_RADIUS = 2


# ------------------------------------------------------------------ the content named


def _content_entry(raw: Mapping[str, Any]) -> Entry:
    counted = raw.get("text_number")
    return Entry(
        name=raw["name"],
        text=raw.get("text", ""),
        text_plural=raw.get("text_plural", ""),
        number=int(raw[counted]) if counted else 0,
    )


def _content_items(attribute: str) -> Callable[[tuple[str, ...]], dict[str, Entry]]:
    """The items of one attribute of the content, with the named variants applied."""

    def entries(variants: tuple[str, ...]) -> dict[str, Entry]:
        items: Mapping[str, Mapping[str, Any]] = getattr(
            RULES.for_variants(list(variants)).content, attribute
        )
        return {item_id: _content_entry(raw) for item_id, raw in items.items()}

    return entries


def _variants(variants: tuple[str, ...]) -> dict[str, Entry]:
    return {vid: Entry(v["name"], v["text"]) for vid, v in variant_table().items()}


def _variant_sets() -> list[tuple[str, ...]]:
    """No variant, and each named variant alone: a variant words some texts its own way."""
    return [(), *((vid,) for vid in variant_table())]


CONTENT_KINDS = tuple(
    Kind("heirs", kind, f"heirs/{seed}", entries, _variant_sets)
    for kind, seed, entries in (
        ("character", "characters.json", _content_items("characters")),
        ("artifact", "artifacts.json", _content_items("artifact_effects")),
        ("omen", "omens.json", _content_items("omens")),
        ("trick", "tricks.json", _content_items("cards")),
        ("building", "buildings.json", _content_items("buildings")),
        ("ability", "abilities.json", _content_items("abilities")),
        ("variant", "variants.json", _variants),
    )
)


# ------------------------------------------------------------------ translated names
# Names and texts of content come from the seeds through one lookup (app/content.py); the
# words below them (colours, resources, parts of the order sheet) are the screens' own.


def variant_name(vid: str) -> str:
    return content_name("heirs", "variant", vid)


def variant_text(vid: str) -> str:
    return content_text("heirs", "variant", vid)


def character_name(cid: str) -> str:
    return content_name("heirs", "character", cid)


def character_text(cid: str, variants: Sequence[str] = ()) -> str:
    # The per-soldier divisors are data (seeds/heirs/characters.json) that a variant may
    # change (H13.1), so the text takes them from the game's own content with its variants.
    return content_text("heirs", "character", cid, variants)


def artifact_name(aid: str) -> str:
    return content_name("heirs", "artifact", aid)


def artifact_text(aid: str) -> str:
    return content_text("heirs", "artifact", aid)


def omen_name(oid: str | None) -> str:
    return content_name("heirs", "omen", oid)


def omen_text(oid: str | None) -> str:
    return content_text("heirs", "omen", oid)


def trick_name(card: str) -> str:
    return content_name("heirs", "trick", card)


def trick_text(card: str) -> str:
    return content_text("heirs", "trick", card)


def building_name(bid: str) -> str:
    return content_name("heirs", "building", bid)


def ability_name(aid: str) -> str:
    return content_name("heirs", "ability", aid)


def colour_name(colour: str | None) -> str:
    names = {
        "red": i18n.gettext("red"),
        "blue": i18n.gettext("blue"),
        "green": i18n.gettext("green"),
        "yellow": i18n.gettext("yellow"),
        "purple": i18n.gettext("purple"),
        "white": i18n.gettext("white"),
    }
    return names.get(colour or "", colour or "")


def resource_name(resource: str) -> str:
    names = {
        "people": i18n.gettext("people"),
        "gold": i18n.gettext("gold"),
        "knowledge": i18n.gettext("knowledge"),
        "soldiers": i18n.gettext("soldiers"),
    }
    return names.get(resource, resource)


def amount_text(resource: str, amount: int) -> str:
    """``amount`` of ``resource`` ("22 soldiers"), the noun in the form the number takes
    (Czech: 1 voják, 3 vojáci, 22 vojáků)."""
    return _amount_sentence(resource, amount) % {"num": amount}


def amount_forms(resource: str) -> dict[str, str]:
    """:func:`amount_text`'s sentence for each plural category of the current language, the
    number left as ``%(num)s``: what the phone's running total writes (static/heirs.js)."""
    examples = i18n.plural_examples(i18n.current_language())
    return {category: _amount_sentence(resource, n) for category, n in examples.items()}


def _amount_sentence(resource: str, amount: int) -> str:
    if resource == "soldiers":
        return i18n.ngettext("%(num)s soldier", "%(num)s soldiers", amount)
    if resource == "people":
        return i18n.ngettext("%(num)s person", "%(num)s people", amount)
    if resource == "gold":
        return i18n.ngettext("%(num)s gold", "%(num)s gold", amount)
    if resource == "knowledge":
        return i18n.ngettext("%(num)s knowledge", "%(num)s knowledge", amount)
    return f"%(num)s {resource_name(resource)}"


def part_name(part: str) -> str:
    names = {
        "exchange": i18n.pgettext("heirs", "Market"),
        "trick": i18n.gettext("Trick"),
        "retinue": i18n.gettext("Retinue"),
        "city": i18n.gettext("City"),
        "heir": i18n.gettext("Heir"),
        "expedition": i18n.gettext("Expedition"),
        "move": i18n.gettext("Expedition"),
        "attack": i18n.gettext("Expedition"),
        "scout": i18n.gettext("Expedition"),
        "shadow_path": i18n.gettext("Shadow path"),
        "settle": i18n.gettext("Settling"),
    }
    return names.get(part, part)


def reason_text(code: str, fallback: str) -> str:
    """A skipped part's reason (H21 codes) in the current language."""
    texts = {
        "NOT_ENOUGH_GOLD": i18n.gettext("not enough gold"),
        "NOT_ENOUGH_PEOPLE": i18n.gettext("not enough people"),
        "NOT_ENOUGH_KNOWLEDGE": i18n.gettext("not enough knowledge"),
        "NO_PORTRAIT": i18n.gettext("no portrait of that sibling"),
        "TARGET_FALLEN": i18n.gettext("the target has fallen"),
        "OVER_CAP": i18n.gettext("over the recruit cap"),
        "NOT_ADJACENT": i18n.gettext("the field is not next to you"),
        "FIELD_TAKEN": i18n.gettext("a sibling owns that field"),
        "AXIS_LOCKED": i18n.gettext("the Axis needs more Signs"),
        "NO_SOLDIERS": i18n.gettext("no soldiers left"),
        "NOT_CLOSER": i18n.gettext("not one ring inwards"),
        "NOT_ALONE": i18n.gettext("another heir stands there"),
        "NO_MARKET": i18n.gettext("no Market"),
    }
    return texts.get(code, fallback)


def ending_name(reason: str | None) -> str:
    names = {
        "throne": i18n.gettext("Throne: an heir entered the Axis"),
        "last_survivor": i18n.gettext("Last survivor"),
        "council": i18n.gettext("Council of the Axis"),
    }
    return names.get(reason or "", reason or "")


def roman(level: int) -> str:
    return ("0", "I", "II", "III", "IV", "V")[level] if 0 <= level <= 5 else str(level)


def cost_text(cost: Mapping[str, int]) -> str:
    if not cost:
        return i18n.gettext("free")
    return ", ".join(amount_text(res, amount) for res, amount in cost.items())


# ------------------------------------------------------------------ geometry


def field_xy(q: int, r: int) -> tuple[float, float]:
    """H2.1: flat-top hexes, y growing downward."""
    return 1.5 * q * HEX, SQRT3 * (r + q / 2) * HEX


@cache
def hex_points(x: float, y: float, size: float = HEX) -> str:
    """The polygon of a field (a map has a few dozen): drawn once, not at every view, where
    it was a third of the time a phone's fragment took."""
    corners = []
    for k in range(6):
        angle = math.pi / 3 * k
        corners.append(
            f"{x + size * 0.97 * math.cos(angle):.1f},{y + size * 0.97 * math.sin(angle):.1f}"
        )
    return " ".join(corners)


def hex_distance(a: Mapping[str, int], b: Mapping[str, int]) -> int:
    dq, dr = a["q"] - b["q"], a["r"] - b["r"]
    return max(abs(dq), abs(dr), abs(dq + dr))


def colour_of(heirs: list[JSON], seat: int | None) -> str | None:
    if seat is None:
        return None
    for heir in heirs:
        if heir["seat"] == seat:
            return heir.get("colour")
    return None


def map_fields(view: Mapping[str, Any]) -> list[JSON]:
    """Every field with its screen position, polygon, owner colour and markers."""
    game_map = view["map"]
    heirs = view.get("heirs", [])
    forests = set(game_map.get("forests", []))
    finds = set(view.get("finds", []))
    shards = set(view.get("shards", []))
    capitals = {field: int(seat) for seat, field in view.get("living_capitals", {}).items()}
    owners = view.get("owners", [])
    fields = []
    for index, field in enumerate(game_map["fields"]):
        x, y = field_xy(field["q"], field["r"])
        owner = owners[index] if index < len(owners) else None
        colour = colour_of(heirs, owner)
        capital = capitals.get(field["id"])
        fields.append(
            {
                "id": field["id"],
                "q": field["q"],
                "r": field["r"],
                "ring": field["ring"],
                "x": x,
                "y": y,
                "points": hex_points(x, y),
                "owner": owner,
                "owner_colour": colour,
                "fill": COLOUR_HEX.get(colour or "", NO_COLOUR) if owner is not None else None,
                "forest": field["id"] in forests and capital is None,
                "find": field["id"] in finds,
                "shard": field["id"] in shards,
                "capital_of": capital,
                "capital_colour": colour_of(heirs, capital),
                "axis": field["id"] == game_map.get("axis"),
            }
        )
    return fields


# ------------------------------------------------------------------ events → words


def event_line(
    event: Mapping[str, Any], names: Mapping[int, str], me: int | None = None
) -> str | None:
    """One event of a resolution as a line of the log (``None``: not worth a line).

    Each reader gets a sentence written for it: the phone's own heir in the second person
    ("You move"), the others by name; a pronoun is never pasted into a sentence written for
    a name. Counts take their plural forms from the catalog."""
    kind, data = event["kind"], event.get("data") or {}
    gettext = i18n.gettext

    def name(seat: Any) -> str:
        if seat is None:
            return gettext("an unknown sibling")
        return names.get(int(seat), str(seat))

    def mine(seat: Any) -> bool:
        return me is not None and seat is not None and int(seat) == me

    seat = data.get("seat")
    you = mine(seat)
    if kind == "dawn":
        return gettext("Round %(round)s begins: %(omen)s.") % {
            "round": data.get("round"),
            "omen": omen_name(data.get("omen")),
        }
    if kind == "dusk":
        return gettext("Dusk of round %(round)s: soldiers are paid.") % {"round": data.get("round")}
    if kind == "step":
        text = (
            gettext("Pedestal %(n)s: your step.") if you else gettext("Pedestal %(n)s: %(name)s.")
        )
        return text % {"n": data.get("pedestal"), "name": name(seat)}
    if kind in ("move", "shadow_path", "retreat"):
        if kind == "move":
            text = (
                gettext("You move %(from)s → %(to)s.")
                if you
                else gettext("%(name)s moves %(from)s → %(to)s.")
            )
        elif kind == "shadow_path":
            text = (
                gettext("You take the Shadow path %(from)s → %(to)s.")
                if you
                else gettext("%(name)s takes the Shadow path %(from)s → %(to)s.")
            )
        elif data.get("preset"):
            text = (
                gettext("You retreat as planned %(from)s → %(to)s.")
                if you
                else gettext("%(name)s retreats as planned %(from)s → %(to)s.")
            )
        else:
            text = (
                gettext("You retreat %(from)s → %(to)s.")
                if you
                else gettext("%(name)s retreats %(from)s → %(to)s.")
            )
        return text % {"name": name(seat), "from": data.get("from"), "to": data.get("to")}
    if kind in ("settle", "scout", "find_taken", "shard_taken", "conquer"):
        texts = {
            "settle": (gettext("You settle %(field)s."), gettext("%(name)s settles %(field)s.")),
            "scout": (gettext("You scout %(field)s."), gettext("%(name)s scouts %(field)s.")),
            "find_taken": (
                gettext("You take the find on %(field)s."),
                gettext("%(name)s takes the find on %(field)s."),
            ),
            "shard_taken": (
                gettext("You pick up a comet shard on %(field)s."),
                gettext("%(name)s picks up a comet shard on %(field)s."),
            ),
            "conquer": (
                gettext("You conquer %(field)s."),
                gettext("%(name)s conquers %(field)s."),
            ),
        }
        text = texts[kind][0 if you else 1]
        return text % {"name": name(seat), "field": data.get("field")}
    if kind == "comet":
        return gettext("A comet drops shards on %(fields)s.") % {
            "fields": ", ".join(data.get("fields", []))
        }
    if kind == "battle":
        return _battle_line(data, name, mine)
    if kind == "plunder":
        other = data.get("capital_of")
        if you:
            text = gettext("You plunder the capital of %(other)s.")
        elif mine(other):
            text = gettext("%(name)s plunders your capital.")
        else:
            text = gettext("%(name)s plunders the capital of %(other)s.")
        return text % {"name": name(seat), "other": name(other)}
    if kind == "sign":
        other = data.get("of")
        if you:
            text = gettext("You take the Sign of %(other)s.")
        elif mine(other):
            text = gettext("%(name)s takes your Sign.")
        else:
            text = gettext("%(name)s takes the Sign of %(other)s.")
        return text % {"name": name(seat), "other": name(other)}
    if kind == "trick_public":
        caster, target = data.get("caster"), data.get("target")
        if mine(caster) or mine(target):
            return None  # the phone's own report of it says more (no line twice)
        if caster is None:
            text = gettext("%(card)s on %(target)s, cast by an unknown sibling.")
        else:
            text = gettext("%(card)s on %(target)s, cast by %(caster)s.")
        return text % {
            "card": trick_name(data.get("card", "")),
            "target": name(target),
            "caster": name(caster),
        }
    if kind == "axis":
        return (gettext("You enter the Axis!") if you else gettext("%(name)s enters the Axis!")) % {
            "name": name(seat)
        }
    if kind == "fall":
        text = gettext("Your dynasty falls.") if you else gettext("The dynasty of %(name)s falls.")
        return text % {"name": name(seat)}
    if kind == "end":
        return gettext("The game ends: %(ending)s.") % {"ending": ending_name(data.get("reason"))}
    if kind == "colour":
        text = gettext("You take %(colour)s.") if you else gettext("%(name)s takes %(colour)s.")
        return text % {"name": name(seat), "colour": colour_name(data.get("colour"))}
    return _private_line(kind, data, name)


def _battle_line(data: Mapping[str, Any], name: Any, mine: Any) -> str:
    """A battle (H12) told to its attacker, to its defender, or to anyone else."""
    gettext = i18n.gettext
    attacker, defender, dynasty = data.get("attacker"), data.get("defender"), data.get("dynasty")
    attacker_won = data.get("winner") == "attacker"
    values = {"field": data.get("field"), "attacker": name(attacker)}
    if defender is None:
        values["defender"] = gettext("the militia of %(name)s") % {"name": name(dynasty)}
    else:
        values["defender"] = name(defender)
    if mine(attacker):
        text = (
            gettext("Battle on %(field)s: you attack %(defender)s and win.")
            if attacker_won
            else gettext("Battle on %(field)s: you attack %(defender)s and lose.")
        )
    elif mine(defender):
        text = (
            gettext("Battle on %(field)s: %(attacker)s attacks you and wins.")
            if attacker_won
            else gettext("Battle on %(field)s: %(attacker)s attacks you; you hold.")
        )
    elif defender is None and mine(dynasty):
        text = (
            gettext("Battle on %(field)s: %(attacker)s beats your militia.")
            if attacker_won
            else gettext("Battle on %(field)s: your militia beats %(attacker)s back.")
        )
    else:
        text = (
            gettext("Battle on %(field)s: %(attacker)s against %(defender)s — the attacker wins.")
            if attacker_won
            else gettext(
                "Battle on %(field)s: %(attacker)s against %(defender)s — the defender holds."
            )
        )
    return text % values


def _private_line(kind: str, data: Mapping[str, Any], name: Any) -> str | None:
    """The phone's own reports (only ever in its own payload): written to "you"."""
    gettext, ngettext = i18n.gettext, i18n.ngettext
    if kind == "income":
        return (
            gettext("Income: people +%(people)s, gold +%(gold)s, knowledge +%(knowledge)s.") % data
        )
    if kind == "hand":
        return gettext("Tricks dealt: %(cards)s.") % {
            "cards": ", ".join(trick_name(c) for c in data.get("cards", []))
        }
    if kind == "skipped":
        return gettext("%(part)s skipped: %(reason)s.") % {
            "part": part_name(str(data.get("part", ""))),
            "reason": reason_text(str(data.get("code", "")), str(data.get("reason", ""))),
        }
    if kind == "exchange":
        return gettext("Market: %(trades)s× %(give)s → %(get)s.") % {
            "trades": data.get("trades"),
            "give": resource_name(data.get("give", "")),
            "get": resource_name(data.get("get", "")),
        }
    if kind == "exchange_cut":
        return gettext("Market: only %(trades)s× %(give)s (%(reason)s).") % {
            "trades": data.get("trades"),
            "give": resource_name(data.get("give", "")),
            "reason": reason_text(str(data.get("code", "")), ""),
        }
    if kind == "recruit":
        n = int(data.get("soldiers") or 0)
        return ngettext(
            "Retinue: you recruit %(n)s soldier.", "Retinue: you recruit %(n)s soldiers.", n
        ) % {"n": n}
    if kind == "retinue_cut":
        sealed = int(data.get("sealed") or 0)
        return ngettext(
            "Retinue: you recruit %(n)s of the %(sealed)s soldier sealed (%(reason)s).",
            "Retinue: you recruit %(n)s of the %(sealed)s soldiers sealed (%(reason)s).",
            sealed,
        ) % {
            "n": data.get("recruited"),
            "sealed": sealed,
            "reason": reason_text(str(data.get("code", "")), ""),
        }
    if kind == "build":
        return gettext("City: %(building)s raised to %(level)s.") % {
            "building": building_name(data.get("building", "")),
            "level": roman(int(data.get("level", 0))),
        }
    if kind == "learn":
        return gettext("Heir: %(ability)s raised to %(level)s.") % {
            "ability": ability_name(data.get("ability", "")),
            "level": roman(int(data.get("level", 0))),
        }
    if kind == "trick":
        return _trick_line(data, name)
    if kind == "trick_on_you":
        n = int(data.get("soldiers") or 0)
        values = {
            "card": trick_name(data.get("card", "")),
            "caster": name(data.get("caster")),
            "n": n,
        }
        if data.get("reflected"):
            return gettext("%(card)s aimed at you by %(caster)s was reflected.") % values
        return (
            ngettext(
                "%(card)s aimed at you by %(caster)s: you lost %(n)s soldier.",
                "%(card)s aimed at you by %(caster)s: you lost %(n)s soldiers.",
                n,
            )
            % values
        )
    if kind == "find":
        if data.get("find") == "portrait":
            return gettext("Find: a portrait of %(other)s.") % {"other": name(data.get("of"))}
        return gettext("Find: %(what)s +%(amount)s.") % {
            "amount": data.get("amount"),
            "what": resource_name(str(data.get("find", ""))),
        }
    if kind == "scout_report":
        return _scout_line(data, name)
    if kind == "intel":
        return _intel_line(data, name)
    if kind == "battle_report":
        text = gettext(
            "Your battle on %(field)s: you won; your value %(value)s, your losses %(losses)s."
        )
        if data.get("result") != "won":
            text = gettext(
                "Your battle on %(field)s: you lost; your value %(value)s, your losses %(losses)s."
            )
        return text % data
    if kind == "battle_spied":
        return gettext(
            "Spied battle on %(field)s: %(attacker)s %(av)s against %(defender)s %(dv)s."
        ) % {
            "field": data.get("field"),
            "attacker": name(data.get("attacker")),
            "av": data.get("attack_value"),
            "defender": name(data.get("defender")),
            "dv": data.get("defence_value"),
        }
    if kind == "plunder_gold":
        return gettext("Plunder on %(field)s: gold +%(gold)s.") % data
    if kind == "capture":
        return gettext("Artifact captured: %(artifact)s.") % {
            "artifact": artifact_name(data.get("artifact", ""))
        }
    if kind == "retreat_loss":
        n = int(data.get("soldiers") or 0)
        return ngettext(
            "The retreat cost you %(n)s soldier.", "The retreat cost you %(n)s soldiers.", n
        ) % {"n": n}
    if kind == "pay":
        if data.get("deserted"):
            return (
                ngettext(
                    "Pay: %(paid)s of %(owed)s gold paid; %(deserted)s soldier deserted.",
                    "Pay: %(paid)s of %(owed)s gold paid; %(deserted)s soldiers deserted.",
                    int(data["deserted"]),
                )
                % data
            )
        return gettext("Pay: %(paid)s of %(owed)s gold paid.") % data
    if kind == "identity":
        return gettext("You are the %(character)s with %(artifact)s.") % {
            "character": character_name(data.get("character", "")),
            "artifact": artifact_name(data.get("start_artifact", "")),
        }
    return None


def strength_text(strength: Mapping[str, Any]) -> str:
    """H11.8 strength as a phone shows it: soldiers, the four ability levels, Walls."""
    parts = [i18n.gettext("soldiers %(n)s") % {"n": strength.get("soldiers", 0)}]
    abilities = strength.get("abilities") or {}
    parts += [f"{ability_name(aid)} {roman(int(level))}" for aid, level in abilities.items()]
    parts.append(f"{building_name('walls')} {roman(int(strength.get('walls', 0)))}")
    return " · ".join(parts)


def _trick_line(data: Mapping[str, Any], name: Any) -> str:
    gettext, ngettext = i18n.gettext, i18n.ngettext
    card = trick_name(data.get("card", ""))
    target = data.get("target")
    if data.get("battle"):  # War cry, Shield of the Seal: on all round (H11.5)
        return gettext("Your %(card)s: %(effect)s.") % {
            "card": card,
            "effect": trick_text(data.get("card", "")),
        }
    if data.get("reflected"):
        return gettext("Your %(card)s on %(target)s was reflected by a Mirror.") % {
            "card": card,
            "target": name(target),
        }
    strength = data.get("strength")
    if strength:
        return gettext("Spy on %(target)s: %(strength)s.") % {
            "target": name(target),
            "strength": strength_text(strength),
        }
    n = int(data.get("soldiers") or 0)
    if target is not None and data.get("soldiers") is not None:
        return ngettext(
            "Your %(card)s on %(target)s: %(n)s soldier.",
            "Your %(card)s on %(target)s: %(n)s soldiers.",
            n,
        ) % {"card": card, "target": name(target), "n": n}
    if target is not None:
        return gettext("Your %(card)s: %(target)s.") % {"card": card, "target": name(target)}
    return ngettext(
        "Your %(card)s: %(n)s more soldier.", "Your %(card)s: %(n)s more soldiers.", n
    ) % {"card": card, "n": n}


def _scout_line(data: Mapping[str, Any], name: Any) -> str:
    gettext, ngettext = i18n.gettext, i18n.ngettext
    seen = data.get("heirs") or {}
    parts = [
        ngettext("%(name)s with %(n)s soldier", "%(name)s with %(n)s soldiers", int(n))
        % {"name": name(int(s)), "n": n}
        for s, n in seen.items()
    ]
    if data.get("militia_defence") is not None:
        parts.append(gettext("militia defence %(n)s") % {"n": data["militia_defence"]})
    if data.get("shard"):
        parts.append(gettext("a shard: %(artifact)s") % {"artifact": artifact_name(data["shard"])})
    return gettext("Scouted %(field)s: %(what)s.") % {
        "field": data.get("field"),
        "what": ", ".join(parts) if parts else gettext("nobody there"),
    }


def _intel_line(data: Mapping[str, Any], name: Any) -> str:
    gettext = i18n.gettext
    if data.get("kind") == "comets_sight":
        return gettext("Comet's Sight: %(name)s holds %(artifact)s.") % {
            "name": name(data.get("of")),
            "artifact": artifact_name(data.get("start_artifact", "")),
        }
    return gettext("Seer's Eye: %(name)s — %(strength)s.") % {
        "name": name(data.get("of")),
        "strength": strength_text(data),
    }


BOARD_STEP_KINDS = {
    "step",
    "move",
    "shadow_path",
    "settle",
    "scout",
    "find_taken",
    "shard_taken",
    "battle",
    "retreat",
    "conquer",
    "plunder",
    "sign",
    "trick_public",
    "axis",
    "fall",
    "end",
}


STEP_BOUNDS = {"step", "dawn", "dusk", "comet", "colour", "end"}
"""Events that are no part of the pedestal step before them: the next step, the round's
turn, the game's end."""

BOARD_LOG_KINDS = BOARD_STEP_KINDS | {"dawn", "dusk", "comet", "colour"}
"""Public events worth a line of the board's log (Dusk too: a step of the show of its own,
H23, which showed an empty log while the soldiers were paid)."""
PHONE_SKIP_KINDS = {"hand"}
"""Events a phone's log leaves out (the dealt tricks are on its sheet)."""


def in_reading_order(events: list[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The events in the order a reader follows them: an heir that conquers a field walks
    into it first. The rules record the conquest, then the move (H7.3), and the log read
    "Ann conquers R3-0." before "Ann moves R2-0 → R3-0."."""
    ordered = list(events)
    for index in range(len(ordered) - 1):
        conquest, move = ordered[index], ordered[index + 1]
        if conquest["kind"] != "conquer" or move["kind"] != "move":
            continue
        taken, walked = conquest.get("data") or {}, move.get("data") or {}
        if taken.get("seat") == walked.get("seat") and taken.get("field") == walked.get("to"):
            ordered[index], ordered[index + 1] = move, conquest
    return ordered


def log_lines(
    events: list[Mapping[str, Any]], names: Mapping[int, str], seat: int | None
) -> list[JSON]:
    """Events as lines of a log: the board's public ones, or everything a seat saw with its
    own reports marked ``mine`` (H23's kept private log: spy results, portraits, scouting)."""
    lines: list[JSON] = []
    # A pedestal's line that no line of its step has followed yet: if none does, the heir
    # stood still and did nothing this reader sees, and its line says so.
    quiet: tuple[int, Mapping[str, Any]] | None = None

    def close_quiet() -> None:
        if quiet is not None:
            index, step = quiet
            lines[index]["text"] = stay_line(step, names, me=seat)

    for event in in_reading_order(events):
        kind = event["kind"]
        if seat is None and kind not in BOARD_LOG_KINDS:
            continue
        if seat is not None and kind in PHONE_SKIP_KINDS:
            continue
        mine = seat is not None and kind not in BOARD_LOG_KINDS
        # Each line is written for its reader: "You move" on the mover's phone.
        text = event_line(event, names, me=seat)
        if not text:
            continue
        if kind in STEP_BOUNDS:
            close_quiet()
        quiet = None  # a line after the pedestal's: its step did something
        if kind == "step":
            quiet = (len(lines), event)
        lines.append({"kind": kind, "text": text, "mine": mine})
    close_quiet()
    return lines


def stay_line(step: Mapping[str, Any], names: Mapping[int, str], me: int | None = None) -> str:
    """A pedestal's line when the heir neither moved nor did anything its reader sees
    (H7.1: it stays)."""
    data = step.get("data") or {}
    seat = data.get("seat")
    if me is not None and seat is not None and int(seat) == me:
        return i18n.gettext("Pedestal %(n)s: you stay put.") % {"n": data.get("pedestal")}
    return i18n.gettext("Pedestal %(n)s: %(name)s stays put.") % {
        "n": data.get("pedestal"),
        "name": names.get(int(seat), str(seat)) if seat is not None else "",
    }


def step_focus(payload: Mapping[str, Any]) -> JSON:
    """What the board lights up while a show runs (or a replay steps through a match): the
    step being shown (the newest entry of the playback), its heir, the field of its battle,
    the fields it changed, and (``later``) those lit only once the heir has arrived."""
    show = payload.get("show")
    steps = payload.get("playback") or []
    focus: JSON = {"active": None, "battle": set(), "lit": set(), "later": set(), "fought": set()}
    if not (show or payload.get("replaying")) or not steps:
        return focus
    # The playback holds only the steps shown so far, so a battle stays marked from its own
    # step to the end of the round and never appears before it (README, "The reveal").
    for step in steps[:-1]:
        for event in step.get("events") or []:
            if event["kind"] == "battle" and (event.get("data") or {}).get("field"):
                focus["fought"].add(event["data"]["field"])
    for event in steps[-1].get("events") or []:
        kind, data = event["kind"], event.get("data") or {}
        if kind == "step" and focus["active"] is None:
            focus["active"] = data.get("seat")
        if kind == "battle" and data.get("field"):
            focus["battle"].add(data["field"])
        elif kind == "retreat" and data.get("to"):
            # Where a beaten defender goes tells the battle's result: lit once the attacker
            # has arrived, as its token leaves then (heirs.css).
            focus["later"].add(data["to"])
        elif kind in ("move", "shadow_path") and data.get("to"):
            focus["lit"].add(data["to"])
        elif kind in ("settle", "conquer", "scout", "find_taken", "shard_taken") and data.get(
            "field"
        ):
            focus["lit"].add(data["field"])
    return focus


# ------------------------------------------------------------------ context


def heir_rows(view: Mapping[str, Any], names: Mapping[int, str], fields: list[JSON]) -> list[JSON]:
    by_id = {f["id"]: f for f in fields}
    rows = []
    heirs = view.get("heirs", [])
    for heir in heirs:
        colour = heir.get("colour")
        spot = by_id.get(heir["position"], {"x": 0.0, "y": 0.0})
        # Each heir keeps its own corner of a field, so heirs on one field never hide another;
        # on a capital the heirs stand right of the castle (the board draws it on the left),
        # and everywhere above the field's id.
        angle = math.radians(int(heir["seat"]) * 60 + 210)
        beside = 18.0 if spot.get("capital_of") is not None else 0.0
        reach = 4.0 if beside else 11.0
        rows.append(
            {
                **heir,
                "name": names.get(heir["seat"], str(heir["seat"])),
                "hex": COLOUR_HEX.get(colour or "", NO_COLOUR),
                "symbol": SYMBOLS.get(colour or "", "?"),
                "colour_label": colour_name(colour),
                "x": round(spot["x"] + beside + math.cos(angle) * reach, 1),
                "y": round(spot["y"] - 4 + math.sin(angle) * 6, 1),
                # The pedestal's number rides the token on the side of the field's middle:
                # a token right of it (or right of a capital's castle) carries it upper left,
                # else upper right, so that it never reaches the next field's name.
                "badge_x": -14 if beside or math.cos(angle) > 0.5 else 14,
                "sign_tokens": [
                    {
                        "hex": COLOUR_HEX.get(colour_of(heirs, s) or "", NO_COLOUR),
                        "symbol": SYMBOLS.get(colour_of(heirs, s) or "", "?"),
                        "name": names.get(s, str(s)),
                    }
                    for s in heir.get("signs", [])
                ],
            }
        )
    # Several heirs on one field stand side by side.
    seen: dict[str, int] = {}
    for row in rows:
        n = seen.get(row["position"], 0)
        seen[row["position"]] = n + 1
        row["offset"] = n
    return rows


COUNCIL_ITEMS = (
    ("signs", "sign"),
    ("won_battles", "won_battle"),
    ("fields", "field"),
    ("artifacts", "artifact"),
    ("ability_levels", "ability_level"),
)
"""H19.2: each counted item of a Council breakdown and its key in the points sheet."""


def council_columns() -> list[JSON]:
    """The end table's point columns, in H19.2's order; the board and the phones share them."""
    labels = {
        "signs": i18n.gettext("Signs"),
        "won_battles": i18n.gettext("Battles won"),
        "fields": i18n.gettext("Fields"),
        "artifacts": i18n.gettext("Artifacts"),
        "ability_levels": i18n.gettext("Abilities"),
    }
    return [{"key": key, "label": labels[key]} for key, _ in COUNCIL_ITEMS]


def council_score(breakdown: Mapping[str, Any], sheet: Mapping[str, int]) -> JSON:
    """H19.2 as points: each item's count times its worth, so the columns add up to the total
    the engine computed (``points``)."""
    return {
        key: {
            "count": int(breakdown.get(key) or 0),
            "worth": sheet[item],
            "points": int(breakdown.get(key) or 0) * sheet[item],
        }
        for key, item in COUNCIL_ITEMS
    }


def outcome_rows(view: Mapping[str, Any], names: Mapping[int, str]) -> JSON | None:
    outcome = view.get("outcome")
    if not outcome:
        return None
    heirs = view.get("heirs", [])
    council = outcome.get("council") or {}
    # A variant may change what an item is worth (it patches the sheet's council.json).
    sheet = RULES.for_variants(list(view.get("variants") or [])).content.council
    rows = []
    ranking = outcome.get("ranking") or []
    # Tied heirs share a place and the next place counts them all: 1, 2, 2, 4.
    place: dict[int, int] = {}
    ahead = 0
    for group in ranking:
        place.update(dict.fromkeys(group, ahead + 1))
        ahead += len(group)
    for heir in heirs:
        seat = heir["seat"]
        points = council.get(str(seat)) or {}
        artifacts = (outcome.get("artifacts") or {}).get(str(seat)) or {}
        rows.append(
            {
                "seat": seat,
                "name": names.get(seat, str(seat)),
                "hex": COLOUR_HEX.get(heir.get("colour") or "", NO_COLOUR),
                "symbol": SYMBOLS.get(heir.get("colour") or "", "?"),
                "place": place.get(seat),
                "winner": seat in (outcome.get("winners") or []),
                "points": points,
                "score": council_score(points, sheet),
                "character": character_name((outcome.get("characters") or {}).get(str(seat), "")),
                "artifacts": [artifact_name(a) for a in [artifacts.get("start")] if a]
                + [artifact_name(a) for a in artifacts.get("backpack", [])],
                "fallen": heir.get("fallen"),
            }
        )
    rows.sort(key=lambda r: (r["place"] or 99, r["seat"]))
    return {
        "reason": ending_name(outcome.get("reason")),
        "winners": [names.get(s, str(s)) for s in outcome.get("winners") or []],
        "rows": rows,
        "columns": council_columns(),
    }


def phone_context(
    payload: Mapping[str, Any], seat: int, view: Mapping[str, Any], fields: list[JSON]
) -> JSON:
    names = seat_names(payload)
    me = view.get("me") or {}
    prompt = payload.get("prompt") or {}
    variants = list(view.get("variants") or [])
    ctx: JSON = {"me": me, "me_seat": seat}
    ctx["me_colour_hex"] = COLOUR_HEX.get(me.get("colour") or "", NO_COLOUR)
    ctx["me_symbol"] = SYMBOLS.get(me.get("colour") or "", "")
    if "gold" in me:
        ctx["purse"] = " · ".join(amount_text(r, int(me.get(r) or 0)) for r in PURSE)
    waiting = [s for s in payload.get("to_act", []) if s != seat]
    ctx["waiting_for"] = len(waiting)
    ctx["waiting_names"] = [names.get(s, str(s)) for s in waiting]
    if prompt.get("kind") == "setup":
        ctx["setup_colours"] = [
            {"id": c, "hex": COLOUR_HEX[c], "symbol": SYMBOLS[c], "label": colour_name(c)}
            for c in prompt.get("colours", [])
        ]
        ctx["setup_characters"] = [
            {"id": c, "name": character_name(c), "text": character_text(c, variants)}
            for c in prompt.get("characters", [])
        ]
    if prompt.get("kind") == "orders":
        ctx["sheet"] = order_sheet(prompt, me, view, names, fields)
    position = next(
        (h.get("position") for h in view.get("heirs", []) if h.get("seat") == seat), None
    )
    ctx["sealed_lines"] = setup_summary(me.get("sealed_setup")) or sealed_summary(
        me.get("sealed_order"), names, {**me, "position": position}
    )
    log = []
    for event in in_reading_order(payload.get("events", [])):
        data = event.get("data") or {}
        mine = data.get("seat") == seat or seat in (
            data.get("attacker"),
            data.get("defender"),
            data.get("target"),
            data.get("dynasty"),
            data.get("winner"),
            data.get("loser"),
            data.get("capital_of"),
            data.get("of"),
        )
        if event["kind"] in ("dawn", "step", "colour", "hand", "identity") or not mine:
            continue
        line = event_line(event, names, me=seat)
        if line:
            log.append({"kind": event["kind"], "text": line})
    ctx["my_log"] = log
    ctx["intel"] = [
        {**i, "who": names.get(int(i.get("of", -1)), "")} for i in me.get("intel", []) if "of" in i
    ][-6:]
    ctx["portrait_names"] = [names.get(p, str(p)) for p in me.get("portraits", [])]
    ctx["sign_names"] = [names.get(s, str(s)) for s in me.get("signs", [])]
    ctx["artifacts"] = [
        {"name": artifact_name(str(a)), "text": artifact_text(str(a))}
        for a in ([me.get("start_artifact")] if me.get("start_artifact") else [])
        + list(me.get("backpack", []))
    ]
    ctx["buildings_list"] = [
        {"id": b, "name": building_name(b), "level": roman(lvl)}
        for b, lvl in (me.get("buildings") or {}).items()
        if lvl
    ]
    ctx["abilities_list"] = [
        {"id": a, "name": ability_name(a), "level": roman(lvl)}
        for a, lvl in (me.get("abilities") or {}).items()
        if lvl
    ]
    ctx["character_label"] = character_name(me.get("character") or "")
    ctx["character_text"] = character_text(me.get("character") or "", variants)
    return ctx


def order_sheet(
    prompt: Mapping[str, Any],
    me: Mapping[str, Any],
    view: Mapping[str, Any],
    names: Mapping[int, str],
    fields: list[JSON],
) -> JSON:
    """The order form's choices, each with its cost and, if it cannot be afforded, why."""
    position = prompt.get("position") or me.get("position")
    by_id = {f["id"]: f for f in fields}
    here = by_id.get(position)
    expedition = prompt.get("expedition") or {}
    settle = prompt.get("settle") or {}
    costs = settle.get("costs") or {}
    targets: list[JSON] = [
        {
            "value": "stay",
            "kind": "stay",
            "field": position,
            "label": i18n.gettext("Stay on %(field)s") % {"field": position},
            "detail": "",
        }
    ]
    marks: dict[str, list[str]] = {}
    kind_labels = {
        "move": i18n.gettext("Move to %(field)s"),
        "attack": i18n.gettext("Invade / attack %(field)s"),
        "scout": i18n.gettext("Scout %(field)s"),
    }
    heirs = [h for h in view.get("heirs", []) if not h.get("fallen") and h.get("position")]
    for kind in ("move", "attack", "scout"):
        for field in expedition.get(kind, []):
            # The label names the step (a folded sheet's summary repeats it); the detail
            # tells what the target holds: what settling it costs, who defends it.
            detail = ""
            if kind == "move" and field in costs:
                people = costs[field]
                detail = i18n.ngettext(
                    "settle for %(n)s person", "settle for %(n)s people", people
                ) % {"n": people}
            if kind == "attack":
                detail = defenders_text(by_id.get(field) or {}, heirs, names)
            targets.append(
                {
                    "value": f"{kind}:{field}",
                    "kind": kind,
                    "field": field,
                    "label": kind_labels[kind] % {"field": field},
                    "detail": detail,
                }
            )
            marks.setdefault(field, []).append(kind)
    excerpt = []
    if here is not None:
        for f in fields:
            if hex_distance(f, here) <= EXCERPT_RADIUS:
                excerpt.append({**f, "marks": marks.get(f["id"], []), "here": f["id"] == position})
    # Every heir the seat's view places on the excerpt: positions are public (H23), so the
    # phone draws exactly what the board shows there, and nothing more.
    shown = {f["id"]: f for f in excerpt}
    tokens = []
    for heir in heirs:
        spot = shown.get(heir["position"])
        if spot is None:
            continue
        colour = heir.get("colour") or ""
        # Side by side across the top of the field, clear of its castle, glyphs and id.
        together = [h["seat"] for h in heirs if h["position"] == heir["position"]]
        offset = (together.index(heir["seat"]) - (len(together) - 1) / 2) * 22
        tokens.append(
            {
                "seat": heir["seat"],
                "me": heir["seat"] == me.get("seat"),
                "x": round(spot["x"] + offset, 1),
                "y": round(spot["y"] - 24, 1),
                "hex": COLOUR_HEX.get(colour, NO_COLOUR),
                "symbol": SYMBOLS.get(colour, "?"),
                "name": names.get(int(heir["seat"]), str(heir["seat"])),
            }
        )
    recruit = prompt.get("recruit") or {}
    max_recruit = min(int(recruit.get("cap", 0)), int(recruit.get("affordable", 0)))
    buildings = []
    for b in prompt.get("buildings", []):
        reason = ""
        if b.get("cost") is None:
            reason = i18n.gettext("at its highest level")
        elif not b.get("affordable"):
            reason = i18n.gettext("needs %(n)s gold") % {"n": b["cost"]}
        buildings.append(
            {
                **b,
                "name": building_name(b["id"]),
                # A building at its top shows the level it has, not one past the top.
                "next": roman(int(b.get("level", 0)) + (0 if b.get("cost") is None else 1)),
                "reason": reason,
            }
        )
    abilities = []
    for a in prompt.get("abilities", []):
        reason = ""
        if a.get("cost") is None:
            reason = i18n.gettext("at its highest level")
        elif not a.get("affordable"):
            reason = i18n.gettext("needs %(n)s knowledge") % {"n": a["cost"]}
        abilities.append(
            {
                **a,
                "name": ability_name(a["id"]),
                "next": roman(int(a.get("level", 0)) + (0 if a.get("cost") is None else 1)),
                "reason": reason,
            }
        )
    tricks = []
    cards = RULES.for_variants(list(view.get("variants") or [])).content.cards
    for t in prompt.get("tricks", []):
        reason = (
            ""
            if t.get("affordable", True)
            else i18n.gettext("cannot pay %(cost)s") % {"cost": cost_text(t.get("cost") or {})}
        )
        tricks.append(
            {
                **t,
                "name": trick_name(t["card"]),
                "text": trick_text(t["card"]),
                "cost_label": cost_text(t.get("cost") or {}),
                "target_options": [
                    {"value": s, "label": names.get(int(s), str(s))} for s in t.get("targets") or []
                ],
                "field_options": list(t.get("fields") or []),
                "reason": reason,
                # H11.4: a Reinforcement's soldiers and people come in part 2 of the step.
                "gain": {
                    r: int(cards.get(t["card"], {}).get(r, 0))
                    for r in ("soldiers", "people")
                    if t.get("group") == 1 and cards.get(t["card"], {}).get(r)
                },
            }
        )
    market = prompt.get("market")
    signs = prompt.get("signs") or {}
    held, required = len(signs.get("held") or []), signs.get("required")
    axis = next((f for f in fields if f.get("axis")), None)
    axis_closed = (
        axis is not None
        and here is not None
        and hex_distance(axis, here) == 1
        and required is not None
        and held < int(required)
    )
    budget = {
        # H6: the Market trades first, then the trick, the retinue, the city, the heir; the
        # heir settles last, where its expedition ends (H8.2). The phone follows the same
        # order to tell what the sheet leaves and what it can still pay for.
        "purse": {r: int(me.get(r) or 0) for r in PURSE},
        "market": None if not market else {"give": market["give"], "get": market["get"]},
        "people_per_soldier": int(recruit.get("people_per_soldier", 2)),
        "cap": int(recruit.get("cap", 0)),
        # Where the heir ends its step: the expedition's field or the Shadow path's (H7.7).
        "settle_costs": {
            **{
                f: c
                for t in prompt.get("tricks", [])
                for f, c in (t.get("settle_costs") or {}).items()
            },
            **costs,
        },
        "amounts": {r: amount_forms(r) for r in PURSE},
        "after": i18n.gettext("After this order: %(rest)s"),
        # What the running total cannot know in advance, named next to it.
        "unknown": {
            "attack": i18n.gettext("before the battle"),
            "find": i18n.gettext("plus what the find holds"),
            "bribery": i18n.gettext("plus the soldiers Bribery wins"),
        },
        "finds": [f["id"] for f in fields if f.get("find")],
        "can_pay": i18n.gettext("you can pay for %(m)s"),
        "can_pay_and_settle": i18n.gettext(
            "you can pay for %(m)s; settling %(field)s as well leaves room for %(k)s"
        ),
        "summary": {
            "recruit": i18n.gettext("recruit %(n)s"),
            "settle": i18n.gettext("settle"),
            "retreat": i18n.gettext("retreat"),
            "no_trades": i18n.gettext("no trades"),
            "trade": i18n.gettext("%(n)s× %(give)s → %(get)s"),
            # H21: trades are cut to what the heir can pay when the Market runs.
            "trades_cut": i18n.gettext("Only %(n)s of %(wanted)s trades: no more %(give)s."),
        },
        "settle_skipped": i18n.gettext("the settling is skipped: too few people"),
        "no_settle": i18n.gettext(
            "Settling %(field)s needs %(need)s people, and only %(left)s will be left "
            "after this order: the settling will be skipped."
        ),
    }
    return {
        "budget": budget,
        "axis_closed": axis_closed,
        "axis_note": ""
        if not axis_closed
        else i18n.ngettext(
            "The Axis is closed to you: you need %(num)s more Sign (you hold %(held)s).",
            "The Axis is closed to you: you need %(num)s more Signs (you hold %(held)s).",
            int(required or 0) - held,
        )
        % {"num": int(required or 0) - held, "held": held}
        + (
            " " + i18n.gettext("Legacy of the Fallen already stands in for one of them.")
            if me.get("start_artifact") == "legacy_of_the_fallen"
            else ""
        ),
        "position": position,
        "targets": targets,
        "excerpt": excerpt,
        "excerpt_box": excerpt_box(excerpt),
        "tokens": tokens,
        "settle_default": settle.get("default", True),
        "settle_here": costs.get(position),
        "recruit_cap": recruit.get("cap", 0),
        "recruit_max": max_recruit,
        "people_per_soldier": recruit.get("people_per_soldier", 2),
        "buildings": buildings,
        "abilities": abilities,
        "tricks": tricks,
        "market": market,
        "resources": [(r, resource_name(r)) for r in RESOURCES],
        "retreat_default": (prompt.get("retreat") or {}).get("default", False),
        "signs_held": len(signs.get("held") or []),
        "signs_required": signs.get("required"),
        "round": prompt.get("round"),
        "omen": omen_name(prompt.get("omen")),
        "omen_text": omen_text(prompt.get("omen")),
        "pedestal": prompt.get("pedestal"),
    }


def defenders_text(field: Mapping[str, Any], heirs: list[JSON], names: Mapping[int, str]) -> str:
    """Whom an Invasion/Attack on ``field`` meets, from the public view only (H23): its owner
    (the owner's militia defends it) and every heir standing there."""
    parts = []
    owner = field.get("owner")
    if field.get("capital_of") is not None:
        parts.append(
            i18n.gettext("capital of %(name)s")
            % {"name": names.get(int(field["capital_of"]), str(field["capital_of"]))}
        )
    elif owner is not None:
        parts.append(
            i18n.gettext("field of %(name)s") % {"name": names.get(int(owner), str(owner))}
        )
    else:
        parts.append(i18n.gettext("free field"))
    there = [
        names.get(int(h["seat"]), str(h["seat"])) for h in heirs if h["position"] == field.get("id")
    ]
    if there:
        parts.append(
            i18n.ngettext("heir there: %(names)s", "heirs there: %(names)s", len(there))
            % {"names": ", ".join(there)}
        )
    return " · ".join(parts)


def setup_summary(choice: Mapping[str, Any] | None) -> list[JSON]:
    """The seat's own sealed setup (H3.1, H3.3): its dynasty's colour and its character."""
    if not choice:
        return []
    colour = colour_name(str(choice["colour"]))
    return [
        {"part": i18n.gettext("Colour"), "text": colour[:1].upper() + colour[1:]},
        {"part": i18n.gettext("Character"), "text": character_name(str(choice["character"]))},
    ]


def sealed_summary(
    order: Mapping[str, Any] | None, names: Mapping[int, str], me: Mapping[str, Any]
) -> list[JSON]:
    """The seat's own sealed order (H5.1), part by part as its sheet lists them, for the
    phone that sealed it."""
    if not order:
        return []
    # In the sheet's order (templates/games/heirs/phone.html): the expedition first.
    lines: list[JSON] = []
    expedition = order.get("expedition") or {"kind": "stay"}
    field = expedition.get("field") or me.get("position") or ""
    kinds = {
        "stay": i18n.gettext("Stay on %(field)s"),
        "move": i18n.gettext("Move to %(field)s"),
        "attack": i18n.gettext("Invade / attack %(field)s"),
        "scout": i18n.gettext("Scout %(field)s"),
    }
    text = kinds.get(expedition.get("kind", "stay"), "%(field)s") % {"field": field}
    extras = [i18n.gettext("settle") if order.get("settle") else i18n.gettext("no settling")]
    if order.get("retreat"):
        extras.append(i18n.gettext("retreat"))
    lines.append({"part": i18n.gettext("Expedition"), "text": " · ".join([text, *extras])})
    for line in order.get("exchanges") or []:
        lines.append(
            {
                "part": i18n.pgettext("heirs", "Market"),
                "text": i18n.gettext("%(n)s× %(give)s → %(get)s")
                % {
                    "n": line["trades"],
                    "give": resource_name(line["give"]),
                    "get": resource_name(line["get"]),
                },
            }
        )
    trick = order.get("trick")
    if trick:
        text = trick_name(trick["card"])
        if trick.get("target") is not None:
            text += " → " + names.get(int(trick["target"]), str(trick["target"]))
        if trick.get("field"):
            text += " → " + str(trick["field"])
        lines.append({"part": i18n.gettext("Trick"), "text": text})
    if order.get("recruit"):
        lines.append(
            {
                "part": i18n.gettext("Retinue"),
                "text": i18n.gettext("recruit %(n)s") % {"n": order["recruit"]},
            }
        )
    buildings = me.get("buildings") or {}
    if order.get("build"):
        level = roman(int(buildings.get(order["build"], 0)) + 1)
        lines.append(
            {"part": i18n.gettext("City"), "text": f"{building_name(order['build'])} {level}"}
        )
    abilities = me.get("abilities") or {}
    if order.get("learn"):
        level = roman(int(abilities.get(order["learn"], 0)) + 1)
        lines.append(
            {"part": i18n.gettext("Heir"), "text": f"{ability_name(order['learn'])} {level}"}
        )
    return lines


EXCERPT_MARGIN = HEX * 1.05
EXCERPT_HALF_WIDTH = EXCERPT_RADIUS * 1.5 * HEX + EXCERPT_MARGIN
"""Half the width of the map around an heir: its fields reach ``EXCERPT_RADIUS`` columns
either side (flat-top hexes, ``field_xy``)."""
EXCERPT_FULL_HEIGHT = 2 * (EXCERPT_RADIUS * SQRT3 * HEX + EXCERPT_MARGIN)
"""The height of the map around an heir in the middle of the map."""
EXCERPT_PX_PER_UNIT = 240 / EXCERPT_FULL_HEIGHT
"""The phone draws an heir's map in the middle of the map 240 px high, every map at its
scale (a narrow phone shrinks them all alike)."""


def excerpt_box(excerpt: list[JSON]) -> JSON:
    """The phone's map around its heir: its ``view_box`` and its drawn ``width`` and
    ``height`` in px. Centred across on the heir, every excerpt as wide, so that an heir at
    the map's edge sees the same scale as one in the middle (a box fitted to its fields alone
    was a narrow strip the phone drew a third as wide); fitted down to its fields, so that an
    heir on the outer ring (where every heir starts) has no empty band above or below it."""
    if not excerpt:
        return {"view_box": "0 0 100 100", "width": 100, "height": 100}
    here = next((f for f in excerpt if f.get("here")), excerpt[0])
    top = min(f["y"] for f in excerpt) - EXCERPT_MARGIN
    height = max(f["y"] for f in excerpt) + EXCERPT_MARGIN - top
    return {
        "view_box": f"{here['x'] - EXCERPT_HALF_WIDTH:.0f} {top:.0f} "
        f"{2 * EXCERPT_HALF_WIDTH:.0f} {height:.0f}",
        "width": round(2 * EXCERPT_HALF_WIDTH * EXCERPT_PX_PER_UNIT),
        "height": round(height * EXCERPT_PX_PER_UNIT),
    }


def table_context(payload: Mapping[str, Any], seat: int | None) -> JSON:
    view: JSON | None = payload.get("view")
    names = seat_names(payload)
    ctx: JSON = {"names": names, "view": view, "symbols": SYMBOLS, "colour_hex": COLOUR_HEX}
    options = payload.get("options") or {}
    timer = options.get("timer")
    ctx["timer"] = timer
    # A phone's own timer: the host may give its seat more time, or no limit (H5.4).
    you = payload.get("you") or {}
    factor = you.get("time_factor", 1.0) if seat is not None else 1.0
    if timer and factor is None:
        ctx["timer_rule"] = i18n.gettext("No time limit for you: take the time you need.")
    elif timer:
        seconds = timer * factor if isinstance(factor, int | float) else timer
        ctx["timer_rule"] = i18n.gettext(
            "Timer %(seconds)s s: if you have not sealed when it runs out, your heir stays "
            "where it stands, settles if it can, and does nothing else."
        ) % {"seconds": f"{seconds:g}"}
    else:
        ctx["timer_rule"] = ""
    ctx["rounds_option"] = options.get("rounds", 12)
    chosen = set(options.get("variants") or [])
    ctx["lobby_variants"] = [
        {
            "id": v["id"],
            "name": variant_name(v["id"]),
            "text": variant_text(v["id"]),
            "on": v["id"] in chosen,
        }
        for v in RULES.available_variants()
    ]
    # H13.1: the variants a game is played with stay in sight on the board and the phones.
    ctx["variant_names"] = [variant_name(v) for v in (view or {}).get("variants") or []]
    if view is None:
        return ctx
    fields = map_fields(view)
    ctx["fields"] = fields
    ctx["heirs"] = heir_rows(view, names, fields)
    ctx["omen_label"] = omen_name(view.get("omen"))
    ctx["omen_text"] = omen_text(view.get("omen"))
    ctx["phase"] = view.get("phase")
    ctx["start_name"] = (
        names.get(view["start_player"], "") if view.get("start_player") is not None else ""
    )
    ctx["ending"] = outcome_rows(view, names)
    ctx["field_xy"] = {f["id"]: (f["x"], f["y"]) for f in fields}
    if seat is None:
        ctx["focus"] = step_focus(payload)
        ctx["map_box"] = f"{-HEX * 7.25:.0f} {-HEX * 8.05:.0f} {HEX * 14.5:.0f} {HEX * 16.1:.0f}"
    else:
        ctx.update(phone_context(payload, seat, view, fields))
    return ctx


STEP_IN_MS = 800
"""How long the board takes to bring a step of the show in: the heir's token walks to its
field first (heirs.css), then the field's colour, a Sign won and the step's log lines come."""
BOARD_DRAW_MS = 200
"""How long the board may take to draw a step's frame before its token starts to walk: a TV's
browser swaps the whole board (about 36 KB), and on a loaded machine that took 160 ms."""
PHONE_STEP_WAIT_MS = STEP_IN_MS + BOARD_DRAW_MS
"""How long each phone waits after a step's frame came before it shows the step (pecet.js,
``data-step-in-ms``): until the board has drawn the step and brought it in, so that a phone
never tells its player an outcome before the board shows it, on a slower TV too."""


class HeirsScreens:
    def name(self) -> str:
        return i18n.gettext("Heirs of the Axis")

    def watch_text(self, number: int | None) -> str:
        if not number:
            return i18n.gettext("Watch the board — the setup plays out")
        return i18n.gettext("Watch the board — round %(n)s plays out") % {"n": number}

    def blurb(self) -> str:
        return i18n.gettext(
            "2–6 players · about an hour · seal a whole round in secret, win the Signs, "
            "take the Axis."
        )

    def content_kinds(self) -> Sequence[Kind]:
        return CONTENT_KINDS

    def template_globals(self) -> Mapping[str, Callable[..., Any]]:
        return {}

    def bot_style_labels(self) -> list[tuple[str, str]]:
        return [
            ("expander", i18n.gettext("Expander — settles and builds")),
            ("raider", i18n.gettext("Raider — hunts Signs")),
            ("warlord", i18n.gettext("Warlord — fights for the last throne")),
            ("novice", i18n.gettext("Novice — easy")),
        ]

    def context(self, payload: Mapping[str, Any], seat: int | None) -> dict[str, Any]:
        return {
            **table_context(payload, seat),
            "step_in_ms": STEP_IN_MS,
            "phone_step_wait_ms": PHONE_STEP_WAIT_MS,
            "seal_on_own_card": True,  # its "Sealed" card (phone.html)
            "seat_notes": {},
            "board_lobby_hint": i18n.gettext(
                "Seats run clockwise: move the players so the list matches the table, starting "
                "anywhere. Each phone picks its colour and character when the game starts."
            ),
            "phone_lobby_hint": i18n.gettext(
                "When the game starts you pick a colour and one of two characters; keep your "
                "phone hidden — your orders are secret."
            ),
        }

    def translate_form(self, frame: Mapping[str, Any]) -> JSON | None:
        """- ``action=heirs_setup``, ``colour``, ``character`` → the setup order (H3.1, H3.3);
        - ``action=heirs_orders`` and the sheet's fields → one round's sealed order (H5.1).
        """
        action = frame.get("action")
        if action == "heirs_setup":
            return {
                "type": "order",
                "order": {
                    "colour": str(frame.get("colour") or ""),
                    "character": str(frame.get("character") or ""),
                },
            }
        if action != "heirs_orders":
            return None
        return {"type": "order", "order": sheet_order(frame)}

    def log_reads(self, payload: Mapping[str, Any]) -> Hashable:
        return names_read(payload)

    def log_lines(
        self, events: list[Mapping[str, Any]], payload: Mapping[str, Any], seat: int | None
    ) -> list[JSON]:
        return log_lines(events, seat_names(payload), seat)

    def round_label(self, number: int) -> str:
        if number <= 0:
            return i18n.gettext("Setup")
        return i18n.gettext("Round %(r)s") % {"r": number}

    def refusal_text(self, code: str, params: Mapping[str, Any]) -> str | None:
        return refusal_text(code, params)

    def proof_label(self, order: Mapping[str, Any]) -> str:
        return ""  # one sealed order an heir a round (and one setup choice)


def refusal_text(code: str, params: Mapping[str, Any]) -> str | None:
    """An engine refusal (H21 codes) in the current language, after the order part at fault
    where the engine names it (issue 13.10). The engine's params carry no amounts, so the
    sentences state the rule rather than the numbers."""
    text = _refusal_sentences().get(code)
    if text is None:
        return None
    part = params.get("part")
    if isinstance(part, str) and part:
        return i18n.gettext("%(part)s: %(reason)s") % {"part": part_name(part), "reason": text}
    return text


def _refusal_sentences() -> dict[str, str]:
    return {
        "BAD_ORDER": i18n.gettext("That order could not be read. Fill in your sheet again."),
        "COLOUR_KEPT": i18n.gettext("Your colour stays the same all tournament long."),
        "BAD_COLOUR": i18n.gettext("Pick one of the six colours."),
        "COLOUR_TAKEN": i18n.gettext("Another player already took that colour."),
        "NOT_OFFERED": i18n.gettext("Keep one of the two characters you were offered."),
        "UNKNOWN_FIELD": i18n.gettext("Choose the expedition's field."),
        "NOT_IN_HAND": i18n.gettext("That card is not in your hand this round."),
        "BAD_TARGET": i18n.gettext("Choose the target of your trick."),
        "TARGET_FALLEN": i18n.gettext("The target of your trick has fallen."),
        "NO_MARKET": i18n.gettext("You need a Market to exchange resources."),
        "SAME_RESOURCE": i18n.gettext("A Market line gives one resource for another one."),
        "NOT_ENOUGH_PEOPLE": i18n.gettext("You do not have enough people for that."),
        "NOT_ENOUGH_GOLD": i18n.gettext("You do not have enough gold for that."),
        "NOT_ENOUGH_KNOWLEDGE": i18n.gettext("You do not have enough knowledge for that."),
        "NO_PORTRAIT": i18n.gettext("You no longer hold a portrait of the target."),
        "OVER_CAP": i18n.gettext("That is more soldiers than you can recruit this round."),
        "MAX_LEVEL": i18n.gettext("That is already at level III."),
        "NOT_ADJACENT": i18n.gettext("That field is not next to your heir."),
        "AXIS_LOCKED": i18n.gettext("The Axis opens only with enough Signs."),
        "FIELD_TAKEN": i18n.gettext("That field belongs to a sibling; invade it."),
        "NO_SOLDIERS": i18n.gettext("An heir without soldiers cannot attack."),
        "AXIS_NOT_TARGET": i18n.gettext("Nobody guards the Axis; it cannot be attacked."),
        "NOT_A_TARGET": i18n.gettext(
            "There is nothing to attack there: no sibling owns or stands on that field."
        ),
        "NOT_CLOSER": i18n.gettext("That field is not one ring inwards."),
        "NOT_ALONE": i18n.gettext("A sibling stands on this field; nobody can settle."),
    }


def _int(value: Any, default: int = 0) -> int:
    values = form_values(value)
    try:
        return int(values[-1]) if values else default
    except ValueError:
        return default


def _one(value: Any) -> str:
    values = form_values(value)
    return values[-1] if values else ""


def sheet_order(frame: Mapping[str, Any]) -> JSON:
    """The order sheet's fields → an order (H5.1); the engine judges it."""
    order: JSON = {}
    expedition = _one(frame.get("expedition")) or "stay"
    kind, _, field = expedition.partition(":")
    order["expedition"] = {"kind": kind, "field": field or None}
    order["settle"] = "settle" in frame and _one(frame.get("settle")) not in ("", "0", "off")
    order["recruit"] = max(0, _int(frame.get("recruit")))
    build = _one(frame.get("build"))
    order["build"] = build or None
    learn = _one(frame.get("learn"))
    order["learn"] = learn or None
    card = _one(frame.get("trick"))
    if card:
        trick: JSON = {"card": card}
        target = _one(frame.get(f"target_{card}"))
        place = _one(frame.get(f"field_{card}"))
        if target:
            trick["target"] = int(target) if target.lstrip("-").isdigit() else target
        if place:
            trick["field"] = place
        order["trick"] = trick
    exchanges = []
    for n in range(3):
        give, get = _one(frame.get(f"give_{n}")), _one(frame.get(f"get_{n}"))
        trades = _int(frame.get(f"trades_{n}"))
        if give and get and trades > 0:
            exchanges.append({"give": give, "get": get, "trades": trades})
    order["exchanges"] = exchanges
    order["retreat"] = "retreat" in frame and _one(frame.get("retreat")) not in ("", "0", "off")
    return order


SCREENS = HeirsScreens()

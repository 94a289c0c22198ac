"""Legions' screens: the phone and the board of G15, built from views and prompts only.

Every prompt option is drawn as one big button whose form sends the option's ``order`` back
unchanged (as JSON); :meth:`LegionsScreens.translate_form` turns it into a protocol message and
the engine matches it against the current prompt, so a forged or stale button is refused with a
readable message (never a crash). The engine's prompts and views hold ids and numbers, never
text (issue 16.3): every title, button and name is made here, translated, from a prompt's kind
and an order's data. A kind these screens do not know gets no engine English either (an empty
title, the order's kind as its button); tests/test_legions_table.py fails on one.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

from app import i18n
from app.content import Entry, Kind, content_name, content_text
from app.games import form_values, names_read, seat_names, shown_round
from engine.core import JSON

LOCATION_ORDER = ("Y", "R", "B", "P", "G")
GUILD_OF_LOCATION = {"Y": "yellow", "R": "red", "B": "blue", "P": "purple", "G": "green"}
SIDE_ORDER = ("necro", "king")
FORM_ACTION = "legions"


# ---------------------------------------------------------------------- the content named


def _content() -> Any:
    from engine.legions import RULES

    return RULES.content


def _sides(variants: tuple[str, ...]) -> dict[str, Entry]:
    return {side.id: Entry(side.name) for side in _content().sides.values()}


def _guilds(variants: tuple[str, ...]) -> dict[str, Entry]:
    return {guild: Entry(name) for guild, name in _content().guild_names.items()}


def _locations(variants: tuple[str, ...]) -> dict[str, Entry]:
    return {loc.id: Entry(loc.name) for loc in _content().locations.values()}


def _effects(variants: tuple[str, ...]) -> dict[str, Entry]:
    """A location's majority-token effect (G1.2), by the location's id."""
    return {
        loc.id: Entry(loc.effect_name, loc.effect_text) for loc in _content().locations.values()
    }


def _heroes(variants: tuple[str, ...]) -> dict[str, Entry]:
    return {h.id: Entry(h.name, h.power_text) for h in _content().heroes.values()}


def _stratagems(variants: tuple[str, ...]) -> dict[str, Entry]:
    return {s.id: Entry(s.name, s.text) for s in _content().stratagems.values()}


CONTENT_KINDS = (
    Kind("legions", "side", "legions/stratagems.json", _sides),
    Kind("legions", "guild", "legions/legions.json", _guilds),
    Kind("legions", "location", "legions/locations.json", _locations),
    Kind("legions", "effect", "legions/locations.json", _effects),
    Kind("legions", "hero", "legions/heroes.json", _heroes),
    Kind("legions", "stratagem", "legions/stratagems.json", _stratagems),
)


# ---------------------------------------------------------------------- translated names


def side_name(side: str | None) -> str:
    return content_name("legions", "side", side)


def location_name(loc: str | None) -> str:
    return content_name("legions", "location", loc)


def guild_name(guild: str | None) -> str:
    return content_name("legions", "guild", guild)


def effect_name(loc: str) -> str:
    return content_name("legions", "effect", loc)


def effect_text(loc: str) -> str:
    return content_text("legions", "effect", loc)


def hero_name(hero_id: str) -> str:
    return content_name("legions", "hero", hero_id)


def hero_power(hero_id: str) -> str:
    return content_text("legions", "hero", hero_id)


def stratagem_name(stratagem_id: str | None) -> str:
    return content_name("legions", "stratagem", stratagem_id)


def stratagem_text(stratagem_id: str | None) -> str:
    return content_text("legions", "stratagem", stratagem_id)


def reward_text(vp: int, banner: bool) -> str:
    if banner:
        return i18n.gettext("banner")
    if vp:
        return i18n.gettext("%(n)s VP") % {"n": vp}
    return "—"


# ---------------------------------------------------------------------- cards and heroes


def card_info(card: Mapping[str, Any] | str | None) -> JSON | None:
    """A legion for the templates: number, guild, reward — from a view's card or an id."""
    if card is None:
        return None
    if isinstance(card, str):
        from engine.legions import RULES

        legion = RULES.content.legions.get(card)
        if legion is None:
            return {"id": card, "number": "?", "guild": "white", "vp": 0, "banner": False}
        card = {
            "id": legion.id,
            "number": legion.number,
            "guild": legion.guild,
            "vp": legion.vp,
            "banner": legion.banner,
        }
    return {
        "id": card["id"],
        "number": card["number"],
        "guild": card["guild"],
        "guild_name": guild_name(card["guild"]),
        "vp": card.get("vp", 0),
        "banner": bool(card.get("banner")),
        "reward": reward_text(int(card.get("vp") or 0), bool(card.get("banner"))),
    }


def card_text(card: Mapping[str, Any] | str | None) -> str:
    """A legion in a sentence: number, guild and its reward, if it has one ("5 Farmers",
    not "5 Farmers (—)")."""
    info = card_info(card)
    if info is None:
        return ""
    if not (info["vp"] or info["banner"]):
        return f"{info['number']} {info['guild_name']}"
    return f"{info['number']} {info['guild_name']} ({info['reward']})"


def card_label(card: Mapping[str, Any] | str | None) -> str:
    """A legion's number and guild, without its reward: for lines naming several."""
    info = card_info(card)
    if info is None:
        return ""
    # Its own message: a language that cannot put a number before a guild's name in the
    # nominative ("9 Politicians") names the guild first.
    return i18n.gettext("%(number)s %(guild)s") % {
        "number": info["number"],
        "guild": info["guild_name"],
    }


def hero_info(hero: Mapping[str, Any] | str) -> JSON:
    if isinstance(hero, str):
        from engine.legions import RULES

        h = RULES.content.heroes[hero]
        hero = {"id": h.id, "guild": h.guild, "vp": h.vp, "banner": h.banner}
    return {
        "id": hero["id"],
        "name": hero_name(hero["id"]),
        "guild": hero["guild"],
        "guild_name": guild_name(hero["guild"]),
        "power": hero_power(hero["id"]),
        "vp": hero.get("vp", 0),
        "banner": bool(hero.get("banner")),
        "reward": reward_text(int(hero.get("vp") or 0), bool(hero.get("banner"))),
    }


# ---------------------------------------------------------------------- prompts


def prompt_title(prompt: Mapping[str, Any]) -> str:
    kind = prompt.get("kind")
    if kind == "seal":
        return i18n.gettext("Seal a legion: the lower number leads")
    if kind == "place":
        return i18n.gettext("Step 1: place your legion")
    if kind == "collect":
        return i18n.gettext("Collect a routed legion at the %(loc)s?") % {
            "loc": location_name(prompt.get("location"))
        }
    if kind == "recruit":
        return i18n.gettext("Step 2: recruit a hero?")
    if kind == "peek":
        return i18n.gettext("Recruit one of the heroes you looked at")
    if kind == "under":
        return i18n.gettext("Which 2 legions go under the %(hero)s?") % {
            "hero": hero_name(prompt["hero"]["id"])
        }
    if kind == "power":
        return i18n.gettext("Use the power of the %(hero)s?") % {
            "hero": hero_name(prompt["hero"]["id"])
        }
    if kind == "arrange":
        return i18n.gettext("Put the top legions back (first = top of the deck)")
    if kind == "take":
        return i18n.gettext("Step 3: take a legion from the row")
    if kind == "attack":
        return i18n.gettext("Step 4: the Ambassador attacks — choose a location")
    if kind == "shield":
        return i18n.gettext("Shield: which legion at the %(loc)s stays face up?") % {
            "loc": location_name(prompt.get("location"))
        }
    return ""  # a kind unknown here: the tests fail on it (no engine text to fall back on)


def attack_left_by(order: Mapping[str, Any], view: Mapping[str, Any]) -> str:
    """What the second player's take leaves in the row to attack with (G6.4: the legion left
    decides where), for the take's button: a newcomer did not see that this choice aims the
    attack. '' for the first player, whose take leaves two."""
    me: Mapping[str, Any] = view.get("me") or {}
    row = view.get("legion_row") or []
    if view.get("leader") in (None, me.get("seat")) or len(row) != 2:
        return ""
    wanted = order.get("card")
    left = [
        slot
        for slot in row
        if not (
            not slot.get("face_up")
            if wanted == "hidden"
            else slot.get("face_up") and (slot.get("card") or {}).get("id") == wanted
        )
    ]
    if len(left) != 1:
        return ""
    # The face-down legion is known to this phone only if its seat holds Foresight (G1.1).
    card = left[0].get("card") if left[0].get("face_up") else me.get("row_face_down")
    if not card:
        return i18n.gettext("leaves the face-down legion: it decides where you attack")
    where = card.get("location")  # a view's card names its guild's location; white: None
    if where is None:
        return i18n.gettext("leaves %(card)s: you choose where to attack") % {
            "card": card_label(card)
        }
    return i18n.gettext("leaves %(card)s: you attack the %(loc)s") % {
        "card": card_label(card),
        "loc": location_name(where),
    }


def option_view(
    prompt: Mapping[str, Any], option: Mapping[str, Any], view: Mapping[str, Any]
) -> JSON:
    """One button: its translated text, the cards or hero to draw, and the order to send."""
    order: Mapping[str, Any] = option.get("order") or {}
    kind = order.get("kind")
    out: JSON = {
        "order_json": json.dumps(order, sort_keys=True, separators=(",", ":")),
        "kind": kind,
        "text": "",
        "sub": "",
        "verb": "",
        "place": None,
        "where": None,
        "cards": [],
        "hero": None,
        "loc": None,
        "stratagem": bool(option.get("stratagem")),
        "quiet": kind == "skip",
    }
    loc = order.get("location")
    if kind == "seal":
        out["cards"] = [card_info(option.get("card") or order.get("legion"))]
        out["text"] = i18n.gettext("Seal")
    elif kind == "place":
        out["loc"] = loc
        out["text"] = i18n.gettext("Place at the %(loc)s") % {"loc": location_name(loc)}
        out["short"] = location_name(loc)  # as for "attack" below
        out["label"] = out["text"]
    elif kind == "collect":
        out["cards"] = [card_info(option.get("card") or order.get("legion"))]
        out["text"] = i18n.gettext("Collect")
    elif kind == "collect_all":
        out["text"] = i18n.gettext("Collect them all (Rally)")
    elif kind == "skip":
        texts = {
            "collect": i18n.gettext("Don't collect"),
            "recruit": i18n.gettext("Don't recruit"),
            "power": i18n.gettext("Don't use the power"),
        }
        out["text"] = texts.get(str(prompt.get("kind")), i18n.gettext("Skip"))
    elif kind == "recruit":
        out["hero"] = hero_info(option.get("hero") or str(order.get("hero")))
        out["text"] = i18n.gettext("Recruit the %(hero)s") % {"hero": out["hero"]["name"]}
        out["short"] = i18n.gettext("Recruit this hero")  # as for "choose_hero" below
        route = order.get("route")
        out["verb"] = i18n.gettext("Recruit with your legions at…")
        out["place"] = {"loc": loc, "name": location_name(loc)}
        if route == "five":
            out["sub"] = i18n.gettext("with your legions at all 5 locations")
            out["place"] = {"loc": None, "name": i18n.gettext("all 5 locations")}
        elif route == "summons":
            out["sub"] = i18n.gettext("Royal Summons: with your 2 legions at the %(loc)s") % {
                "loc": location_name(loc)
            }
            out["place"]["name"] = i18n.gettext("%(loc)s (Royal Summons)") % {
                "loc": location_name(loc)
            }
        else:
            out["sub"] = i18n.gettext("with your legions at the %(loc)s") % {
                "loc": location_name(loc)
            }
    elif kind == "peek":
        out["loc"] = loc
        out["text"] = i18n.gettext("Look at the top of the hero deck")
        out["place"] = {"loc": loc, "name": location_name(loc)}
        out["sub"] = i18n.gettext(
            "No %(guild)s hero in the row: look at the top heroes and recruit one"
        ) % {"guild": guild_name(GUILD_OF_LOCATION.get(str(loc)))}
    elif kind == "choose_hero":
        out["hero"] = hero_info(option.get("hero") or str(order.get("hero")))
        out["text"] = i18n.gettext("Recruit the %(hero)s") % {"hero": out["hero"]["name"]}
        # The hero's card beside it names the hero: a long name twice in one button pushed
        # it past a phone's width in Russian. The sentence stays the button's name.
        out["short"] = i18n.gettext("Recruit this hero")
        other = order.get("other")
        if other == "top":
            out["sub"] = i18n.gettext("the other hero goes on top of the deck")
        elif other == "bottom":
            out["sub"] = i18n.gettext("the other hero goes to the bottom of the deck")
    elif kind == "under":
        out["cards"] = [card_info(c) for c in order.get("legions") or []]
        out["text"] = i18n.gettext("These two")
    elif kind == "power":
        power_view(prompt, option, order, out, view)
    elif kind == "arrange":
        out["cards"] = [card_info(c) for c in order.get("order") or []]
        out["text"] = i18n.gettext("This order, left card on top")
    elif kind == "take":
        if order.get("card") == "hidden":
            out["text"] = i18n.gettext("Take the face-down legion")
            out["hidden"] = True
        else:
            out["cards"] = [card_info(option.get("card") or str(order.get("card")))]
            out["text"] = i18n.gettext("Take")
        out["sub"] = attack_left_by(order, view)
    elif kind == "attack":
        out["loc"] = loc
        out["text"] = i18n.gettext("Attack the %(loc)s") % {"loc": location_name(loc)}
        # Five buttons side by side, under a heading that asks where: each shows its place
        # alone (a sentence in a fifth of a phone broke mid-word in Russian).
        out["short"] = location_name(loc)
        out["label"] = out["text"]  # the button's name: it shows the place alone
    elif kind == "shield":
        out["cards"] = [card_info(option.get("card") or str(order.get("keep")))]
        out["text"] = i18n.gettext("Keep face up")
    elif kind == "stratagem":
        stratagem_view(order, view, out)
    else:  # an order kind unknown here: the tests fail on it (no engine text to fall back on)
        out["text"] = str(kind or "")
    return out


GROUPED_FROM = 5
"""From this many options on, the ones that act on the same hero or legion share a row."""


def option_groups(options: list[JSON]) -> list[JSON]:
    """The options as rows: what they act on (a hero to recruit, a legion to move or sow)
    with a button per place, where a list of every pair would run over two screens (G1.4:
    the Envoy may move any of 10 legions to 4 locations; G8.1–G8.2: five heroes by two
    routes, and a look at the hero deck from a location whose guild has no hero in the row);
    or, where each option is one legion, a single row of legions. A row is about half as high
    as an option with its hero drawn in, so from ``GROUPED_FROM`` options on they are rows
    even where no two share one. Empty when a list is short enough, or when the options are
    neither."""
    plain = [o for o in options if o["kind"] != "skip"]
    if len(plain) < GROUPED_FROM:
        return []
    if all(o.get("verb") and not o.get("place") and len(o["cards"]) == 1 for o in plain):
        # One legion each (G1.4 H16: rout one): the legions side by side, tapped to choose.
        return [{"hero": None, "cards": [], "verb": plain[0]["verb"], "choices": plain}]
    if not all(o.get("place") for o in plain):
        return []
    groups: dict[str, JSON] = {}
    for option in plain:
        hero, cards = option.get("hero"), option.get("cards") or []
        if hero:
            key, head = f"hero:{hero['id']}", {"hero": hero, "cards": []}
        elif len(cards) == 1 and cards[0]:
            key, head = f"card:{cards[0]['id']}", {"hero": None, "cards": cards}
        elif option["kind"] == "peek":
            # G8.2: looking commits the player, so the row says so before the tap.
            label = i18n.gettext(
                "No hero of the location's guild in the row: look at the top of the hero deck "
                "and recruit one of the heroes you see"
            )
            key, head = "peek", {"hero": None, "cards": [], "label": label}
        else:
            return []
        group = groups.setdefault(key, {**head, "verb": option["verb"], "choices": []})
        group["choices"].append(option)
    # The heroes first: the verb above the rows is theirs, and the look at the deck is the
    # way round when the hero wanted is not in the row.
    return sorted(groups.values(), key=lambda group: "label" in group)


def under_choices(prompt: Mapping[str, Any], view: Mapping[str, Any]) -> list[JSON]:
    """The legions of G8.3's pairs, each once and grouped by location, to tick two of them
    instead of reading a list of every pair (40 with the five-location route); the engine
    refuses a pair that is not one of its options with a readable message."""
    location_of = {
        str(card["id"]): str(loc["id"])
        for loc in view.get("locations", [])
        for side in loc.get("sides", [])
        if side.get("seat") == prompt.get("seat")
        for card in side.get("face_up", [])
        if isinstance(card, Mapping)
    }
    picked = {
        str(legion)
        for option in prompt.get("options", [])
        for legion in (option.get("order") or {}).get("legions") or []
    }
    groups = []
    for loc in LOCATION_ORDER:
        cards = [card_info(c) for c in sorted(picked) if location_of.get(c) == loc]
        if cards:
            cards.sort(key=lambda c: int(c["number"]) if c else 0)
            groups.append(
                {
                    "loc": loc,
                    "guild": GUILD_OF_LOCATION[loc],
                    "loc_name": location_name(loc),
                    "cards": cards,
                }
            )
    return groups


def power_view(
    prompt: Mapping[str, Any],
    option: Mapping[str, Any],
    order: Mapping[str, Any],
    out: JSON,
    view: Mapping[str, Any],
) -> None:
    hero = str(prompt.get("hero", {}).get("id"))
    loc = order.get("location")
    out["loc"] = loc
    name = {"loc": location_name(loc)}
    if hero in ("H02", "H06", "H11", "H14", "H18"):
        token = prompt.get("hero", {}).get("token")
        out["loc"] = token
        out["text"] = i18n.gettext("Take the %(loc)s token") % {"loc": location_name(token)}
    elif hero == "H03":
        out["cards"] = [
            card_info(option.get("hand_card") or str(order.get("hand"))),
            card_info(option.get("row_card") or str(order.get("row"))),
        ]
        out["text"] = i18n.gettext("Swap: your legion for the row legion")
    elif hero == "H04":
        out["text"] = i18n.gettext("Look at the top legions of the deck")
    elif hero == "H07":
        out["text"] = i18n.gettext("Rout the opponent's legions at the %(loc)s") % name
    elif hero == "H08":
        out["text"] = i18n.gettext("Turn up your routed legions at the %(loc)s") % name
    elif hero == "H12":
        out["cards"] = [card_info(str(order.get("legion")))]
        out["text"] = i18n.gettext("Move it to the %(loc)s") % name
        out["verb"] = i18n.gettext("Move it to…")
        out["place"] = {"loc": loc, "name": location_name(loc)}
    elif hero == "H15":
        out["text"] = i18n.gettext("Look at the opponent's hand and the face-down row legion")
    elif hero == "H16":
        legion = str(order.get("legion"))
        out["cards"] = [card_info(legion)]
        out["text"] = i18n.gettext("Rout this legion")
        out["verb"] = i18n.gettext("Rout one of these legions:")
        out["loc"] = None
        # Where it stands: an Ambassador may stand anywhere, and two looked alike.
        where = legion_location(view, legion)
        if where is not None:
            out["where"] = {"loc": where, "name": location_name(where)}
            out["sub"] = location_name(where)
    elif hero == "H19":
        out["text"] = i18n.gettext("Turn up all your routed legions")
    elif hero == "H20":
        out["cards"] = [card_info(str(order.get("legion")))]
        out["text"] = i18n.gettext("Place it at the %(loc)s, then draw") % name
        out["verb"] = i18n.gettext("Place it at…, then draw")
        out["place"] = {"loc": loc, "name": location_name(loc)}
    else:
        out["text"] = i18n.gettext("Use the power")


def legion_location(view: Mapping[str, Any], legion: str) -> str | None:
    """The location where ``legion`` stands face up on the battlefield, by the view."""
    for loc in view.get("locations", []):
        for side in loc.get("sides", []):
            for card in side.get("face_up", []):
                if isinstance(card, Mapping) and str(card.get("id")) == legion:
                    return str(loc["id"])
    return None


def stratagem_view(order: Mapping[str, Any], view: Mapping[str, Any], out: JSON) -> None:
    sid = str(order.get("stratagem"))
    name = stratagem_name(sid)
    loc = order.get("location") or order.get("token")
    if sid == "N2":
        seat = view.get("viewer")
        placed = (view.get("turn_effects") or {}).get("placed_at") or [None, None]
        loc = placed[seat] if isinstance(seat, int) and seat < len(placed) else None
    out["loc"] = loc
    texts = {
        "N1": i18n.gettext("turn up your routed legions at the %(loc)s"),
        "N2": i18n.gettext("rout the opponent's legions at the %(loc)s"),
        "N3": i18n.gettext("return the %(loc)s token to neutral"),
        "K1": i18n.gettext("none of your legions can be routed this turn"),
        "K2": i18n.gettext("recruit with only 2 legions at one location"),
        "K3": i18n.gettext("win every tied location where you have a legion"),
    }
    out["text"] = i18n.gettext("Use %(name)s") % {"name": name}
    out["sub"] = texts.get(sid, "") % {"loc": location_name(loc)}


def timer_move_text(order: Mapping[str, Any] | None) -> str:
    """The phone's note that the sealing timer played this seat's default order (H5.4), with
    the move named: a player who looked away reads what was done in their name, not only that
    something was. The order is the seat's own (its phone alone is told it)."""
    order = order or {}
    kind = order.get("kind")
    loc = location_name(order.get("location"))
    if kind == "seal":
        return i18n.gettext("Time ran out: legion %(card)s was sealed for you.") % {
            "card": card_text(order.get("legion"))
        }
    if kind == "place":
        return i18n.gettext("Time ran out: your legion was placed at the %(loc)s for you.") % {
            "loc": loc
        }
    if kind == "collect":
        return i18n.gettext("Time ran out: legion %(card)s was collected for you.") % {
            "card": card_text(order.get("legion"))
        }
    if kind == "collect_all":
        return i18n.gettext("Time ran out: your routed legions were collected for you.")
    if kind == "skip":
        return i18n.gettext("Time ran out: that step was skipped for you.")
    if kind in ("recruit", "choose_hero"):
        return i18n.gettext("Time ran out: the %(hero)s was recruited for you.") % {
            "hero": hero_name(str(order.get("hero")))
        }
    if kind == "peek":
        return i18n.gettext("Time ran out: a look at the top of the hero deck was chosen for you.")
    if kind == "under":
        return i18n.gettext("Time ran out: legions %(cards)s were put under the hero for you.") % {
            "cards": ", ".join(card_text(c) for c in order.get("legions") or [])
        }
    if kind == "power":
        return i18n.gettext("Time ran out: your hero's power was used for you.")
    if kind == "arrange":
        return i18n.gettext("Time ran out: the top legions of the deck were put back for you.")
    if kind == "take":
        if order.get("card") == "hidden":
            return i18n.gettext("Time ran out: the face-down legion was taken for you.")
        return i18n.gettext("Time ran out: legion %(card)s was taken for you.") % {
            "card": card_text(order.get("card"))
        }
    if kind == "attack":
        return i18n.gettext("Time ran out: the %(loc)s was attacked for you.") % {"loc": loc}
    if kind == "shield":
        return i18n.gettext("Time ran out: legion %(card)s was kept face up for you.") % {
            "card": card_text(order.get("keep"))
        }
    if kind == "stratagem":
        return i18n.gettext("Time ran out: your stratagem %(name)s was used for you.") % {
            "name": stratagem_name(order.get("stratagem"))
        }
    return i18n.gettext("Time ran out: your default move was played for you.")


# ---------------------------------------------------------------------- events (turn banner)


def power_effect(data: Mapping[str, Any], who: Callable[[Any], str]) -> str:
    """What a hero's power did, from the public event (G9): '' where the next line says it
    (a rout) or where only its user may know it (G9.3: what Broker and Oracle show)."""
    from engine.legions import RULES

    hero = RULES.content.heroes.get(str(data.get("hero")))
    power = None if hero is None else hero.power
    loc = location_name(data.get("location"))
    if power == "take_token":
        return i18n.gettext("takes the %(loc)s token") % {"loc": loc}
    if power == "swap_row":
        return i18n.gettext("puts %(given)s in the row and takes %(taken)s") % {
            "given": card_label(data.get("to_row")),
            "taken": card_label(data.get("to_hand")),
        }
    if power in ("flip_location", "flip_all"):
        count = len(data.get("legions") or ())
        return i18n.ngettext(
            "turns up %(num)s routed legion", "turns up %(num)s routed legions", count
        ) % {"num": count}
    if power == "move_legion":
        return i18n.gettext("moves %(card)s from the %(source)s to the %(target)s") % {
            "card": card_label(data.get("legion")),
            "source": location_name(data.get("from")),
            "target": location_name(data.get("to")),
        }
    if power == "sow":
        return i18n.gettext("places %(card)s at the %(loc)s") % {
            "card": card_label(data.get("legion")),
            "loc": loc,
        }
    if power == "oracle":
        return i18n.gettext("looks at the opponent's hand")
    return ""


def stratagem_effect(data: Mapping[str, Any], who: Callable[[Any], str]) -> str:
    """What a stratagem did, from the public event (G10): '' where the next line says it (N2's
    rout)."""
    sid = (data.get("stratagem") or {}).get("id")
    if sid == "N1":
        count = len(data.get("legions") or ())
        return i18n.ngettext(
            "turns up %(num)s routed legion", "turns up %(num)s routed legions", count
        ) % {"num": count}
    if sid == "N3":
        return i18n.gettext("the %(loc)s token returns to neutral") % {
            "loc": location_name(data.get("token"))
        }
    if sid == "K1":
        return i18n.gettext("no legion of %(who)s can be routed this turn") % {
            "who": who(data.get("seat"))
        }
    if sid == "K2":
        return i18n.gettext("recruits this turn with 2 face-up legions at one location")
    if sid == "K3":
        return i18n.gettext("at this turn's end wins every tied location where it has a legion")
    return ""


def event_line(event: Mapping[str, Any], names: Mapping[int, str], view: Mapping[str, Any]) -> str:
    """One public event as a short translated sentence; '' for the ones not worth a line."""
    kind = event.get("kind")
    data: Mapping[str, Any] = event.get("data") or {}
    players = view.get("players") or []

    def who(seat: Any) -> str:
        if isinstance(seat, int) and 0 <= seat < len(players):
            return side_name(players[seat].get("side"))
        return ""

    loc = location_name(data.get("location"))
    if kind == "reveal":
        # G4.2 / G4.3: both legions are public once revealed; the lower number leads.
        revealed = ", ".join(
            i18n.gettext("%(who)s %(card)s") % {"who": who(seat), "card": card_label(card)}
            for seat, card in enumerate(data.get("legions") or ())
        )
        return i18n.gettext("Revealed: %(revealed)s. %(who)s leads") % {
            "revealed": revealed,
            "who": who(data.get("leader")),
        }
    if kind == "place":
        return i18n.gettext("%(who)s places %(card)s at the %(loc)s") % {
            "who": who(data.get("seat")),
            "card": card_text(data.get("legion")),
            "loc": loc,
        }
    if kind == "collect":
        count = len(data.get("legions") or ())
        return i18n.ngettext(
            "%(who)s collects %(num)s routed legion at the %(loc)s",
            "%(who)s collects %(num)s routed legions at the %(loc)s",
            count,
        ) % {"who": who(data.get("seat")), "num": count, "loc": loc}
    if kind == "recruit":
        hero = data.get("hero")
        if not hero:
            return ""
        return i18n.gettext("%(who)s recruits the %(hero)s") % {
            "who": who(data.get("seat")),
            "hero": hero_name(str(hero)),
        }
    if kind == "under":
        # G8.3: the two legions under a hero are face up, public.
        return i18n.gettext("%(who)s puts %(cards)s under the %(hero)s") % {
            "who": who(data.get("seat")),
            "cards": ", ".join(card_label(card) for card in data.get("legions") or ()),
            "hero": hero_name(str(data.get("hero"))),
        }
    if kind == "peek_heroes":
        return i18n.gettext("%(who)s looks at the top of the hero deck") % {
            "who": who(data.get("seat"))
        }
    if kind == "power" and data.get("used", True):
        used = i18n.gettext("%(who)s uses the power of the %(hero)s") % {
            "who": who(data.get("seat")),
            "hero": hero_name(str(data.get("hero"))),
        }
        effect = power_effect(data, who)
        return (
            i18n.gettext("%(power)s: %(effect)s") % {"power": used, "effect": effect}
            if effect
            else used
        )
    if kind == "draw":
        return i18n.gettext("%(who)s draws a legion from the deck") % {"who": who(data.get("seat"))}
    if kind == "arranged":
        # G9.3: the board learns that the deck's top was arranged, never the order.
        return i18n.gettext("%(who)s puts the top of the legion deck in a new order") % {
            "who": who(data.get("seat"))
        }
    if kind == "take":
        if data.get("face_down") or not data.get("legion"):
            return i18n.gettext("%(who)s takes the face-down legion") % {
                "who": who(data.get("seat"))
            }
        return i18n.gettext("%(who)s takes %(card)s") % {
            "who": who(data.get("seat")),
            "card": card_text(data.get("legion")),
        }
    if kind == "stratagem":
        used = i18n.gettext("%(who)s uses %(name)s") % {
            "who": who(data.get("seat")),
            "name": stratagem_name((data.get("stratagem") or {}).get("id")),
        }
        effect = stratagem_effect(data, who)
        return (
            i18n.gettext("%(power)s: %(effect)s") % {"power": used, "effect": effect}
            if effect
            else used
        )
    if kind == "attack_card":
        # G6.4 / G6.4a: the leftover, turned up if it was face down, names the attack.
        return i18n.gettext("The legion left in the row decides the attack: %(card)s") % {
            "card": card_text(data.get("legion"))
        }
    if kind == "attack":
        if data.get("targets") == 0:  # G6.4: mandatory, and nothing happens
            return i18n.gettext("%(who)s attacks the %(loc)s: nothing there to rout") % {
                "who": who(data.get("seat")),
                "loc": loc,
            }
        return i18n.gettext("%(who)s attacks the %(loc)s") % {
            "who": who(data.get("seat")),
            "loc": loc,
        }
    if kind == "rout":
        count = int(data.get("count") or 0)
        return i18n.ngettext(
            "%(num)s legion of %(who)s is routed at the %(loc)s",
            "%(num)s legions of %(who)s are routed at the %(loc)s",
            count,
        ) % {"num": count, "who": who(data.get("seat")), "loc": loc}
    if kind == "rout_blocked":
        return i18n.gettext("Shield Wall: nothing is routed")
    if kind == "shield":
        # G1.1: the kept legion stays face up, in everyone's sight.
        return i18n.gettext("The Shield of %(who)s keeps %(card)s face up") % {
            "who": who(data.get("seat")),
            "card": card_label(data.get("kept")),
        }
    if kind == "majority":
        holder = data.get("seat")
        if holder is None:
            return ""
        return i18n.gettext("%(who)s takes the %(loc)s majority") % {"who": who(holder), "loc": loc}
    if kind == "game_end":
        return i18n.gettext("The game is over")
    return ""


# ---------------------------------------------------------------------- context


def table_context(payload: Mapping[str, Any], seat: int | None) -> dict[str, Any]:
    view: JSON | None = payload.get("view")
    names = seat_names(payload)
    context: dict[str, Any] = {"names": names, "view": view}
    if not view or view.get("game") != "legions":
        return context
    players = view["players"]
    seat_of_side = {p["side"]: int(p["seat"]) for p in players}
    sides = []
    for p in players:
        s = int(p["seat"])
        stratagem = p.get("stratagem") or {}
        sides.append(
            {
                "seat": s,
                "side": p["side"],
                "side_name": side_name(p["side"]),
                "name": names.get(s, side_name(p["side"])),
                "leads": p.get("leads"),
                "sealed": p.get("sealed"),
                "revealed": card_info(p.get("revealed")),
                "hand_count": p.get("hand_count", 0),
                "routed_count": p.get("routed_count", 0),
                "heroes": [
                    {
                        "hero": hero_info(h["hero"]),
                        "legions": [card_info(c) for c in h["legions"]],
                    }
                    for h in p.get("heroes", [])
                ],
                "stratagem_used": bool(stratagem.get("used")),
                "stratagem_name": stratagem_name(stratagem.get("id")),
                "stratagem_text": stratagem_text(stratagem.get("id")),
                "banners": p.get("banners", 0),
                "score": p.get("score", {}),
                "vp": (p.get("score") or {}).get("total", 0),
            }
        )
    # Board: Necro-camp on top, King below; a phone: the opponent on top, me below.
    if seat is None:
        top, bottom = seat_of_side.get("necro", 0), seat_of_side.get("king", 1)
    else:
        top, bottom = 1 - seat, seat
    locations = []
    for loc in view["locations"]:
        by_seat = {int(s["seat"]): s for s in loc["sides"]}
        token = loc.get("token")
        locations.append(
            {
                "id": loc["id"],
                "guild": loc["guild"],
                "name": location_name(loc["id"]),
                "guild_name": guild_name(loc["guild"]),
                "effect_name": effect_name(loc["id"]),
                "effect_text": effect_text(loc["id"]),
                "token_vp": loc.get("token_vp", 2),
                "token": token,
                "token_place": "mid" if token is None else ("top" if token == top else "bottom"),
                "token_side": None if token is None else players[token]["side"],
                "rows": {
                    where: {
                        "face_up": [card_info(c) for c in by_seat[s]["face_up"]],
                        "routed_count": by_seat[s]["routed_count"],
                        "count": len(by_seat[s]["face_up"]),
                    }
                    for where, s in (("top", top), ("bottom", bottom))
                },
            }
        )
    step = view.get("step")
    step_text = ""
    show = payload.get("show")
    # The turn on show (or of a replay's step) is the turn the screens name: the step that
    # ends a turn already stands at the next one's start.
    turn = shown if (shown := shown_round(payload)) is not None else view.get("turn")
    if show is not None or (step is None and view.get("phase") == "steps"):
        # The position shown is already what comes after the step on show: whose decision
        # is next is not told until the board has played the step out (nobody acts before).
        # A replay's step inside a resolution has no decision open either.
        step_text = i18n.gettext("Turn %(n)s plays out") % {"n": turn}
    elif turn != view.get("turn"):
        # A replay's step that ends the turn: the next one's decisions are not yet on.
        step_text = i18n.gettext("The turn ends")
    elif view.get("phase") == "leadership":
        step_text = i18n.gettext("Both seal a legion")
    elif step:
        step_text = step_label(str(step.get("kind")), players[int(step["seat"])]["side"])
    row = [
        {"face_up": slot.get("face_up"), "card": card_info(slot.get("card"))}
        for slot in view.get("legion_row", [])
    ]
    events = [
        line for line in (event_line(e, names, view) for e in payload.get("events") or []) if line
    ]
    context.update(
        {
            "sides": sides,
            "top": sides[top],
            "bottom": sides[bottom],
            "locations": locations,
            "legion_row": row,
            "hero_row": [hero_info(h) for h in view.get("hero_row", [])],
            "step_text": step_text,
            "step_seat": None if not step or show is not None else step.get("seat"),
            "event_lines": events[-8:],
            "leader_seat": view.get("leader"),
            # While a turn plays out on the board its last step's position is already the
            # next turn's: the screens name the turn being shown, as the banner does.
            "turn": turn,
            "last_turn": view.get("last_turn") and turn == view.get("turn"),
            "turn_ends": turn != view.get("turn"),
            "over": view.get("phase") == "over",
        }
    )
    final = view.get("final") or payload.get("outcome")
    if final:
        context["final"] = final_context(final, sides, names)
    if seat is not None:
        context.update(phone_context(payload, view, seat, sides))
    return context


def step_label(kind: str, side: str) -> str:
    who = side_name(side)
    labels = {
        "place": i18n.gettext("%(who)s: step 1, place"),
        "collect": i18n.gettext("%(who)s: collect?"),
        "recruit": i18n.gettext("%(who)s: step 2, recruit"),
        "peek": i18n.gettext("%(who)s: looks at heroes"),
        "under": i18n.gettext("%(who)s: legions under the hero"),
        "power": i18n.gettext("%(who)s: hero power"),
        "arrange": i18n.gettext("%(who)s: orders the deck"),
        "take": i18n.gettext("%(who)s: step 3, take a legion"),
        "attack": i18n.gettext("%(who)s: step 4, attack"),
        "shield": i18n.gettext("%(who)s: Shield"),
    }
    return labels.get(kind, "%(who)s") % {"who": who}


def final_context(
    final: Mapping[str, Any], sides: list[JSON], names: Mapping[int, str]
) -> dict[str, Any]:
    winner = final.get("winner")
    reason = final.get("reason")
    reasons = {
        "banners": i18n.gettext("5 banners: an instant win"),
        "score": i18n.gettext("the higher score"),
        "tiebreak": i18n.gettext("equal score: the lowest legion in hand decides"),
    }
    tables = []
    for s, breakdown in enumerate(final.get("breakdown") or []):
        tables.append(
            {
                "seat": s,
                "side": sides[s]["side"] if s < len(sides) else "",
                "side_name": sides[s]["side_name"] if s < len(sides) else "",
                "name": names.get(s, ""),
                "stratagem": breakdown.get("stratagem", 0),
                "heroes": [
                    {
                        "name": hero_name(h["hero"]),
                        "hero_vp": h["hero_vp"],
                        "legions": [card_info(c) for c in h["legions"]],
                        "legions_vp": h["legions_vp"],
                        "total": h["total"],
                    }
                    for h in breakdown.get("heroes", [])
                ],
                "majorities": [
                    {"loc": m["location"], "name": location_name(m["location"]), "vp": m["vp"]}
                    for m in breakdown.get("majorities", [])
                ],
                "total": breakdown.get("total", 0),
                "banners": (final.get("banners") or [0, 0])[s],
            }
        )
    tiebreak = final.get("tiebreak")
    hands = []
    if tiebreak:
        for s, hand in enumerate(tiebreak.get("hands") or []):
            hands.append({"seat": s, "cards": [card_info(c) for c in hand]})
    return {
        "winner": winner,
        "winner_side": sides[winner]["side"] if isinstance(winner, int) else None,
        "winner_side_name": sides[winner]["side_name"] if isinstance(winner, int) else "",
        "winner_name": names.get(winner, "") if isinstance(winner, int) else "",
        "reason": reason,
        "reason_text": reasons.get(str(reason), str(reason or "")),
        "tables": tables,
        "tiebreak_hands": hands,
        "tiebreak_lowest": card_info((tiebreak or {}).get("lowest")),
    }


def _no_hero_now(prompt: Mapping[str, Any] | None, options: list[JSON]) -> str:
    """Why step 2 offers only "Don't recruit" besides a stratagem (G10.1 keeps the step open
    while one is unused); empty when it offers more, or nothing else at all. K2 recruits
    with 2 legions at one location: with it, only the usual way is closed."""
    if (prompt or {}).get("kind") != "recruit" or [o["kind"] for o in options] != ["skip"]:
        return ""
    stratagems = [
        o["order"].get("stratagem")
        for o in (prompt or {}).get("options", [])
        if o["order"].get("kind") == "stratagem"
    ]
    if not stratagems:
        return ""
    if "K2" in stratagems:
        return i18n.gettext("Only your stratagem can recruit a hero now.")
    return i18n.gettext("You cannot recruit a hero now.")


def phone_context(
    payload: Mapping[str, Any], view: Mapping[str, Any], seat: int, sides: list[JSON]
) -> dict[str, Any]:
    me = view.get("me") or {}
    prompt = payload.get("prompt")
    options: list[JSON] = []
    stratagem_options: list[JSON] = []
    if prompt:
        for option in prompt.get("options", []):
            shown = option_view(prompt, option, view)
            (stratagem_options if shown["stratagem"] else options).append(shown)
    notes: list[JSON] = []
    for note in me.get("notes") or []:
        kind = note.get("kind")
        if kind == "heroes_seen":
            notes.append(
                {
                    "text": i18n.gettext("Heroes you looked at"),
                    "heroes": [hero_info(h) for h in note.get("heroes", [])],
                }
            )
        elif kind == "oracle":
            cards = [card_info(c) for c in note.get("hand", [])]
            notes.append({"text": i18n.gettext("Oracle: the opponent's hand"), "cards": cards})
            if note.get("row_face_down"):
                notes.append(
                    {
                        "text": i18n.gettext("Oracle: the face-down row legion"),
                        "cards": [card_info(note["row_face_down"])],
                    }
                )
        elif kind in ("broker", "broker_order"):
            deck_top = {
                "text": i18n.gettext("Top of the legion deck (first = top)"),
                "cards": [card_info(c) for c in note.get("cards", [])],
                "deck_top": True,
            }
            # The order H04 Broker put the cards back in replaces the order they were seen in.
            notes = [n for n in notes if not n.get("deck_top")]
            notes.append(deck_top)
        elif kind == "took_face_down":
            notes.append(
                {
                    "text": i18n.gettext("The face-down legion you took"),
                    "cards": [card_info(note.get("legion"))],
                }
            )
    stratagem = me.get("stratagem") or {}
    under_cards = under_choices(prompt, view) if prompt and prompt.get("kind") == "under" else []
    routed = {
        loc: [card_info(c) for c in cards]
        for loc, cards in (me.get("routed") or {}).items()
        if cards
    }
    step = view.get("step") or {}
    waiting_for = ""
    if payload.get("replaying"):
        pass  # a replay waits for nobody: the step's own line says who decides
    elif view.get("phase") == "leadership":
        if me.get("sealed"):
            waiting_for = i18n.gettext("Waiting for the other seal…")
    elif step and step.get("seat") is not None and step.get("seat") != seat:
        deciding = sides[int(step["seat"])]
        waiting_for = i18n.gettext("Waiting for %(name)s (%(side)s)…") % {
            "name": deciding["name"],
            "side": deciding["side_name"],
        }
    elif step and step.get("seat") == seat:
        # The next decision is this seat's own, but the board is still playing the last one
        # out (its prompt comes after the show): it waits for nobody.
        waiting_for = i18n.gettext("You decide next, once the board has finished:")
    return {
        "me_seat": seat,
        "mine": sides[seat],
        "theirs": sides[1 - seat],
        "hand": [card_info(c) for c in me.get("hand") or []],
        "sealed_card": card_info(me.get("sealed")),
        "my_stratagem": {
            "name": stratagem_name(stratagem.get("id")),
            "text": stratagem_text(stratagem.get("id")),
            "used": bool(stratagem.get("used")),
        },
        "routed_mine": [
            {"loc": loc, "name": location_name(loc), "cards": cards}
            for loc, cards in routed.items()
        ],
        "row_face_down": card_info(me.get("row_face_down")),
        "notes": notes,
        "prompt_title": prompt_title(prompt) if prompt else "",
        "options": options,
        "option_groups": option_groups(options),
        "stratagem_options": stratagem_options,
        "under_cards": under_cards,
        # Step 2 stays open while a stratagem is unused, so the board's step never tells
        # which stratagem it is (G10.1, G15); with nothing to do the phone says so and
        # goes on by itself instead of asking for a tap.
        "nothing_to_decide": bool(prompt)
        and not stratagem_options
        and len(options) == 1
        and options[0]["kind"] == "skip",
        # The same step with a stratagem to use: the phone waits for the player, and says
        # why "Don't recruit" is the only other answer.
        "no_hero_now": _no_hero_now(prompt, options),
        "prompt_legion": card_info((prompt or {}).get("legion")),
        "waiting_for": waiting_for,
        "timer_move": timer_move_text(payload.get("timer_order")),
    }


class LegionsScreens:
    def name(self) -> str:
        return i18n.gettext("Legions")

    def watch_text(self, number: int | None) -> str:
        return i18n.gettext("Watch the board — turn %(n)s plays out") % {"n": number}

    def blurb(self) -> str:
        return i18n.gettext(
            "2 players · about 25 minutes · seal a legion each turn, win majorities, "
            "recruit heroes, raise 5 banners."
        )

    def bot_style_labels(self) -> list[tuple[str, str]]:
        return []

    def content_kinds(self) -> Sequence[Kind]:
        return CONTENT_KINDS

    def template_globals(self) -> Mapping[str, Callable[..., Any]]:
        return {}

    def context(self, payload: Mapping[str, Any], seat: int | None) -> dict[str, Any]:
        view = payload.get("view") or {}
        notes: dict[int, str] = {}
        if view.get("game") == "legions":
            for p in view.get("players", []):
                notes[int(p["seat"])] = side_name(p["side"])
        else:
            drawn = i18n.gettext("side drawn at the start")
            notes = {0: drawn, 1: drawn}
        return {
            **table_context(payload, seat),
            "seat_notes": notes,
            "board_lobby_hint": i18n.gettext(
                "Two players: seat 1 is dealt first, seat 2 second. When the game starts, the "
                "server draws who plays Necro-camp and who plays King; each phone shows its "
                "side, and the board shows Necro-camp at the top and King at the bottom."
            ),
            "phone_lobby_hint": i18n.gettext(
                "Your side (Necro-camp or King) is drawn when the game starts. On the board "
                "Necro-camp sits at the top, King at the bottom."
            ),
        }

    def translate_form(self, frame: Mapping[str, Any]) -> JSON | None:
        """``action=legions`` with ``order`` = the option's order as JSON → an order.

        A value that is not a JSON object becomes an order of no kind, which the engine
        refuses with a readable message (``bad_order``)."""
        if frame.get("action") != FORM_ACTION:
            return None
        picked = form_values(frame.get("slot"))
        if frame.get("pick") == "under":
            return {"type": "order", "order": {"kind": "under", "legions": picked}}
        values = form_values(frame.get("order"))
        try:
            order = json.loads(values[0]) if values else {}
        except ValueError:
            order = {}
        if not isinstance(order, dict):
            order = {}
        return {"type": "order", "order": order}

    def log_reads(self, payload: Mapping[str, Any]) -> Hashable:
        """The names, and each player's side (an event names a seat by its side)."""
        players = (payload.get("view") or {}).get("players") or []
        return names_read(payload), tuple(p.get("side") for p in players)

    def log_lines(
        self, events: list[Mapping[str, Any]], payload: Mapping[str, Any], seat: int | None
    ) -> list[JSON]:
        names = seat_names(payload)
        view = payload.get("view") or {}
        lines = []
        for event in events:
            text = event_line(event, names, view)
            if text:
                lines.append({"kind": str(event.get("kind")), "text": text})
        return lines

    def round_label(self, number: int) -> str:
        return i18n.gettext("Turn %(n)s") % {"n": number}

    def refusal_text(self, code: str, params: Mapping[str, Any]) -> str | None:
        """The engine's refusals carry no params, so the sentences name no card or place: the
        phone's sheet beside the message shows them (issue 13.10)."""
        return _refusal_texts().get(code)

    def proof_label(self, order: Mapping[str, Any]) -> str:
        """A turn proves 8 to 10 orders, each player's every decision (G4–G10): each proof
        says which decision it was, so that a player finds the one their phone showed."""
        return _proof_labels().get(str(order.get("kind")), "")


def _proof_labels() -> dict[str, str]:
    """Order kind → the decision it was, as a proof's label."""
    return {
        "seal": i18n.gettext("the sealed legion"),
        "place": i18n.gettext("placing a legion"),
        "collect": i18n.gettext("collecting"),
        "collect_all": i18n.gettext("collecting"),
        "skip": i18n.gettext("a step skipped"),
        "recruit": i18n.gettext("recruiting"),
        "peek": i18n.gettext("a look at the hero deck"),
        "choose_hero": i18n.gettext("recruiting"),
        "under": i18n.gettext("legions under the hero"),
        "power": i18n.gettext("a hero's power"),
        "arrange": i18n.gettext("the order of the legion deck"),
        "take": i18n.gettext("taking a legion"),
        "attack": i18n.gettext("the attack"),
        "shield": i18n.gettext("the Shield"),
        "stratagem": i18n.gettext("a stratagem"),
    }


def _refusal_texts() -> dict[str, str]:
    return {
        "not_ready": i18n.gettext("Nothing to resolve yet."),
        "used": i18n.gettext("Your stratagem is already used."),
        "not_yours": i18n.gettext("That is not your stratagem."),
        "stratagem_timing": i18n.gettext("Your stratagem cannot be used at this moment."),
        "stratagem_target": i18n.gettext("Your stratagem has no such target now."),
        "wrong_step": i18n.gettext("Not now: choose one of the offered options."),
        "not_in_hand": i18n.gettext("That legion is not in your hand."),
        "wrong_location": i18n.gettext("A legion of a guild's colour must go to its own location."),
        "not_in_row": i18n.gettext("That card is not in the row."),
        "not_qualified": i18n.gettext(
            "You cannot recruit that hero that way: a hero of a location's colour needs "
            "3 face-up legions there, any hero needs a legion at all 5 locations."
        ),
        "fallback_not_allowed": i18n.gettext(
            "The row has a hero of that colour, so you cannot look at the hero deck."
        ),
        "same_location": i18n.gettext(
            "With the five-location route the 2 legions must come from 2 different locations."
        ),
        "illegal_pair": i18n.gettext(
            "Choose exactly 2 of the face-up legions used to recruit this hero."
        ),
        "not_available": i18n.gettext(
            "That choice is not available now; pick one of the offered options."
        ),
    }


SCREENS = LegionsScreens()

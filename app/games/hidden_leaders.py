"""Hidden Leaders Duel's screens: the phone (L10.1), the board (L10.2) and scoring (L10.4)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from app import i18n
from app.games import form_values, seat_names
from engine.core import JSON

SEAT_LETTERS = "AB"
FACTION_ORDER = ("IA", "HT", "WF", "UD")


def faction_name(faction: str) -> str:
    """The faction's name in the current language (L1.1)."""
    names = {
        "IA": i18n.gettext("Imperial Army"),
        "HT": i18n.gettext("Hill Tribes"),
        "WF": i18n.gettext("Water Folk"),
        "UD": i18n.gettext("Undead"),
    }
    return names.get(faction, faction)


def card_strength(card_id: str) -> int:
    """A hero's strength read from its id (L1.2: faction, strength, optional letter); only a
    fallback for ids the view did not reveal."""
    found = re.match(r"^L?[A-Z]{2}(\d+)", card_id)
    return int(found.group(1)) if found else 0


def table_context(payload: Mapping[str, Any], seat: int | None) -> dict[str, Any]:
    """What the Hidden Leaders templates need, worked out from a payload (a view) alone."""
    view: JSON | None = payload.get("view")
    names = seat_names(payload)
    context: dict[str, Any] = {
        "names": names,
        "name_a": names.get(0, "A"),
        "name_b": names.get(1, "B"),
        "view": view,
    }
    if view is None:
        return context
    active = view.get("active")
    context["active_name"] = names.get(active, "") if active is not None else ""
    context["pile_empty"] = view.get("pile", 0) == 0
    if seat is not None:
        other = 1 - seat
        context["me_seat"] = seat
        context["me_row"] = SEAT_LETTERS[seat]
        context["other_name"] = names.get(other, SEAT_LETTERS[other])
        me = view.get("me") or {}
        context["me"] = me
        context["my_blocks"] = {b["slot"]: b for b in me.get("blocks", [])}
    scoring = view.get("scoring")
    if scoring:
        strengths = revealed_strengths(view)
        context["scoring"] = scoring
        context["strengths"] = strengths
        context["score_steps"] = [
            score_step_context(step, names, strengths) for step in scoring["steps"]
        ]
    return context


def revealed_strengths(view: Mapping[str, Any]) -> dict[str, int]:
    """Card id → strength of every hero the finished game revealed (rows and councils)."""
    strengths: dict[str, int] = {}
    for row in view.get("rows", {}).values():
        for slot in row:
            for card in (slot.get("hero"), slot.get("blocker")):
                if card and "card" in card:
                    strengths[card["card"]] = int(card["strength"])
    for council in view.get("scoring", {}).get("councils", {}).values():
        for card in council:
            strengths[card["card"]] = int(card["strength"])
    return strengths


def score_step_context(
    step: Mapping[str, Any], names: Mapping[int, str], strengths: Mapping[str, int]
) -> dict[str, Any]:
    """One faction of the L10.4 scoring, with a translated outcome label (call it inside
    :func:`i18n.use_language`)."""

    def total(cards: list[str]) -> int:
        return sum(strengths.get(c, card_strength(c)) for c in cards)

    outcome = step["outcome"]
    if outcome == "MAJORITY":
        winner = names.get(0 if step["influence_winner"] == "A" else 1, step["influence_winner"])
        label = i18n.gettext("%(name)s has more influence → takes Row %(row)s (more heroes)") % {
            "name": winner,
            "row": step["big_row"],
        }
    elif outcome == "TIE_INFLUENCE":
        label = i18n.gettext("Influence tie → nearest rows")
    elif outcome == "TIE_COUNT":
        label = i18n.gettext("Count tie → nearest rows")
    else:
        label = i18n.gettext("Influence and count tie → nearest rows")
    absent = [names.get(i, letter) for i, letter in enumerate("AB") if not step["presence"][letter]]
    return {
        **step,
        "label": label,
        "absent": absent,
        "to_a_strength": total(step["to_a"]),
        "to_b_strength": total(step["to_b"]),
    }


class HiddenLeadersScreens:
    def blurb(self) -> str:
        return i18n.gettext(
            "2 players · about 20 minutes · recruit heroes in secret, take the stronger army."
        )

    def context(self, payload: Mapping[str, Any], seat: int | None) -> dict[str, Any]:
        return {
            **table_context(payload, seat),
            "factions": FACTION_ORDER,
            "seat_notes": {0: i18n.gettext("bottom edge"), 1: i18n.gettext("top edge")},
            "board_lobby_hint": i18n.gettext(
                "The first to join is player A, at the bottom edge of the board; the second is "
                "player B, at the top. Move seats so they match the table."
            ),
            "phone_lobby_hint": i18n.gettext(
                "Player A sits at the bottom edge of the board, player B at the top. Your "
                "nearest row carries your letter."
            ),
        }

    def translate_form(self, frame: Mapping[str, Any]) -> JSON | None:
        """- ``action=take``, ``slot`` (one per ticked box) → a TAKE order (L3.1);
        - ``action=place``, ``return_<slot>`` = card per open slot, ``place_card``, and
          ``place_target`` = ``council`` or a slot → a RETURN+PLACE order (L3.2, L3.3).
        """
        action = frame.get("action")
        if action == "take":
            return {
                "type": "order",
                "order": {"type": "take", "slots": form_values(frame.get("slot"))},
            }
        if action != "place":
            return None
        returns = {
            key.removeprefix("return_"): str(value)
            for key, value in frame.items()
            if key.startswith("return_") and value not in (None, "")
        }
        card = frame.get("place_card")
        target = str(frame.get("place_target") or "council")
        placement: JSON = {"to": "council", "card": card}
        if target != "council":
            placement = {"to": "block", "card": card, "slot": target}
        return {
            "type": "order",
            "order": {"type": "place", "returns": returns, "placement": placement},
        }


SCREENS = HiddenLeadersScreens()

"""Hidden Leaders Duel's screens: the phone (L10.1), the board (L10.2) and scoring (L10.4)."""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

from app import i18n
from app.content import Entry, Kind, content_name
from app.games import form_values, names_read, seat_names, shown_round
from app.live import TIMED_OUT
from engine.core import JSON

SEAT_LETTERS = "AB"
FACTION_ORDER = ("IA", "HT", "WF", "UD")


def _factions(variants: tuple[str, ...]) -> dict[str, Entry]:
    from engine.hidden_leaders.cards import default_cards

    return {f.id: Entry(f.name) for f in default_cards().factions}


CONTENT_KINDS = (Kind("hidden_leaders", "faction", "hidden_leaders/cards.json", _factions),)


def faction_name(faction: str) -> str:
    """The faction's name in the current language (L1.1)."""
    return content_name("hidden_leaders", "faction", faction)


def card_strength(card_id: object) -> int:
    """A hero's strength read from its id (L1.2: faction, strength, optional letter); only a
    fallback for ids the view did not reveal."""
    found = re.match(r"^L?[A-Z]{2}(\d+)", str(card_id))
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
    last = view.get("last_action")
    newest = (payload.get("history") or [{}])[-1]
    # Whether the clock played the last move: the summary says so, as the log does.
    context["last_timed_out"] = last is not None and any(
        event.get("kind") == TIMED_OUT and (event.get("data") or {}).get("seat") == last.get("seat")
        for event in newest.get("events") or ()
    )
    # The turn of a replay's step: the step that ends a turn already stands at the next one,
    # whose player is not yet to play.
    context["turn_shown"] = (
        shown if (shown := shown_round(payload)) is not None else view.get("turn")
    )
    context["turn_ends"] = context["turn_shown"] != view.get("turn") and not view.get("scoring")
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
            score_step_context(step, names, strengths, seat) for step in scoring["steps"]
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
    step: Mapping[str, Any],
    names: Mapping[int, str],
    strengths: Mapping[str, int],
    reader: int | None = None,
) -> dict[str, Any]:
    """One faction of the L10.4 scoring, with a translated outcome label (call it inside
    :func:`i18n.use_language`); the ``reader``'s phone reads "you" for its own seat."""

    def total(cards: list[str]) -> int:
        return sum(strengths.get(c, card_strength(c)) for c in cards)

    outcome = step["outcome"]
    if outcome == "MAJORITY":
        winning_seat = 0 if step["influence_winner"] == "A" else 1
        if winning_seat == reader:
            label = i18n.gettext("You have more influence → you take Row %(row)s (more heroes)") % {
                "row": step["big_row"]
            }
        else:
            label = i18n.gettext(
                "%(name)s has more influence → takes Row %(row)s (more heroes)"
            ) % {"name": names.get(winning_seat, step["influence_winner"]), "row": step["big_row"]}
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


def card_label(card: Any) -> str:
    """A hero as a log line names it: its faction and strength (never its id)."""
    if isinstance(card, Mapping):
        faction, strength = card.get("faction"), card.get("strength")
    else:
        text = str(card or "")
        found = re.match(r"^L?([A-Z]{2})", text)
        faction, strength = (found.group(1) if found else ""), card_strength(text)
    return f"{faction_name(str(faction))} {strength}" if strength else faction_name(str(faction))


def event_line(event: Mapping[str, Any], names: Mapping[int, str], me: int | None) -> str:
    """One event as a line of the log ('' for none). The reader's own moves are sentences of
    their own ("You take A1."), never a name's place filled with "you": a language declines
    the verb for a pronoun (issue 16)."""
    kind = event.get("kind")
    data: Mapping[str, Any] = event.get("data") or {}
    seat = data.get("seat")
    mine = me is not None and seat == me
    who = names.get(int(seat), str(seat)) if isinstance(seat, int) else ""
    gettext = i18n.gettext
    if kind == "take":
        slots = ", ".join(str(s.get("slot")) for s in data.get("slots") or [])
        if mine:
            return gettext("You take %(slots)s.") % {"slots": slots}
        return gettext("%(name)s takes %(slots)s.") % {"name": who, "slots": slots}
    if kind == "place":
        placement = data.get("placement") or {}
        returned = ", ".join(sorted((data.get("returns") or {}).keys()))
        if placement.get("to") == "block":
            values = {"name": who, "slots": returned, "slot": placement.get("slot")}
            if mine:
                return gettext("You return heroes to %(slots)s and block %(slot)s.") % values
            return gettext("%(name)s returns heroes to %(slots)s and blocks %(slot)s.") % values
        if mine:
            return gettext("You return heroes to %(slots)s and place a hero in the council.") % {
                "slots": returned
            }
        return gettext("%(name)s returns heroes to %(slots)s and places a hero in the council.") % {
            "name": who,
            "slots": returned,
        }
    if kind == "draw":
        if data.get("drew"):
            if mine:
                return gettext("You draw a card.")
            return gettext("%(name)s draws a card.") % {"name": who}
        if mine:
            return gettext("You cannot draw: the pile is empty.")
        return gettext("%(name)s cannot draw: the pile is empty.") % {"name": who}
    if kind == "took":
        cards = ", ".join(card_label(c) for c in data.get("cards") or [])
        return i18n.gettext("You took %(cards)s.") % {"cards": cards}
    if kind == "placed":
        return i18n.gettext("You placed %(card)s.") % {"card": card_label(data.get("card"))}
    if kind == "drew":
        return i18n.gettext("You drew %(card)s.") % {"card": card_label(data.get("card"))}
    if kind == "reveal":
        return i18n.gettext("The leaders and councils are revealed.")
    if kind == "score_faction":
        return i18n.gettext("%(faction)s is scored.") % {
            "faction": faction_name(str(data.get("faction")))
        }
    if kind == "result":
        if data.get("result") == "REMATCH":
            return i18n.gettext("Rematch!")
        winner = data.get("winner")
        return i18n.gettext("%(name)s is the new Emperor") % {
            "name": names.get(int(winner), str(winner)) if isinstance(winner, int) else ""
        }
    return ""


class HiddenLeadersScreens:
    def name(self) -> str:
        return i18n.gettext("Hidden Leaders Duel")

    def watch_text(self, number: int | None) -> str:
        return i18n.gettext("Watch the board — turn %(n)s plays out") % {"n": number}

    def blurb(self) -> str:
        return i18n.gettext(
            "2 players · about 20 minutes · recruit heroes in secret, take the stronger army."
        )

    def bot_style_labels(self) -> list[tuple[str, str]]:
        return []

    def content_kinds(self) -> Sequence[Kind]:
        return CONTENT_KINDS

    def template_globals(self) -> Mapping[str, Callable[..., Any]]:
        return {
            "faction_name": faction_name,
            "card_strength": card_strength,
        }

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

    def log_reads(self, payload: Mapping[str, Any]) -> Hashable:
        return names_read(payload)

    def log_lines(
        self, events: list[Mapping[str, Any]], payload: Mapping[str, Any], seat: int | None
    ) -> list[JSON]:
        names = seat_names(payload)
        lines = []
        for event in events:
            text = event_line(event, names, seat)
            if text:
                lines.append({"kind": str(event.get("kind")), "text": text})
        return lines

    def round_label(self, number: int) -> str:
        return i18n.gettext("Turn %(n)s") % {"n": number}

    def refusal_text(self, code: str, params: Mapping[str, Any]) -> str | None:
        return refusal_text(code, params)

    def proof_label(self, order: Mapping[str, Any]) -> str:
        return ""  # a turn resolves one player's one order


def refusal_text(code: str, params: Mapping[str, Any]) -> str | None:
    """An engine refusal in the current language (issue 13.10). Values the player typed
    (an unknown slot or card) are not repeated; cards are named as the log names them."""
    slot = str(params.get("slot") or "")
    card = card_label(params.get("card")) if params.get("card") else ""
    if code == "unknown_slot":
        return i18n.gettext("There is no such slot: the slots are A1–A7 and B1–B7.")
    if code == "unknown_card":
        return i18n.gettext("There is no such hero card.")
    if code == "not_in_hand":
        if not card:
            return i18n.gettext("That card is not in your hand.")
        return i18n.gettext("%(card)s is not in your hand.") % {"card": card}
    if code == "bad_type":
        return i18n.gettext("An order either takes heroes or returns and places them.")
    if code == "wrong_step":
        return i18n.gettext("That is not this step's order: take heroes first, then place them.")
    if code == "duplicate_slot":
        return i18n.gettext("You named slot %(slot)s twice: take two different heroes.") % {
            "slot": slot
        }
    if code == "wrong_count":
        if params.get("expected") == 1:
            return i18n.gettext("Only 1 hero can be taken now: take exactly 1.")
        return i18n.gettext("Take exactly 2 heroes (you named %(num)s).") % {
            "num": params.get("got", "?")
        }
    if code == "blocked":
        return i18n.gettext(
            "%(slot)s is blocked: neither a blocked hero nor the blocking hero on it can be taken."
        ) % {"slot": slot}
    if code == "empty_slot":
        return i18n.gettext("%(slot)s is empty.") % {"slot": slot}
    if code == "wrong_slots":
        missing = params.get("missing")
        if isinstance(missing, list):
            return i18n.gettext("Return one card to each slot you opened; missing: %(slots)s.") % {
                "slots": ", ".join(str(s) for s in missing)
            }
        return i18n.gettext(
            "%(slot)s is not one of the slots you opened; return cards only there."
        ) % {"slot": slot}
    if code == "duplicate_card":
        return i18n.gettext("You used %(card)s twice: each card can go to one place only.") % {
            "card": card
        }
    if code == "bad_placement":
        return i18n.gettext(
            "Place your card in the council, or on an unblocked hero's slot to block it."
        )
    if code == "already_blocked":
        return i18n.gettext(
            "%(slot)s already has a blocking hero: a blocking hero cannot be blocked, choose an "
            "unblocked hero."
        ) % {"slot": slot}
    return None


SCREENS = HiddenLeadersScreens()

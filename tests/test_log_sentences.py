"""Log sentences that decline well (issue 16, "Grammar by the book"): a reader's own moves are
sentences of their own, never a name's place filled with "you" ("you takes A1", Czech "ty
bere A1"), and a card's name after a verb stays in the nominative behind its noun ("bere
legii 27 Politici", not "bere 27 Politici")."""

from __future__ import annotations

from typing import Any

import pytest

from app import i18n
from app.games import hidden_leaders, legions

NAMES = {0: "Anna", 1: "Tom"}

HIDDEN_LEADERS_EVENTS: list[tuple[dict[str, Any], dict[str, tuple[str, str]]]] = [
    (
        {"kind": "take", "data": {"seat": 0, "slots": [{"slot": "A1"}, {"slot": "B2"}]}},
        {
            "en": ("You take A1, B2.", "Anna takes A1, B2."),
            "cs": ("Bereš A1, B2.", "Anna bere A1, B2."),
        },
    ),
    (
        {
            "kind": "place",
            "data": {"seat": 0, "returns": {"A3": 1}, "placement": {"to": "block", "slot": "B4"}},
        },
        {
            "en": ("You return heroes to A3 and block B4.",
                   "Anna returns heroes to A3 and blocks B4."),
            "cs": ("Vracíš hrdiny na A3 a blokuješ B4.",
                   "Anna vrací hrdiny na A3 a blokuje B4."),
        },
    ),
    (
        {"kind": "draw", "data": {"seat": 0, "drew": True}},
        {
            "en": ("You draw a card.", "Anna draws a card."),
            "cs": ("Lížeš si kartu.", "Anna si lízá kartu."),
        },
    ),
]  # fmt: skip


@pytest.mark.parametrize("lang", ["en", "cs"])
@pytest.mark.parametrize(("event", "expected"), HIDDEN_LEADERS_EVENTS)
def test_hidden_leaders_writes_your_own_moves_as_your_sentences(
    lang: str, event: dict[str, Any], expected: dict[str, tuple[str, str]]
) -> None:
    mine, theirs = expected[lang]
    with i18n.use_language(lang):
        assert hidden_leaders.event_line(event, NAMES, me=0) == mine
        assert hidden_leaders.event_line(event, NAMES, me=1) == theirs
        assert hidden_leaders.event_line(event, NAMES, me=None) == theirs


def test_a_legion_taken_or_placed_keeps_its_name_in_the_nominative() -> None:
    view = {"players": [{"side": "king"}, {"side": "necro"}]}
    with i18n.use_language("cs"):
        card = legions.card_text("L27")
        taken = legions.event_line({"kind": "take", "data": {"seat": 0, "legion": "L27"}}, {}, view)
        placed = legions.event_line(
            {"kind": "place", "data": {"seat": 1, "legion": "L27", "location": "Y"}}, {}, view
        )
    assert taken == f"Král bere legii {card}"
    assert placed == f"Nekrotábor klade legii {card} (Trh)"


def test_a_legion_without_a_reward_is_named_without_an_empty_one() -> None:
    """A legion worth nothing read "places 1 Merchants (—) at the Fields" in the log."""
    with i18n.use_language("en"):
        plain, banner = legions.card_text("L01"), legions.card_text("L08")
    assert plain.startswith("1 ") and "(" not in plain and "—" not in plain
    assert banner.endswith("(banner)")


def test_a_colour_taken_keeps_its_name_in_the_nominative() -> None:
    """Czech: "bere barvu červená" put the colour's name where the sentence wants another
    case; after a colon the nominative is right, as in the phone's own "Bereš si barvu: …"."""
    from app.games import heirs

    event = {"kind": "colour", "data": {"seat": 0, "colour": "red"}}
    with i18n.use_language("cs"):
        assert heirs.event_line(event, {0: "Jana"}) == "Jana bere barvu: červená."
        assert heirs.event_line(event, {0: "Jana"}, me=0) == "Bereš si barvu: červená."


# -- Legions: the board's log tells every public fact (G15 "Turn banner") --------------------

LEGIONS_VIEW = {"players": [{"side": "king"}, {"side": "necro"}]}

LEGIONS_EVENTS: list[tuple[dict[str, Any], str]] = [
    # G4.2 / G4.3: both revealed legions are public; the lower number leads.
    (
        {"kind": "reveal", "data": {"legions": ["L09", "L18"], "leader": 0}},
        "Revealed: King 9 Politicians, Necro-camp 18 Ambassadors. King leads",
    ),
    (
        {"kind": "collect", "data": {"seat": 1, "location": "G", "legions": ["L17", "L23"]}},
        "Necro-camp collects 2 routed legions at the Fields",
    ),
    (
        {"kind": "under", "data": {"seat": 0, "hero": "H12", "legions": ["L09", "L18"]}},
        "King puts 9 Politicians, 18 Ambassadors under the Envoy",
    ),
    # G6.4: why the attack goes where it goes.
    (
        {"kind": "attack_card", "data": {"seat": 1, "legion": "L09", "was_face_down": True}},
        "The legion left in the row decides the attack: 9 Politicians (1 VP)",
    ),
    (
        {"kind": "rout", "data": {"seat": 0, "location": "Y", "count": 1, "by": "attack"}},
        "1 legion of King is routed at the Market",
    ),
    (
        {"kind": "rout", "data": {"seat": 0, "location": "Y", "count": 3, "by": "attack"}},
        "3 legions of King are routed at the Market",
    ),
    # G9: what a power did, where the board may know it.
    (
        {
            "kind": "power",
            "data": {
                "seat": 0, "hero": "H12", "used": True, "legion": "L09", "from": "P", "to": "B"
            },
        },
        "King uses the power of the Envoy: moves 9 Politicians from the Tower to the Palace",
    ),
    (
        {"kind": "power", "data": {"seat": 1, "hero": "H14", "used": True, "location": "P"}},
        "Necro-camp uses the power of the Channeler: takes the Tower token",
    ),
    # G9.3: Broker shows its cards on the user's phone only; the board learns it was used.
    (
        {"kind": "power", "data": {"seat": 1, "hero": "H04", "used": True, "count": 3}},
        "Necro-camp uses the power of the Broker",
    ),
    (
        {"kind": "arranged", "data": {"seat": 1, "count": 3}},
        "Necro-camp puts the top of the legion deck in a new order",
    ),
    ({"kind": "draw", "data": {"seat": 0}}, "King draws a legion from the deck"),
    # G10: what a stratagem did (N3 Dread's token, K1's protection).
    (
        {"kind": "stratagem", "data": {"seat": 1, "stratagem": {"id": "N3"}, "token": "B"}},
        "Necro-camp uses Dread: the Palace token returns to neutral",
    ),
    (
        {"kind": "stratagem", "data": {"seat": 0, "stratagem": {"id": "K1"}}},
        "King uses Shield Wall: no legion of King can be routed this turn",
    ),
    # G1.1 and G6.4: whose Shield, which legion; an attack on nothing.
    (
        {"kind": "shield", "data": {"seat": 0, "location": "R", "kept": "L09"}},
        "The Shield of King keeps 9 Politicians face up",
    ),
    (
        {"kind": "attack", "data": {"seat": 1, "location": "G", "targets": 0}},
        "Necro-camp attacks the Fields: nothing there to rout",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("event", "expected"), LEGIONS_EVENTS)
def test_legions_log_names_the_public_facts_of_each_event(
    event: dict[str, Any], expected: str
) -> None:
    assert legions.event_line(event, {}, LEGIONS_VIEW) == expected


SILENT_LEGIONS_EVENTS = {"banners", "refill", "steps"}
"""Public events the board shows elsewhere (the banner counts, the row, the turn banner)."""


def test_every_public_legions_event_a_game_plays_has_a_line_in_every_language() -> None:
    """Bots play whole games; each public event kind met (a power by its hero) is written
    in each language, but for the few the board shows elsewhere and a power left unused."""
    from engine.registry import get_rules

    rules = get_rules("legions")
    met: dict[str, dict[str, Any]] = {}
    for seed in range(1, 30):
        state = rules.setup(2, seed, {})
        while rules.outcome(state) is None:
            for seat in (0, 1):
                if rules.prompt(state, seat) is not None:
                    state = rules.submit(state, seat, rules.bot_order(state, seat))
            if rules.ready(state):
                state, events = rules.resolve(state)
                for event in events:
                    if event.audience is not None or event.kind in SILENT_LEGIONS_EVENTS:
                        continue
                    if event.kind == "power" and not event.data.get("used", True):
                        continue
                    key = f"power {event.data['hero']}" if event.kind == "power" else event.kind
                    met.setdefault(key, {"kind": event.kind, "data": event.data})
    assert {"reveal", "attack_card", "under", "rout", "collect"} <= set(met), sorted(met)
    for lang in i18n.LANGUAGES:
        with i18n.use_language(lang):
            silent = [
                key for key, event in met.items() if not legions.event_line(event, {}, LEGIONS_VIEW)
            ]
        assert not silent, (lang, silent)

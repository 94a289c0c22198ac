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


def test_a_colour_taken_keeps_its_name_in_the_nominative() -> None:
    """Czech: "bere barvu červená" put the colour's name where the sentence wants another
    case; after a colon the nominative is right, as in the phone's own "Bereš si barvu: …"."""
    from app.games import heirs

    event = {"kind": "colour", "data": {"seat": 0, "colour": "red"}}
    with i18n.use_language("cs"):
        assert heirs.event_line(event, {0: "Jana"}) == "Jana bere barvu: červená."
        assert heirs.event_line(event, {0: "Jana"}, me=0) == "Bereš si barvu: červená."

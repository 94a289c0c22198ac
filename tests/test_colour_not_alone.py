"""Colour is never the only signal (issue 16.5, WCAG 1.4.1): every faction, guild and dynasty
colour comes with a shape of its own and a name a screen reader reads (text, not only a
tooltip), so a colour-blind
player tells two cards apart without their colours.

Each check renders the card as the phone and the board draw it, removes the colour (the
class that paints it), and asserts that cards of two colours still differ."""

from __future__ import annotations

import re
from itertools import combinations

import pytest

from app import i18n
from app.config import PROJECT_DIR
from app.games import COLOUR_HEX, heirs, hidden_leaders, legions
from app.pages import environment

SPRITES = {
    "hidden_leaders": (PROJECT_DIR / "templates/games/hidden_leaders/_macros.html", "fi-"),
    "legions": (PROJECT_DIR / "templates/games/legions/_macros.html", "lg-"),
}
"""Where each game draws its colour symbols, and the prefix of their ids."""


def symbol_shapes(game: str) -> dict[str, str]:
    """A game's SVG symbols: id (without prefix) → the shape's markup."""
    path, prefix = SPRITES[game]
    text = path.read_text(encoding="utf-8")
    found = re.findall(rf'<symbol id="{prefix}([\w-]+)"[^>]*>(.*?)</symbol>', text, re.S)
    return dict(found)


def without_colour(markup: str) -> str:
    """The markup with what paints a colour taken out: the colour classes and inline hues."""
    markup = re.sub(r"\b(f|g)-[\w]+\b", "", markup)
    return re.sub(r"--c:\s*#[0-9a-fA-F]+;?", "", markup)


def read_out(markup: str) -> str:
    """What a screen reader reads of a card: its text, not a tooltip (``title``)."""
    return re.sub(r'title="[^"]*"', "", markup)


def render_macro(template: str, name: str, *args: object) -> str:
    module = environment.get_template(template).module
    return str(getattr(module, name)(*args))


@pytest.mark.parametrize(
    ("game", "colours"),
    [
        ("hidden_leaders", hidden_leaders.FACTION_ORDER),
        ("legions", (*legions.GUILD_OF_LOCATION.values(), "white")),
    ],
)
def test_each_colour_has_a_shape_of_its_own(game: str, colours: tuple[str, ...]) -> None:
    shapes = symbol_shapes(game)
    assert set(colours) <= set(shapes), f"{game}: no symbol for {set(colours) - set(shapes)}"
    for one, other in combinations(colours, 2):
        assert shapes[one] != shapes[other], f"{game}: {one} and {other} share a shape"


def test_heirs_dynasties_have_a_shape_each() -> None:
    assert set(heirs.SYMBOLS) == set(heirs.COLOURS) == set(COLOUR_HEX)
    assert len(set(heirs.SYMBOLS.values())) == len(heirs.SYMBOLS), "two dynasties, one shape"


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_a_hidden_leaders_card_without_its_colour_still_says_its_faction(lang: str) -> None:
    with i18n.use_language(lang):
        chips = {
            faction: render_macro(
                "games/hidden_leaders/_macros.html",
                "hero_chip",
                {"faction": faction, "strength": 3},
                "",
            )
            for faction in hidden_leaders.FACTION_ORDER
        }
        for faction, chip in chips.items():
            assert hidden_leaders.faction_name(faction) in read_out(chip), "named in its text"
            assert f"#fi-{faction}" in chip, "drawn with its faction's shape"
    for one, other in combinations(hidden_leaders.FACTION_ORDER, 2):
        assert without_colour(chips[one]) != without_colour(chips[other])


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_a_legion_without_its_colour_still_says_its_guild(lang: str) -> None:
    guilds = tuple(legions.GUILD_OF_LOCATION.values())
    with i18n.use_language(lang):
        cards = {
            guild: render_macro(
                "games/legions/_macros.html",
                "card",
                legions.card_info(
                    {"id": "x", "number": 7, "guild": guild, "vp": 1, "banner": False}
                ),
                "",
            )
            for guild in guilds
        }
        for guild, card in cards.items():
            assert legions.guild_name(guild) in read_out(card), "named in its text"
            assert f"#lg-{guild}" in card, "drawn with its guild's shape"
    for one, other in combinations(guilds, 2):
        assert without_colour(cards[one]) != without_colour(cards[other])

"""Issue 13.4 (engine half): every game's setup refuses unknown options and values of the
wrong type or not finite with a clear ``ValueError`` (the app answers 422), and still takes
every option the lobby, the tournaments and the tools send."""

from __future__ import annotations

import math
from typing import Any

import pytest

from engine.heirs.content import variant_table
from engine.registry import engine_games, get_rules

SEATS = {"heirs": 3, "hidden_leaders": 2, "legions": 2}


def _deep(depth: int) -> Any:
    nested: Any = "x"
    for _ in range(depth):
        nested = [nested]
    return nested


@pytest.mark.parametrize("game", engine_games())
@pytest.mark.parametrize("value", [1, math.nan, "x" * 100_000])
def test_unknown_options_are_refused_by_name(game: str, value: object) -> None:
    """Issue 13.4: an option the game does not know is refused, named, whatever its value
    (Heirs used to take ``{"foo": NaN}``), and the message stays short."""
    rules = get_rules(game)
    with pytest.raises(ValueError, match="foo") as refusal:
        rules.setup(SEATS[game], 1, {"foo": value})
    assert len(str(refusal.value)) < 500


BAD_OPTIONS: list[tuple[str, dict[str, Any], str]] = [
    ("heirs", {"rounds": math.nan}, "rounds"),
    ("heirs", {"rounds": math.inf}, "rounds"),
    ("heirs", {"rounds": 8.0}, "rounds"),
    ("heirs", {"timer": math.inf}, "timer"),
    ("heirs", {"timer": True}, "timer"),
    ("heirs", {"start_player": True}, "start_player"),
    ("heirs", {"start_player": -math.inf}, "start_player"),
    ("heirs", {"auto_setup": "no"}, "auto_setup"),
    ("heirs", {"auto_setup": 1}, "auto_setup"),
    ("heirs", {"colours": [["red"], ["blue"], ["green"]]}, "colours"),
    ("heirs", {"colours": [math.nan, "red", "blue"]}, "colours"),
    ("heirs", {"colours": {"red": 1}}, "colours"),
    ("heirs", {"variants": [["elf_per_5"]]}, "variant"),
    ("heirs", {"variants": [_deep(5_000)]}, "variant"),
    ("heirs", {"variants": "elf_per_5"}, "variant"),
    ("legions", {"first_player": 1.0}, "first_player"),
    ("legions", {"first_player": True}, "first_player"),
    ("legions", {"first_player": math.nan}, "first_player"),
    ("legions", {"sides": [["necro"], ["king"]]}, "sides"),
    ("legions", {"sides": [math.inf, "king"]}, "sides"),
    ("legions", {"sides": {"necro": 0, "king": 1}}, "sides"),
    ("hidden_leaders", {"first_player": 1.0}, "first_player"),
    ("hidden_leaders", {"first_player": math.nan}, "first_player"),
    ("hidden_leaders", {"first_player": [0]}, "first_player"),
]


@pytest.mark.parametrize(("game", "options", "named"), BAD_OPTIONS)
def test_badly_typed_or_non_finite_options_are_refused(
    game: str, options: dict[str, Any], named: str
) -> None:
    """Issue 13.4: a known option with a value of the wrong type, or a number that is not
    finite, is a ValueError naming the option: never a TypeError or KeyError from deep in
    setup, and never silently taken ("no" as a true auto_setup, 1.0 as a seat)."""
    rules = get_rules(game)
    with pytest.raises(ValueError, match=named) as refusal:
        rules.setup(SEATS[game], 1, options)
    assert len(str(refusal.value)) < 500


@pytest.mark.parametrize("game", engine_games())
def test_options_that_are_not_an_object_are_refused(game: str) -> None:
    """Issue 13.4: options are an object of named values."""
    rules = get_rules(game)
    with pytest.raises(ValueError, match="options"):
        rules.setup(SEATS[game], 1, ["rounds", 8])  # type: ignore[arg-type]


GOOD_OPTIONS: list[tuple[str, int, dict[str, Any]]] = [
    ("heirs", 3, {}),
    ("heirs", 3, {"rounds": 8, "timer": None, "variants": []}),  # the lobby form, no timer
    ("heirs", 3, {"rounds": 12, "timer": 90, "variants": list(variant_table())}),
    ("heirs", 3, {"colours": ["red", "blue", "green"], "start_player": 2}),  # a tournament
    ("heirs", 2, {"auto_setup": True, "rounds": 12, "start_player": 0, "variants": []}),
    ("legions", 2, {}),
    ("legions", 2, {"sides": "random", "first_player": 1}),
    ("legions", 2, {"sides": ["king", "necro"], "first_player": 0}),
    ("hidden_leaders", 2, {}),
    ("hidden_leaders", 2, {"first_player": 1}),
    ("hidden_leaders", 2, {"first_player": None}),
]


@pytest.mark.parametrize(("game", "seats", "options"), GOOD_OPTIONS)
def test_every_legitimate_option_is_still_taken(
    game: str, seats: int, options: dict[str, Any]
) -> None:
    """Issue 13.4: the checks refuse nothing the lobby form, a tournament's next game
    (kept colours, catch-up start player, alternating first player) or the scenario tools
    send."""
    rules = get_rules(game)
    state = rules.setup(seats, 1, options)
    assert rules.outcome(state) is None

"""Issue 13.2: malformed orders get a clear refusal, never a crash.

For each game, a few real positions are reached by random legal play; a legal order from
such a position is then mutated (wrong types, non-finite and huge numbers, deep nesting,
unknown, missing and swapped keys) and submitted. The engine may accept the order (then it
must also play it out) or refuse it with :class:`IllegalOrder`; any other exception is a bug
that the app would turn into a 500 or a dead websocket.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.core import JSON, GameRules, IllegalOrder, Rng, State, advance
from engine.registry import engine_games, get_rules

SEATS = {"heirs": 3, "hidden_leaders": 2, "legions": 2}
POSITIONS_PER_GAME = 12
DEEP = 5_000
"""Deeper than Python's recursion limit: anything walking it recursively would crash."""


@dataclass(frozen=True)
class Position:
    """A real position, a seat with a decision in it and one legal order for that seat."""

    state: State
    seat: int
    order: JSON


def _deeply_nested(depth: int) -> Any:
    nested: Any = "x"
    for level in range(depth):
        nested = [nested] if level % 2 else {"k": nested}
    return nested


@functools.cache
def positions(game: str) -> tuple[Position, ...]:
    """Positions met while two seeds play the game at random, spread over the game."""
    rules = get_rules(game)
    seats = SEATS[game]
    met: list[Position] = []
    for seed in (1, 2):
        rng = Rng.from_seed(seed)
        state = rules.setup(seats, seed, {})
        for _ in range(400):
            if rules.outcome(state) is not None:
                break
            acting = [seat for seat in range(seats) if rules.prompt(state, seat) is not None]
            for seat in acting:
                order = rules.random_order(state, seat, rng)
                met.append(Position(state, seat, order))
                state = rules.submit(state, seat, order)
            state, _steps = advance(rules, state)
    # Every kind of decision the games met, taken in turn, so that rare ones are fuzzed too.
    by_kind: dict[str, list[Position]] = {}
    for position in met:
        prompt = rules.prompt(position.state, position.seat)
        assert prompt is not None
        by_kind.setdefault(str(prompt["kind"]), []).append(position)
    chosen: list[Position] = []
    for index in range(POSITIONS_PER_GAME):
        for kind_positions in by_kind.values():
            pick = kind_positions[len(kind_positions) * index // POSITIONS_PER_GAME]
            if len(chosen) < POSITIONS_PER_GAME and all(pick is not p for p in chosen):
                chosen.append(pick)
    return tuple(chosen)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The places inside an order a value can be swapped out (dict keys, list indices),
    down to the depth a legal order has (a deep junk value is one place, not thousands)."""
    found: list[tuple[Any, ...]] = []
    if len(prefix) >= 3:
        return found
    if isinstance(value, dict):
        for key, inner in value.items():
            found.append((*prefix, key))
            found.extend(_paths(inner, (*prefix, key)))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            found.append((*prefix, index))
            found.extend(_paths(inner, (*prefix, index)))
    return found


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _copy(inner) for key, inner in value.items()}
    if isinstance(value, list):
        return [_copy(inner) for inner in value]
    return value


def _container_at(order: Any, path: tuple[Any, ...]) -> Any:
    container = order
    for step in path[:-1]:
        container = container[step]
    return container


_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([0, -1, 1, 2, 5, 10**100, -(10**100), 2**63, 2**64 + 1]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([math.nan, math.inf, -math.inf, 0.5, 1.0, -0.0]),
    st.text(max_size=12),
    st.sampled_from(["", "A1", "stay", "move", "seal", "take", "place", "council", "\x00"]),
)
_junk = st.one_of(
    _scalars,
    st.recursive(
        _scalars,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4),
            st.dictionaries(st.text(max_size=8), inner, max_size=4),
        ),
        max_leaves=8,
    ),
    st.builds(_deeply_nested, st.sampled_from([3, 50, DEEP])),
)


_MUTATIONS = ["replace", "replace", "retype", "retype", "retype"]
_MUTATIONS += ["add_key", "add_key", "drop_key", "swap", "wrap", "whole"]


def _retyped(value: Any) -> st.SearchStrategy[Any]:
    """The same value in a shape the order does not expect: in a list, as a key, beside a
    number, or swapped for a plain value of another type."""
    return st.one_of(
        st.sampled_from([[value], {"x": value}, [value, 1], [1, value], [None]]),
        st.sampled_from([None, 0, 1, -1, True, "", "x", math.nan, math.inf, 10**30, [], {}]),
    )


@st.composite
def mutated_orders(draw: st.DrawFn, legal: JSON) -> Any:
    """A legal order with one or a few things broken in it."""
    order: Any = _copy(legal)
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        paths = _paths(order) if isinstance(order, dict | list) else []
        how = draw(st.sampled_from(_MUTATIONS if paths else ["add_key", "wrap", "whole"]))
        if how == "whole":
            order = draw(_junk)
        elif how == "wrap":
            order = draw(st.sampled_from([[order], {"order": order}, {"kind": order}]))
        elif how == "add_key":  # to the order or to any object inside it
            objects = [order] if isinstance(order, dict) else []
            for path in paths:
                inner = _container_at(order, path)[path[-1]]
                if isinstance(inner, dict):
                    objects.append(inner)
            if objects:
                key = draw(st.one_of(st.text(max_size=8), st.sampled_from(["kind", "type"])))
                draw(st.sampled_from(objects))[key] = draw(st.one_of(_junk, _retyped("x")))
            else:
                order = draw(_junk)
        elif how == "replace":
            path = draw(st.sampled_from(paths))
            _container_at(order, path)[path[-1]] = draw(_junk)
        elif how == "retype":
            path = draw(st.sampled_from(paths))
            value = _container_at(order, path)[path[-1]]
            _container_at(order, path)[path[-1]] = draw(_retyped(value))
        elif how == "drop_key":
            dict_paths = [p for p in paths if isinstance(_container_at(order, p), dict)]
            if dict_paths:
                path = draw(st.sampled_from(dict_paths))
                del _container_at(order, path)[path[-1]]
        else:  # swap two values, possibly of different kinds
            first, second = draw(st.sampled_from(paths)), draw(st.sampled_from(paths))
            if first[: len(second)] != second and second[: len(first)] != first:
                a, b = _container_at(order, first), _container_at(order, second)
                a[first[-1]], b[second[-1]] = b[second[-1]], a[first[-1]]
    return order


def _submit_and_play(rules: GameRules, position: Position, order: Any) -> None:
    """Submit ``order``; if the engine takes it, it must play it out as well, and the order
    (which the app stores, seals and shows in replays) must be plain, small JSON."""
    try:
        state = rules.submit(position.state, position.seat, order)
    except IllegalOrder as refusal:
        assert isinstance(refusal.message, str) and refusal.message
        assert len(refusal.message) < 1_000, "a refusal names the problem, not the whole order"
        return
    advance(rules, state)
    stored = json.dumps(order, allow_nan=False)
    assert len(stored) < 4 * len(json.dumps(position.order)) + 200, "the order carries junk"


@pytest.mark.parametrize("game", engine_games())
def test_positions_are_reached(game: str) -> None:
    """Issue 13.2: the fuzz below starts from real positions of every game."""
    assert len(positions(game)) >= POSITIONS_PER_GAME // 2


@pytest.mark.parametrize("game", engine_games())
@settings(
    max_examples=400,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_mutated_orders_are_refused_or_played(game: str, data: st.DataObject) -> None:
    """Issue 13.2: whatever a client sends as an order, the engine accepts it or raises
    IllegalOrder (NotYourTurn is one) with a readable message; never TypeError, KeyError,
    ValueError or RecursionError."""
    rules = get_rules(game)
    position = data.draw(st.sampled_from(positions(game)), label="position")
    order = data.draw(mutated_orders(position.order), label="order")
    _submit_and_play(rules, position, order)


MALFORMED_ORDERS = [
    ("legions", {"kind": "seal", "legions": [1, "a"]}),
    ("legions", {"kind": "peek", "location": [None]}),
    ("legions", {"kind": "seal", "legion": _deeply_nested(DEEP)}),
    ("heirs", {"expedition": {"kind": "move", "field": [0]}}),
    ("heirs", {"build": [0]}),
    ("heirs", {"exchanges": [{"give": {}, "get": "gold"}]}),
    ("heirs", {"trick": {"card": "x", "field": [1]}}),
    ("hidden_leaders", {"type": [], "slots": [[]]}),
    # Refusals quote what was sent only cut short.
    ("hidden_leaders", {"type": "take", "slots": ["A1", "x" * 100_000]}),
    ("hidden_leaders", {"type": "take", "x" * 100_000: 1}),
    ("legions", {"kind": "seal", "legion": "x" * 100_000}),
    ("legions", {"kind": "recruit", "hero": "x" * 100_000}),
    ("heirs", {"x" * 100_000: 1}),
    ("heirs", {"trick": {"card": "x" * 100_000}}),
]


@pytest.mark.parametrize("game", engine_games())
@pytest.mark.parametrize("junk", [math.nan, _deeply_nested(DEEP), "x" * 100_000])
def test_unknown_keys_at_any_depth_are_refused(game: str, junk: Any) -> None:
    """Issue 13.2 and 13.4: a key the order does not have, added to the order or to any
    object inside it, is refused. (Heirs ignored unknown keys inside the expedition, the
    trick and an exchange line, so the app stored and sealed a NaN, a 100 kB string or a
    nesting too deep to encode, and sent it back in every replay.)"""
    rules = get_rules(game)
    for position in positions(game):
        objects = [()] + [p for p in _paths(position.order) if isinstance(_at(position, p), dict)]
        for path in objects:
            order = _copy(position.order)
            _container_at(order, (*path, None))["unexpected"] = junk
            with pytest.raises(IllegalOrder):
                rules.submit(position.state, position.seat, order)


def _at(position: Position, path: tuple[Any, ...]) -> Any:
    return _container_at(position.order, (*path, None))


def test_a_shadow_path_to_an_unhashable_field_is_refused() -> None:
    """Issue 13.2: the Shadow Path trick's extra field, sent as a list, is refused like an
    unknown field (it was a TypeError: a list cannot be looked up among the fields)."""
    rules = get_rules("heirs")
    holders = [
        position
        for seed in range(1, 40)
        for position in _heirs_orders(seed)
        if "shadow_path" in position.state.heirs[position.seat].hand
    ]
    assert holders, "no heir drew the Shadow Path in these games"
    position = holders[0]
    order = {"trick": {"card": "shadow_path", "field": [position.order]}}
    with pytest.raises(IllegalOrder) as refusal:
        rules.submit(position.state, position.seat, order)
    assert refusal.value.code == "BAD_TARGET"


def _heirs_orders(seed: int) -> list[Position]:
    """The sealing positions of the first rounds of a random 3-heir game."""
    rules = get_rules("heirs")
    rng = Rng.from_seed(seed)
    state = rules.setup(3, seed, {"auto_setup": True})
    met: list[Position] = []
    for _ in range(3):
        for seat in range(3):
            if rules.prompt(state, seat) is not None:
                order = rules.random_order(state, seat, rng)
                met.append(Position(state, seat, order))
                state = rules.submit(state, seat, order)
        state, _steps = advance(rules, state)
    return met


@pytest.mark.parametrize(("game", "order"), MALFORMED_ORDERS)
def test_reported_malformed_orders_are_refused(game: str, order: JSON) -> None:
    """Issue 13.2: the orders the probe found (and their relatives) are refused with
    IllegalOrder in every position met, not answered with a crash."""
    rules = get_rules(game)
    for position in positions(game):
        _submit_and_play(rules, position, order)

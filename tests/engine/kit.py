"""A test kit every game passes: play games through the protocol and check its promises."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.core import JSON, Event, GameRules, Rng, State

Picker = Callable[[State, int], JSON]


@dataclass
class Playthrough:
    """Every state a game passed through, the orders given and the events emitted."""

    states: list[State] = field(default_factory=list)
    orders: list[tuple[int, JSON]] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)

    @property
    def final(self) -> State:
        return self.states[-1]


def seats_to_act(rules: GameRules, state: State, seats: int) -> list[int]:
    return [seat for seat in range(seats) if rules.prompt(state, seat) is not None]


def outcome_of(rules: GameRules, state: State) -> JSON:
    """The outcome of a game that must be over."""
    outcome = rules.outcome(state)
    assert outcome is not None, "the game is not over"
    return outcome


def prompt_of(rules: GameRules, state: State, seat: int) -> JSON:
    """The prompt of a seat that must have one."""
    prompt = rules.prompt(state, seat)
    assert prompt is not None, f"seat {seat} has nothing to do"
    return prompt


def play(
    rules: GameRules,
    seats: int,
    seed: int,
    pick: Picker,
    options: Mapping[str, Any] | None = None,
    max_steps: int = 10_000,
) -> Playthrough:
    """Play one game to its outcome, asking ``pick`` for every order."""
    state = rules.setup(seats, seed, options or {})
    trace = Playthrough(states=[state])
    for _ in range(max_steps):
        if rules.outcome(state) is not None:
            return trace
        acting = seats_to_act(rules, state, seats)
        assert acting or rules.ready(state), "nobody can act, yet the game is not over"
        for seat in acting:
            order = pick(state, seat)
            state = rules.submit(state, seat, order)
            trace.orders.append((seat, order))
            trace.states.append(state)
        if rules.ready(state):
            state, events = rules.resolve(state)
            trace.events.extend(events)
            trace.states.append(state)
    raise AssertionError(f"no outcome after {max_steps} steps")


def random_picker(rules: GameRules, seed: int) -> Picker:
    rng = Rng.from_seed(seed)
    return lambda state, seat: rules.random_order(state, seat, rng)


def bot_picker(rules: GameRules, style: str = "default") -> Picker:
    return lambda state, seat: rules.bot_order(state, seat, style)


def assert_json_round_trip(rules: GameRules, state: State) -> None:
    """The state survives a trip through JSON text unchanged."""
    text = json.dumps(rules.to_json(state), sort_keys=True)
    again = rules.from_json(json.loads(text))
    assert json.dumps(rules.to_json(again), sort_keys=True) == text
    assert again == state


def dumps(payload: Any) -> str:
    """Canonical JSON text of a payload, for 'does it contain X' checks."""
    return json.dumps(payload, sort_keys=True, ensure_ascii=False)

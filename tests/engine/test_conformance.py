"""Conformance: the promises of ``engine/core.py`` kept by every registered game.

One module for every game in ``engine.registry.engine_games()``: a game joins these checks by
being registered, nothing else. For each game, a few player counts and seeds, and every way
of choosing orders (each bot style, ``random_order``, and a random order read off the prompt
alone where the prompt lists its choices), a whole game is played through ``submit`` and
``engine.core.advance`` to its outcome, checking at every step:

1. the game ends within a bound, and every seat with a prompt is given an order;
2. every state survives a trip through JSON text unchanged (every state after setup, after
   each order and after each step of a resolution);
3. the same seed and orders give the same states and events (H22, L2.2, G2.2); another seed
   another game;
4. views, prompts and events are JSON, and no view shows another seat's sealed order (H23,
   L10.3, G15): when a seat seals, every other seat's view and the board's change at most in
   the marks of a sealed seat the game names (``seal_marks``), and no other viewer's view
   holds the order as sent;
5. a match played by bots in a real room on a SQLite file rebuilds, from its stored order
   log, to its stored snapshot and its stored resolutions;
6. a state, once returned (by setup, submit or a step of a resolution), never changes: the
   room keeps the states of a show's steps and of the last resolution while the game goes
   on, and an engine may share parts between a state and the next (``engine/core.py``);
7. a view and a prompt are the state's own: the same as those of the state read back from its
   JSON text. An engine may keep what it worked out with a state and carry it to the next
   (the room asks for the same views many times), never to a state it no longer describes.

What only one game promises (its invariants, which secrets each view hides, its options)
stays in that game's own tests.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, cast

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session, col, create_engine, select

from app.config import Settings
from app.main import create_app
from app.models import Match, Resolution, Room
from engine.core import JSON, Event, GameInfo, GameRules, Rng, State, advance, events_for
from engine.registry import engine_games, get_rules
from tests.engine.kit import dumps
from tests.live import wait_for
from tests.truth import rebuild, stored_match

GAMES = engine_games()
SEEDS = (1, 7)
MAX_ORDERS = 5_000
"""More orders than any game takes (Heirs of six: about 80 a game)."""

Picker = Callable[[GameRules, State, int, Rng], JSON]


def player_counts(info: GameInfo) -> list[int]:
    """The fewest, the most and one between."""
    middle = (info.min_players + info.max_players) // 2
    return sorted({info.min_players, middle, info.max_players})


# -- ways of choosing orders ----------------------------------------------------------------


def random_order(rules: GameRules, state: State, seat: int, rng: Rng) -> JSON:
    return rules.random_order(state, seat, rng)


def bot(style: str) -> Picker:
    def pick(rules: GameRules, state: State, seat: int, rng: Rng) -> JSON:
        return rules.bot_order(state, seat, style)

    return pick


def order_from_prompt(rules: GameRules, state: State, seat: int, rng: Rng) -> JSON:
    """A random order read off the prompt alone, as a simple client would build it (see
    tests/play.py), for the prompt shapes that list their choices; ``random_order`` for a
    prompt whose shape this does not know."""
    prompt = rules.prompt(state, seat)
    assert prompt is not None
    built = _from_prompt_shape(prompt, rng)
    return rules.random_order(state, seat, rng) if built is None else built


def _from_prompt_shape(prompt: JSON, rng: Rng) -> JSON | None:
    """The prompt shapes that list their choices: a list of options each with its order
    (Legions), slots to take and cards to place (Hidden Leaders), colours and characters,
    then a default order with the fields an expedition may reach (Heirs)."""
    options = prompt.get("options")
    if isinstance(options, list) and options and all("order" in o for o in options):
        chosen: JSON = rng.choice(options)["order"]  # each choice carries its own order
        return dict(chosen)
    if {"takeable", "count"} <= prompt.keys():  # take so many of the slots offered
        return {"type": "take", "slots": rng.sample(prompt["takeable"], prompt["count"])}
    if {"open_slots", "hand"} <= prompt.keys():  # refill the open slots, keep one card
        hand = rng.shuffled(prompt["hand"])
        returns = dict(zip(prompt["open_slots"], hand, strict=False))
        kept = hand[len(returns)]
        return {"type": "place", "returns": returns, "placement": {"to": "council", "card": kept}}
    if {"colours", "characters"} <= prompt.keys():  # a colour and a character
        return {
            "colour": rng.choice(prompt["colours"]),
            "character": rng.choice(prompt["characters"]),
        }
    if {"default", "expedition"} <= prompt.keys():  # the default order, anywhere it may go
        ways = prompt["expedition"]
        kinds = [kind for kind, fields in ways.items() if fields and kind != "stay"]
        if not kinds:
            return dict(prompt["default"])
        kind = rng.choice(kinds)
        return {**prompt["default"], "expedition": {"kind": kind, "field": rng.choice(ways[kind])}}
    return None


def pickers(info: GameInfo) -> dict[str, Picker]:
    return {
        "random": random_order,
        "prompt": order_from_prompt,
        **{f"bot-{style}": bot(style) for style in info.bot_styles},
    }


# -- one game, every promise checked at every step -----------------------------------------


@dataclass
class Trace:
    """What a game went through: every state as JSON text, the orders, the events."""

    states: list[str] = field(default_factory=list)
    orders: list[tuple[int, JSON]] = field(default_factory=list)
    events: list[JSON] = field(default_factory=list)
    resolutions: int = 0
    outcome: JSON | None = None


def comparable(state: State) -> bool:
    """Whether the state's type says what equal means (else ``==`` is only identity)."""
    return any("__eq__" in vars(kind) for kind in type(state).__mro__ if kind is not object)


def assert_round_trip(rules: GameRules, state: State) -> str:
    """Promise 2: the state survives JSON text unchanged; its canonical text."""
    text = dumps(rules.to_json(state))
    again = rules.from_json(json.loads(text))
    assert dumps(rules.to_json(again)) == text, "to_json(from_json(...)) differs"
    if comparable(state):
        assert again == state, "from_json(to_json(state)) != state"
    return text


def changed_leaves(
    before: Any, after: Any, path: tuple[Any, ...] = ()
) -> Iterator[tuple[Any, ...]]:
    """The paths where two JSON values differ, down to the smallest part that differs."""
    if isinstance(before, dict) and isinstance(after, dict):
        for key in before.keys() | after.keys():
            if key not in before or key not in after:
                yield (*path, key)
            else:
                yield from changed_leaves(before[key], after[key], (*path, key))
    elif isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        for index, (old, new) in enumerate(zip(before, after, strict=True)):
            yield from changed_leaves(old, new, (*path, index))
    elif before != after or type(before) is not type(after):
        yield path


def value_at(view: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        view = view[part]
    return view


def assert_sealing_leaks_nothing(
    rules: GameRules, before: State, after: State, sealer: int, seats: int
) -> None:
    """Promise 4: the board and every other seat see that ``sealer`` has sealed, exactly as
    the game's ``seal_marks`` say, and nothing more (the room sends the others only those
    marks in a seal notice)."""
    marks = rules.seal_marks(after, sealer)
    for viewer in [None, *(s for s in range(seats) if s != sealer)]:
        old, new = rules.view(before, viewer), rules.view(after, viewer)
        marked = json.loads(json.dumps(old))
        for path, value in marks:
            parent = value_at(marked, tuple(path[:-1]))
            parent[path[-1]] = value
        changed = list(changed_leaves(marked, new))
        assert not changed, f"seat {sealer}'s order changed {changed} in the view of {viewer}"


def assert_no_order_in_views(
    rules: GameRules, state: State, unresolved: list[tuple[int, JSON]], seats: int
) -> None:
    """Promise 4: before its resolution, no other viewer's view holds an order as sent."""
    for viewer in [None, *range(seats)]:
        text = dumps(rules.view(state, viewer))
        for seat, order in unresolved:
            if seat != viewer:
                assert dumps(order) not in text, f"seat {seat}'s order in the view of {viewer}"


def assert_json_ready(rules: GameRules, state: State, seats: int) -> None:
    """Promise 4: views, prompts and the outcome are JSON (text, no NaN, string keys)."""
    for viewer in [None, *range(seats)]:
        json.dumps(rules.view(state, viewer), allow_nan=False)
    for seat in range(seats):
        json.dumps(rules.prompt(state, seat), allow_nan=False)
    json.dumps(rules.outcome(state), allow_nan=False)


def assert_views_are_the_states(rules: GameRules, state: State, seats: int) -> None:
    """Promise 7: what the state shows, asked after whatever it was asked before, is what
    the same state read back from its text (no memo) shows."""
    again = rules.from_json(json.loads(dumps(rules.to_json(state))))
    for viewer in [None, *range(seats)]:
        assert rules.view(state, viewer) == rules.view(again, viewer), f"view of {viewer}"
    for seat in range(seats):
        assert rules.prompt(state, seat) == rules.prompt(again, seat), f"prompt of {seat}"


def saved(rules: GameRules, state: State, check: bool) -> str:
    """The state's canonical JSON text, its round trip checked with ``check``."""
    return assert_round_trip(rules, state) if check else dumps(rules.to_json(state))


def play(game: str, seats: int, seed: int, picker: str, check: bool = True) -> Trace:
    """One game to its outcome through submit and advance; with ``check`` every promise is
    checked at every step, else only the trace is kept (for determinism)."""
    rules = get_rules(game)
    pick = pickers(rules.info)[picker]
    rng = Rng.from_seed(seed ^ 0x5EED)
    state = rules.setup(seats, seed, {})
    trace = Trace(states=[saved(rules, state, check)])
    returned: list[tuple[State, str]] = [(state, trace.states[0])]
    """Promise 6: every state returned, with its text when it was returned."""
    unresolved: list[tuple[int, JSON]] = []
    while rules.outcome(state) is None:
        acting = [seat for seat in range(seats) if rules.prompt(state, seat) is not None]
        assert acting, "nobody has a prompt, yet the game goes on"
        for seat in acting:
            # Until something resolves, another seat's order takes no decision away.
            assert rules.prompt(state, seat) is not None, f"seat {seat} lost its prompt"
            order = pick(rules, state, seat, rng)
            assert len(trace.orders) < MAX_ORDERS, "the game did not end"
            trace.orders.append((seat, order))
            sealed = rules.submit(state, seat, order)
            if check:
                assert_sealing_leaks_nothing(rules, state, sealed, seat, seats)
                assert_views_are_the_states(rules, sealed, seats)
                returned.append((sealed, dumps(rules.to_json(sealed))))
            unresolved.append((seat, order))
            state, steps = advance(rules, sealed)
            if check:
                assert_no_order_in_views(rules, sealed, unresolved, seats)
                for step in steps:
                    returned.append((step.state, assert_round_trip(rules, step.state)))
                    assert_views_are_the_states(rules, step.state, seats)
            if steps:
                unresolved = []
                trace.resolutions += 1
                trace.events += [event.to_json() for step in steps for event in step.events]
            trace.states.append(saved(rules, state, check))
            if check:
                assert_json_ready(rules, state, seats)
                for viewer in [None, *range(seats)]:
                    json.dumps(events_for([e for s in steps for e in s.events], viewer))
            if steps:
                break  # a new round of decisions: who decides is asked again
    trace.outcome = rules.outcome(state)
    assert_states_unchanged(rules, returned)
    return trace


def assert_states_unchanged(rules: GameRules, returned: list[tuple[State, str]]) -> None:
    """Promise 6: each state still reads as it did when it was returned."""
    for number, (kept, text) in enumerate(returned):
        assert dumps(rules.to_json(kept)) == text, f"state {number} changed after it was returned"


CASES = [
    pytest.param(game, seats, seed, picker, id=f"{game}-{seats}p-seed{seed}-{picker}")
    for game in GAMES
    for seats in player_counts(get_rules(game).info)
    for seed in SEEDS
    for picker in pickers(get_rules(game).info)
]


@cache
def checked_play(game: str, seats: int, seed: int, picker: str) -> Trace:
    return play(game, seats, seed, picker)


@pytest.mark.parametrize(("game", "seats", "seed", "picker"), CASES)
def test_every_game_plays_to_its_end_keeping_every_promise(
    game: str, seats: int, seed: int, picker: str
) -> None:
    trace = checked_play(game, seats, seed, picker)
    assert trace.outcome is not None
    json.dumps(trace.outcome, allow_nan=False)
    assert trace.resolutions >= 1 and trace.orders


# -- determinism by seed --------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("seed", SEEDS)
def test_the_same_seed_and_orders_give_the_same_game(game: str, seed: int) -> None:
    seats = get_rules(game).info.max_players
    first = checked_play(game, seats, seed, "random")
    again = play(game, seats, seed, "random", check=False)
    assert again.orders == first.orders
    assert again.states == first.states
    assert again.events == first.events
    assert again.outcome == first.outcome


@pytest.mark.parametrize("game", GAMES)
def test_another_seed_gives_another_game(game: str) -> None:
    """Every game registered has chance (a deal, a shuffle, an omen): the seed shows."""
    rules = get_rules(game)
    seats = rules.info.min_players
    one = dumps(rules.to_json(rules.setup(seats, SEEDS[0], {})))
    other = dumps(rules.to_json(rules.setup(seats, SEEDS[1], {})))
    assert one != other
    first = play(game, seats, SEEDS[0], "bot-" + rules.info.bot_styles[0], check=False)
    second = play(game, seats, SEEDS[1], "bot-" + rules.info.bot_styles[0], check=False)
    assert (first.orders, first.events) != (second.orders, second.events)


# -- the checks above can fail --------------------------------------------------------------


def test_the_leak_check_finds_every_changed_leaf() -> None:
    before = {"seats": [{"sealed": False, "coins": 3}], "board": "x"}
    flagged = {"seats": [{"sealed": True, "coins": 3}], "board": "x"}
    leaked = {"seats": [{"sealed": True, "coins": 4}], "board": "x", "order": {"kind": "a"}}
    assert list(changed_leaves(before, flagged)) == [("seats", 0, "sealed")]
    assert sorted(map(str, changed_leaves(before, leaked))) == [
        "('order',)",
        "('seats', 0, 'coins')",
        "('seats', 0, 'sealed')",
    ]
    assert list(changed_leaves({"a": 1}, {"a": True})) == [("a",)], "1 and True differ"


class Telltale:
    """A game doctored to show its whole state, and an order planted in it, in every view:
    the secrecy checks must fail on it."""

    def __init__(self, rules: GameRules, planted: JSON) -> None:
        self.rules = rules
        self.planted = planted

    def __getattr__(self, name: str) -> Any:
        return getattr(self.rules, name)

    def view(self, state: State, seat: int | None) -> JSON:
        shown = {"telltale": self.rules.to_json(state), "planted": self.planted}
        return {**self.rules.view(state, seat), **shown}


@pytest.mark.parametrize("game", GAMES)
def test_the_secrecy_checks_catch_a_view_that_shows_the_state(game: str) -> None:
    rules = get_rules(game)
    seats = rules.info.min_players
    state = rules.setup(seats, SEEDS[0], {})
    sealer = next(seat for seat in range(seats) if rules.prompt(state, seat) is not None)
    order = rules.bot_order(state, sealer, rules.info.bot_styles[0])
    sealed = rules.submit(state, sealer, order)
    assert_sealing_leaks_nothing(rules, state, sealed, sealer, seats)
    assert_no_order_in_views(rules, sealed, [(sealer, order)], seats)
    planted = {"names": ["a secret"], "kind": "planted"}
    doctored = cast(GameRules, Telltale(rules, planted))
    with pytest.raises(AssertionError, match="order changed"):
        assert_sealing_leaks_nothing(doctored, state, sealed, sealer, seats)
    with pytest.raises(AssertionError, match="order in the view"):
        assert_no_order_in_views(
            doctored, sealed, [(sealer, dict(reversed(planted.items())))], seats
        )


class Drifting:
    """A game whose states read differently each time they are read, as a state changed
    in place by a later resolution would: the check of promise 6 must fail on it."""

    def __init__(self, rules: GameRules) -> None:
        self.rules = rules
        self.reads = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.rules, name)

    def to_json(self, state: State) -> JSON:
        self.reads += 1
        return {**self.rules.to_json(state), "reads": self.reads}


@pytest.mark.parametrize("game", GAMES)
def test_the_check_of_unchanged_states_catches_a_changed_state(game: str) -> None:
    rules = get_rules(game)
    state = rules.setup(rules.info.min_players, SEEDS[0], {})
    assert_states_unchanged(rules, [(state, dumps(rules.to_json(state)))])
    drifting = cast(GameRules, Drifting(rules))
    with pytest.raises(AssertionError, match="changed after it was returned"):
        assert_states_unchanged(drifting, [(state, dumps(drifting.to_json(state)))])


# -- a stored match rebuilds to its snapshot ------------------------------------------------


def bots_only_match(client: TestClient, game: str, seats: int) -> str:
    """A room of ``seats`` bots playing ``game`` with the board's show skipped; its code."""
    created = client.post("/api/rooms", json={"game": game, "options": {}}).json()
    code: str = created["code"]
    host = {"Authorization": f"Bearer {created['host_token']}"}
    for _ in range(seats):
        assert client.post(f"/api/rooms/{code}/bots", headers=host).status_code == 201
    assert client.post(f"/api/rooms/{code}/start", headers=host).status_code == 200
    skipped = client.post(f"/api/rooms/{code}/show/skip", headers=host, json={"all": True})
    assert skipped.status_code == 200, skipped.text
    return code


def finished_match_id(database_url: str, code: str) -> int | None:
    """The id of the room's match once it is stored as finished (read by another engine,
    as after a restart: only what was committed)."""
    db = create_engine(database_url)
    try:
        with Session(db) as session:
            room = session.exec(select(Room).where(Room.code == code)).first()
            if room is None:
                return None
            match = session.exec(select(Match).where(Match.room_id == room.id)).first()
            return match.id if match is not None and match.status == "finished" else None
    finally:
        db.dispose()


@pytest.mark.parametrize("game", GAMES)
def test_a_stored_match_replays_to_its_snapshot_and_resolutions(game: str, tmp_path: Path) -> None:
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'pecet.sqlite3'}", bot_delay=0.0, step_seconds=0.0
    )
    with TestClient(create_app(settings)) as client:
        code = bots_only_match(client, game, get_rules(game).info.min_players)
        match_id = wait_for(
            lambda: finished_match_id(settings.database_url, code), f"the {game} match to end"
        )
    db = create_engine(settings.database_url)
    try:
        match, orders = stored_match(db, match_id)
        with Session(db) as session:
            stored = session.exec(
                select(Resolution)
                .where(Resolution.match_id == match_id)
                .order_by(col(Resolution.number))
            ).all()
    finally:
        db.dispose()
    truth = rebuild(match, orders)
    rules = truth.rules
    final = truth.state(len(orders))
    assert match.version == len(orders)
    assert json.loads(dumps(rules.to_json(final))) == json.loads(dumps(match.state))
    assert match.outcome == json.loads(dumps(rules.outcome(final)))
    replayed = [
        (version, steps) for version, (_state, steps) in sorted(truth.after.items()) if steps
    ]
    assert len(replayed) == len(stored) >= 1
    previous_last = 0
    for row, (version, steps) in zip(stored, replayed, strict=True):
        assert (row.first_seq, row.last_seq) == (previous_last + 1, version)
        assert row.round == steps[0].round
        events = [Event.to_json(e) for step in steps for e in step.events]
        assert row.events == json.loads(dumps(events))
        previous_last = version

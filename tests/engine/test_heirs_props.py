"""Whole-game properties of Heirs of the Axis: the protocol's promises (replay, JSON, purity,
secrecy of views, H23) and the invariants of the issue, checked on random and bot games."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core import GameRules, Rng
from engine.heirs import RULES
from engine.heirs.state import HeirsState, clone_state
from tests.engine.kit import (
    Picker,
    Playthrough,
    assert_json_round_trip,
    bot_picker,
    dumps,
    play,
    random_picker,
)

SETTINGS = settings(max_examples=20, deadline=None, derandomize=True)


def mixed_bots(seed: int) -> Picker:
    def pick(state: HeirsState, seat: int) -> dict:
        style = RULES.info.bot_styles[(seat + seed) % len(RULES.info.bot_styles)]
        return RULES.bot_order(state, seat, style)

    return pick


@cache
def random_game(players: int, seed: int) -> Playthrough:
    return play(RULES, players, seed, random_picker(RULES, seed))


def test_h22_protocol_and_registry_shape() -> None:
    assert isinstance(RULES, GameRules)
    info = RULES.info
    assert (info.id, info.name, info.min_players, info.max_players, info.simultaneous) == (
        "heirs",
        "Heirs of the Axis",
        2,
        6,
        True,
    )
    assert len(info.bot_styles) >= 2


@SETTINGS
@given(players=st.integers(2, 6), seed=st.integers(0, 2**32))
def test_h22_replay_from_seed_and_orders_is_identical(players: int, seed: int) -> None:
    trace = random_game(players, seed % 50)
    state = RULES.setup(players, seed % 50, {})
    orders = iter(trace.orders)
    while RULES.outcome(state) is None:
        for seat in range(players):
            if RULES.prompt(state, seat) is not None:
                given_seat, order = next(orders)
                assert given_seat == seat
                state = RULES.submit(state, seat, order)
        if RULES.ready(state):
            state, _ = RULES.resolve(state)
    assert RULES.to_json(state) == RULES.to_json(trace.final)


@SETTINGS
@given(players=st.integers(2, 6), seed=st.integers(0, 49))
def test_h22_states_round_trip_through_json(players: int, seed: int) -> None:
    trace = random_game(players, seed)
    for state in [*trace.states[:: max(1, len(trace.states) // 12)], trace.final]:
        assert_json_round_trip(RULES, state)


def test_h22_public_functions_never_mutate_their_input() -> None:
    state = RULES.setup(4, 8, {"auto_setup": True})
    picker = bot_picker(RULES, "raider")
    for _ in range(4):
        for seat in range(4):
            before = dumps(RULES.to_json(state))
            order = picker(state, seat)
            RULES.view(state, seat)
            after_submit = RULES.submit(state, seat, order)
            assert dumps(RULES.to_json(state)) == before
            state = after_submit
        before = dumps(RULES.to_json(state))
        state, _ = RULES.resolve(state)
        assert RULES.outcome(state) is None


# -- H23 views -----------------------------------------------------------------------------


def scramble_secrets(state: HeirsState, seat: int, rng: Rng) -> HeirsState:
    """Change everything about ``seat`` that only ``seat`` may know."""
    st = clone_state(state)
    heir = st.heirs[seat]
    heir.soldiers += rng.between(1, 9)
    heir.people += rng.between(1, 9)
    heir.gold += rng.between(1, 9)
    heir.knowledge += rng.between(1, 9)
    heir.character = rng.choice(list(RULES.content.characters))
    heir.start_artifact = rng.choice(list(RULES.content.starting_artifacts))
    heir.backpack = rng.sample(list(RULES.content.comet_artifacts), rng.between(0, 3))
    heir.buildings = [rng.between(0, 3) for _ in heir.buildings]
    heir.abilities = [rng.between(0, 3) for _ in heir.abilities]
    heir.portraits = sorted(rng.below(st.players) for _ in range(rng.below(4)))
    heir.won_battles += rng.between(1, 3)
    heir.hand = ["spy", "mercenaries", "shadow_path"]
    heir.intel = [{"round": 1, "kind": "spy", "of": 0, "soldiers": 99}]
    if heir.order is not None:
        heir.order = {**heir.order, "recruit": 5, "build": "walls", "retreat": True}
    return st


@SETTINGS
@given(players=st.integers(2, 6), seed=st.integers(0, 49), pick=st.integers(0, 10**6))
def test_h23_secret_state_never_reaches_other_views(players: int, seed: int, pick: int) -> None:
    trace = random_game(players, seed)
    rng = Rng(pick)
    state = trace.states[rng.below(len(trace.states))]
    seat = rng.below(players)
    changed = scramble_secrets(state, seat, rng)
    assert dumps(RULES.view(changed, None)) == dumps(RULES.view(state, None))
    for other in range(players):
        if other != seat:
            assert dumps(RULES.view(changed, other)) == dumps(RULES.view(state, other))
            assert dumps(RULES.prompt(changed, other)) == dumps(RULES.prompt(state, other))


def test_h23_board_never_shows_private_numbers() -> None:
    trace = random_game(4, 3)
    for state in trace.states[::7]:
        board = dumps(RULES.view(state, None))
        for word in (
            "soldiers",
            "gold",
            "knowledge",
            "character",
            "backpack",
            "hand",
            "intel",
            "start_artifact",
            "sealed_order",
        ):
            if state.outcome is None:
                assert f'"{word}"' not in board
    public = [e for e in trace.events if e.audience is None]
    for event in public:
        assert event.kind not in ("battle_report", "skipped", "income", "pay", "hand", "intel")


# -- invariants (issue item 7) -------------------------------------------------------------


def check_invariants(trace: Playthrough) -> None:
    for state in trace.states:
        for heir in state.heirs:
            numbers = (heir.soldiers, heir.people, heir.gold, heir.knowledge)
            assert min(numbers) >= 0, numbers
            assert len(heir.backpack) <= 3
            if not heir.fallen:
                assert state.owner[state.capitals[heir.seat]] == heir.seat
    last_battle: dict | None = None
    last_kind = ""
    actions: Counter[tuple[int, str]] = Counter()
    fallen: set[int] = set()
    round_number = 0
    for event in trace.events:
        data = event.data
        if event.kind == "dawn":
            round_number = data["round"]
            actions = Counter()
        if event.kind == "battle":
            last_battle = data
        if event.kind in ("build", "learn", "recruit"):
            actions[(data["seat"], event.kind)] += 1
            assert actions[(data["seat"], event.kind)] == 1
        if event.kind == "sign":
            assert last_battle is not None
            assert {data["seat"], data["of"]} == {last_battle["attacker"], last_battle["dynasty"]}
            assert last_battle["defender"] is not None or last_kind == "plunder_gold"
        if event.kind == "fall":
            fallen.add(data["seat"])
        if event.kind == "step":
            assert data["seat"] not in fallen
        if "seat" in data and event.kind not in ("fall", "end"):
            assert data["seat"] not in fallen or event.kind == "intel", (event, round_number)
        last_kind = event.kind
    # Every Sign held was announced by a "sign" event.
    announced = {(e.data["seat"], e.data["of"]) for e in trace.events if e.kind == "sign"}
    for heir in trace.final.heirs:
        assert {(heir.seat, s) for s in heir.signs} <= announced


def check_axis_entries(trace: Playthrough) -> None:
    """Nobody entered the Axis without holding the Signs required before its round."""
    before_round: dict[int, HeirsState] = {}
    for state in trace.states:
        if state.phase == "orders" and all(h.order is None for h in state.heirs):
            before_round[state.round] = state
    for state in trace.states:
        for heir in state.heirs:
            if heir.entered_axis and not heir.fallen:
                earlier = before_round[heir.entered_axis]
                assert len(heir.signs) >= RULES.signs_required(earlier, earlier.heirs[heir.seat])


@SETTINGS
@given(players=st.integers(2, 6), seed=st.integers(0, 49))
def test_invariants_hold_in_random_games(players: int, seed: int) -> None:
    trace = random_game(players, seed)
    check_invariants(trace)
    check_axis_entries(trace)


@settings(max_examples=12, deadline=None, derandomize=True)
@given(players=st.integers(2, 6), seed=st.integers(0, 10**6))
def test_invariants_hold_in_bot_games(players: int, seed: int) -> None:
    trace = play(RULES, players, seed, mixed_bots(seed))
    check_invariants(trace)
    check_axis_entries(trace)


# -- bots (issue item 6) -------------------------------------------------------------------


def styled(*styles: str) -> Picker:
    return lambda state, seat: RULES.bot_order(state, seat, styles[seat % len(styles)])


def test_h19_1_bots_only_games_end_in_time_by_all_three_endings() -> None:
    endings: Counter[str] = Counter()
    for players in (2, 3, 4, 5, 6):
        for seed in range(6):
            trace = play(RULES, players, seed, mixed_bots(seed))
            outcome = RULES.outcome(trace.final)
            assert outcome is not None and outcome["round"] <= trace.final.rounds
            endings[outcome["reason"]] += 1
    # A warlord hunting an easy opponent is how Last survivor happens among bots.
    for seed in range(30):
        trace = play(RULES, 2, seed, styled("warlord", "novice"))
        endings[RULES.outcome(trace.final)["reason"]] += 1
    assert endings["throne"] and endings["council"] and endings["last_survivor"]


def test_bots_purposeful_expander_settles_raider_fights() -> None:
    settled: defaultdict[str, int] = defaultdict(int)
    battles: defaultdict[str, int] = defaultdict(int)
    for style in RULES.info.bot_styles:
        for seed in range(4):
            trace = play(RULES, 4, seed, bot_picker(RULES, style))
            settled[style] += sum(e.kind == "settle" for e in trace.events)
            battles[style] += sum(e.kind == "battle" for e in trace.events)
    assert settled["expander"] > 20
    assert battles["raider"] > battles["expander"]


def test_bot_order_is_deterministic_and_uses_the_prompt() -> None:
    state = RULES.setup(3, 5, {"auto_setup": True})
    first = RULES.bot_order(state, 0, "raider")
    assert json.dumps(first, sort_keys=True) == json.dumps(
        RULES.bot_order(state, 0, "raider"), sort_keys=True
    )
    RULES.submit(state, 0, first)

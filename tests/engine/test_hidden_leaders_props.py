"""Hidden Leaders Duel: property tests (L5, L7.2, L10.3, L11.4) over random and bot games."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core import Event, IllegalOrder, Rng, events_for
from engine.hidden_leaders import RULES, SLOTS, HLState, default_cards
from tests.engine.kit import assert_json_round_trip, bot_picker, dumps, play
from tests.engine.test_hidden_leaders import check_invariants

CARDS = default_cards()
HERO_IDS = [h.id for h in CARDS.heroes]
LEADER_IDS = [ld.id for ld in CARDS.leaders]

seeds = st.integers(min_value=0, max_value=2**64 - 1)


def publicly_seen(state: HLState) -> set[str]:
    """Cards whose ids the last action legitimately shows: face-up cards that were taken."""
    if state.last is None:
        return set()
    return {t.card for t in state.last.taken if t.card is not None}


def forbidden_ids(state: HLState, seat: int | None) -> set[str]:
    """Ids that must not appear in ``view(state, seat)`` while the game runs (L10.3)."""
    hidden: set[str] = set(state.pile) | set(state.set_aside)
    for slot in state.rows:
        if slot.hero is not None and not slot.face_up:
            hidden.add(slot.hero)
        if slot.blocker is not None and slot.blocker_owner != seat:
            hidden.add(slot.blocker)
    for other in (0, 1):
        if other != seat:
            hidden |= set(state.hands[other]) | set(state.councils[other])
            hidden.add(state.leaders[other])
    return hidden - publicly_seen(state)


def assert_no_leak(state: HLState, seat: int | None) -> None:
    view = RULES.view(state, seat)
    text = dumps(view)
    json.loads(text)  # JSON-ready
    for card in forbidden_ids(state, seat):
        assert f'"{card}"' not in text, (seat, card)
    for row in ("A", "B"):
        for slot, raw in zip(
            view["rows"][row], state.rows[0:7] if row == "A" else state.rows[7:], strict=True
        ):
            hero = slot["hero"]
            if hero is not None and not hero["face_up"]:
                assert set(hero) == {"faction", "face_up"}  # never a strength
                assert hero["faction"] == CARDS.faction(raw.hero or "")
            blocker = slot["blocker"]
            if blocker is not None and raw.blocker_owner != seat:
                assert "strength" not in blocker and "card" not in blocker


def assert_events_leak_nothing(after: HLState, events: list[Event]) -> None:
    """While the game runs, no seat's events (nor the board's) name a card hidden from it."""
    if after.over:
        return
    for seat in (None, 0, 1):
        text = dumps(events_for(events, seat))
        for card in forbidden_ids(after, seat):
            assert f'"{card}"' not in text, (seat, card)


def walk(seed: int, picker_seed: int) -> tuple[list[HLState], list[list[Event]]]:
    """A random legal game, checking every promise at every step."""
    rng = Rng.from_seed(picker_seed)
    state = RULES.setup(2, seed, {})
    states = [state]
    batches: list[list[Event]] = []
    for _ in range(100):
        if RULES.outcome(state) is not None:
            return states, batches
        acting = [s for s in (0, 1) if RULES.prompt(state, s) is not None]
        assert acting == [state.active]
        order = RULES.random_order(state, acting[0], rng)
        state = RULES.submit(state, acting[0], order)
        assert RULES.ready(state)
        state, events = RULES.resolve(state)
        assert_events_leak_nothing(state, events)
        batches.append(events)
        states.append(state)
    raise AssertionError("random game did not end")


@settings(max_examples=40, deadline=None)
@given(seed=seeds, picker_seed=seeds)
def test_l5_l7_2_random_play_ends_after_7_turns_each_with_invariants(
    seed: int, picker_seed: int
) -> None:
    states, batches = walk(seed, picker_seed)
    final = states[-1]
    assert final.over and final.turn == 14
    outcome = RULES.outcome(final)
    assert outcome is not None and outcome["result"] in ("A", "B", "REMATCH")
    takes = [b[0].data["seat"] for b in batches if b[0].kind == "take"]
    assert takes == [final.first_player, 1 - final.first_player] * 7
    for state in states:
        check_invariants(state)
        assert_json_round_trip(RULES, state)
    assert [e.kind for e in batches[-1][-6:]] == ["reveal", *["score_faction"] * 4, "result"]


@settings(max_examples=20, deadline=None)
@given(seed=seeds, picker_seed=seeds)
def test_l10_3_views_never_leak_hidden_cards(seed: int, picker_seed: int) -> None:
    states, _ = walk(seed, picker_seed)
    for state in states[:-1]:
        for seat in (None, 0, 1):
            assert_no_leak(state, seat)
    final = dumps(RULES.view(states[-1], None))
    for card in HERO_IDS:  # L10.4: all revealed at the end (heroes in rows and councils)
        assert f'"{card}"' in final
    assert all(f'"{leader}"' in final for leader in states[-1].leaders)


@settings(max_examples=30, deadline=None)
@given(seed=seeds, picker_seed=seeds)
def test_l11_4_bot_order_is_always_legal(seed: int, picker_seed: int) -> None:
    states, _ = walk(seed, picker_seed)
    for state in states[:-1]:
        seat = state.active
        order = RULES.bot_order(state, seat)
        assert order == RULES.bot_order(state, seat)  # deterministic
        after = RULES.submit(state, seat, order)
        if order["type"] == "place":
            assert order["placement"]["to"] == "council"  # L11.3
        RULES.resolve(after)


@settings(max_examples=25, deadline=None)
@given(seed=seeds, first=st.sampled_from([None, 0, 1]))
def test_l11_bots_vs_bots_always_end(seed: int, first: int | None) -> None:
    options = {} if first is None else {"first_player": first}
    trace = play(RULES, 2, seed, bot_picker(RULES), options=options)
    final = trace.final
    check_invariants(final)
    assert RULES.outcome(final) is not None
    if first is not None:
        assert final.first_player == first
    assert all(slot.blocker is None for slot in final.rows)


# -- fuzzing orders ------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=12,
)
vocab = st.sampled_from(
    [*SLOTS, *HERO_IDS[:6], "LIA4", "C9", "", "take", "place", "council", "block", "IA3a"]
)
words = vocab | json_values
near_orders = st.fixed_dictionaries(
    {
        "type": st.sampled_from(["take", "place", "grab"]) | words,
    },
    optional={
        "slots": st.lists(words, max_size=3) | words,
        "returns": st.dictionaries(vocab, words, max_size=3) | words,
        "placement": st.fixed_dictionaries(
            {},
            optional={
                "to": st.sampled_from(["council", "block"]) | words,
                "card": words,
                "slot": words,
            },
        )
        | words,
        "extra": words,
    },
)


@cache
def sample_states() -> tuple[HLState, ...]:
    """Running positions (TAKE and RETURN+PLACE steps, turns 1–14) of a few random games."""
    out: list[HLState] = []
    for seed in range(4):
        states, _ = walk(seed, seed + 100)
        out.extend(s for s in states if not s.over)
    return tuple(out)


@settings(max_examples=150, deadline=None)
@given(
    index=st.integers(min_value=0, max_value=10_000),
    order=json_values | near_orders,
    seat=st.sampled_from([0, 1]),
)
def test_l3_5_malformed_orders_only_raise_illegal_order(index: int, order: Any, seat: int) -> None:
    states = sample_states()
    state = states[index % len(states)]
    try:
        after = RULES.submit(state, seat, order)
    except IllegalOrder as err:
        assert err.message and isinstance(err.code, str)
        return
    new, _ = RULES.resolve(after)  # an accepted order is fully playable
    check_invariants(new)


MUTATIONS = (
    "type",
    "slots_entry",
    "slots_append",
    "slots_drop",
    "returns_value",
    "returns_key",
    "placement_to",
    "placement_card",
    "placement_slot",
    "drop_placement_field",
)


def mutate(order: dict[str, Any], how: str, value: Any) -> dict[str, Any]:
    order = json.loads(json.dumps(order))
    if how == "type":
        order["type"] = value
    elif order["type"] == "take":
        slots = order["slots"]
        if how == "slots_entry":
            slots[0] = value
        elif how == "slots_append":
            slots.append(value)
        else:
            slots.pop()
    else:
        returns, placement = order["returns"], order["placement"]
        first = next(iter(returns))
        if how == "returns_value":
            returns[first] = value
        elif how == "returns_key" and isinstance(value, str):
            returns[value] = returns.pop(first)
        elif how.startswith("placement_"):
            placement[how.removeprefix("placement_")] = value
        elif how == "drop_placement_field":
            placement.pop("card")
    return order


@settings(max_examples=150, deadline=None)
@given(
    index=st.integers(min_value=0, max_value=10_000),
    how=st.sampled_from(MUTATIONS),
    value=words,
)
def test_l3_5_mutated_legal_orders_are_refused_cleanly_or_played(
    index: int, how: str, value: Any
) -> None:
    states = sample_states()
    state = states[index % len(states)]
    seat = state.active
    order = mutate(RULES.random_order(state, seat, Rng(index)), how, value)
    try:
        after = RULES.submit(state, seat, order)
    except IllegalOrder as err:
        assert err.message and isinstance(err.code, str)
        return
    new, _ = RULES.resolve(after)
    check_invariants(new)

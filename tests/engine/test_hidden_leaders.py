"""Hidden Leaders Duel: rules L1–L11 (shared/rules/hidden-leaders-duel.md), one test per rule."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import pytest

from engine.core import Event, GameRules, IllegalOrder, NotYourTurn, Rng, events_for
from engine.hidden_leaders import (
    MAJORITY,
    RULES,
    SLOTS,
    TIE_BOTH,
    TIE_COUNT,
    TIE_INFLUENCE,
    HLState,
    Slot,
    bot_order_from_view,
    default_cards,
    final_state,
    parse_row,
    score_position,
)
from engine.registry import get_rules
from tests.engine.kit import (
    assert_json_round_trip,
    bot_picker,
    dumps,
    play,
    random_picker,
)

CARDS = default_cards()
ALL_HEROES = sorted(h.id for h in CARDS.heroes)
ALL_LEADERS = sorted(ld.id for ld in CARDS.leaders)


# --------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------


def check_invariants(state: HLState) -> None:
    """L7.2 at any point of the game (mid-turn too)."""
    slot_heroes = [s.hero for s in state.rows if s.hero is not None]
    blockers = [s.blocker for s in state.rows if s.blocker is not None]
    council_heroes = [c for council in state.councils for c in council]
    hands = [c for hand in state.hands for c in hand]
    everything = slot_heroes + blockers + council_heroes + hands + list(state.pile)
    assert sorted(everything) == ALL_HEROES  # conserved, none twice
    assert len(slot_heroes) + len(state.open_slots) == 14
    assert len(blockers) + len(council_heroes) == state.turns_played()
    assert all(len(h) <= 5 for h in state.hands)
    assert sorted((*state.leaders, *state.set_aside)) == ALL_LEADERS
    if state.step in ("take", "over"):
        assert len(slot_heroes) == 14
        assert all(len(h) <= 3 for h in state.hands)
    for slot in state.rows:
        assert (slot.blocker is None) == (slot.blocker_owner is None)
    if state.over:
        assert state.hands == ((), ()) and state.pile == ()
        assert state.placements(0) == state.placements(1) == 7


def take(state: HLState, seat: int, *slots: str) -> tuple[HLState, list[Event]]:
    state = RULES.submit(state, seat, {"type": "take", "slots": list(slots)})
    assert RULES.ready(state)
    return RULES.resolve(state)


def place(
    state: HLState, seat: int, returns: Mapping[str, str], placement: Mapping[str, Any]
) -> tuple[HLState, list[Event]]:
    order = {"type": "place", "returns": dict(returns), "placement": dict(placement)}
    state = RULES.submit(state, seat, order)
    assert RULES.ready(state)
    return RULES.resolve(state)


def kinds(events: list[Event]) -> list[str]:
    return [e.kind for e in events]


def row_factions(view: Mapping[str, Any], row: str) -> list[str]:
    return [slot["hero"]["faction"] for slot in view["rows"][row]]


def row_faces(view: Mapping[str, Any], row: str) -> list[str]:
    """``WF1↑`` for a face-up card, ``HT↓`` for a face-down one (the L9 notation)."""
    out = []
    for slot in view["rows"][row]:
        hero = slot["hero"]
        out.append(f"{hero['card']}↑" if hero["face_up"] else f"{hero['faction']}↓")
    return out


def l9_state() -> HLState:
    """The fixed setup of L9, built directly."""
    row_a = ["IA3a", "HT3b", "WF2b", "UD4", "IA1", "HT1", "WF5"]
    row_b = ["UD3a", "IA2a", "HT4", "WF3a", "UD1", "IA3b", "HT2b"]
    leaders = ("LIA4", "LWF3")
    state = HLState(
        rows=tuple(Slot(hero=c, face_up=False) for c in row_a + row_b),
        hands=(("HT5", "WF1", "UD2a"), ("IA5", "HT2a", "WF4")),
        councils=((), ()),
        leaders=leaders,
        set_aside=tuple(x for x in ALL_LEADERS if x not in leaders),
        pile=("WF2a", "UD5", "IA4", "HT3a", "UD3b", "IA2b", "WF3b", "UD2b"),
        first_player=0,
    )
    check_invariants(state)
    return state


def last_turn_state(blocker_owner: tuple[int, ...]) -> HLState:
    """Global turn 14 after 13 blocks: only B7 is takeable (L3.1 [DECIDED])."""
    heroes = [h.id for h in CARDS.heroes]
    rows = [Slot(hero=heroes[i], face_up=True) for i in range(14)]
    for i in range(13):
        rows[i] = replace(rows[i], blocker=heroes[14 + i], blocker_owner=blocker_owner[i])
    return HLState(
        rows=tuple(rows),
        hands=((), (heroes[27],)),
        councils=((), ()),
        leaders=("LIA3", "LUD4"),
        set_aside=tuple(x for x in ALL_LEADERS if x not in ("LIA3", "LUD4")),
        pile=(),
        first_player=0,
        turn=14,
    )


# --------------------------------------------------------------------------------------------
# protocol, L1 components
# --------------------------------------------------------------------------------------------


def test_rules_object_implements_protocol_and_is_registered() -> None:
    assert isinstance(RULES, GameRules)
    assert get_rules("hidden_leaders") is RULES
    assert RULES.info.id == "hidden_leaders"
    assert RULES.info.name == "Hidden Leaders Duel"
    assert (RULES.info.min_players, RULES.info.max_players) == (2, 2)
    assert RULES.info.simultaneous is False


def test_l1_1_faction_table() -> None:
    table = CARDS.factions_json()
    assert [f["id"] for f in table] == ["IA", "HT", "WF", "UD"]
    assert [f["colour"] for f in table] == ["red", "green", "blue", "black"]
    # Views carry ids, never names (issue 16.3): screens name a faction in their language.
    assert all(set(f) == {"id", "colour"} for f in table)
    assert [f.name for f in CARDS.factions] == [
        "Imperial Army",
        "Hill Tribes",
        "Water Folk",
        "Undead",
    ]


def test_l1_2_twenty_eight_heroes_seven_per_faction() -> None:
    assert len(CARDS.heroes) == 28
    for fac in ("IA", "HT", "WF", "UD"):
        mine = [h for h in CARDS.heroes if h.faction == fac]
        assert sorted(h.strength for h in mine) == [1, 2, 2, 3, 3, 4, 5]
        assert [h.id for h in mine] == [
            f"{fac}1",
            f"{fac}2a",
            f"{fac}2b",
            f"{fac}3a",
            f"{fac}3b",
            f"{fac}4",
            f"{fac}5",
        ]
    assert sum(h.strength for h in CARDS.heroes) == 80
    # L11 id order: faction, strength, letter.
    assert CARDS.rank("IA5") < CARDS.rank("HT1") and CARDS.rank("HT2a") < CARDS.rank("HT2b")


def test_l1_3_eight_leaders_two_per_faction() -> None:
    assert [(ld.id, ld.faction, ld.value) for ld in CARDS.leaders] == [
        ("LIA3", "IA", 3),
        ("LIA4", "IA", 4),
        ("LHT3", "HT", 3),
        ("LHT4", "HT", 4),
        ("LWF3", "WF", 3),
        ("LWF4", "WF", 4),
        ("LUD3", "UD", 3),
        ("LUD4", "UD", 4),
    ]


# --------------------------------------------------------------------------------------------
# L2 setup
# --------------------------------------------------------------------------------------------


def test_l2_1_seat_0_is_player_a_with_row_a() -> None:
    state = RULES.setup(2, 5, {})
    assert RULES.view(state, 0)["me"]["row"] == "A"
    assert RULES.view(state, 1)["me"]["row"] == "B"
    assert [s["slot"] for s in RULES.view(state, None)["rows"]["A"]] == [
        f"A{i}" for i in range(1, 8)
    ]


def test_l2_3_deal_order_follows_the_shuffled_decks() -> None:
    seed = 1234
    state = RULES.setup(2, seed, {"first_player": 1})
    rng = Rng.from_seed(seed)
    heroes = rng.shuffled(h.id for h in CARDS.heroes)
    leaders = rng.shuffled(ld.id for ld in CARDS.leaders)
    assert state.hands == (tuple(heroes[0:3]), tuple(heroes[3:6]))
    assert [s.hero for s in state.rows[:7]] == heroes[6:13]
    assert [s.hero for s in state.rows[7:]] == heroes[13:20]
    assert list(state.pile) == heroes[20:]  # the first of them on top
    assert state.leaders == (leaders[0], leaders[1])
    assert list(state.set_aside) == leaders[2:]
    assert state.councils == ((), ())
    assert all(not s.face_up and s.blocker is None for s in state.rows)
    assert (state.turn, state.step, state.first_player) == (1, "take", 1)
    check_invariants(state)


def test_l2_4_first_player_option_and_random_first_player() -> None:
    for first in (0, 1):
        state = RULES.setup(2, 7, {"first_player": first})
        assert state.first_player == first and state.active == first
        assert RULES.prompt(state, first) is not None and RULES.prompt(state, 1 - first) is None
    picked = {RULES.setup(2, seed, {}).first_player for seed in range(20)}
    assert picked == {0, 1}
    assert RULES.setup(2, 99, {}).first_player == RULES.setup(2, 99, {}).first_player


@pytest.mark.parametrize(
    ("seats", "options"),
    [
        (1, {}),
        (3, {}),
        (2, {"first_player": 2}),
        (2, {"first_player": "0"}),
        (2, {"first_player": True}),
        (2, {"colour": "red"}),
    ],
)
def test_l2_setup_rejects_bad_seats_and_options(seats: int, options: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        RULES.setup(seats, 1, options)


# --------------------------------------------------------------------------------------------
# L3 a turn
# --------------------------------------------------------------------------------------------


def test_l3_1_take_two_heroes_into_the_hand() -> None:
    state = l9_state()
    assert RULES.prompt(state, 0) == {
        "kind": "take",
        "count": 2,
        "takeable": list(SLOTS),
        "turn": 1,
        "own_turn": 1,
    }
    state, events = take(state, 0, "A1", "B3")
    assert state.hands[0] == ("HT5", "WF1", "UD2a", "IA3a", "HT4")
    assert state.open_slots == ("A1", "B3") and state.step == "place"
    assert kinds(events) == ["take", "took"]
    check_invariants(state)


def test_l3_1_only_one_takeable_hero() -> None:
    owners = tuple([0] * 7 + [1] * 6)
    state = last_turn_state(owners)
    check_invariants(state)
    assert state.active == 1
    prompt = RULES.prompt(state, 1)
    assert prompt is not None and prompt["count"] == 1 and prompt["takeable"] == ["B7"]
    with pytest.raises(IllegalOrder, match="Only 1 hero can be taken") as err:
        RULES.submit(state, 1, {"type": "take", "slots": ["B7", "B6"]})
    assert err.value.code == "wrong_count"
    state, _ = take(state, 1, "B7")
    prompt = RULES.prompt(state, 1)
    assert (
        prompt is not None and prompt["open_slots"] == ["B7"] and prompt["block_targets"] == ["B7"]
    )
    hand = state.hands[1]
    state, events = place(state, 1, {"B7": hand[0]}, {"to": "block", "card": hand[1], "slot": "B7"})
    assert state.over and RULES.outcome(state) is not None
    check_invariants(state)
    assert sum(1 for s in state.rows if s.blocker) == 14
    assert kinds(events)[-6:] == ["reveal", *["score_faction"] * 4, "result"]


def test_l3_2_return_fills_exactly_the_opened_slots_face_up() -> None:
    state, _ = take(l9_state(), 0, "A1", "B3")
    with pytest.raises(IllegalOrder, match="A2 is not one of the slots you opened") as err:
        place(state, 0, {"A1": "WF1", "A2": "UD2a"}, {"to": "council", "card": "IA3a"})
    assert err.value.code == "wrong_slots"
    with pytest.raises(IllegalOrder, match="missing: B3"):
        place(state, 0, {"A1": "WF1"}, {"to": "council", "card": "IA3a"})
    # The just-taken cards may go straight back, crossing rows, and come back face up.
    state, _ = place(state, 0, {"A1": "HT4", "B3": "IA3a"}, {"to": "council", "card": "WF1"})
    assert state.slot("A1") == Slot(hero="HT4", face_up=True)
    assert state.slot("B3") == Slot(hero="IA3a", face_up=True)
    check_invariants(state)


def test_l3_3_place_into_own_council() -> None:
    state, _ = take(l9_state(), 0, "A1", "B3")
    state, events = place(state, 0, {"A1": "WF1", "B3": "UD2a"}, {"to": "council", "card": "IA3a"})
    assert state.councils == (("IA3a",), ())
    assert RULES.view(state, 0)["me"]["influence"]["IA"] == 7
    place_event = next(e for e in events if e.kind == "place")
    assert place_event.audience is None
    assert place_event.data["placement"] == {"to": "council"}
    placed = next(e for e in events if e.kind == "placed")
    assert placed.audience == (0,) and placed.data["card"] == "IA3a"


def test_l3_3a_block_with_a_just_taken_card_on_a_just_returned_slot() -> None:
    state, _ = take(l9_state(), 0, "A1", "B3")
    state, _ = place(
        state, 0, {"A1": "WF1", "B3": "UD2a"}, {"to": "block", "card": "HT4", "slot": "A1"}
    )
    assert state.slot("A1") == Slot(hero="WF1", face_up=True, blocker="HT4", blocker_owner=0)
    check_invariants(state)


def test_l3_4_draw_from_the_top_then_no_draw_once_the_pile_is_empty() -> None:
    state, _ = take(l9_state(), 0, "A1", "B3")
    state, events = place(state, 0, {"A1": "WF1", "B3": "UD2a"}, {"to": "council", "card": "IA3a"})
    public_draw = next(e for e in events if e.kind == "draw")
    assert public_draw.audience is None and public_draw.data["drew"] is True
    assert "WF2a" not in dumps(public_draw.data)
    private = next(e for e in events if e.kind == "drew")
    assert private.audience == (0,) and private.data == {"seat": 0, "card": "WF2a"}
    assert state.hands[0][-1] == "WF2a" and len(state.pile) == 7
    # Empty pile: no draw, and the public text says so (L3.4, L10.2).
    # Move the pile into B's council so that every card stays somewhere (L7.2).
    empty = replace(state, pile=(), councils=(state.councils[0], state.pile))
    empty, _ = take(empty, 1, "A2", "A3")
    hand = empty.hands[1]
    empty, events = place(
        empty, 1, {"A2": hand[0], "A3": hand[1]}, {"to": "council", "card": hand[2]}
    )
    draw = next(e for e in events if e.kind == "draw")
    # Data, no English: the screens say "no draw (pile empty)" in the viewer's language.
    assert draw.data == {"seat": 1, "drew": False, "pile": 0}
    assert "drew" not in kinds(events)
    assert RULES.view(empty, None)["last_action"]["drew"] is False


def test_l3_5_two_orders_take_cannot_be_undone() -> None:
    state = l9_state()
    with pytest.raises(IllegalOrder, match='send a "take" order') as err:
        RULES.submit(
            state,
            0,
            {"type": "place", "returns": {}, "placement": {"to": "council", "card": "HT5"}},
        )
    assert err.value.code == "wrong_step"
    submitted = RULES.submit(state, 0, {"type": "take", "slots": ["A1", "A2"]})
    assert RULES.prompt(submitted, 0) is None  # decided; waiting for the resolution
    with pytest.raises(NotYourTurn):
        RULES.submit(submitted, 0, {"type": "take", "slots": ["A3", "A4"]})
    state, _ = RULES.resolve(submitted)
    with pytest.raises(IllegalOrder, match="already taken") as err:
        RULES.submit(state, 0, {"type": "take", "slots": ["A3", "A4"]})
    assert err.value.code == "wrong_step"
    # The taken cards are shown to the taker only (private event), with their strengths.
    view = RULES.view(state, 0)
    assert view["me"]["taken"] == ["IA3a", "HT3b"]
    assert {"card": "IA3a", "faction": "IA", "strength": 3} in view["me"]["hand"]


# --------------------------------------------------------------------------------------------
# L4 blocking
# --------------------------------------------------------------------------------------------


def _after_l9_turn_3() -> HLState:
    state = l9_state()
    state, _ = take(state, 0, "A1", "B3")
    state, _ = place(state, 0, {"A1": "WF1", "B3": "UD2a"}, {"to": "council", "card": "IA3a"})
    state, _ = take(state, 1, "A7", "A4")
    state, _ = place(state, 1, {"A4": "HT2a", "A7": "UD4"}, {"to": "council", "card": "WF5"})
    state, _ = take(state, 0, "A7", "B6")
    state, _ = place(
        state, 0, {"A7": "WF2a", "B6": "UD4"}, {"to": "block", "card": "HT4", "slot": "B2"}
    )
    return state


def test_l4_2_blocked_and_blocking_heroes_cannot_be_taken() -> None:
    state = _after_l9_turn_3()
    prompt = RULES.prompt(state, 1)
    assert prompt is not None and "B2" not in prompt["takeable"] and len(prompt["takeable"]) == 13
    with pytest.raises(IllegalOrder, match="B2 is blocked") as err:
        RULES.submit(state, 1, {"type": "take", "slots": ["B2", "A1"]})
    assert err.value.code == "blocked"


def test_l4_2_a_blocked_hero_keeps_its_face_state() -> None:
    state = _after_l9_turn_3()
    assert state.slot("B2") == Slot(hero="IA2a", face_up=False, blocker="HT4", blocker_owner=0)
    board = RULES.view(state, None)
    assert board["rows"]["B"][1]["hero"] == {"faction": "IA", "face_up": False}


def test_l4_3_cannot_block_a_blocking_hero() -> None:
    state = _after_l9_turn_3()
    state, _ = take(state, 1, "A1", "A2")
    prompt = RULES.prompt(state, 1)
    assert prompt is not None and "B2" not in prompt["block_targets"]
    assert set(prompt["block_targets"]) == set(SLOTS) - {"B2"}
    hand = state.hands[1]
    with pytest.raises(IllegalOrder, match="B2 already has a blocking hero") as err:
        place(
            state,
            1,
            {"A1": hand[0], "A2": hand[1]},
            {"to": "block", "card": hand[2], "slot": "B2"},
        )
    assert err.value.code == "already_blocked"


def test_l4_4_a_stack_shows_both_factions_and_no_hidden_strength() -> None:
    state = _after_l9_turn_3()
    b2_board = RULES.view(state, None)["rows"]["B"][1]
    assert b2_board["blocker"] == {"faction": "HT", "face_up": False, "owner": 0}
    b2_opponent = RULES.view(state, 1)["rows"]["B"][1]
    assert b2_opponent["blocker"] == {"faction": "HT", "face_up": False, "owner": 0}
    b2_owner = RULES.view(state, 0)["rows"]["B"][1]
    assert b2_owner["blocker"] == {
        "faction": "HT",
        "face_up": False,
        "owner": 0,
        "card": "HT4",
        "strength": 4,
        "own": True,
    }


def test_l4_5_stack_cards_count_and_go_under_their_own_factions() -> None:
    # E2: A2 HT2b+UD2a splits (HT2b to A, UD2a to B); so does B1 WF2a+IA3a.
    state = final_state(**E2_POSITION)
    score = RULES.score(state)
    assert "HT2b" in score.armies[0] and "UD2a" in score.armies[1]
    assert "WF2a" in score.armies[0] and "IA3a" in score.armies[1]
    view = RULES.view(state, None)
    assert view["faction_counts"]["A"] == {"IA": 1, "HT": 2, "WF": 2, "UD": 3}
    assert view["faction_counts"]["B"] == {"IA": 3, "HT": 1, "WF": 3, "UD": 1}


# --------------------------------------------------------------------------------------------
# L5 turn order and game end
# --------------------------------------------------------------------------------------------


def test_l5_1_players_alternate_for_14_turns_no_passing() -> None:
    trace = play(RULES, 2, 31, bot_picker(RULES), options={"first_player": 1})
    takers = [seat for seat, order in trace.orders if order["type"] == "take"]
    assert takers == [1, 0] * 7
    assert len(trace.orders) == 28
    final = trace.final
    assert final.over and final.turn == 14


def test_l5_2_hand_and_pile_arithmetic_table() -> None:
    hand_at_start = {1: 3, 2: 3, 3: 3, 4: 3, 5: 3, 6: 2, 7: 1}
    pile_after = {0: [7, 5, 3, 1, 0, 0, 0], 1: [6, 4, 2, 0, 0, 0, 0]}  # 1st / 2nd player
    trace = play(RULES, 2, 8, random_picker(RULES, 3), options={"first_player": 0})
    for state in trace.states:
        if state.step == "take" and state.pending is None and not state.over:
            assert len(state.hands[state.active]) == hand_at_start[state.own_turn]
        check_invariants(state)
    ends = [s for s in trace.states if s.pending is None and (s.step == "take" or s.over)]
    piles = [len(s.pile) for s in ends[1:]]  # after global turns 1..14
    assert piles[0::2] == pile_after[0] and piles[1::2] == pile_after[1]


def test_l5_3_game_ends_after_turn_14_with_empty_hands() -> None:
    trace = play(RULES, 2, 77, random_picker(RULES, 77))
    final = trace.final
    assert final.over and final.hands == ((), ()) and final.pile == ()
    assert sum(1 for s in final.rows if s.hero) == 14
    assert final.placements(0) == final.placements(1) == 7
    assert RULES.prompt(final, 0) is None and RULES.prompt(final, 1) is None
    assert not RULES.ready(final)
    with pytest.raises(NotYourTurn):
        RULES.submit(final, 0, {"type": "take", "slots": ["A1", "A2"]})


# --------------------------------------------------------------------------------------------
# L6 scoring and L8 worked examples
# --------------------------------------------------------------------------------------------

E1_POSITION: dict[str, Any] = {
    "leaders": ("LIA4", "LHT3"),
    "councils": (
        ("IA5", "IA2a", "WF4", "WF1", "HT2a", "HT1"),
        ("HT5", "HT4", "WF3a", "WF2a", "UD3a", "IA1"),
    ),
    "row_a": "A1 IA4 · A2 HT3a · A3 UD5+IA3a · A4 WF2b · A5 HT3b · A6 UD1+UD2b · A7 UD2a",
    "row_b": "B1 IA3b · B2 WF5 · B3 HT2b · B4 UD4 · B5 IA2b · B6 WF3b · B7 UD3b",
    "block_owners": {"A3": 0, "A6": 1},
}
E2_POSITION: dict[str, Any] = {
    "leaders": ("LWF4", "LUD3"),
    "councils": (
        ("WF3a", "HT5", "HT1", "IA2a", "UD1"),
        ("UD5", "UD4", "HT3a", "HT2a", "IA4", "IA1", "WF1"),
    ),
    "row_a": "A1 IA5 · A2 HT2b+UD2a · A3 WF5 · A4 UD3a · A5 HT3b · A6 WF4 · A7 UD2b",
    "row_b": "B1 WF2a+IA3a · B2 IA2b · B3 HT4 · B4 WF2b · B5 UD3b · B6 IA3b · B7 WF3b",
    "block_owners": {"A2": 0, "B1": 0},
}
E3_POSITION: dict[str, Any] = {
    "leaders": ("LWF3", "LIA3"),
    "councils": (
        ("UD5", "UD2b", "IA5", "IA1", "HT5", "WF1"),
        ("UD4", "UD3a", "IA4", "HT3b", "HT2b", "WF2b", "WF3b"),
    ),
    "row_a": "A1 IA3a · A2 HT4+UD1 · A3 WF5 · A4 UD2a · A5 IA2a · A6 HT1 · A7 WF2a",
    "row_b": "B1 WF4 · B2 IA3b · B3 HT3a · B4 UD3b · B5 WF3a · B6 HT2a · B7 IA2b",
    "block_owners": {"A2": 0},
}
E4_POSITION: dict[str, Any] = {
    "leaders": ("LHT3", "LIA4"),
    "councils": (
        ("IA5", "HT2b", "WF1", "UD5", "UD1", "IA1", "WF3b"),
        ("IA4", "HT5", "HT3b", "WF2b", "UD3a", "UD3b", "UD4"),
    ),
    "row_a": "IA3a · HT4 · WF5 · UD2a · IA2a · HT1 · WF2a",
    "row_b": "WF4 · IA3b · HT3a · UD2b · WF3a · HT2a · IA2b",
    "block_owners": {},
}
E5_POSITION: dict[str, Any] = {
    "leaders": ("LHT4", "LIA3"),
    "councils": (
        ("IA5", "IA4", "WF5", "WF3a", "WF1", "IA2a", "IA1"),
        ("IA3a", "WF4", "WF2a", "HT1", "HT2a"),
    ),
    "row_a": "A1 IA2b · A2 UD1 · A3 HT2b · A4 UD4 · A5 IA3b · A6 WF2b · A7 UD2a",
    "row_b": "B1 HT3a · B2 UD5 · B3 HT3b+HT4 · B4 UD3a · B5 HT5 · B6 WF3b · B7 UD2b+UD3b",
    "block_owners": {"B3": 1, "B7": 1},
}

# (faction, infl A, infl B, n A, n B, outcome, A gets, sum, B gets, sum, discarded)
Row = tuple[str, int, int, int, int, str, set[str], int, set[str], int, set[str]]


def check_example(position: dict[str, Any], table: list[Row]) -> HLState:
    state = final_state(**position)
    check_invariants(state)
    score = score_position(
        position["leaders"],
        position["councils"],
        (*parse_row(position["row_a"]), *parse_row(position["row_b"])),
    )
    assert score == RULES.score(state)
    assert [s.faction for s in score.steps] == ["IA", "HT", "WF", "UD"]
    for fac, inf_a, inf_b, n_a, n_b, outcome, to_a, sum_a, to_b, sum_b, gone in table:
        step = score.step(fac)
        assert step.influence == (inf_a, inf_b), fac
        assert step.counts == (n_a, n_b), fac
        assert step.outcome == outcome, fac
        assert set(step.to_a) == to_a and len(step.to_a) == len(to_a), fac
        assert set(step.to_b) == to_b and len(step.to_b) == len(to_b), fac
        assert sum(CARDS.strength(c) for c in step.to_a) == sum_a, fac
        assert sum(CARDS.strength(c) for c in step.to_b) == sum_b, fac
        assert set(step.discarded) == gone, fac
    return state


def test_l8_e1_blocking_hero_makes_count_tie() -> None:
    state = check_example(
        E1_POSITION,
        [
            ("IA", 11, 1, 2, 2, TIE_COUNT, {"IA4", "IA3a"}, 7, {"IA3b", "IA2b"}, 5, set()),
            ("HT", 3, 12, 2, 1, MAJORITY, {"HT2b"}, 2, {"HT3a", "HT3b"}, 6, set()),
            ("WF", 5, 5, 1, 2, TIE_INFLUENCE, {"WF2b"}, 2, {"WF5", "WF3b"}, 8, set()),
            (
                "UD",
                0,
                3,
                4,
                2,
                MAJORITY,
                set(),
                0,
                {"UD5", "UD1", "UD2a", "UD2b"},
                10,
                {"UD4", "UD3b"},
            ),
        ],
    )
    score = RULES.score(state)
    ht, ud = score.step("HT"), score.step("UD")
    assert (ht.influence_winner, ht.big_row) == (1, 0)  # B takes Row A
    assert (ud.influence_winner, ud.big_row) == (1, 0)
    assert ud.presence == (False, True)
    assert score.step("IA").rows[0] == ("IA4", "IA3a")  # the blocking IA3a counts in Row A
    assert set(score.armies[0]) == {"IA4", "IA3a", "HT2b", "WF2b"}
    assert (score.strength, score.heroes) == ((11, 29), (4, 10))
    assert RULES.outcome(state) == {
        "result": "B",
        "winner": 1,
        "strength": [11, 29],
        "heroes": [4, 10],
        "first_player": 0,
        "turns": 14,
        "end": "strength",
        "reason": "B wins on army strength, 29 to 11.",
    }
    # Without the blocking hero, A would take Row B on IA (the note under E1).
    unblocked = replace(state, rows=tuple(replace(s, blocker=None) for s in state.rows))
    ia = RULES.score(unblocked).step("IA")
    assert ia.outcome == MAJORITY and ia.to_a == ("IA3b", "IA2b")


def test_l8_e2_plain_majorities_stacks_split_weaker_row() -> None:
    state = check_example(
        E2_POSITION,
        [
            ("IA", 2, 5, 1, 3, MAJORITY, {"IA5"}, 5, {"IA2b", "IA3b", "IA3a"}, 8, set()),
            ("HT", 6, 5, 2, 1, MAJORITY, {"HT2b", "HT3b"}, 5, {"HT4"}, 4, set()),
            ("WF", 7, 1, 2, 3, MAJORITY, {"WF2a", "WF2b", "WF3b"}, 7, {"WF5", "WF4"}, 9, set()),
            ("UD", 1, 12, 3, 1, MAJORITY, {"UD3b"}, 3, {"UD3a", "UD2b", "UD2a"}, 7, set()),
        ],
    )
    score = RULES.score(state)
    wins = [(s.faction, s.influence_winner, s.big_row) for s in score.steps]
    assert wins == [("IA", 1, 1), ("HT", 0, 0), ("WF", 0, 1), ("UD", 1, 0)]
    assert (score.strength, score.heroes) == ((20, 28), (7, 9))
    outcome = RULES.outcome(state)
    assert outcome is not None and (outcome["result"], outcome["winner"]) == ("B", 1)


def test_l8_e3_strength_tie_decided_by_hero_count() -> None:
    state = check_example(
        E3_POSITION,
        [
            ("IA", 6, 7, 2, 2, TIE_COUNT, {"IA3a", "IA2a"}, 5, {"IA3b", "IA2b"}, 5, set()),
            ("HT", 5, 5, 2, 2, TIE_BOTH, {"HT4", "HT1"}, 5, {"HT3a", "HT2a"}, 5, set()),
            ("WF", 4, 5, 2, 2, TIE_COUNT, {"WF5", "WF2a"}, 7, {"WF4", "WF3a"}, 7, set()),
            ("UD", 7, 7, 2, 1, TIE_INFLUENCE, {"UD2a", "UD1"}, 3, {"UD3b"}, 3, set()),
        ],
    )
    outcome = RULES.outcome(state)
    assert outcome is not None
    assert (outcome["strength"], outcome["heroes"]) == ([20, 20], [8, 7])
    assert (outcome["result"], outcome["winner"]) == ("A", 0)
    assert "hero count" in outcome["reason"]


def test_l8_e4_full_tie_rematch() -> None:
    state = check_example(
        E4_POSITION,
        [
            ("IA", 6, 8, 2, 2, TIE_COUNT, {"IA3a", "IA2a"}, 5, {"IA3b", "IA2b"}, 5, set()),
            ("HT", 5, 8, 2, 2, TIE_COUNT, {"HT4", "HT1"}, 5, {"HT3a", "HT2a"}, 5, set()),
            ("WF", 4, 2, 2, 2, TIE_COUNT, {"WF5", "WF2a"}, 7, {"WF4", "WF3a"}, 7, set()),
            ("UD", 6, 10, 1, 1, TIE_COUNT, {"UD2a"}, 2, {"UD2b"}, 2, set()),
        ],
    )
    assert RULES.outcome(state) == {
        "result": "REMATCH",
        "winner": None,
        "strength": [19, 19],
        "heroes": [7, 7],
        "first_player": 0,
        "turns": 14,
        "end": "rematch",
        "reason": "Armies tied at strength 19 and 7 heroes each: rematch.",
    }


def test_l8_e5_leader_presence_nobody_present_empty_row() -> None:
    state = check_example(
        E5_POSITION,
        [
            ("IA", 12, 6, 2, 0, MAJORITY, {"IA2b", "IA3b"}, 5, set(), 0, set()),
            (
                "HT",
                4,
                3,
                1,
                4,
                MAJORITY,
                {"HT3a", "HT3b", "HT4", "HT5"},
                15,
                {"HT2b"},
                2,
                set(),
            ),
            ("WF", 9, 6, 1, 1, TIE_COUNT, {"WF2b"}, 2, {"WF3b"}, 3, set()),
            (
                "UD",
                0,
                0,
                3,
                4,
                TIE_INFLUENCE,
                set(),
                0,
                set(),
                0,
                {"UD1", "UD4", "UD2a", "UD5", "UD3a", "UD2b", "UD3b"},
            ),
        ],
    )
    score = RULES.score(state)
    ht = score.step("HT")
    assert ht.council_strength == (0, 3) and ht.leader_value == (4, 0)
    assert ht.presence == (True, True)  # A's leader alone gives presence (L6.4)
    assert score.step("UD").presence == (False, False)
    assert (score.strength, score.heroes) == ((22, 5), (7, 2))
    outcome = RULES.outcome(state)
    assert outcome is not None and outcome["result"] == "A"


def test_l6_2_scoring_events_in_faction_order_with_l6_10_fields() -> None:
    owners = tuple([0] * 7 + [1] * 6)
    state = last_turn_state(owners)
    state, _ = take(state, 1, "B7")
    hand = state.hands[1]
    state, events = place(state, 1, {"B7": hand[0]}, {"to": "council", "card": hand[1]})
    scoring = [e for e in events if e.kind == "score_faction"]
    assert [e.data["faction"] for e in scoring] == ["IA", "HT", "WF", "UD"]
    assert all(e.audience is None for e in scoring)
    first = scoring[0].data
    assert set(first) >= {
        "faction",
        "influence",
        "presence",
        "counts",
        "outcome",
        "to_a",
        "to_b",
        "discarded",
    }
    assert set(first["influence"]) == {"A", "B"} and first["outcome"] in (
        MAJORITY,
        TIE_INFLUENCE,
        TIE_COUNT,
        TIE_BOTH,
    )
    result = events[-1]
    assert result.kind == "result" and result.data == RULES.outcome(state)


def test_l6_6_and_l6_7_zero_against_zero_is_a_count_tie() -> None:
    # E5 IA: Row B has no IA; 2 vs 0 differs, so a majority. Make both rows IA-free instead.
    score = RULES.score(final_state(**E5_POSITION))
    assert score.step("IA").counts == (2, 0) and score.step("IA").outcome == MAJORITY
    cat = CARDS
    rows = (*parse_row(E4_POSITION["row_a"]), *parse_row(E4_POSITION["row_b"]))
    leaders = ("LIA3", "LHT3")
    councils = (("IA5", "IA4"), ("IA3a", "IA1"))
    no_ia_rows = tuple(
        Slot(hero=s.hero if cat.faction(s.hero or "") != "IA" else "HT1", face_up=True)
        for s in rows
    )
    ia = score_position(leaders, councils, no_ia_rows).step("IA")
    assert ia.counts == (0, 0) and ia.outcome == TIE_COUNT


def test_l6_9_winner_strength_then_hero_count_then_rematch() -> None:
    for position, result in (
        (E1_POSITION, "B"),
        (E3_POSITION, "A"),
        (E4_POSITION, "REMATCH"),
    ):
        assert RULES.score(final_state(**position)).result == result


# --------------------------------------------------------------------------------------------
# L9 the played sequence
# --------------------------------------------------------------------------------------------


def test_l9_played_sequence_turn_by_turn() -> None:
    state = l9_state()
    board = RULES.view(state, None)
    assert row_factions(board, "A") == ["IA", "HT", "WF", "UD", "IA", "HT", "WF"]
    assert row_factions(board, "B") == ["UD", "IA", "HT", "WF", "UD", "IA", "HT"]
    assert all(not slot["hero"]["face_up"] for row in "AB" for slot in board["rows"][row])

    # Turn 1 (A, own turn 1)
    state, events = take(state, 0, "A1", "B3")
    assert events[0].data["slots"] == [
        {"slot": "A1", "faction": "IA", "face_up": False},
        {"slot": "B3", "faction": "HT", "face_up": False},
    ]
    assert events[1].audience == (0,) and events[1].data["cards"] == ["IA3a", "HT4"]
    assert state.hands[0] == ("HT5", "WF1", "UD2a", "IA3a", "HT4")
    state, events = place(state, 0, {"A1": "WF1", "B3": "UD2a"}, {"to": "council", "card": "IA3a"})
    assert kinds(events) == ["place", "placed", "draw", "drew"]
    assert events[0].data["returns"] == {"A1": "WF1", "B3": "UD2a"}
    me = RULES.view(state, 0)["me"]
    assert me["influence"]["IA"] == 7
    assert state.hands[0] == ("HT5", "HT4", "WF2a")
    assert state.councils[0] == ("IA3a",) and len(state.pile) == 7
    board = RULES.view(state, None)
    assert row_faces(board, "A") == ["WF1↑", "HT↓", "WF↓", "UD↓", "IA↓", "HT↓", "WF↓"]
    assert row_faces(board, "B") == ["UD↓", "IA↓", "UD2a↑", "WF↓", "UD↓", "IA↓", "HT↓"]
    assert (board["hand_sizes"], board["council_sizes"]) == ([3, 3], [1, 0])
    assert (board["active"], board["turn"], board["step"]) == (1, 2, "take")
    check_invariants(state)

    # Turn 2 (B, own turn 1)
    prompt = RULES.prompt(state, 1)
    assert prompt is not None and (prompt["turn"], prompt["own_turn"]) == (2, 1)
    state, events = take(state, 1, "A7", "A4")
    assert events[1].data["cards"] == ["WF5", "UD4"]
    state, events = place(state, 1, {"A4": "HT2a", "A7": "UD4"}, {"to": "council", "card": "WF5"})
    assert RULES.view(state, 1)["me"]["influence"]["WF"] == 8
    assert state.hands[1] == ("IA5", "WF4", "UD5") and len(state.pile) == 6
    board = RULES.view(state, None)
    assert row_faces(board, "A") == ["WF1↑", "HT↓", "WF↓", "HT2a↑", "IA↓", "HT↓", "UD4↑"]
    assert row_faces(board, "B") == ["UD↓", "IA↓", "UD2a↑", "WF↓", "UD↓", "IA↓", "HT↓"]
    check_invariants(state)

    # Turn 3 (A, own turn 2)
    state, events = take(state, 0, "A7", "B6")
    assert events[0].data["slots"] == [
        {"slot": "A7", "faction": "UD", "face_up": True, "card": "UD4", "strength": 4},
        {"slot": "B6", "faction": "IA", "face_up": False},
    ]
    assert state.hands[0] == ("HT5", "HT4", "WF2a", "UD4", "IA3b")
    state, events = place(
        state, 0, {"A7": "WF2a", "B6": "UD4"}, {"to": "block", "card": "HT4", "slot": "B2"}
    )
    assert events[0].data["placement"] == {"to": "block", "slot": "B2", "faction": "HT"}
    assert "HT4" not in dumps(events_for(events, None))
    assert events[3].data == {"seat": 0, "card": "IA4"}
    assert state.hands[0] == ("HT5", "IA3b", "IA4") and len(state.pile) == 5
    board = RULES.view(state, None)
    assert row_faces(board, "A") == ["WF1↑", "HT↓", "WF↓", "HT2a↑", "IA↓", "HT↓", "WF2a↑"]
    assert row_faces(board, "B") == ["UD↓", "IA↓", "UD2a↑", "WF↓", "UD↓", "UD4↑", "HT↓"]
    assert board["rows"]["B"][1]["blocker"] == {"faction": "HT", "face_up": False, "owner": 0}
    assert (board["hand_sizes"], board["council_sizes"]) == ([3, 3], [1, 1])
    assert board["last_action"] == {
        "seat": 0,
        "turn": 3,
        "taken": [
            {"slot": "A7", "faction": "UD", "face_up": True, "card": "UD4", "strength": 4},
            {"slot": "B6", "faction": "IA", "face_up": False},
        ],
        "returns": {"A7": "WF2a", "B6": "UD4"},
        "placement": {"to": "block", "slot": "B2", "faction": "HT"},
        "drew": True,
    }
    prompt = RULES.prompt(state, 1)
    assert prompt is not None and len(prompt["takeable"]) == 13 and "B2" not in prompt["takeable"]
    # Check: hands 3 + 3, rows 14 + 1 blocking hero, pile 5, council heroes 2 make 28.
    check_invariants(state)
    assert RULES.score(replace(state, step="over")).step("HT").rows[1] == ("HT2b", "HT4")


# --------------------------------------------------------------------------------------------
# L7 result and invariants
# --------------------------------------------------------------------------------------------


def test_l7_1_outcome_shape_and_none_while_running() -> None:
    trace = play(RULES, 2, 5, bot_picker(RULES))
    assert all(RULES.outcome(s) is None for s in trace.states[:-1])
    outcome = RULES.outcome(trace.final)
    assert outcome is not None
    assert set(outcome) == {
        "result",
        "winner",
        "strength",
        "heroes",
        "first_player",
        "turns",
        "end",
        "reason",
    }
    score = RULES.score(trace.final)
    assert outcome["strength"] == list(score.strength)
    assert outcome["winner"] == {"A": 0, "B": 1, "REMATCH": None}[outcome["result"]]
    assert sum(outcome["strength"]) + sum(CARDS.strength(c) for c in score.discarded) == 80 - sum(
        CARDS.strength(c) for council in trace.final.councils for c in council
    )


def test_l7_2_invariants_hold_through_a_bot_game() -> None:
    trace = play(RULES, 2, 2024, bot_picker(RULES))
    for state in trace.states:
        check_invariants(state)
        assert_json_round_trip(RULES, state)
    assert trace.final.over


# --------------------------------------------------------------------------------------------
# L10 views
# --------------------------------------------------------------------------------------------


def test_l10_1_own_phone_view() -> None:
    state = _after_l9_turn_3()
    me = RULES.view(state, 0)["me"]
    assert me["leader"] == {"card": "LIA4", "faction": "IA", "value": 4}
    assert [c["card"] for c in me["hand"]] == ["HT5", "IA3b", "IA4"]
    assert me["hand"][0] == {"card": "HT5", "faction": "HT", "strength": 5}
    assert me["council"] == [{"card": "IA3a", "faction": "IA", "strength": 3}]
    assert me["influence"] == {"IA": 7, "HT": 0, "WF": 0, "UD": 0}
    assert me["presence"] == {"IA": True, "HT": False, "WF": False, "UD": False}
    assert me["blocks"] == [{"slot": "B2", "card": "HT4", "faction": "HT", "strength": 4}]
    assert me["placements"] == 2 and me["active"] is False
    view_b = RULES.view(state, 1)
    assert view_b["me"]["active"] is True and view_b["own_turn"] == 2
    assert "prompt" not in view_b


def test_l10_2_board_shows_public_counters() -> None:
    state = _after_l9_turn_3()
    board = RULES.view(state, None)
    assert "me" not in board and board["seat"] is None
    assert board["pile"] == 5
    assert board["faction_counts"]["B"] == {"IA": 1, "HT": 2, "WF": 1, "UD": 4}
    assert board["faction_counts"]["A"] == {"IA": 1, "HT": 3, "WF": 3, "UD": 0}
    assert (board["turn"], board["turns_total"], board["active"]) == (4, 14, 1)
    assert [f["id"] for f in board["factions"]] == ["IA", "HT", "WF", "UD"]
    json.dumps(board)  # JSON-ready


def test_l10_3_hidden_information_stays_hidden() -> None:
    state = _after_l9_turn_3()
    board = dumps(RULES.view(state, None))
    view_b = dumps(RULES.view(state, 1))
    hidden_from_all = [*state.pile, *state.set_aside] + [
        s.hero for s in state.rows if s.hero and not s.face_up
    ]
    a_secrets = [*state.hands[0], *state.councils[0], state.leaders[0], "HT4"]
    for card in hidden_from_all + a_secrets:
        assert f'"{card}"' not in board and f'"{card}"' not in view_b, card
    for card in [*state.hands[1], *state.councils[1], state.leaders[1]]:
        assert f'"{card}"' not in board
    face_down = [
        slot["hero"]
        for row in "AB"
        for slot in RULES.view(state, 1)["rows"][row]
        if not slot["hero"]["face_up"]
    ]
    assert face_down and all(set(h) == {"faction", "face_up"} for h in face_down)


def test_l10_4_everything_revealed_after_the_end() -> None:
    trace = play(RULES, 2, 13, random_picker(RULES, 13))
    final = trace.final
    outcome = RULES.outcome(final)
    assert outcome is not None
    for seat in (None, 0, 1):
        view = RULES.view(final, seat)
        assert view["over"] is True and view["active"] is None
        for row in "AB":
            for slot in view["rows"][row]:
                assert slot["hero"]["face_up"] is True and "strength" in slot["hero"]
                if slot["blocker"] is not None:
                    assert "card" in slot["blocker"] and "strength" in slot["blocker"]
        scoring = view["scoring"]
        assert [s["faction"] for s in scoring["steps"]] == ["IA", "HT", "WF", "UD"]
        assert scoring["leaders"]["A"]["card"] == final.leaders[0]
        assert [c["card"] for c in scoring["councils"]["B"]] == list(final.councils[1])
        assert scoring["result"] == outcome["result"]
        army_strength = [sum(c["strength"] for c in scoring["armies"][r]) for r in "AB"]
        assert army_strength == scoring["strength"]
    end_events = [e.kind for e in trace.events[-6:]]
    assert end_events == ["reveal", *["score_faction"] * 4, "result"]


# --------------------------------------------------------------------------------------------
# L11 bot
# --------------------------------------------------------------------------------------------


def test_l11_1_bot_takes_highest_est_preferring_the_opponents_row() -> None:
    state = _after_l9_turn_3()  # B to move; face up: A1 WF1, A4 HT2a, A7 WF2a, B3 UD2a, B6 UD4
    order = RULES.bot_order(state, 1)
    # UD4 (est 4) first; then every face-down card is est 3, so B's opponent's row (A) wins:
    # A2 is the lowest face-down slot there.
    assert order == {"type": "take", "slots": ["B6", "A2"]}
    order_a = RULES.bot_order(l9_state(), 0)
    assert order_a == {"type": "take", "slots": ["B1", "B2"]}  # all est 3: Row B, low slots


def test_l11_2_bot_returns_strongest_keeping_missing_factions() -> None:
    state, _ = take(l9_state(), 0, "A1", "B3")  # hand HT5 WF1 UD2a IA3a HT4; A leads IA
    order = RULES.bot_order(state, 0)
    # Missing HT, WF, UD: set aside HT4, WF1, UD2a; rest HT5, IA3a -> returned.
    # Open slots in different rows: the stronger (HT5) to the home row (A1).
    assert order["returns"] == {"A1": "HT5", "B3": "IA3a"}
    # L11.3: weakest hand card of a missing faction: WF1.
    assert order["placement"] == {"to": "council", "card": "WF1"}
    RULES.submit(state, 0, order)


def test_l11_2_bot_same_row_stronger_card_to_lower_slot_and_too_few_left() -> None:
    state = replace(l9_state(), first_player=1)
    state, _ = take(state, 1, "A7", "A4")  # B: IA5 HT2a WF4 + WF5 UD4; B leads WF
    order = RULES.bot_order(state, 1)
    # Missing IA, HT, UD: aside IA5, HT2a, UD4 -> rest WF4, WF5: return WF5 (lower slot A4), WF4.
    assert order["returns"] == {"A7": "WF4", "A4": "WF5"}
    assert order["placement"] == {"to": "council", "card": "HT2a"}


def test_l11_bot_never_blocks() -> None:
    for seed in range(6):
        trace = play(RULES, 2, seed, bot_picker(RULES))
        assert all(s.blocker is None for s in trace.final.rows)
        places = [o for _, o in trace.orders if o["type"] == "place"]
        assert len(places) == 14 and all(o["placement"]["to"] == "council" for o in places)


def test_l11_bot_reads_only_its_view_and_is_deterministic() -> None:
    trace = play(RULES, 2, 99, random_picker(RULES, 4))
    for state in trace.states[:-1]:
        for seat in (0, 1):
            if RULES.prompt(state, seat) is None:
                with pytest.raises(NotYourTurn):
                    RULES.bot_order(state, seat)
                continue
            order = RULES.bot_order(state, seat)
            assert order == bot_order_from_view(RULES.view(state, seat), CARDS)
            assert order == RULES.bot_order(state, seat)
            RULES.submit(state, seat, order)  # legal


# --------------------------------------------------------------------------------------------
# illegal orders (L3.5)
# --------------------------------------------------------------------------------------------

TAKE_CASES: list[tuple[Any, str, str]] = [
    (None, "malformed", "must be a JSON object"),
    ([], "malformed", "must be a JSON object"),
    ("take A1 A2", "malformed", "must be a JSON object"),
    ({}, "bad_type", '"type"'),
    ({"type": "grab", "slots": ["A1", "A2"]}, "bad_type", '"type"'),
    ({"type": ["take"], "slots": ["A1", "A2"]}, "bad_type", '"type"'),
    ({"type": "take"}, "malformed", 'The "slots" field must be a list'),
    ({"type": "take", "slots": "A1,A2"}, "malformed", 'The "slots" field must be a list'),
    ({"type": "take", "slots": {"A1": 1}}, "malformed", 'The "slots" field must be a list'),
    ({"type": "take", "slots": ["A1"]}, "wrong_count", "Take exactly 2 heroes"),
    ({"type": "take", "slots": ["A1", "A2", "A3"]}, "wrong_count", "Take exactly 2 heroes"),
    ({"type": "take", "slots": ["A1", "A1"]}, "duplicate_slot", "named slot A1 twice"),
    ({"type": "take", "slots": ["A1", "C3"]}, "unknown_slot", "There is no slot 'C3'"),
    ({"type": "take", "slots": ["A1", "a2"]}, "unknown_slot", "There is no slot 'a2'"),
    ({"type": "take", "slots": ["A1", 2]}, "malformed", "slot name"),
    ({"type": "take", "slots": ["A1", ["A2"]]}, "malformed", "slot name"),
    ({"type": "take", "slots": ["A1", None]}, "malformed", "slot name"),
    ({"type": "take", "slots": ["A1", "A2"], "extra": 1}, "malformed", "Unknown field 'extra'"),
    (
        {"type": "place", "returns": {}, "placement": {"to": "council", "card": "HT5"}},
        "wrong_step",
        "take",
    ),
]


@pytest.mark.parametrize(("order", "code", "message"), TAKE_CASES)
def test_l3_5_illegal_take_orders(order: Any, code: str, message: str) -> None:
    state = l9_state()
    with pytest.raises(IllegalOrder) as err:
        RULES.submit(state, 0, order)
    assert err.value.code == code
    assert message in err.value.message


GOOD_RETURNS = {"A1": "WF1", "B3": "UD2a"}
PLACE_CASES: list[tuple[Any, str, str]] = [
    ({"type": "take", "slots": ["A2", "A3"]}, "wrong_step", "already taken"),
    ({"type": "place", "placement": {"to": "council", "card": "HT5"}}, "malformed", '"returns"'),
    (
        {
            "type": "place",
            "returns": [["A1", "WF1"]],
            "placement": {"to": "council", "card": "HT5"},
        },
        "malformed",
        'The "returns" field must map',
    ),
    (
        {"type": "place", "returns": {"A1": "WF1"}, "placement": {"to": "council", "card": "HT5"}},
        "wrong_slots",
        "missing: B3",
    ),
    (
        {
            "type": "place",
            "returns": {"A1": "WF1", "B3": "UD2a", "A2": "HT5"},
            "placement": {"to": "council", "card": "IA3a"},
        },
        "wrong_slots",
        "A2 is not one of the slots you opened (A1, B3)",
    ),
    (
        {
            "type": "place",
            "returns": {"A1": "WF1", "B3": "WF1"},
            "placement": {"to": "council", "card": "HT5"},
        },
        "duplicate_card",
        "You used WF1 twice",
    ),
    (
        {"type": "place", "returns": GOOD_RETURNS, "placement": {"to": "council", "card": "WF1"}},
        "duplicate_card",
        "a returned card cannot also be placed",
    ),
    (
        {
            "type": "place",
            "returns": {"A1": "IA5", "B3": "UD2a"},
            "placement": {"to": "council", "card": "HT5"},
        },
        "not_in_hand",
        "IA5 is not in your hand",
    ),
    (
        {
            "type": "place",
            "returns": {"A1": "XX9", "B3": "UD2a"},
            "placement": {"to": "council", "card": "HT5"},
        },
        "unknown_card",
        "There is no hero card 'XX9'",
    ),
    (
        {
            "type": "place",
            "returns": {"A1": 7, "B3": "UD2a"},
            "placement": {"to": "council", "card": "HT5"},
        },
        "malformed",
        "card id",
    ),
    (
        {"type": "place", "returns": GOOD_RETURNS, "placement": {"to": "council", "card": "LIA4"}},
        "unknown_card",
        "There is no hero card 'LIA4'",
    ),
    (
        {"type": "place", "returns": GOOD_RETURNS, "placement": {"to": "council", "card": "IA5"}},
        "not_in_hand",
        "IA5 is not in your hand",
    ),
    ({"type": "place", "returns": GOOD_RETURNS}, "malformed", 'The "placement" field must be'),
    (
        {"type": "place", "returns": GOOD_RETURNS, "placement": "council"},
        "malformed",
        '"placement"',
    ),
    (
        {"type": "place", "returns": GOOD_RETURNS, "placement": {"to": "discard", "card": "HT5"}},
        "bad_placement",
        '"council" or "to": "block"',
    ),
    (
        {"type": "place", "returns": GOOD_RETURNS, "placement": {"to": "block", "card": "HT5"}},
        "bad_placement",
        "Name the slot to block",
    ),
    (
        {
            "type": "place",
            "returns": GOOD_RETURNS,
            "placement": {"to": "block", "card": "HT5", "slot": "Z9"},
        },
        "unknown_slot",
        "There is no slot 'Z9'",
    ),
    (
        {
            "type": "place",
            "returns": GOOD_RETURNS,
            "placement": {"to": "council", "card": "HT5", "slot": "A1"},
        },
        "bad_placement",
        "A council placement takes no slot",
    ),
    (
        {
            "type": "place",
            "returns": GOOD_RETURNS,
            "placement": {"to": "council", "card": "HT5", "face": "down"},
        },
        "malformed",
        "Unknown field 'face'",
    ),
]


@pytest.mark.parametrize(("order", "code", "message"), PLACE_CASES)
def test_l3_5_illegal_return_place_orders(order: Any, code: str, message: str) -> None:
    state, _ = take(l9_state(), 0, "A1", "B3")
    with pytest.raises(IllegalOrder) as err:
        RULES.submit(state, 0, order)
    assert err.value.code == code
    assert message in err.value.message
    assert err.value.message[0].isupper() and err.value.message.endswith(".")


def test_l3_5_other_seat_gets_not_your_turn() -> None:
    state = l9_state()
    with pytest.raises(NotYourTurn) as err:
        RULES.submit(state, 1, {"type": "take", "slots": ["A1", "A2"]})
    assert err.value.code == "not_your_turn" and err.value.message == "It is not your turn."
    with pytest.raises(NotYourTurn):
        RULES.random_order(state, 1, Rng(1))


def test_council_placement_may_carry_a_null_slot() -> None:
    state, _ = take(l9_state(), 0, "A1", "B3")
    order = {
        "type": "place",
        "returns": GOOD_RETURNS,
        "placement": {"to": "council", "card": "HT5", "slot": None},
    }
    state = RULES.submit(state, 0, order)
    state, _ = RULES.resolve(state)
    assert state.councils[0] == ("HT5",)


def test_resolve_without_pending_order_is_an_error() -> None:
    with pytest.raises(RuntimeError):
        RULES.resolve(l9_state())


def test_from_json_rejects_unknown_version() -> None:
    raw = RULES.to_json(l9_state())
    raw["version"] = 99
    with pytest.raises(ValueError):
        RULES.from_json(raw)

"""One or more tests per rule G1–G13 of rules/legions.md, each citing its rule."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from engine.core import GameInfo, GameRules, IllegalOrder, NotYourTurn, Rng, check_flat_order
from engine.legions import RULES
from engine.legions.rules import _LIST_ORDER_FIELDS as LIST_FIELDS
from engine.legions.state import LEADERSHIP, OVER, STEPS, LegionsState
from tests.engine.kit import assert_json_round_trip, bot_picker, dumps, play
from tests.engine.test_legions_support import (
    K,
    N,
    act,
    at_stage,
    build,
    face_up,
    kinds,
    orders,
    rejected,
    routed,
    seal,
)

CONTENT = RULES.content


def test_rules_object_implements_the_protocol() -> None:
    assert isinstance(RULES, GameRules)
    assert RULES.info == GameInfo(
        id="legions",
        name="Legions",
        min_players=2,
        max_players=2,
        simultaneous=True,
        tiebreak="victory_points",
    )


# ---------------------------------------------------------------- G1 components


def test_g1_1_five_locations_in_resolution_order() -> None:
    assert CONTENT.location_order == ("Y", "R", "B", "P", "G")
    effects = [CONTENT.locations[loc].effect for loc in CONTENT.location_order]
    assert effects == ["profit", "shield", "banner", "foresight", "rally"]


def test_g1_2_majority_tokens_are_worth_2_and_yellow_4() -> None:
    assert [CONTENT.locations[loc].token_vp for loc in "YRBPG"] == [4, 2, 2, 2, 2]


def test_g1_3_legion_deck_every_colour_equal() -> None:
    legions = CONTENT.legions.values()
    assert sorted(c.number for c in legions) == list(range(1, 32))
    for guild in ("yellow", "red", "blue", "purple", "green"):
        cards = [c for c in legions if c.guild == guild]
        assert len(cards) == 5 and sum(c.vp for c in cards) == 5
        assert sum(c.banner for c in cards) == 1
    white = [c for c in legions if c.guild == "white"]
    assert len(white) == 6 and sum(c.vp for c in white) == 5 and not any(c.banner for c in white)


def test_g1_4_hero_deck_four_per_colour_two_banner_politicians() -> None:
    heroes = CONTENT.heroes.values()
    assert len(heroes) == 20
    assert Counter(h.guild for h in heroes) == dict.fromkeys(
        ("yellow", "red", "blue", "purple", "green"), 4
    )
    assert sorted(h.id for h in heroes if h.banner) == ["H09", "H10"]


def test_g1_6_three_stratagems_per_side_and_g1_7_eight_banners() -> None:
    assert CONTENT.stratagems_of("necro") == ["N1", "N2", "N3"]
    assert CONTENT.stratagems_of("king") == ["K1", "K2", "K3"]
    banners = sum(c.banner for c in CONTENT.legions.values())
    banners += sum(h.banner for h in CONTENT.heroes.values())
    banners += sum(loc.token_banner for loc in CONTENT.locations.values())
    assert banners == 8


# ---------------------------------------------------------------- G2 setup


def test_g2_setup_hands_row_decks_and_stratagems() -> None:
    state = RULES.setup(2, 7, {"sides": ["king", "necro"]})
    assert [p.side for p in state.players] == ["king", "necro"]
    assert [len(p.hand) for p in state.players] == [3, 3]
    assert [s.face_up for s in state.legion_row] == [True, True, False]  # G2.5
    assert len(state.legion_deck) == 22  # G2.7
    assert len(state.hero_row) == 5 and len(state.hero_deck) == 15  # G2.6
    assert state.players[0].stratagem in ("K1", "K2", "K3")  # G2.4: own side's pool
    assert state.players[1].stratagem in ("N1", "N2", "N3")
    assert set(state.tokens.values()) == {None}  # G2.1: all neutral
    assert all(not p.heroes for p in state.players)


def test_g2_2_deal_order_follows_first_player() -> None:
    first = RULES.setup(2, 99, {"sides": ["necro", "king"], "first_player": 0})
    second = RULES.setup(2, 99, {"sides": ["necro", "king"], "first_player": 1})
    assert first.players[0].hand == second.players[1].hand
    assert first.players[1].hand == second.players[0].hand


def test_g2_3_random_sides_come_from_the_seed_and_bad_options_fail() -> None:
    sides = {tuple(p.side for p in RULES.setup(2, seed, {}).players) for seed in range(20)}
    assert sides == {("necro", "king"), ("king", "necro")}
    assert RULES.setup(2, 5, {}) == RULES.setup(2, 5, {})
    with pytest.raises(ValueError):
        RULES.setup(2, 1, {"sides": ["necro", "necro"]})
    with pytest.raises(ValueError):
        RULES.setup(3, 1, {})
    with pytest.raises(ValueError):
        RULES.setup(2, 1, {"colour": "red"})


# ---------------------------------------------------------------- G3 turn order


def test_g3_turn_runs_leadership_steps_then_end_of_turn() -> None:
    trace = play(RULES, 2, 3, bot_picker(RULES), {"sides": ["necro", "king"]})
    order = [e.kind for e in trace.events if e.audience is None]
    first_turn = order[: order.index("refill") + 1]
    assert first_turn[0] == "reveal"
    assert first_turn.count("place") == 2 and first_turn.count("take") == 2
    assert first_turn.index("attack") > max(i for i, k in enumerate(first_turn) if k == "take")
    assert first_turn[-2:] == ["banners", "refill"]


# ---------------------------------------------------------------- G4 leadership


def test_g4_sealing_is_simultaneous_final_and_secret() -> None:
    state = RULES.setup(2, 11, {"sides": ["necro", "king"]})
    assert RULES.info.simultaneous
    assert RULES.prompt(state, 0) is not None and RULES.prompt(state, 1) is not None
    card = state.players[0].hand[0]
    state = RULES.submit(state, 0, {"kind": "seal", "legion": card})
    assert not RULES.ready(state)
    assert RULES.prompt(state, 0) is None  # G4.1: final
    with pytest.raises(NotYourTurn):
        RULES.submit(state, 0, {"kind": "seal", "legion": state.players[0].hand[0]})
    board = RULES.view(state, None)
    assert [p["sealed"] for p in board["players"]] == [True, False]
    assert f'"{card}"' not in str(RULES.view(state, 1)).replace("'", '"')
    other = RULES.submit(state, 1, {"kind": "seal", "legion": state.players[1].hand[0]})
    resolved, events = RULES.resolve(other)
    assert events[0].kind == "reveal" and events[0].audience is None
    numbers = [c["number"] for c in events[0].data["legions"]]
    assert resolved.leader == numbers.index(min(numbers))  # G4.3: the lower leads
    assert resolved.phase == STEPS


def test_g4_1_sealing_a_card_not_in_hand_is_refused() -> None:
    state = RULES.setup(2, 11, {"sides": ["necro", "king"]})
    stranger = state.legion_deck[0]
    error = rejected(state, 0, {"kind": "seal", "legion": stranger})
    assert error.code == "not_in_hand" and stranger in error.message


# ---------------------------------------------------------------- G5 / G6 steps


def test_g5_first_player_places_recruits_takes_and_never_attacks() -> None:
    state = build(
        n_hand=["L05", "L20", "L27"],
        k_hand=["L09", "L16", "L24"],
        row=[("L13", True), ("L26", True), ("L17", False)],
    )
    state, _ = seal(state, "L05", "L24")
    assert RULES.prompt(state, K) is None
    with pytest.raises(NotYourTurn):
        RULES.submit(state, K, {"kind": "place", "location": "G"})
    state, _ = act(state, N, {"kind": "place", "location": "G"})
    # N1 has no target (nothing routed), but an unused stratagem always opens step 2, so
    # the board cannot tell which stratagem N holds from the steps shown.
    assert orders(state, N) == [{"kind": "skip"}]
    state, _ = act(state, N, {"kind": "skip"})
    assert orders(state, N) == [
        {"kind": "take", "card": "L13"},
        {"kind": "take", "card": "L26"},
        {"kind": "take", "card": "hidden"},
    ]
    state, events = act(state, N, {"kind": "take", "card": "hidden"})
    assert "attack" not in kinds(events)
    assert "L17" in state.players[N].hand
    assert state.stage is not None and state.stage.seat == K and state.stage.kind == "place"
    # G6.3: the second player chooses from the 2 cards left.
    state, _ = act(state, K, {"kind": "place", "location": "B"})
    state, _ = act(state, K, {"kind": "skip"})
    assert [o["card"] for o in orders(state, K) if o["kind"] == "take"] == ["L13", "L26"]


def test_g6_4_attack_is_mandatory_and_the_leftover_stays_face_up() -> None:
    state = build(
        n_hand=["L01", "L02"],
        k_hand=["L03", "L04", "L05"],
        row=[("L13", True), ("L23", False)],
        k_face_up={"G": ["L29", "L17"]},
    )
    state = at_stage(state, N, "take", leader=K)
    state, events = act(state, N, {"kind": "take", "card": "L13"})
    assert routed(state, K) == {"G": ["L17", "L29"]}
    public_rout = next(e for e in events if e.kind == "rout")
    assert public_rout.data == {"seat": K, "location": "G", "count": 2, "by": "attack"}
    assert "L29" not in str(public_rout.data)  # G15: routed identities are the owner's
    assert state.legion_row[0].card == "L23" and state.legion_row[0].face_up


def test_g6_4a_face_down_ambassador_is_turned_up_then_any_location() -> None:
    state = build(
        n_hand=["L01", "L02"],
        k_hand=["L03", "L04", "L05"],
        row=[("L13", True), ("L12", False)],
    )
    state = at_stage(state, N, "take", leader=K)
    state, events = act(state, N, {"kind": "take", "card": "L13"})
    assert events[-1].kind == "attack_card" and events[-1].data["was_face_down"]
    assert [o["location"] for o in orders(state, N)] == ["Y", "R", "B", "P", "G"]
    state, events = act(state, N, {"kind": "attack", "location": "P"})  # nobody there
    assert next(e for e in events if e.kind == "attack").data["targets"] == 0
    assert state.phase == LEADERSHIP


def test_g6_5_red_shield_keeps_one_against_the_attack_only() -> None:
    state = build(
        n_hand=["L01", "L02"],
        k_hand=["L03", "L04", "L05"],
        row=[("L13", True), ("L20", True)],
        k_face_up={"R": ["L08"]},
        tokens={"R": K},
    )
    state = at_stage(state, N, "take", leader=K)
    state, events = act(state, N, {"kind": "take", "card": "L13"})
    assert face_up(state, K) == {"R": ["L08"]}  # one legion: the Shield keeps it
    assert "shield" in kinds(events)


# ---------------------------------------------------------------- G7 placing / collecting


def test_g7_1_coloured_legion_only_at_its_colour() -> None:
    state = build(n_hand=["L20", "L01", "L02"], k_hand=["L30", "L04", "L05"])
    state, _ = seal(state, "L20", "L30")
    assert [o for o in orders(state, N) if o["kind"] == "place"] == [
        {"kind": "place", "location": "R"}
    ]
    error = rejected(state, N, {"kind": "place", "location": "B"})
    assert error.code == "wrong_location" and "Barracks" in error.message


def test_g7_3_collect_one_routed_legion_when_placing_there() -> None:
    state = build(
        n_hand=["L20", "L01", "L03"],
        k_hand=["L30", "L04", "L05"],
        n_routed={"R": ["L02", "L14"], "B": ["L09"]},
    )
    state, _ = seal(state, "L20", "L30")
    state, _ = act(state, N, {"kind": "place", "location": "R"})
    assert orders(state, N)[:2] == [
        {"kind": "collect", "legion": "L02"},
        {"kind": "collect", "legion": "L14"},
    ]
    state, events = act(state, N, {"kind": "collect", "legion": "L14"})
    assert face_up(state, N) == {"R": ["L14", "L20"]}
    assert routed(state, N) == {"R": ["L02"], "B": ["L09"]}
    assert next(e for e in events if e.kind == "collect").data["legions"] == ["L14"]


def test_g7_4_routed_legions_do_not_count_for_majority() -> None:
    state = build(
        n_hand=["L01", "L02"],
        k_hand=["L03", "L04", "L05"],
        row=[("L13", True), ("L16", True)],
        n_face_up={"G": ["L11"]},
        k_routed={"G": ["L17", "L23", "L29"]},
        tokens={"G": K},
    )
    state = at_stage(state, N, "take", leader=K)
    state, _ = act(state, N, {"kind": "take", "card": "L13"})
    assert state.tokens["G"] == N


# ---------------------------------------------------------------- G8 recruiting


def four_at_red() -> LegionsState:
    state = build(
        n_hand=["L26", "L01", "L03"],
        k_hand=["L30", "L04", "L05"],
        n_face_up={"R": ["L02", "L08", "L14"]},
        hero_row=["H05", "H06", "H13", "H17", "H11"],
    )
    state, _ = seal(state, "L26", "L30")
    state, _ = act(state, N, {"kind": "place", "location": "R"})
    return state


def test_g8_1_a_fourth_legion_does_not_block_and_any_two_go_under() -> None:
    state = four_at_red()
    recruits = [o for o in orders(state, N) if o["kind"] == "recruit"]
    assert [o["hero"] for o in recruits] == ["H05", "H06"]
    state, _ = act(state, N, recruits[0])
    assert len(orders(state, N)) == 6  # G8.3: any 2 of the 4
    state, _ = act(state, N, {"kind": "under", "legions": ["L26", "L08"]})
    assert face_up(state, N) == {"R": ["L02", "L14"]}


def test_g8_5_one_hero_per_turn() -> None:
    state = four_at_red()
    state, _ = act(
        state, N, {"kind": "recruit", "hero": "H06", "route": "location", "location": "R"}
    )
    state, _ = act(state, N, {"kind": "under", "legions": ["L02", "L08"]})
    state, _ = act(state, N, {"kind": "power"})  # H06: take the red token
    assert state.tokens["R"] == N
    assert state.stage is not None and state.stage.kind == "take"
    assert RULES._recruit_options(state, N) == []


def test_g8_2_empty_hero_deck_means_no_fallback() -> None:
    state = build(
        n_hand=["L26", "L01", "L03"],
        k_hand=["L30", "L04", "L05"],
        n_face_up={"R": ["L02", "L08"]},
        hero_row=["H01", "H13", "H17", "H11"],
    )
    state.hero_deck = []
    state, _ = seal(state, "L26", "L30")
    state, _ = act(state, N, {"kind": "place", "location": "R"})
    assert all(o["kind"] not in ("recruit", "peek") for o in orders(state, N))


def test_g8_2_looking_commits_to_recruiting_one() -> None:
    state = build(
        n_hand=["L26", "L01", "L03"],
        k_hand=["L30", "L04", "L05"],
        n_face_up={"R": ["L02", "L08"]},
        hero_row=["H01", "H13", "H17", "H11", "H12"],
        hero_deck_top=["H20"],
    )
    state.hero_deck = ["H20"]  # one card left: the player sees one
    state, _ = seal(state, "L26", "L30")
    state, _ = act(state, N, {"kind": "place", "location": "R"})
    state, _ = act(state, N, {"kind": "peek", "location": "R"})
    assert orders(state, N) == [{"kind": "choose_hero", "hero": "H20", "other": None}]
    assert rejected(state, N, {"kind": "skip"}).code == "wrong_step"


# ---------------------------------------------------------------- G9 hero powers


# Per colour: the 2 legions N already has there and the one it places to reach 3.
COLOUR_CARDS = {
    "Y": (["L01", "L07"], "L13"),
    "R": (["L02", "L08"], "L26"),
    "B": (["L03", "L09"], "L27"),
    "P": (["L04", "L10"], "L28"),
    "G": (["L05", "L11"], "L23"),
}


def power_position(hero: str, **extra: Any) -> LegionsState:
    """N, first player, has just recruited ``hero`` with 3 legions of its colour, sliding the
    2 it already had under it; the power prompt is next."""
    loc = CONTENT.heroes[hero].location
    existing, placed = COLOUR_CARDS[loc]
    n_face_up = {loc: list(existing)}
    n_face_up.update(extra.pop("n_face_up", {}))
    kwargs: dict[str, Any] = {
        "n_hand": [placed, "L18", "L24"],
        "k_hand": ["L30", "L31", "L12"],
        "row": [("L15", True), ("L20", True), ("L19", False)],
        "n_face_up": n_face_up,
        "hero_row": [hero, *(h for h in ("H01", "H05", "H13", "H17") if h != hero)],
        **extra,
    }
    state = build(**kwargs)
    state, _ = seal(state, placed, "L30")
    state, _ = act(state, N, {"kind": "place", "location": loc})
    state, _ = act(
        state, N, {"kind": "recruit", "hero": hero, "route": "location", "location": loc}
    )
    state, _ = act(state, N, {"kind": "under", "legions": existing})
    assert state.stage is not None and state.stage.kind == "power"
    return state


def test_g9_1_captain_routs_a_location_ignoring_the_shield() -> None:
    state = power_position("H07", k_face_up={"B": ["L09", "L21"], "P": ["L10"]}, tokens={"R": K})
    assert orders(state, N)[:2] == [
        {"kind": "power", "location": "B"},
        {"kind": "power", "location": "P"},
    ]
    state, _ = act(state, N, {"kind": "power", "location": "B"})
    assert routed(state, K) == {"B": ["L09", "L21"]}


def test_g9_1_hexer_routs_one_and_sentinel_turns_up_a_location() -> None:
    state = power_position("H16", k_face_up={"B": ["L09", "L21"]})
    state, _ = act(state, N, {"kind": "power", "legion": "L21"})
    assert routed(state, K) == {"B": ["L21"]} and face_up(state, K) == {"B": ["L09"]}
    state = power_position("H08", n_routed={"B": ["L09", "L21"], "G": ["L05"]})
    state, _ = act(state, N, {"kind": "power", "location": "B"})
    assert routed(state, N) == {"G": ["L05"]} and face_up(state, N)["B"] == ["L09", "L21"]


def test_g9_2_caravan_master_swaps_with_a_face_up_row_card() -> None:
    state = power_position("H03")
    assert all(o.get("row") != "L19" for o in orders(state, N))  # face-down: not a target
    state, _ = act(state, N, {"kind": "power", "hand": "L18", "row": "L20"})
    assert [(s.card, s.face_up) for s in state.legion_row] == [
        ("L15", True),
        ("L18", True),
        ("L19", False),
    ]
    assert "L20" in state.players[N].hand and "L18" not in state.players[N].hand
    assert state.stage is not None and state.stage.kind == "take"  # G8.6: before step 3


def test_g9_3_oracle_shows_cards_only_to_the_user() -> None:
    state = power_position("H15")
    state, events = act(state, N, {"kind": "power"})
    private = [e for e in events if e.audience is not None]
    assert private and all(e.audience == (N,) for e in private)
    note = RULES.view(state, N)["me"]["notes"][-1]
    assert note["kind"] == "oracle" and sorted(note["hand"]) == ["L12", "L31"]
    assert note["row_face_down"] == "L19"
    assert '"L19"' not in dumps(RULES.view(state, None))
    assert '"L19"' not in dumps(RULES.view(state, K))


def test_g9_3_broker_rearranges_the_top_three() -> None:
    state = power_position("H04", deck_top=["L22", "L29", "L17"])
    state, events = act(state, N, {"kind": "power"})
    assert [e.kind for e in events if e.audience is None] == ["power"]
    assert len(orders(state, N)) == 6
    state, _ = act(state, N, {"kind": "arrange", "order": ["L17", "L22", "L29"]})
    assert state.legion_deck[:3] == ["L17", "L22", "L29"]
    assert "L17" not in dumps(RULES.view(state, None))


def test_g9_4_envoy_moves_without_collecting() -> None:
    state = power_position("H12", n_routed={"P": ["L04"]})
    state, _ = act(state, N, {"kind": "power", "legion": "L27", "location": "P"})
    assert face_up(state, N) == {"P": ["L27"]} and routed(state, N) == {"P": ["L04"]}


def test_g9_5_sower_places_collects_and_draws() -> None:
    state = power_position("H20", n_routed={"Y": ["L28"]}, deck_top=["L22"])
    state, _ = act(state, N, {"kind": "power", "legion": "L18", "location": "Y"})
    assert state.stage is not None and state.stage.kind == "collect"  # G9.5: may collect
    state, _ = act(state, N, {"kind": "collect", "legion": "L28"})
    assert face_up(state, N)["Y"] == ["L18", "L28"]
    assert "L22" in state.players[N].hand and state.extra_placements == 1
    assert state.flags.placed_at[N] == "G"  # N2 names the step-1 location, not the Sower's
    assert state.stage is not None and state.stage.kind == "take"


def test_g9_6_token_hero_moves_the_token_now() -> None:
    state = power_position("H06", k_face_up={"R": ["L14", "L06"]}, tokens={"R": K})
    state, _ = act(state, N, {"kind": "power"})
    assert state.tokens["R"] == N
    assert RULES.view(state, None)["locations"][1]["token"] == N


# ---------------------------------------------------------------- G10 stratagems


def test_g10_1_stratagem_once_and_only_in_own_steps() -> None:
    state = build(
        n_hand=["L05", "L20", "L27"],
        k_hand=["L09", "L16", "L24"],
        row=[("L13", True), ("L26", True), ("L17", False)],
        k_stratagem="K3",
    )
    state, _ = seal(state, "L20", "L16")  # K leads
    with pytest.raises(NotYourTurn):
        RULES.submit(state, N, {"kind": "stratagem", "stratagem": "N1"})
    state, _ = act(state, K, {"kind": "stratagem", "stratagem": "K3"})
    assert state.flags.royal_decree == K and state.players[K].stratagem_used
    assert rejected(state, K, {"kind": "stratagem", "stratagem": "K3"}).code == "used"
    assert RULES.view(state, None)["players"][K]["stratagem"]["id"] == "K3"  # now public


@pytest.mark.parametrize("stratagem", ["N1", "N2", "N3"])
def test_g10_1_the_steps_shown_never_reveal_the_unused_stratagem(stratagem: str) -> None:
    state = build(
        n_hand=["L05", "L20", "L27"],
        k_hand=["L09", "L16", "L24"],
        row=[("L13", True), ("L26", True), ("L17", False)],
        n_stratagem=stratagem,
    )
    state, _ = seal(state, "L05", "L16")
    state, _ = act(state, N, {"kind": "place", "location": "G"})
    board = RULES.view(state, None)
    assert board["step"] == {"seat": N, "kind": "recruit", "submitted": False}


def test_g10_3_shield_wall_beats_night_terror() -> None:
    state = build(
        n_hand=["L26", "L01", "L03"],
        k_hand=["L07", "L04", "L05"],
        row=[("L13", True), ("L25", True), ("L19", False)],
        k_face_up={"R": ["L08", "L14"]},
        n_stratagem="N2",
        k_stratagem="K1",
    )
    state, _ = seal(state, "L26", "L07")
    state, _ = act(state, K, {"kind": "stratagem", "stratagem": "K1"})
    state, _ = act(state, K, {"kind": "place", "location": "Y"})
    state, _ = act(state, K, {"kind": "take", "card": "L13"})
    state, _ = act(state, N, {"kind": "place", "location": "R"})
    state, events = act(state, N, {"kind": "stratagem", "stratagem": "N2"})
    assert "rout_blocked" in kinds(events) and routed(state, K) == {}


def test_g10_4_dread_returns_a_token_to_neutral() -> None:
    state = build(
        n_hand=["L05", "L20", "L27"],
        k_hand=["L09", "L16", "L24"],
        row=[("L13", True), ("L26", True), ("L17", False)],
        tokens={"Y": K, "B": K},
        n_stratagem="N3",
    )
    state, _ = seal(state, "L05", "L16")
    assert [o.get("token") for o in orders(state, N) if o["kind"] == "stratagem"] == ["Y", "B"]
    state, _ = act(state, N, {"kind": "stratagem", "stratagem": "N3", "token": "Y"})
    assert state.tokens["Y"] is None


def test_g10_6_royal_summons_only_in_step_2() -> None:
    state = build(
        n_hand=["L05", "L20", "L27"],
        k_hand=["L09", "L16", "L24"],
        row=[("L13", True), ("L26", True), ("L17", False)],
        k_face_up={"B": ["L21", "L03"]},
        k_stratagem="K2",
    )
    state, _ = seal(state, "L20", "L16")
    error = rejected(state, K, {"kind": "stratagem", "stratagem": "K2"})
    assert error.code == "stratagem_timing"


# ---------------------------------------------------------------- G11 end of turn


def test_g11_1_tie_keeps_the_token_and_g11_3_refill_first_up_second_down() -> None:
    state = build(
        n_hand=["L01", "L02"],
        k_hand=["L03", "L04", "L05"],
        row=[("L13", True), ("L16", True)],
        n_face_up={"Y": ["L07"]},
        k_face_up={"Y": ["L19"]},
        tokens={"Y": K},
        deck_top=["L31", "L22"],
    )
    state = at_stage(state, N, "take", leader=K)
    state, _ = act(state, N, {"kind": "take", "card": "L13"})
    assert state.tokens["Y"] == K
    assert [(s.card, s.face_up) for s in state.legion_row] == [
        ("L16", True),
        ("L31", True),
        ("L22", False),
    ]


def test_g11_2_banner_legions_on_the_battlefield_do_not_count() -> None:
    state = build(
        n_hand=["L01", "L02"],
        k_hand=["L03", "L04", "L05"],
        row=[("L13", True), ("L16", True)],
        n_face_up={"R": ["L08"], "G": ["L11"], "P": ["L22"]},
        n_heroes=[("H09", ["L15", "L19"])],
        tokens={"B": N},
    )
    assert RULES.banners(state, N) == 4  # H09 + L15 + L19 under it + blue token
    state = at_stage(state, N, "take", leader=K)
    state, _ = act(state, N, {"kind": "take", "card": "L13"})
    assert state.phase == LEADERSHIP and RULES.banners(state, N) == 4


def test_g11_3_one_card_left_cannot_refill_and_the_game_ends() -> None:
    state = build(
        n_hand=["L01", "L02"],
        k_hand=["L03", "L04", "L05"],
        row=[("L13", True), ("L16", True)],
        deck_size=1,
    )
    state = at_stage(state, N, "take", leader=K)
    state, events = act(state, N, {"kind": "take", "card": "L13"})
    assert state.phase == OVER and "refill" not in kinds(events)
    assert len(state.legion_deck) == 1  # the single leftover deck card is ignored
    with pytest.raises(NotYourTurn):
        RULES.submit(state, N, {"kind": "seal", "legion": "L01"})


# ---------------------------------------------------------------- G12 / G13 end and score


def test_g12_3_empty_hero_deck_does_not_end_the_game() -> None:
    state = build(
        n_hand=["L01", "L02"],
        k_hand=["L03", "L04", "L05"],
        row=[("L13", True), ("L16", True)],
        hero_row=[],
    )
    state.hero_deck = []
    state = at_stage(state, N, "take", leader=K)
    state, _ = act(state, N, {"kind": "take", "card": "L13"})
    assert state.phase == LEADERSHIP


def test_g13_higher_score_wins_and_outcome_shape() -> None:
    state = build(
        n_hand=["L01", "L02"],
        k_hand=["L03", "L04", "L05"],
        row=[("L13", True), ("L16", True)],
        tokens={"Y": K},
        k_heroes=[("H05", ["L20", "L14"])],
        deck_size=0,
    )
    state = at_stage(state, N, "take", leader=K)
    state, _ = act(state, N, {"kind": "take", "card": "L13"})
    outcome = RULES.outcome(state)
    assert outcome is not None
    assert outcome["winner"] == K and outcome["reason"] == "score"
    assert outcome["score"] == [2, 2 + 3 + 3 + 4]
    assert outcome["side_of_seat"] == ["necro", "king"] and outcome["winners"] == [K]
    assert outcome["tiebreak"] is None
    assert_json_round_trip(RULES, state)


def test_g13_4_live_score_is_public_and_hides_the_stratagem() -> None:
    state = RULES.setup(2, 4, {"sides": ["necro", "king"]})
    board = RULES.view(state, None)
    assert board["score"] == [2, 2]
    assert board["players"][0]["stratagem"] == {"used": False}


def test_illegal_orders_carry_readable_messages() -> None:
    state = RULES.setup(2, 4, {"sides": ["necro", "king"]})
    with pytest.raises(IllegalOrder) as caught:
        RULES.submit(state, 0, {"kind": "take", "card": "L01"})
    assert caught.value.code == "wrong_step"
    # No prompt title to quote (issue 16.3): the message names the order kinds the step takes.
    assert caught.value.message == (
        "Not now: this decision (seal) takes a seal order; choose one of the offered options."
    )
    assert caught.value.params == {"step": "seal", "expected": ["seal"]}
    with pytest.raises(IllegalOrder):
        not_a_mapping: Any = ["not", "a", "mapping"]  # what a careless client might send
        RULES.submit(state, 0, not_a_mapping)


def test_every_offered_order_is_flat_so_an_order_equal_to_one_needs_no_shape_check() -> None:
    """``submit`` takes an order equal to one of the prompt's own without the shape check of
    issue 13.2 (``check_flat_order``): that is sound while every offered order passes it
    unchanged, holding only names, null and lists of names (no number or yes/no, which
    would equal ``1.0`` or ``True``)."""
    seen: Counter[str] = Counter()
    for seed in range(12):
        rng = Rng.from_seed(seed)
        state = RULES.setup(2, seed, {})
        while RULES.outcome(state) is None:
            for seat in (0, 1):
                prompt = RULES.prompt(state, seat)
                if prompt is None:
                    continue
                for option in prompt["options"]:
                    offered = option["order"]
                    assert check_flat_order(offered, "kind", LIST_FIELDS) == offered
                    for value in offered.values():
                        names = value if isinstance(value, list) else [value]
                        assert all(name is None or type(name) is str for name in names), offered
                    seen[offered["kind"]] += 1
                state = RULES.submit(state, seat, RULES.random_order(state, seat, rng))
            if RULES.ready(state):
                state = RULES.resolve(state)[0]
    assert len(seen) >= 12  # most kinds of order were offered

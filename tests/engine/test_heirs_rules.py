"""One or more tests per rule H1–H22 (rules/heirs.md), each citing its rule."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from engine.core import JSON, Event, IllegalOrder, NotYourTurn, Rng
from engine.heirs import RULES
from engine.heirs.rules import PassContext
from engine.heirs.scenario import edit_heir, give_fields, scenario, seal
from engine.heirs.state import HeirsState
from tests.engine.kit import outcome_of, prompt_of


def fid(name: str) -> int:
    return RULES.field_index(name)


def run_pass(st: HeirsState, until: str = "pass") -> tuple[HeirsState, list[Event]]:
    return RULES.resolve_round(st, until=until)


def codes(events: list[Event], seat: int) -> list[str]:
    return [e.data["code"] for e in events if e.kind == "skipped" and e.data["seat"] == seat]


def refused(st: HeirsState, seat: int, order: JSON) -> str:
    with pytest.raises(IllegalOrder) as caught:
        RULES.submit(st, seat, order)
    assert caught.value.message
    return caught.value.code


# -- H0 / H1 / H2 --------------------------------------------------------------------------


def test_h0_2_losses_never_go_below_zero() -> None:
    st = scenario(RULES, 2)
    edit_heir(RULES, st, 0, knowledge=3, portraits=[1], hand=["curse", "hired_knights", "war_cry"])
    edit_heir(RULES, st, 1, soldiers=1)
    st = seal(RULES, st, {0: {"trick": {"card": "curse", "target": 1}}})
    st, _ = run_pass(st)
    assert st.heirs[1].soldiers == 0


def test_h1_components_come_from_the_seeds() -> None:
    content = RULES.content
    assert len(RULES.map.ids) == 61
    assert len(content.characters) == 9
    assert len(content.starting_artifacts) == 6 and len(content.comet_artifacts) == 6
    assert len(content.omens) == 7
    assert [len(g) for g in content.trick_groups] == [3, 3, 3] and content.new_portrait
    assert sum(f["count"] for f in content.setup["finds"]) == 12


def test_h2_1_grid_distance_and_ids() -> None:
    m = RULES.map
    assert m.coords[fid("R4-0")] == (0, -4) and m.coords[fid("R4-8")] == (4, 0)
    assert m.coords[fid("R3-5")] == (3, -1) and m.coords[fid("R3-6")] == (3, 0)
    assert m.coords[fid("R2-2")] == (2, -2) and m.coords[fid("R2-3")] == (2, -1)
    assert m.distance[fid("R4-8")][fid("R2-3")] == 3
    assert all(len(m.neighbours[f]) == 6 for f in range(19))


def test_h2_3_h2_4_classes_and_terrain() -> None:
    m = RULES.map
    assert Counter(m.ring) == {0: 1, 1: 6, 2: 12, 3: 18, 4: 24}
    assert len(m.forest_pattern) == 12 and len(m.discovery) == 12
    assert fid("R4-2") in m.forest_pattern and fid("R3-1") in m.forest_pattern
    assert fid("R3-0") in m.discovery and fid("R2-1") in m.discovery
    assert [RULES.content.ring_settle[k] for k in (1, 2, 3, 4)] == [8, 4, 3, 2]


@pytest.mark.parametrize(
    ("players", "indices"),
    [
        (2, [0, 12]),
        (3, [0, 8, 16]),
        (4, [0, 6, 12, 18]),
        (5, [0, 5, 10, 14, 19]),
        (6, [0, 4, 8, 12, 16, 20]),
    ],
)
def test_h2_5_capitals_spread_on_the_outer_ring(players: int, indices: list[int]) -> None:
    assert [RULES.map.ids[f] for f in RULES.map.capitals(players)] == [f"R4-{i}" for i in indices]


def test_h2_6_axis_locked_without_signs() -> None:
    st = scenario(RULES, 2)
    edit_heir(RULES, st, 0, position="R1-0")
    assert refused(st, 0, {"expedition": {"kind": "move", "field": "R0-0"}}) == "AXIS_LOCKED"
    assert refused(st, 0, {"expedition": {"kind": "attack", "field": "R0-0"}}) == "AXIS_NOT_TARGET"
    st.heirs[0].signs = [1]
    RULES.submit(st, 0, {"expedition": {"kind": "move", "field": "R0-0"}})


# -- H3 ------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_h3_3_h3_4_characters_and_starting_artifacts(players: int) -> None:
    st = RULES.setup(players, 11, {})
    offered = [h.offered for h in st.heirs]
    assert all(len(set(pair)) == 2 for pair in offered)
    if players <= 4:
        flat = [c for pair in offered for c in pair]
        assert len(set(flat)) == len(flat)
    artifacts = [h.start_artifact for h in st.heirs]
    assert len(set(artifacts)) == players
    assert ("legacy_of_the_fallen" in artifacts) <= (players >= 4)


def test_h3_5_starting_state_and_character_adjustments() -> None:
    st = RULES.setup(2, 3, {})
    first = {"colour": "red", "character": "merchant"}
    st.heirs[0].offered = ["merchant", "knight"]
    st.heirs[1].offered = ["dwarf", "elf"]
    st = RULES.submit(st, 0, first)
    assert RULES.prompt(st, 0) is None
    assert refused(st, 1, {"colour": "red", "character": "dwarf"}) == "COLOUR_TAKEN"
    assert refused(st, 1, {"colour": "blue", "character": "knight"}) == "NOT_OFFERED"
    st = RULES.submit(st, 1, {"colour": "blue", "character": "dwarf"})
    assert RULES.ready(st)
    st, _events = RULES.resolve(st)
    merchant, dwarf = st.heirs
    assert merchant.position == st.capitals[0] and merchant.soldiers == 10
    # round-1 income: capital 3/3/1, Merchant +1 gold, plus the starting 4.
    assert merchant.gold == 6 + 4 + 3 + 1 + (2 if merchant.start_artifact == "signet_ring" else 0)
    assert dwarf.buildings[1] == 1
    assert dwarf.gold == 6 + 3 + 4 + (2 if dwarf.start_artifact == "signet_ring" else 0)
    assert st.round == 1 and st.omens[0] == "quiet_night"


def test_h3_2_options_validated() -> None:
    with pytest.raises(ValueError):
        RULES.setup(3, 1, {"rounds": 5})
    with pytest.raises(ValueError):
        RULES.setup(7, 1, {})
    assert RULES.setup(3, 1, {"rounds": 20}).rounds == 20


def test_h3_7_start_player_random_or_fixed() -> None:
    starts = {RULES.setup(4, seed, {}).start_player for seed in range(40)}
    assert starts == {0, 1, 2, 3}
    assert RULES.setup(4, 5, {"start_player": 2}).start_player == 2


# -- H4 ------------------------------------------------------------------------------------


def test_h4_2_start_player_moves_clockwise_skipping_fallen() -> None:
    st = scenario(RULES, 4, start_player=0)
    st.heirs[1].fallen = True
    st.heirs[1].soldiers = 0
    st.pedestals = [0, 2, 3]
    st = seal(RULES, st, {})
    st, events = RULES.resolve_round(st)
    assert st.start_player == 2 and st.pedestals == [2, 3, 0]
    dawn = next(e for e in events if e.kind == "dawn")
    assert dawn.audience is None and dawn.data["pedestals"] == [2, 3, 0]


def test_h4_3_dawn_income_then_trick_hands() -> None:
    st = scenario(RULES, 2)
    st = seal(RULES, st, {})
    st, events = RULES.resolve_round(st)
    order = [e.kind for e in events]
    assert order.index("dawn") < order.index("income") < order.index("hand")
    assert all(len(h.hand) == 3 for h in st.heirs)


# -- H5 ------------------------------------------------------------------------------------


def test_h5_2_validation_refuses_with_reasons() -> None:
    st = scenario(RULES, 2)
    edit_heir(RULES, st, 0, people=3, gold=4, knowledge=3)
    assert refused(st, 0, {"recruit": 7}) == "OVER_CAP"
    assert refused(st, 0, {"recruit": 2}) == "NOT_ENOUGH_PEOPLE"
    assert refused(st, 0, {"build": "farm"}) == "NOT_ENOUGH_GOLD"
    assert refused(st, 0, {"learn": "attack"}) == "NOT_ENOUGH_KNOWLEDGE"
    assert refused(st, 0, {"expedition": {"kind": "move", "field": "R2-0"}}) == "NOT_ADJACENT"
    assert refused(st, 0, {"expedition": {"kind": "attack", "field": "R4-1"}}) == "NOT_A_TARGET"
    assert refused(st, 0, {"trick": {"card": "spy", "target": 1}}) == "NOT_IN_HAND"
    assert refused(st, 0, {"exchanges": [{"give": "gold", "get": "people"}]}) == "NO_MARKET"
    assert refused(st, 0, {"colour": "red"}) == "BAD_ORDER"
    assert refused(st, 0, {"recruit": -1}) == "BAD_ORDER"


def test_h5_2a_settle_never_refused_and_attack_checked_as_won() -> None:
    st = scenario(RULES, 2)
    edit_heir(RULES, st, 0, people=0, position="R1-0", hand=["spy", "hired_knights", "shadow_path"])
    edit_heir(RULES, st, 1, position="R1-1")
    # Win at R1-1 would bring the Sign (2 players: 1 required) and Shadow path into the Axis.
    order = {
        "expedition": {"kind": "attack", "field": "R1-1"},
        "trick": {"card": "shadow_path", "field": "R0-0"},
        "settle": True,
    }
    RULES.submit(st, 0, order)


def test_h5_3_sealing_is_final_and_board_shows_only_who_sealed() -> None:
    st = scenario(RULES, 2)
    st = RULES.submit(st, 0, {"recruit": 2})
    with pytest.raises(NotYourTurn):
        RULES.submit(st, 0, {})
    board = RULES.view(st, None)
    assert [h["sealed"] for h in board["heirs"]] == [True, False]
    assert "recruit" not in str(board)
    assert RULES.view(st, 1)["me"]["sealed_order"] is None


def test_h5_4_default_order_is_the_empty_order() -> None:
    st = scenario(RULES, 2)
    st = RULES.submit(st, 0, {})
    assert st.heirs[0].order == RULES.orders_prompt(scenario(RULES, 2), 0)["default"]


# -- H6 / H21 ------------------------------------------------------------------------------


def test_h6_resources_first_exchange_pays_for_the_building() -> None:
    st = scenario(RULES, 2)
    edit_heir(RULES, st, 0, gold=2, people=9, buildings={"market": 1})
    # 3 people -> 1 gold: 3 trades give 3 gold, then Farm I for 5.
    st = RULES.submit(
        st, 0, {"exchanges": [{"give": "people", "get": "gold", "trades": 3}], "build": "farm"}
    )
    st = RULES.submit(st, 1, {})
    st, _ = run_pass(st)
    assert st.heirs[0].buildings[0] == 1 and st.heirs[0].gold == 0


def test_h21_exchange_cut_to_affordable_at_resolution() -> None:
    st = scenario(RULES, 2)
    edit_heir(RULES, st, 0, gold=9, people=6, buildings={"market": 1})
    st = seal(RULES, st, {0: {"exchanges": [{"give": "gold", "get": "people", "trades": 3}]}})
    st.heirs[0].gold = 6
    st, events = run_pass(st)
    assert st.heirs[0].gold == 0 and st.heirs[0].people == 8
    assert [e.data["trades"] for e in events if e.kind == "exchange_cut"] == [2]


def test_h21_skipped_parts_only_on_own_phone() -> None:
    st = scenario(RULES, 2)
    edit_heir(RULES, st, 0, gold=5)
    st = seal(RULES, st, {0: {"build": "farm"}})
    st.heirs[0].gold = 1
    st, events = run_pass(st)
    skipped = [e for e in events if e.kind == "skipped"]
    assert [e.data["code"] for e in skipped] == ["NOT_ENOUGH_GOLD"] and skipped[0].audience == (0,)


# -- H7 ------------------------------------------------------------------------------------


def test_h7_2_move_rules() -> None:
    st = scenario(RULES, 2)
    edit_heir(RULES, st, 0, position="R3-0")
    give_fields(RULES, st, 1, "R3-1")
    assert refused(st, 0, {"expedition": {"kind": "move", "field": "R3-1"}}) == "FIELD_TAKEN"
    RULES.submit(st, 0, {"expedition": {"kind": "move", "field": "R2-0"}})


def test_h7_3_d_target_left_becomes_a_move() -> None:
    st = scenario(RULES, 2)
    st.pedestals = [1, 0]
    edit_heir(RULES, st, 0, position="R3-0")
    edit_heir(RULES, st, 1, position="R2-0")
    st = seal(
        RULES,
        st,
        {
            0: {"expedition": {"kind": "attack", "field": "R2-0"}},
            1: {"expedition": {"kind": "move", "field": "R1-0"}},
        },
    )
    st, events = run_pass(st)
    assert st.heirs[0].position == fid("R2-0") and "battle" not in [e.kind for e in events]


def test_h7_3_c_attack_on_a_shared_free_field_hits_lowest_pedestal() -> None:
    st = scenario(RULES, 3)
    st.pedestals = [0, 2, 1]
    for seat in range(3):
        edit_heir(RULES, st, seat, position="R2-0", soldiers=10)
    st.heirs[0].soldiers = 30
    st = seal(RULES, st, {0: {"expedition": {"kind": "attack", "field": "R2-0"}, "settle": False}})
    st, events = run_pass(st)
    battle = next(e for e in events if e.kind == "battle")
    assert battle.data["defender"] == 2


def test_h7_4a_mutual_attacks_are_two_battles_in_pass_order() -> None:
    st = scenario(RULES, 2)
    edit_heir(RULES, st, 0, soldiers=30, position="R2-0")
    edit_heir(RULES, st, 1, soldiers=10, position="R2-1")
    st = seal(
        RULES,
        st,
        {
            0: {"expedition": {"kind": "attack", "field": "R2-1"}},
            1: {"expedition": {"kind": "attack", "field": "R2-0"}},
        },
    )
    st, events = run_pass(st)
    # Blue lost and jumped home; its attack on R2-0 is now too far.
    assert [e.kind for e in events].count("battle") == 1
    assert codes(events, 1) == ["NOT_ADJACENT"]


def test_h7_5_scout_picks_up_a_shard_and_reads_the_field() -> None:
    st = scenario(RULES, 2)
    edit_heir(RULES, st, 0, position="R2-0", gold=6)
    edit_heir(RULES, st, 1, position="R2-1", soldiers=12)
    st.shards[fid("R2-1")] = "mirror_of_reflections"
    st.finds[fid("R2-1")] = "gold:5"
    st = seal(RULES, st, {0: {"expedition": {"kind": "scout", "field": "R2-1"}}})
    st, events = run_pass(st)
    heir = st.heirs[0]
    assert heir.backpack == ["mirror_of_reflections"] and heir.gold == 11
    report = heir.intel[-1]
    assert report["picked_up"] == "mirror_of_reflections" and report["heirs"] == {"1": 12}
    shard_events = [e for e in events if e.kind == "shard_taken"]
    assert shard_events and "mirror" not in str(shard_events[0].data)


def test_h7_5_full_backpack_only_learns_the_shard() -> None:
    st = scenario(RULES, 2)
    edit_heir(
        RULES,
        st,
        0,
        position="R2-0",
        backpack=["horn_of_the_wild_hunt", "chalice_of_plenty", "crown_of_mist"],
    )
    st.shards[fid("R2-1")] = "seers_eye"
    st = seal(RULES, st, {0: {"expedition": {"kind": "scout", "field": "R2-1"}}})
    st, _ = run_pass(st)
    assert st.shards[fid("R2-1")] == "seers_eye" and st.heirs[0].intel[-1]["shard"] == "seers_eye"


def test_h7_7_shadow_path_one_ring_inwards() -> None:
    st = scenario(RULES, 2)
    edit_heir(RULES, st, 0, position="R3-0", hand=["spy", "hired_knights", "shadow_path"])
    assert refused(st, 0, {"trick": {"card": "shadow_path", "field": "R3-1"}}) == "NOT_CLOSER"
    st = seal(
        RULES,
        st,
        {
            0: {
                "expedition": {"kind": "move", "field": "R2-0"},
                "trick": {"card": "shadow_path", "field": "R1-0"},
                "settle": False,
            }
        },
    )
    st, events = run_pass(st)
    assert st.heirs[0].position == fid("R1-0")
    assert "shadow_path" in [e.kind for e in events if e.audience is None]


def test_h7_7_shadow_path_starts_where_the_sealed_expedition_ends() -> None:
    """H7.7: the extra step is one ring inwards from where the heir stands after part 6, so
    the prompt offers (and sealing accepts) fields next to the expedition's end: Anna at
    R3-9 seals "Move to R3-8" plus Shadow path, and R3-8's inward neighbours are offered —
    not R3-9's only inward neighbour R2-6, a sibling's field (H7.2: never entered by a move)."""
    st = scenario(RULES, 3)
    edit_heir(RULES, st, 0, position="R3-9", hand=["spy", "hired_knights", "shadow_path"])
    give_fields(RULES, st, 1, "R2-6", "R3-10")
    card = next(t for t in prompt_of(RULES, st, 0)["tricks"] if t["card"] == "shadow_path")
    after = card["fields_after"]
    assert after["move"]["R3-8"] == ["R2-5"]  # R2-6, next to R3-8 too, is the sibling's
    assert after["stay"] == [] and after["scout"] == []  # from R3-9 only R2-6 is inwards
    # An invasion ends on its field as if won (H5.2a): R3-10 → R2-7 (R2-6 is taken).
    assert after["attack"]["R3-10"] == ["R2-7"]
    # "fields" is every field some expedition leads to (a move outwards leads back in).
    ends = [after["stay"], *after["move"].values(), *after["attack"].values()]
    assert set(card["fields"]) == {f for fields in ends for f in fields}
    assert "R2-5" in card["fields"] and "R2-6" not in card["fields"]
    move = {"kind": "move", "field": "R3-8"}
    assert (
        refused(st, 0, {"expedition": move, "trick": {"card": "shadow_path", "field": "R2-6"}})
        == "FIELD_TAKEN"
    )
    assert (
        refused(st, 0, {"expedition": move, "trick": {"card": "shadow_path", "field": "R2-7"}})
        == "NOT_ADJACENT"
    )
    order = {"expedition": move, "trick": {"card": "shadow_path", "field": "R2-5"}, "settle": False}
    st = seal(RULES, st, {0: order})
    st, events = run_pass(st)
    assert st.heirs[0].position == fid("R2-5")
    assert [e.data["to"] for e in events if e.kind == "shadow_path"] == ["R2-5"]


def test_h7_8_entering_the_axis_ends_the_game_at_dusk() -> None:
    st = scenario(RULES, 2)
    edit_heir(RULES, st, 0, position="R1-0", signs=[1])
    st = seal(RULES, st, {0: {"expedition": {"kind": "move", "field": "R0-0"}}})
    st, events = RULES.resolve_round(st)
    assert outcome_of(RULES, st)["reason"] == "throne" and RULES.prompt(st, 0) is None
    assert events[-1].kind == "end"


# -- H8 ------------------------------------------------------------------------------------


def test_h8_2_settle_requires_standing_alone() -> None:
    st = scenario(RULES, 2)
    edit_heir(RULES, st, 0, position="R3-0")
    edit_heir(RULES, st, 1, position="R3-0")
    st = seal(RULES, st, {})
    st, events = run_pass(st)
    assert codes(events, 0) == ["NOT_ALONE"] and st.owner[fid("R3-0")] == -1


def test_h8_2a_field_settled_earlier_in_the_pass_is_taken() -> None:
    st = scenario(RULES, 2)
    edit_heir(RULES, st, 0, position="R3-1")
    edit_heir(RULES, st, 1, position="R3-0", people=10)
    st.pedestals = [1, 0]
    st = seal(RULES, st, {0: {"expedition": {"kind": "move", "field": "R3-0"}}})
    st, events = run_pass(st)
    assert st.owner[fid("R3-0")] == 1 and codes(events, 0) == ["FIELD_TAKEN"]
    assert st.owner[fid("R3-1")] == 0  # Red stayed and settled where it stood


def test_h8_5_income_by_ring_buildings_and_bonuses() -> None:
    st = scenario(RULES, 2)
    edit_heir(
        RULES,
        st,
        0,
        character="elf",
        start_artifact="quiver_of_the_wind",
        buildings={"farm": 1, "mine": 2, "academy": 3, "barracks": 1},
        abilities={"mysticism": 2},
        backpack=["horn_of_the_wild_hunt"],
        people=0,
        gold=0,
        knowledge=0,
        soldiers=10,
    )
    give_fields(RULES, st, 0, "R1-0", "R2-0", "R3-1", "R4-2")  # R3-1, R4-2 are forests
    RULES.income(st, [])
    heir = st.heirs[0]
    assert heir.people == 3 + 3 + 2 + 2 + 1 + 2 + 2 + 2  # capital, fields, forests, farm, quiver
    assert heir.gold == 3 + 3 + 2 + 1 + 1 + 4
    assert heir.knowledge == 1 + 5 + 2
    assert heir.soldiers == 10 + 1 + 1


def test_h8_6_discovery_finds_are_dealt_and_taken_once() -> None:
    st = RULES.setup(3, 9, {})
    tokens = Counter(f.split(":")[0] for f in st.finds if f)
    assert tokens == {"gold": 3, "people": 3, "knowledge": 3, "portrait": 3}
    assert {i for i, f in enumerate(st.finds) if f} == set(RULES.map.discovery)
    st = scenario(RULES, 2)
    edit_heir(RULES, st, 0, position="R3-1")
    st.finds[fid("R3-0")] = "portrait:1"
    st = seal(RULES, st, {0: {"expedition": {"kind": "move", "field": "R3-0"}}})
    st, _ = run_pass(st)
    assert st.finds[fid("R3-0")] == "" and st.heirs[0].portraits == [1]


# -- H9 / H10 ------------------------------------------------------------------------------


def test_h9_1_one_build_per_round_and_max_level() -> None:
    st = scenario(RULES, 2)
    edit_heir(RULES, st, 0, gold=99, buildings={"walls": 3})
    assert refused(st, 0, {"build": "walls"}) == "MAX_LEVEL"
    assert refused(st, 0, {"build": ["farm", "mine"]}) == "BAD_ORDER"


def test_h9_4_ability_costs_and_leadership_cap() -> None:
    st = scenario(RULES, 2)
    heir = st.heirs[0]
    assert [RULES.ability_cost(heir, 0)] == [4]
    heir.abilities[0] = 2
    assert RULES.ability_cost(heir, 0) == 12
    heir.abilities[2] = 2
    assert RULES.recruit_cap(st, heir) == 10


def test_h10_1_market_needs_a_different_resource() -> None:
    st = scenario(RULES, 2)
    edit_heir(RULES, st, 0, buildings={"market": 1})
    # Its own code, so that a phone says so in its language (not "could not be read").
    assert refused(st, 0, {"exchanges": [{"give": "gold", "get": "gold"}]}) == "SAME_RESOURCE"
    assert refused(st, 0, {"exchanges": [{"give": "gold", "get": "silver"}]}) == "BAD_ORDER"


# -- H11 -----------------------------------------------------------------------------------


def test_h11_1_new_portrait_replaces_group_one_without_portraits() -> None:
    st = scenario(RULES, 3)
    st.heirs[1].portraits = [0]
    rng = Rng(5)
    RULES.deal_tricks(st, [], rng)
    assert st.heirs[0].hand[0] == "new_portrait"
    assert st.heirs[1].hand[0] in ("bribery", "spy", "curse")
    assert [RULES.content.card_group[c] for c in st.heirs[1].hand] == [0, 1, 2]


def test_h11_3_bribery_moves_soldiers_and_consumes_the_portrait() -> None:
    st = scenario(RULES, 2)
    edit_heir(
        RULES,
        st,
        0,
        gold=4,
        portraits=[1, 1],
        abilities={"mysticism": 1},
        hand=["bribery", "hired_knights", "war_cry"],
    )
    st = seal(RULES, st, {0: {"trick": {"card": "bribery", "target": 1}}})
    st, _ = run_pass(st)
    assert st.heirs[0].soldiers == 13 and st.heirs[1].soldiers == 7
    assert st.heirs[0].portraits == [1] and st.heirs[0].gold == 0


def test_h11_8_spy_sees_strength_and_keeps_the_portrait() -> None:
    st = scenario(RULES, 2)
    edit_heir(RULES, st, 0, portraits=[1], hand=["spy", "hired_knights", "war_cry"])
    edit_heir(RULES, st, 1, soldiers=17, abilities={"defense": 2}, buildings={"walls": 1})
    st = seal(RULES, st, {0: {"trick": {"card": "spy", "target": 1}}})
    st, events = run_pass(st)
    intel = st.heirs[0].intel[-1]
    assert intel["soldiers"] == 17 and intel["abilities"]["defense"] == 2 and intel["walls"] == 1
    assert st.heirs[0].portraits == [1]
    assert not [e for e in events if e.audience is None and e.kind.startswith("trick")]


def test_h11_8_spy_reports_soldiers_every_ability_and_walls() -> None:
    """H11.8: Strength = soldier count, the four ability levels and the Walls level — a Spy
    on Tom with Defense I and Walls I reports both (ids and numbers, never display text)."""
    st = scenario(RULES, 2)
    edit_heir(RULES, st, 0, portraits=[1], gold=5, hand=["spy", "hired_knights", "war_cry"])
    edit_heir(RULES, st, 1, soldiers=19, abilities={"defense": 1}, buildings={"walls": 1})
    st = seal(RULES, st, {0: {"trick": {"card": "spy", "target": 1}}})
    st, events = run_pass(st)
    strength = {
        "soldiers": 19,
        "abilities": {"attack": 0, "defense": 1, "leadership": 0, "mysticism": 0},
        "walls": 1,
    }
    report = next(e for e in events if e.kind == "trick" and e.data["card"] == "spy")
    assert report.audience == (0,)
    assert report.data == {"seat": 0, "card": "spy", "target": 1, "strength": strength}
    assert RULES.view(st, 0)["me"]["intel"][-1] == {"round": 1, "kind": "spy", "of": 1, **strength}
    assert all(e.audience == (0,) for e in events if e.kind in ("trick", "intel"))


def test_h11_7_exposure_is_a_quarter_of_curses() -> None:
    exposed = 0
    for seed in range(200):
        st = scenario(RULES, 2)
        st.rng = seed
        edit_heir(
            RULES, st, 0, knowledge=3, portraits=[1], hand=["curse", "hired_knights", "war_cry"]
        )
        st = seal(RULES, st, {0: {"trick": {"card": "curse", "target": 1}}})
        _, events = run_pass(st)
        public = next(e for e in events if e.kind == "trick_public")
        on_target = next(e for e in events if e.kind == "trick_on_you")
        assert on_target.audience == (1,) and on_target.data["caster"] == public.data["caster"]
        exposed += public.data["caster"] == 0
    assert 25 <= exposed <= 75


def test_h11_10_mirror_reflects_about_half() -> None:
    reflected = 0
    for seed in range(200):
        st = scenario(RULES, 2)
        st.rng = seed
        edit_heir(
            RULES, st, 0, knowledge=3, portraits=[1], hand=["curse", "hired_knights", "war_cry"]
        )
        edit_heir(RULES, st, 1, backpack=["mirror_of_reflections"])
        st = seal(RULES, st, {0: {"trick": {"card": "curse", "target": 1}}})
        st, events = run_pass(st)
        assert st.heirs[0].knowledge == 0 and st.heirs[0].portraits == []
        if st.heirs[1].soldiers == 10:
            reflected += 1
            assert not [e for e in events if e.kind == "trick_public"]
    assert 70 <= reflected <= 130


def test_h11_4_reinforcements_ignore_the_cap() -> None:
    st = scenario(RULES, 2)
    edit_heir(RULES, st, 0, gold=4, people=12, hand=["spy", "mercenaries", "war_cry"])
    st = seal(RULES, st, {0: {"trick": {"card": "mercenaries"}, "recruit": 6}})
    st, _ = run_pass(st)
    assert st.heirs[0].soldiers == 21 and st.heirs[0].gold == 0


def test_h11_5_a_battle_trick_is_told_to_its_caster_alone_battle_or_none() -> None:
    """War cry and Shield are on all round (H11.5); a card that met no battle left the
    caster's phone without a word, so the caster hears at its step that the card is on."""
    from engine.core import events_for

    st = scenario(RULES, 2)
    edit_heir(RULES, st, 0, hand=["war_cry", "hired_knights", "spy"])
    edit_heir(RULES, st, 1, hand=["shield_of_the_seal", "hired_knights", "spy"])
    st = seal(
        RULES,
        st,
        {0: {"trick": {"card": "war_cry"}}, 1: {"trick": {"card": "shield_of_the_seal"}}},
    )
    _st, events = run_pass(st)
    told = [(e.data["seat"], e.data["card"]) for e in events if e.kind == "trick"]
    assert sorted(told) == [(0, "war_cry"), (1, "shield_of_the_seal")]
    assert not [e for e in events if e.kind == "battle_report"], "no battle this round"
    for seat, card in ((0, "war_cry"), (1, "shield_of_the_seal")):
        mine = [e["data"] for e in events_for(events, seat) if e["kind"] == "trick"]
        assert mine == [{"seat": seat, "card": card, "battle": True}]
    assert not [e for e in events_for(events, None) if e["kind"] == "trick"], "the board: none"


def test_h11_9_portraits_of_the_fallen_are_discarded() -> None:
    st = scenario(RULES, 3)
    edit_heir(RULES, st, 0, portraits=[1, 2])
    edit_heir(RULES, st, 1, soldiers=0)
    st = seal(RULES, st, {})
    st, _ = run_pass(st, until="dusk")
    assert st.heirs[1].fallen and st.heirs[0].portraits == [2]


# -- H12 -----------------------------------------------------------------------------------


def test_h12_8_capture_a_comet_artifact() -> None:
    st = scenario(RULES, 2)
    edit_heir(RULES, st, 0, soldiers=30, position="R2-0")
    edit_heir(RULES, st, 1, soldiers=10, position="R2-1", backpack=["chalice_of_plenty"])
    st = seal(RULES, st, {0: {"expedition": {"kind": "attack", "field": "R2-1"}}})
    st, events = run_pass(st)
    assert st.heirs[0].backpack == ["chalice_of_plenty"] and st.heirs[1].backpack == []
    capture = next(e for e in events if e.kind == "capture")
    assert capture.audience == (0, 1)


def test_h12_11_battle_values_only_to_the_fighters() -> None:
    st = scenario(RULES, 3)
    edit_heir(RULES, st, 0, soldiers=30, position="R2-0")
    edit_heir(RULES, st, 1, soldiers=10, position="R2-1")
    st = seal(RULES, st, {0: {"expedition": {"kind": "attack", "field": "R2-1"}}})
    _, events = run_pass(st)
    for e in events:
        if e.kind == "battle_report":
            assert e.audience == (e.data["seat"],)
        if e.kind == "battle":
            assert e.audience is None and "value" not in e.data


# -- H13 / H14 / H15 -----------------------------------------------------------------------


def test_h13_paladin_and_barbarian_flat_bonuses() -> None:
    st = scenario(RULES, 2, omen="quiet_night")
    edit_heir(RULES, st, 0, character="barbarian", soldiers=10)
    assert RULES.attack_value(st, PassContext(), st.heirs[0]) == 15
    edit_heir(RULES, st, 1, character="paladin", soldiers=10)
    assert RULES.heir_defence(PassContext(), st.heirs[1]) == 15


def test_h13_knight_and_elf_per_soldier_bonuses_with_the_sheets_elf_and_elf_per_5() -> None:
    """H13: Knight ⌊S/2⌋ and Elf ⌊S/3⌋ in attack and defence, as the sheet prints them.
    H13.1: the sheet's numbers are the default game; the named variant "elf_per_5" counts
    the Elf per 5 soldiers only in a game that turns it on."""
    assert RULES.content.characters["elf"]["attack_per_soldiers"] == 3
    assert RULES.content.characters["elf"]["defence_per_soldiers"] == 3
    st = scenario(RULES, 2, omen="quiet_night")
    edit_heir(RULES, st, 0, character="knight", soldiers=11)
    assert RULES.attack_value(st, PassContext(), st.heirs[0]) == 11 + 5
    assert RULES.heir_defence(PassContext(), st.heirs[0]) == 11
    edit_heir(RULES, st, 1, character="elf", soldiers=14)
    assert RULES.attack_value(st, PassContext(), st.heirs[1]) == 14 + 4
    assert RULES.heir_defence(PassContext(), st.heirs[1]) == 14 + 4
    sheet = RULES.view(st, 1)["me"]
    assert sheet["attack_value"] == 18
    # H13.1: the same Elf in a game with the variant on: +⌊14/5⌋ = +2.
    tuned = scenario(RULES, 2, omen="quiet_night", variants=("elf_per_5",))
    edit_heir(RULES, tuned, 1, character="elf", soldiers=14)
    rules = RULES.rules_of(tuned)
    assert rules.content.characters["elf"]["attack_per_soldiers"] == 5
    assert rules.attack_value(tuned, PassContext(), tuned.heirs[1]) == 14 + 2
    assert rules.heir_defence(PassContext(), tuned.heirs[1]) == 14 + 2
    me = RULES.view(tuned, 1)["me"]  # the protocol follows the game's variants
    assert me["attack_value"] == 16 and me["defence_value"] == sheet["defence_value"] - 2
    assert RULES.content.characters["elf"]["attack_per_soldiers"] == 3  # the sheet untouched


def test_h13_1_variants_are_named_off_by_default_and_recorded() -> None:
    """H13.1: variants are listed with what they change (in English: screens translate them
    by id), off by default, refused when unknown, and recorded in the options, the board's
    view and the outcome."""
    listed = {v["id"]: v for v in RULES.available_variants()}
    assert "elf_per_5" in listed
    assert listed["elf_per_5"]["name"] and "5" in listed["elf_per_5"]["text"]
    plain = RULES.setup(4, 3, {})
    assert plain.options["variants"] == [] and RULES.view(plain, None)["variants"] == []
    for bad, message in (
        (["elf_per_7"], "unknown variant"),
        ("elf_per_5", "list of variant ids"),
        (["elf_per_5", "elf_per_5"], "more than once"),
    ):
        with pytest.raises(ValueError, match=message):
            RULES.setup(4, 3, {"variants": bad})
    with pytest.raises(ValueError, match="elf_per_5"):  # the message names the known ones
        RULES.setup(4, 3, {"variants": ["nope"]})
    state = RULES.setup(4, 3, {"variants": ["elf_per_5"], "rounds": 6})
    assert state.options["variants"] == ["elf_per_5"]
    assert RULES.view(state, None)["variants"] == ["elf_per_5"]
    assert RULES.from_json(RULES.to_json(state)).options["variants"] == ["elf_per_5"]
    while RULES.outcome(state) is None:
        for seat in range(4):
            if RULES.prompt(state, seat) is not None:
                state = RULES.submit(state, seat, RULES.bot_order(state, seat, "raider"))
        state, _ = RULES.resolve(state)
    assert outcome_of(RULES, state)["variants"] == ["elf_per_5"]
    assert RULES.view(state, None)["outcome"]["variants"] == ["elf_per_5"]


def test_h14_2_seers_eye_and_comets_sight() -> None:
    st = scenario(RULES, 3)
    edit_heir(RULES, st, 0, backpack=["seers_eye", "comets_sight"], position="R2-0")
    edit_heir(
        RULES,
        st,
        1,
        position="R2-1",
        soldiers=13,
        abilities={"attack": 2, "mysticism": 1},
        buildings={"walls": 3},
    )
    st = seal(RULES, st, {})
    st, events = RULES.resolve_round(st)
    kinds = [(i["kind"], i["of"]) for i in st.heirs[0].intel]
    assert ("seers_eye", 1) in kinds and ("comets_sight", 1) in kinds
    assert ("seers_eye", 2) not in kinds
    # H14.2 → H11.8: the Eye shows the whole strength, as Spy does, with ids only.
    seen = next(
        e
        for e in events
        if e.kind == "intel" and e.data["kind"] == "seers_eye" and e.data["of"] == 1
    )
    assert seen.audience == (0,)
    assert seen.data == {
        "seat": 0,
        "round": 2,
        "kind": "seers_eye",
        "of": 1,
        "soldiers": 13,
        "abilities": {"attack": 2, "defense": 0, "leadership": 0, "mysticism": 1},
        "walls": 3,
    }
    assert {k: v for k, v in seen.data.items() if k != "seat"} in RULES.view(st, 0)["me"]["intel"]


def test_h14_2_chalice_raises_the_cap() -> None:
    st = scenario(RULES, 2)
    st.heirs[0].backpack = ["chalice_of_plenty"]
    assert RULES.recruit_cap(st, st.heirs[0]) == 8


@pytest.mark.parametrize("rounds", [6, 12, 20])
def test_h15_2_omen_schedule(rounds: int) -> None:
    for seed in range(30):
        schedule = RULES.setup(3, seed, {"rounds": rounds}).omens
        assert len(schedule) == rounds and schedule[0] == "quiet_night"
        comets = [i + 1 for i, o in enumerate(schedule) if o == "comet"]
        assert 1 <= len(comets) <= 2 and 2 <= comets[0] <= rounds // 2
        if len(comets) == 2:
            assert rounds // 2 + 2 <= comets[1] <= rounds - 1
        assert all(a != b for a, b in itertools.pairwise(schedule))
        calm = [o for o in schedule if o != "comet"]
        assert len(set(calm[:6])) == min(6, len(calm))


def test_h15_3_comet_shards() -> None:
    st = scenario(RULES, 2, omen="comet")
    st.round = 0
    events: list[Event] = []
    RULES.dawn(st, events, Rng(3))
    shards = [f for f, s in enumerate(st.shards) if s]
    assert len(shards) == 3 and len(st.comet_pool) == 3
    assert all(RULES.map.ring[f] in (2, 3) for f in shards)
    public = next(e for e in events if e.kind == "comet")
    assert public.audience is None and len(public.data["fields"]) == 3


# -- H17 / H18 / H19 / H20 -----------------------------------------------------------------


@pytest.mark.parametrize(("players", "required"), [(2, 1), (3, 2), (4, 3), (5, 3), (6, 3)])
def test_h17_2_signs_required(players: int, required: int) -> None:
    st = scenario(RULES, players)
    assert RULES.signs_required(st, st.heirs[0]) == required


def test_h18_fall_frees_land_and_ends_steps() -> None:
    st = scenario(RULES, 3)
    edit_heir(RULES, st, 1, soldiers=1, backpack=["horn_of_the_wild_hunt"])
    give_fields(RULES, st, 1, "R3-4", conquered=True)
    st = seal(RULES, st, {})
    st.heirs[1].soldiers = 0
    st, events = RULES.resolve_round(st)
    fallen = st.heirs[1]
    assert fallen.fallen and fallen.backpack == [] and 1 not in st.pedestals
    assert st.owner[fid("R3-4")] == -1 and st.owner[st.capitals[1]] == -1
    assert not st.conquered[fid("R3-4")]
    assert RULES.prompt(st, 1) is None
    assert any(e.kind == "fall" and e.audience is None for e in events)


def test_h19_1_last_survivor() -> None:
    st = scenario(RULES, 2)
    st = seal(RULES, st, {})
    st.heirs[1].soldiers = 0
    st, _ = RULES.resolve_round(st)
    outcome = outcome_of(RULES, st)
    assert outcome["reason"] == "last_survivor" and outcome["winners"] == [0]


def test_h19_1_council_after_the_last_round_and_h19_3_ties() -> None:
    st = scenario(RULES, 3, round_number=12)
    give_fields(RULES, st, 2, "R4-10")
    st = seal(RULES, st, {})
    st, _ = RULES.resolve_round(st)
    outcome = outcome_of(RULES, st)
    assert outcome["reason"] == "council" and outcome["winners"] == [2]
    st = scenario(RULES, 3, round_number=12)
    st = seal(RULES, st, {})
    st, _ = RULES.resolve_round(st)
    assert outcome_of(RULES, st)["winners"] == [0, 1, 2]


def test_h20_2_ranking_and_game_points() -> None:
    st = scenario(RULES, 4, round_number=12)
    give_fields(RULES, st, 2, "R4-10", "R4-11")
    give_fields(RULES, st, 0, "R4-1")
    st = seal(RULES, st, {})
    st.heirs[3].soldiers = 0
    st, _ = RULES.resolve_round(st)
    outcome = outcome_of(RULES, st)
    assert outcome["ranking"] == [[2], [0], [1], [3]]
    assert outcome["game_points"] == {"2": 3, "0": 2, "1": 1, "3": 0}


def test_h20_2_a_shared_rank_scores_the_better_place() -> None:
    st = scenario(RULES, 4, round_number=12)
    give_fields(RULES, st, 2, "R4-10", "R4-11")
    st = seal(RULES, st, {})
    st.heirs[3].soldiers = 0
    st, _ = RULES.resolve_round(st)
    outcome = outcome_of(RULES, st)
    assert outcome["ranking"] == [[2], [0, 1], [3]]
    assert outcome["game_points"] == {"2": 3, "0": 2, "1": 2, "3": 0}


# -- H22 -----------------------------------------------------------------------------------


def test_h20_3_h20_5_tournament_standings_final_double_and_catch_up() -> None:
    from engine.heirs.tournament import catch_up_start_player, standings

    def outcome(points: dict[int, int], winners: list[int], council: dict[int, int]) -> JSON:
        return {
            "game_points": {str(s): p for s, p in points.items()},
            "winners": winners,
            "council": {str(s): {"points": c} for s, c in council.items()},
        }

    games = [
        outcome({0: 3, 1: 1, 2: 0}, [0], {0: 30, 1: 20, 2: 10}),
        outcome({0: 0, 1: 3, 2: 1}, [1], {0: 5, 1: 40, 2: 12}),
    ]
    table = standings(games)
    assert [(r["seat"], r["points"], r["place"]) for r in table] == [
        (1, 4, 1),
        (0, 3, 2),
        (2, 1, 3),
    ]
    doubled = standings(games, final_double=True)
    assert doubled[0]["seat"] == 1 and doubled[0]["points"] == 7
    tied = standings([outcome({0: 2, 1: 2}, [0, 1], {0: 9, 1: 9})])
    assert [r["place"] for r in tied] == [1, 1]
    assert catch_up_start_player(table, 3) == 2
    assert catch_up_start_player(tied, 2) == 1


def test_h19_1_nobody_left_the_fallen_compare_council_points() -> None:
    st = scenario(RULES, 2)
    give_fields(RULES, st, 1, "R4-10", "R4-11")
    st = seal(RULES, st, {})
    st.heirs[0].soldiers = st.heirs[1].soldiers = 0
    st, _ = RULES.resolve_round(st)
    outcome = outcome_of(RULES, st)
    assert outcome["reason"] == "last_survivor" and outcome["winners"] == [1]
    assert outcome["council"]["1"]["fields"] == 2


def test_h12_10_b_retreat_tie_breaks() -> None:
    def retreat_to(blue_fields: tuple[str, ...]) -> str:
        st = scenario(RULES, 2)
        edit_heir(RULES, st, 0, soldiers=30, position="R1-3")
        edit_heir(RULES, st, 1, soldiers=5, position="R2-6")
        give_fields(RULES, st, 1, *blue_fields)
        st = seal(RULES, st, {0: {"expedition": {"kind": "attack", "field": "R2-6"}}})
        st, _ = run_pass(st)
        return RULES.map.ids[st.heirs[1].position]

    # Distance from F first, then distance from the capital, then field order.
    assert retreat_to(("R2-7", "R2-5", "R3-9")) == "R3-9"
    assert retreat_to(("R2-7", "R2-5")) == "R2-5"
    assert retreat_to(("R3-13",)) == "R4-12"


def test_h12_6_split_defence_ignores_the_defenders_own_attack_on_the_field() -> None:
    st = scenario(RULES, 2)
    edit_heir(RULES, st, 0, soldiers=30, position="R2-0")
    edit_heir(RULES, st, 1, soldiers=10, position="R2-0")
    mutual = {"expedition": {"kind": "attack", "field": "R2-0"}}
    st = seal(RULES, st, {0: mutual, 1: mutual})
    st, events = run_pass(st)
    blue_value = next(
        e.data["value"] for e in events if e.kind == "battle_report" and e.data["seat"] == 1
    )
    assert blue_value == 10  # k_F = 2, minus Blue's own order: undivided


def test_h18_fallen_capital_becomes_a_free_edge_field() -> None:
    st = scenario(RULES, 3)
    st = seal(RULES, st, {})
    st.heirs[1].soldiers = 0
    st, _ = RULES.resolve_round(st)
    capital = st.capitals[1]
    assert st.owner[capital] == -1
    assert RULES.settle_cost(st, st.heirs[0], capital) == 2
    assert RULES.map.ids[capital] not in RULES.view(st, None)["map"]["forests"]
    assert "1" not in RULES.view(st, None)["living_capitals"]


def test_h16_pay_counts_only_full_groups_of_five() -> None:
    st = scenario(RULES, 3)
    edit_heir(RULES, st, 0, soldiers=24, gold=0)
    edit_heir(RULES, st, 1, soldiers=25, gold=0)
    edit_heir(RULES, st, 2, soldiers=31, gold=1)
    st = seal(RULES, st, {})
    st, events = run_pass(st, until="dusk")
    assert [h.soldiers for h in st.heirs] == [24, 20, 26]
    assert st.heirs[2].gold == 0
    assert {e.data["seat"]: e.data["deserted"] for e in events if e.kind == "pay"} == {1: 5, 2: 5}


def test_h20_1_a_tournament_keeps_each_heirs_colour() -> None:
    from engine.core import IllegalOrder

    kept = ["green", "red", "blue"]
    state = RULES.setup(3, 5, {"colours": kept})
    assert [prompt_of(RULES, state, seat)["colours"] for seat in range(3)] == [[c] for c in kept]
    assert all(prompt_of(RULES, state, seat)["colour_kept"] for seat in range(3))
    assert not prompt_of(RULES, RULES.setup(3, 5, {}), 0)["colour_kept"]
    character = prompt_of(RULES, state, 0)["characters"][0]
    with pytest.raises(IllegalOrder) as refused:
        RULES.submit(state, 0, {"colour": "red", "character": character})
    assert refused.value.code == "COLOUR_KEPT"
    for seat in range(3):
        state = RULES.submit(
            state, seat, {"character": prompt_of(RULES, state, seat)["characters"][0]}
        )
    state, _events = RULES.resolve(state)
    assert [heir.colour for heir in state.heirs] == kept
    for bad in (["green", "green", "red"], ["green", "red"], ["pink", "red", "blue"], "green"):
        with pytest.raises(ValueError):
            RULES.setup(3, 5, {"colours": bad})

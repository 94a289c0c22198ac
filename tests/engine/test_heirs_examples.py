"""The spec's worked examples E1–E10, each named after its rule (rules/heirs.md)."""

from __future__ import annotations

from engine.core import JSON, Event
from engine.heirs import RULES
from engine.heirs.scenario import edit_heir, give_fields, scenario, seal
from engine.heirs.state import HeirsState


def fid(name: str) -> int:
    return RULES.field_index(name)


def run_pass(st: HeirsState, until: str = "pass") -> tuple[HeirsState, list[Event]]:
    return RULES.resolve_round(st, until=until)


def reports(events: list[Event], seat: int, kind: str = "battle_report") -> list[JSON]:
    return [e.data for e in events if e.kind == kind and e.data.get("seat") == seat]


def kinds(events: list[Event]) -> list[str]:
    return [e.kind for e in events]


# -- E1 ------------------------------------------------------------------------------------


def e1_position(red: int, blue: int) -> HeirsState:
    st = scenario(RULES, 2)
    edit_heir(RULES, st, 0, soldiers=red, people=4, position="R3-5")
    edit_heir(RULES, st, 1, soldiers=blue, position="R2-3")
    return seal(RULES, st, {0: {"expedition": {"kind": "attack", "field": "R2-3"}}})


def test_h12_e1_plain_battle_attacker_wins_takes_sign_and_settles() -> None:
    st, events = run_pass(e1_position(20, 14))
    red, blue = st.heirs
    assert blue.soldiers == 7 and blue.position == st.capitals[1]
    assert red.soldiers == 16 and red.position == fid("R2-3")
    assert red.signs == [1] and red.won_battles == 1
    assert st.owner[fid("R2-3")] == 0 and red.people == 0
    assert reports(events, 0)[0]["value"] == 20
    assert reports(events, 1)[0]["value"] == 14


def test_h12_5_e1_tie_goes_to_the_defender() -> None:
    st, _ = run_pass(e1_position(14, 14))
    red, blue = st.heirs
    assert red.soldiers == 7 and red.position == fid("R3-5")
    assert blue.soldiers == 10 and blue.position == fid("R2-3")
    assert blue.signs == [0] and blue.won_battles == 1 and red.signs == []


# -- E2 ------------------------------------------------------------------------------------


def e2_position(paladin_shield: bool) -> HeirsState:
    st = scenario(RULES, 2, omen="blood_moon")
    edit_heir(
        RULES,
        st,
        0,
        soldiers=18,
        character="knight",
        start_artifact="sword_of_dawn",
        abilities={"attack": 1, "leadership": 1},
        position="R3-4",
        hand=["spy", "hired_knights", "war_cry"],
    )
    edit_heir(
        RULES,
        st,
        1,
        soldiers=20,
        character="paladin",
        start_artifact="cloak_of_dusk",
        abilities={"defense": 1},
        buildings={"walls": 1},
        position="R3-5",
        hand=["spy", "hired_knights", "shield_of_the_seal"],
    )
    give_fields(RULES, st, 1, "R3-5")
    orders = {0: {"expedition": {"kind": "attack", "field": "R3-5"}, "trick": {"card": "war_cry"}}}
    if paladin_shield:
        orders[1] = {"trick": {"card": "shield_of_the_seal"}}
    return seal(RULES, st, orders)


def test_h12_e2_abilities_artifacts_trick_and_omen() -> None:
    st, events = run_pass(e2_position(paladin_shield=False))
    knight, paladin = st.heirs
    assert reports(events, 0)[0]["value"] == 69
    assert reports(events, 1)[0]["value"] == 61
    assert paladin.soldiers == 10 and paladin.position != fid("R3-5")
    assert knight.soldiers == 13 and knight.position == fid("R3-5")
    assert st.owner[fid("R3-5")] == 0 and st.conquered[fid("R3-5")]
    assert knight.signs == [1]


def test_h11_5_e2_variant_shield_of_the_seal_holds() -> None:
    st, events = run_pass(e2_position(paladin_shield=True))
    knight, paladin = st.heirs
    assert reports(events, 1)[0]["value"] == 70
    assert knight.soldiers == 11 and knight.position == fid("R3-4")
    assert paladin.soldiers == 15 and paladin.signs == [0]
    assert st.owner[fid("R3-5")] == 1


# -- E3 ------------------------------------------------------------------------------------


def test_h12_6_e3_two_attackers_split_the_defence() -> None:
    # Seats: Red 0, Blue 1, Yellow 2; pedestals Red 1, Yellow 2, Blue 3.
    st = scenario(RULES, 3)
    st.pedestals = [0, 2, 1]
    edit_heir(RULES, st, 0, soldiers=12, position="R2-4")
    edit_heir(RULES, st, 1, soldiers=16, position="R2-6")
    edit_heir(RULES, st, 2, soldiers=24, position="R2-5")
    give_fields(RULES, st, 2, "R2-5")
    invade = {"expedition": {"kind": "attack", "field": "R2-5"}}
    st = seal(RULES, st, {0: invade, 1: invade})
    st, events = run_pass(st)
    red, blue, yellow = st.heirs
    values = [e.data["value"] for e in events if e.kind == "battle_report" and e.data["seat"] == 2]
    assert values == [13, 11]
    assert red.soldiers == 6 and red.position == fid("R2-4")
    assert yellow.soldiers == 15 and yellow.position == st.capitals[2] and yellow.signs == [0]
    assert blue.soldiers == 12 and blue.position == fid("R2-5") and blue.signs == [2]
    assert st.owner[fid("R2-5")] == 1 and st.conquered[fid("R2-5")]


# -- E4 ------------------------------------------------------------------------------------


def e4_position(red: int) -> HeirsState:
    st = scenario(RULES, 2)
    edit_heir(RULES, st, 0, soldiers=red, position="R3-6")
    edit_heir(RULES, st, 1, character="builder", buildings={"walls": 2}, abilities={"defense": 1})
    give_fields(RULES, st, 1, "R3-7")
    return seal(RULES, st, {0: {"expedition": {"kind": "attack", "field": "R3-7"}}})


def test_h12_4_e4_invasion_of_a_walled_field() -> None:
    st, events = run_pass(e4_position(12))
    red, _green = st.heirs
    assert reports(events, 1)[0]["value"] == 10
    assert red.soldiers == 9 and red.position == fid("R3-7")
    assert st.owner[fid("R3-7")] == 0 and st.conquered[fid("R3-7")]
    assert red.signs == [] and red.won_battles == 1
    # Under a later Storm the conquered field yields nothing (H8.4).
    st.omens = ["storm"] * st.rounds
    before = st.heirs[0].gold
    RULES.income(st, [])
    assert st.heirs[0].gold - before == 3  # capital only


def test_h12_7_e4_variant_militia_holds_on_a_tie() -> None:
    st, _ = run_pass(e4_position(10))
    red, green = st.heirs
    assert red.soldiers == 5 and green.won_battles == 1 and green.signs == []
    assert st.owner[fid("R3-7")] == 1


# -- E5 ------------------------------------------------------------------------------------


def test_h12_10_e5_preset_retreat_on_a_free_field() -> None:
    st = scenario(RULES, 2)
    edit_heir(RULES, st, 0, soldiers=20, people=4, position="R2-3")
    edit_heir(RULES, st, 1, soldiers=9, position="R2-4")
    st = seal(
        RULES, st, {0: {"expedition": {"kind": "attack", "field": "R2-4"}}, 1: {"retreat": True}}
    )
    st, events = run_pass(st)
    red, blue = st.heirs
    assert blue.soldiers == 7 and blue.position == st.capitals[1]
    assert red.soldiers == 20 and red.position == fid("R2-4") and st.owner[fid("R2-4")] == 0
    assert red.signs == [] and red.won_battles == 0 and blue.won_battles == 0
    assert "battle" not in kinds(events)


def test_h12_10_e5_variant_retreat_from_own_field_militia_fights() -> None:
    st = scenario(RULES, 2)
    edit_heir(RULES, st, 0, soldiers=20, position="R2-3")
    edit_heir(RULES, st, 1, soldiers=9, position="R3-5", buildings={"walls": 1})
    give_fields(RULES, st, 1, "R3-5")
    st = seal(
        RULES, st, {0: {"expedition": {"kind": "attack", "field": "R3-5"}}, 1: {"retreat": True}}
    )
    st, events = run_pass(st)
    red, blue = st.heirs
    assert blue.soldiers == 7 and blue.position == st.capitals[1]
    assert reports(events, 1)[0]["value"] == 3
    assert red.soldiers == 15 and st.owner[fid("R3-5")] == 0 and red.signs == []


# -- E6 ------------------------------------------------------------------------------------


def e6_position(heir_home: bool) -> HeirsState:
    st = scenario(RULES, 2, omen="blood_moon")
    capital = RULES.map.ids[st.capitals[1]]
    edit_heir(RULES, st, 0, soldiers=40, abilities={"attack": 1}, position="R3-9", gold=0)
    edit_heir(
        RULES,
        st,
        1,
        soldiers=10,
        start_artifact="signet_ring",
        gold=13,
        buildings={"walls": 2},
        position=capital if heir_home else "R3-10",
    )
    return seal(RULES, st, {0: {"expedition": {"kind": "attack", "field": capital}}})


def test_h12_9_e6_capital_plunder() -> None:
    st, events = run_pass(e6_position(heir_home=True))
    red, yellow = st.heirs
    assert reports(events, 0)[0]["value"] == 85
    assert reports(events, 1)[0]["value"] == 48
    assert red.gold == 7 and yellow.gold == 6
    assert red.signs == [1] and red.won_battles == 1 and red.position == fid("R3-9")
    assert yellow.soldiers == 5 and yellow.position == st.capitals[1]
    assert red.soldiers == 30
    assert st.owner[st.capitals[1]] == 1
    assert any(e.kind == "plunder" and e.audience is None for e in events)
    assert all("gold" not in e.data for e in events if e.audience is None)


def test_h12_9_e6_heir_away_still_plundered() -> None:
    st, events = run_pass(e6_position(heir_home=False))
    red, _ = st.heirs
    assert reports(events, 1)[0]["value"] == 34
    assert red.soldiers == 30 and red.signs == [1]


# -- E7 ------------------------------------------------------------------------------------


def test_h16_e7_pay_and_desertion() -> None:
    st = scenario(RULES, 3)
    edit_heir(RULES, st, 0, soldiers=37, gold=2)
    edit_heir(RULES, st, 1, soldiers=24, gold=4)
    edit_heir(RULES, st, 2, soldiers=45, gold=10)
    st = seal(RULES, st, {})
    st, events = run_pass(st, until="dusk")
    assert (st.heirs[0].soldiers, st.heirs[0].gold) == (32, 0)
    assert (st.heirs[1].soldiers, st.heirs[1].gold) == (24, 4)
    assert (st.heirs[2].soldiers, st.heirs[2].gold) == (45, 5)
    pay = [e for e in events if e.kind == "pay"]
    assert all(e.audience == (e.data["seat"],) for e in pay)


# -- E8 ------------------------------------------------------------------------------------


def e8_position() -> HeirsState:
    st = scenario(RULES, 3, round_number=9, start_player=2)
    assert st.pedestals == [2, 0, 1]
    edit_heir(
        RULES,
        st,
        2,
        character="barbarian",
        start_artifact="quiver_of_the_wind",
        soldiers=16,
        people=10,
        gold=7,
        knowledge=3,
        position="R3-6",
        hand=["new_portrait", "hired_knights", "war_cry"],
    )
    edit_heir(
        RULES,
        st,
        0,
        character="knight",
        start_artifact="dragon_heart",
        soldiers=18,
        people=9,
        gold=8,
        knowledge=5,
        position="R2-2",
        abilities={"attack": 1},
        hand=["new_portrait", "hired_knights", "war_cry"],
    )
    edit_heir(
        RULES,
        st,
        1,
        character="merchant",
        start_artifact="signet_ring",
        soldiers=14,
        people=8,
        gold=11,
        knowledge=2,
        position="R2-3",
        abilities={"defense": 1},
        buildings={"walls": 1, "mine": 1},
        hand=["new_portrait", "hired_knights", "war_cry"],
    )
    give_fields(RULES, st, 0, "R2-2")
    give_fields(RULES, st, 1, "R3-5", "R4-7")
    return seal(
        RULES,
        st,
        {
            2: {
                "trick": {"card": "war_cry"},
                "recruit": 3,
                "expedition": {"kind": "attack", "field": "R4-8"},
            },
            0: {
                "trick": {"card": "hired_knights"},
                "recruit": 4,
                "build": "market",
                "learn": "leadership",
                "expedition": {"kind": "attack", "field": "R2-3"},
            },
            1: {
                "recruit": 2,
                "build": "mine",
                "expedition": {"kind": "attack", "field": "R2-2"},
                "retreat": False,
            },
        },
    )


def test_h6_e8_full_round_three_players() -> None:
    st, events = run_pass(e8_position(), until="dusk")
    red, blue, green = st.heirs
    # Green, pedestal 1: capital assault and plunder, then settles R3-6.
    assert green.gold == 13 and green.signs == [1] and green.soldiers == 14
    assert green.position == fid("R3-6") and st.owner[fid("R3-6")] == 2 and green.people == 1
    # Red, pedestal 2.
    assert red.soldiers == 22 and red.people == 1 and red.gold == 3 and red.knowledge == 1
    assert red.buildings[5] == 1 and red.abilities[2] == 1
    assert red.position == fid("R2-3") and red.signs == [1] and st.owner[fid("R2-3")] == -1
    # Blue, pedestal 3.
    assert blue.position == fid("R3-5") and blue.soldiers == 9 and blue.people == 4
    assert blue.gold == 5 and blue.buildings[1] == 1
    skipped = {(e.data["seat"], e.data["code"]) for e in events if e.kind == "skipped"}
    assert skipped == {(0, "NOT_ENOUGH_PEOPLE"), (1, "NOT_ENOUGH_GOLD"), (1, "NOT_ADJACENT")}
    for e in events:
        if e.kind == "skipped":
            assert e.audience == (e.data["seat"],)
    assert "pay" not in kinds(events)
    # The board's log: plunder, settlement, battle with retreat; never a skip reason.
    public = [e.kind for e in events if e.audience is None]
    assert "plunder" in public and "settle" in public and "retreat" in public
    # Round 10: start player Red.
    after, _ = RULES.resolve_round(e8_position())
    assert after.round == 10 and after.pedestals == [0, 1, 2]


# -- E9 ------------------------------------------------------------------------------------


def test_h9_3_e9_costs_and_modifiers() -> None:
    st = scenario(RULES, 2, omen="builders_day")
    builder = st.heirs[0]
    edit_heir(RULES, st, 0, character="builder", buildings={"walls": 1, "mine": 2})
    assert RULES.building_cost(st, builder, 4) == 4
    st.omens = ["quiet_night"] * st.rounds
    assert RULES.building_cost(st, builder, 1) == 13


def test_h9_2_e9_barbarian_cap_and_people_limit() -> None:
    st = scenario(RULES, 2, omen="harvest")
    edit_heir(RULES, st, 0, character="barbarian", abilities={"leadership": 1}, people=24)
    assert RULES.recruit_cap(st, st.heirs[0]) == 12
    st = seal(RULES, st, {0: {"recruit": 12}})
    st.heirs[0].people = 15  # people spent before Retinue runs (H21)
    st, events = run_pass(st)
    assert st.heirs[0].soldiers == 17
    cut = reports(events, 0, "retinue_cut")
    assert cut and cut[0]["code"] == "NOT_ENOUGH_PEOPLE"


def test_h8_3_e9_settlers_and_crown_of_mist() -> None:
    st = scenario(RULES, 2, omen="settlers")
    heir = st.heirs[0]
    heir.backpack = ["crown_of_mist"]
    assert RULES.settle_cost(st, heir, fid("R1-0")) == 3
    assert RULES.settle_cost(st, heir, fid("R4-3")) == 0


def test_h10_e9_market_rates() -> None:
    for level, trades, gold_paid, knowledge_got in ((2, 3, 6, 3), (3, 2, 6, 4)):
        st = scenario(RULES, 2)
        edit_heir(RULES, st, 0, gold=6, knowledge=0, buildings={"market": level})
        st = seal(
            RULES, st, {0: {"exchanges": [{"give": "gold", "get": "knowledge", "trades": trades}]}}
        )
        st, _ = run_pass(st)
        assert st.heirs[0].gold == 6 - gold_paid and st.heirs[0].knowledge == knowledge_got


def test_h11_6_e9_thief_curse_with_mysticism_never_exposed() -> None:
    st = scenario(RULES, 2)
    edit_heir(
        RULES,
        st,
        0,
        character="thief",
        knowledge=2,
        abilities={"mysticism": 2},
        portraits=[1],
        hand=["curse", "hired_knights", "war_cry"],
    )
    edit_heir(RULES, st, 1, soldiers=10)
    st = seal(RULES, st, {0: {"trick": {"card": "curse", "target": 1}}})
    rng_before = st.rng
    st, events = run_pass(st)
    assert st.heirs[1].soldiers == 6 and st.heirs[0].knowledge == 0
    assert st.heirs[0].portraits == []
    assert st.rng == rng_before  # no exposure roll for the Thief (H22)
    public = [e for e in events if e.kind == "trick_public"]
    assert public and public[0].data["caster"] is None


def test_h13_e9_seer_round_six() -> None:
    st = scenario(RULES, 3, round_number=5)
    edit_heir(RULES, st, 0, character="seer", soldiers=10, position="R3-0")
    edit_heir(RULES, st, 2, position="R3-17")
    st = seal(RULES, st, {})
    st, _ = RULES.resolve_round(st)
    assert st.round == 6
    assert st.heirs[0].soldiers == 12 and st.heirs[0].portraits == [2]


# -- E10 -----------------------------------------------------------------------------------


def test_h17_e10_goal_and_council() -> None:
    st = scenario(RULES, 5, round_number=10)
    # Red 0, Blue 1, Green 2, Yellow 3, Purple 4; Red before Purple in the pass.
    edit_heir(
        RULES,
        st,
        0,
        start_artifact="legacy_of_the_fallen",
        backpack=["horn_of_the_wild_hunt"],
        signs=[1, 2],
        won_battles=3,
        abilities={"attack": 2, "leadership": 1},
        position="R1-0",
    )
    edit_heir(
        RULES,
        st,
        4,
        start_artifact="sword_of_dawn",
        signs=[1, 2, 3],
        won_battles=2,
        abilities={"attack": 1, "defense": 1},
        position="R1-3",
    )
    give_fields(RULES, st, 0, "R2-0", "R2-1", "R3-0", "R3-1", "R4-1")
    give_fields(RULES, st, 4, "R2-6", "R2-7", "R3-9", "R3-10")
    assert RULES.signs_required(st, st.heirs[0]) == 2
    assert RULES.signs_required(st, st.heirs[4]) == 3
    st.heirs[3].fallen = st.heirs[2].fallen = True
    assert RULES.signs_required(st, st.heirs[4]) == 3  # holds both fallen Signs: A = 4
    st.heirs[4].signs = [1]
    assert RULES.signs_required(st, st.heirs[4]) == 2  # A = 2 living siblings + 0
    st.heirs[3].fallen = st.heirs[2].fallen = False
    st.heirs[4].signs = [1, 2, 3]
    axis = {"expedition": {"kind": "move", "field": "R0-0"}}
    st = seal(RULES, st, {0: axis, 4: axis})
    st, events = RULES.resolve_round(st)
    outcome = RULES.outcome(st)
    assert outcome is not None and outcome["reason"] == "throne" and outcome["winners"] == [0]
    assert outcome["council"]["0"]["points"] == 51
    assert outcome["council"]["4"]["points"] == 45
    assert outcome["game_points"]["0"] == 5
    assert [e.kind for e in events if e.kind == "axis"] == ["axis", "axis"]

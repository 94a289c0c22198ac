"""The worked examples of G14 (rules/legions.md), one test each, played through the protocol."""

from __future__ import annotations

from engine.legions import RULES
from engine.legions.state import LEADERSHIP, OVER, LegionsState
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


def e1_start() -> LegionsState:
    return build(
        n_hand=["L05", "L20", "L27"],
        k_hand=["L09", "L16", "L24"],
        row=[("L13", True), ("L26", True), ("L17", False)],
        hero_row=["H05", "H09", "H13", "H17", "H02"],
        hero_deck_top=["H16"],
        n_face_up={"Y": ["L07"], "R": ["L02", "L14"], "P": ["L10"]},
        k_face_up={"R": ["L08"], "B": ["L21"], "G": ["L23", "L29"]},
        tokens={"Y": N, "R": N, "B": K, "P": N, "G": K},
        deck_top=["L30", "L11"],
        n_stratagem="N3",
        k_stratagem="K3",
    )


def play_e1() -> LegionsState:
    state = e1_start()
    assert len(state.legion_deck) == 14
    state, events = seal(state, "L20", "L16")
    assert state.leader == K  # 16 < 20
    assert events[0].data["leader"] == K
    state, _ = act(state, K, {"kind": "place", "location": "P"})
    # K step 2: no location with 3, not all 5 covered -> only "don't recruit" (+ stratagem).
    assert {o["kind"] for o in orders(state, K)} == {"skip", "stratagem"}
    state, _ = act(state, K, {"kind": "skip"})
    state, _ = act(state, K, {"kind": "take", "card": "L13"})
    state, _ = act(state, N, {"kind": "place", "location": "R"})
    state, _ = act(
        state, N, {"kind": "recruit", "hero": "H05", "route": "location", "location": "R"}
    )
    state, _ = act(state, N, {"kind": "under", "legions": ["L20", "L14"]})
    assert state.hero_row == ["H09", "H13", "H17", "H02", "H16"]
    state, events = act(state, N, {"kind": "take", "card": "L26"})
    attack_card = next(e for e in events if e.kind == "attack_card")
    assert attack_card.data["legion"]["id"] == "L17" and attack_card.data["was_face_down"]
    attack = next(e for e in events if e.kind == "attack")
    assert attack.data["location"] == "G"
    return state


def test_g14_e1_full_turn_with_attack_and_rout() -> None:
    state = play_e1()
    assert state.phase == LEADERSHIP and state.turn == 6
    assert routed(state, K) == {"G": ["L23", "L29"]}
    assert face_up(state, N) == {"Y": ["L07"], "R": ["L02"], "P": ["L10"]}
    assert face_up(state, K) == {"R": ["L08"], "B": ["L21"], "P": ["L16"]}
    assert state.tokens == {"Y": N, "R": N, "B": K, "P": N, "G": K}
    assert [RULES.banners(state, s) for s in (N, K)] == [0, 1]
    assert [(s.card, s.face_up) for s in state.legion_row] == [
        ("L17", True),
        ("L30", True),
        ("L11", False),
    ]
    assert sorted(state.players[N].hand) == ["L05", "L26", "L27"]
    assert sorted(state.players[K].hand) == ["L09", "L13", "L24"]
    assert [RULES.score(state, s) for s in (N, K)] == [16, 6]
    assert RULES.view(state, None)["score"] == [16, 6]


def test_g14_e2_collecting_with_rally() -> None:
    state = play_e1()
    state, _ = seal(state, "L05", "L24")
    assert state.leader == N
    state, _ = act(state, N, {"kind": "place", "location": "G"})
    state, _ = act(state, N, {"kind": "skip"})  # step 2: nothing to recruit
    state, _ = act(state, N, {"kind": "take", "card": "L17"})
    state, _ = act(state, K, {"kind": "place", "location": "G"})
    # K holds green: Rally offers all or none (G7.3 [DECIDED]).
    assert orders(state, K) == [{"kind": "collect_all"}, {"kind": "skip"}]
    state, _ = act(state, K, {"kind": "collect_all"})
    assert face_up(state, K)["G"] == ["L23", "L24", "L29"]
    state, _ = act(
        state, K, {"kind": "recruit", "hero": "H17", "route": "location", "location": "G"}
    )
    state, _ = act(state, K, {"kind": "under", "legions": ["L23", "L29"]})
    assert [(h.hero, h.legions) for h in state.players[K].heroes] == [("H17", ["L23", "L29"])]
    assert face_up(state, K)["G"] == ["L24"]


def test_g14_e2_without_rally_collects_one_and_cannot_recruit() -> None:
    state = play_e1()
    state.tokens["G"] = None
    state, _ = seal(state, "L05", "L24")
    state, _ = act(state, N, {"kind": "place", "location": "G"})
    state, _ = act(state, N, {"kind": "skip"})
    state, _ = act(state, N, {"kind": "take", "card": "L17"})
    state, _ = act(state, K, {"kind": "place", "location": "G"})
    assert orders(state, K) == [
        {"kind": "collect", "legion": "L23"},
        {"kind": "collect", "legion": "L29"},
        {"kind": "skip"},
    ]
    state, _ = act(state, K, {"kind": "collect", "legion": "L29"})
    assert face_up(state, K)["G"] == ["L24", "L29"]
    assert all(o["kind"] != "recruit" for o in orders(state, K))


def e3_start(hero_row: list[str]) -> LegionsState:
    state = build(
        n_hand=["L30", "L01", "L02"],
        k_hand=["L09", "L04", "L05"],
        row=[("L13", True), ("L26", True), ("L17", False)],
        k_face_up={"B": ["L03", "L21"]},
        hero_row=hero_row,
        hero_deck_top=["H10", "H07"],
        k_stratagem="K1",
    )
    state, _ = seal(state, "L30", "L09")
    state, _ = act(state, K, {"kind": "place", "location": "B"})
    return state


def test_g14_e3_recruiting_with_the_deck_peek_fallback() -> None:
    state = e3_start(["H01", "H06", "H13", "H17", "H16"])
    assert {"kind": "peek", "location": "B"} in orders(state, K)
    state, events = act(state, K, {"kind": "peek", "location": "B"})
    public = [e for e in events if e.audience is None]
    assert [e.data for e in public if e.kind == "peek_heroes"] == [
        {"seat": K, "location": "B", "count": 2}
    ]
    assert "H10" not in str([e.data for e in public])
    assert [o["hero"] for o in orders(state, K)] == ["H10", "H10", "H07", "H07"]
    state, _ = act(state, K, {"kind": "choose_hero", "hero": "H10", "other": "bottom"})
    state, _ = act(state, K, {"kind": "under", "legions": ["L21", "L09"]})
    assert state.hero_deck[-1] == "H07" and "H10" not in state.hero_deck
    assert state.hero_row == ["H01", "H06", "H13", "H17", "H16"]  # G8.4: row unchanged
    assert face_up(state, K) == {"B": ["L03"]}
    assert RULES.banners(state, K) == 1
    assert RULES.score_breakdown(state, K)["heroes"][0]["total"] == 3


def test_g14_e3_fallback_is_illegal_when_the_row_has_that_colour() -> None:
    state = e3_start(["H01", "H06", "H13", "H17", "H11"])
    error = rejected(state, K, {"kind": "peek", "location": "B"})
    assert error.code == "fallback_not_allowed"
    recruits = [o for o in orders(state, K) if o["kind"] == "recruit"]
    assert recruits == [{"kind": "recruit", "hero": "H11", "route": "location", "location": "B"}]


def test_g14_e4_five_location_recruitment() -> None:
    state = build(
        n_hand=["L31", "L01", "L06"],
        k_hand=["L30", "L04", "L05"],
        row=[("L13", True), ("L26", True), ("L17", False)],
        n_face_up={"Y": ["L07"], "R": ["L02", "L14"], "B": ["L27"], "P": ["L10"]},
        hero_row=["H09", "H13", "H17", "H02", "H16"],
        hero_deck_top=["H03"],
    )
    state, _ = seal(state, "L31", "L30")
    assert state.leader == K  # 30 < 31: N is the second player
    state, _ = act(state, K, {"kind": "place", "location": "Y"})
    state, _ = act(state, K, {"kind": "skip"})
    state, _ = act(state, K, {"kind": "take", "card": "L13"})
    assert len(orders(state, N)) == 5  # white: any of the 5 locations (G7.1)
    state, _ = act(state, N, {"kind": "place", "location": "G"})
    state, _ = act(state, N, {"kind": "recruit", "hero": "H09", "route": "five", "location": None})
    error = rejected(state, N, {"kind": "under", "legions": ["L02", "L14"]})
    assert error.code == "same_location"
    state, _ = act(state, N, {"kind": "under", "legions": ["L31", "L14"]})
    assert face_up(state, N) == {"Y": ["L07"], "R": ["L02"], "B": ["L27"], "P": ["L10"]}
    assert RULES.banners(state, N) == 1
    assert state.hero_row == ["H13", "H17", "H02", "H16", "H03"]


def e5_position(decree: bool, yellow_tie: bool) -> LegionsState:
    """E5 at the second player's step 3; the leftover purple legion attacks an empty Tower."""
    state = build(
        n_hand=["L01", "L02"],
        k_hand=["L03", "L04", "L05"],
        row=[("L16", True), ("L30", True)],
        n_face_up={
            "Y": ["L07"] if yellow_tie else ["L07", "L13"],
            "R": ["L08", "L14"],
            "G": ["L11"],
        },
        n_routed={"R": ["L20"], "B": ["L09", "L15"]},
        k_face_up={"Y": ["L19"], "R": ["L26", "L06"], "B": ["L21"]},
        k_routed={"G": ["L17", "L23", "L29"]},
        tokens={"Y": None, "R": K, "B": N, "P": None, "G": K},
    )
    state = at_stage(state, N, "take", leader=K)
    if decree:
        state.players[K].stratagem_used = True
        state.flags.royal_decree = K
    return state


def test_g14_e5_majority_resolution() -> None:
    state = e5_position(decree=False, yellow_tie=False)
    state, events = act(state, N, {"kind": "take", "card": "L30"})
    assert state.tokens == {"Y": N, "R": K, "B": K, "P": None, "G": N}
    moved = [(e.data["location"], e.data["seat"]) for e in events if e.kind == "majority"]
    assert moved == [("Y", N), ("B", K), ("G", N)]  # yellow → green order (G11.1)
    assert [RULES.banners(state, s) for s in (N, K)] == [0, 1]


def test_g14_e5_variant_royal_decree() -> None:
    state = e5_position(decree=True, yellow_tie=False)
    state, _ = act(state, N, {"kind": "take", "card": "L30"})
    assert state.tokens["R"] == K and state.tokens["P"] is None
    tie = e5_position(decree=True, yellow_tie=True)
    tie, _ = act(tie, N, {"kind": "take", "card": "L30"})
    assert tie.tokens["Y"] == K


def e6_position(leftover: str, k_holds_red: bool) -> LegionsState:
    state = build(
        n_hand=["L02", "L04"],
        k_hand=["L05", "L10", "L12"],
        row=[(leftover, True), ("L18", True)],
        n_face_up={"B": ["L03"]},
        k_face_up={"B": ["L27", "L21"]},
        k_heroes=[("H09", ["L13", "L26"]), ("H10", ["L15", "L09"]), ("H06", ["L08", "L20"])],
        tokens={"B": N, "R": K if k_holds_red else None},
    )
    return at_stage(state, N, "take", leader=K)


def test_g14_e6_instant_banner_win() -> None:
    state = e6_position("L01", k_holds_red=False)
    assert RULES.banners(state, K) == 4
    state, events = act(state, N, {"kind": "take", "card": "L18"})
    assert state.phase == OVER
    outcome = RULES.outcome(state)
    assert outcome is not None
    assert outcome["winner"] == K and outcome["reason"] == "banners"
    assert outcome["banners"] == [0, 5]
    assert "refill" not in kinds(events)  # wins before any refill or scoring


def test_g14_e6_variant_attack_on_blue_keeps_it_for_necro() -> None:
    state = e6_position("L06", k_holds_red=False)  # white leftover: N names blue
    state, _ = act(state, N, {"kind": "take", "card": "L18"})
    state, _ = act(state, N, {"kind": "attack", "location": "B"})
    assert routed(state, K) == {"B": ["L21", "L27"]}
    assert state.tokens["B"] == N and RULES.banners(state, K) == 4
    assert state.phase == LEADERSHIP  # play continues


def test_g14_e6_variant_shield_keeps_one_and_blue_ties() -> None:
    state = e6_position("L06", k_holds_red=True)
    state, _ = act(state, N, {"kind": "take", "card": "L18"})
    state, _ = act(state, N, {"kind": "attack", "location": "B"})
    # G1.1 Shield: the King (red holder) chooses which legion stays face up.
    assert orders(state, K) == [
        {"kind": "shield", "keep": "L21"},
        {"kind": "shield", "keep": "L27"},
    ]
    state, _ = act(state, K, {"kind": "shield", "keep": "L27"})
    assert face_up(state, K)["B"] == ["L27"] and routed(state, K) == {"B": ["L21"]}
    assert state.tokens["B"] == N  # 1–1 tie: N keeps it
    assert RULES.banners(state, K) == 4


def test_g14_e7_end_of_game_score_with_tiebreak() -> None:
    state = build(
        n_hand=["L04", "L12"],
        k_hand=["L06", "L18", "L24"],
        row=[("L30", True), ("L02", True)],
        n_heroes=[("H05", ["L20", "L14"]), ("H09", ["L31", "L27"]), ("H16", ["L28", "L11"])],
        k_heroes=[("H10", ["L21", "L09"]), ("H01", ["L25", "L13"]), ("H17", ["L23", "L17"])],
        tokens={"Y": N, "P": N, "R": K, "B": K, "G": K},
        k_used=True,
        deck_size=0,
        turn=12,
    )
    state = at_stage(state, N, "take", leader=K)
    state, events = act(state, N, {"kind": "take", "card": "L30"})
    outcome = RULES.outcome(state)
    assert outcome is not None
    assert outcome["score"] == [22, 22]
    assert outcome["banners"] == [2, 2]
    assert outcome["reason"] == "tiebreak" and outcome["winner"] == N
    assert outcome["tiebreak"] == {
        "hands": [["L04", "L12", "L30"], ["L06", "L18", "L24"]],
        "lowest": "L04",
    }
    breakdown = outcome["breakdown"]
    assert [h["total"] for h in breakdown[N]["heroes"]] == [6, 4, 4]
    assert [h["total"] for h in breakdown[K]["heroes"]] == [3, 7, 6]
    assert breakdown[N]["stratagem"] == 2 and breakdown[K]["stratagem"] == 0
    assert kinds(events)[-1] == "game_end"
    # The board shows the final score table and both hands, since the tiebreak was used.
    assert RULES.view(state, None)["final"]["tiebreak"]["lowest"] == "L04"


def test_g14_e8_shield_wall_stops_the_attack() -> None:
    state = build(
        n_hand=["L30", "L01", "L03"],
        k_hand=["L07", "L04", "L05"],
        row=[("L13", True), ("L25", True), ("L19", False)],
        k_face_up={"Y": ["L06", "L12"]},
        k_stratagem="K1",
    )
    state, _ = seal(state, "L30", "L07")
    assert state.leader == K
    state, events = act(state, K, {"kind": "stratagem", "stratagem": "K1"})
    assert events[0].data["stratagem"]["id"] == "K1"
    state, _ = act(state, K, {"kind": "place", "location": "Y"})
    state, _ = act(state, K, {"kind": "skip"})  # 3 at yellow, but K does not recruit
    state, _ = act(state, K, {"kind": "take", "card": "L13"})
    state, _ = act(state, N, {"kind": "place", "location": "P"})
    state, _ = act(state, N, {"kind": "skip"})
    state, events = act(state, N, {"kind": "take", "card": "L25"})  # leftover L19: yellow
    assert "rout_blocked" in kinds(events)
    assert face_up(state, K)["Y"] == ["L06", "L07", "L12"] and routed(state, K) == {}
    assert RULES.score_breakdown(state, K)["stratagem"] == 0


def test_g14_e8_night_terror_ignores_the_red_shield() -> None:
    state = build(
        n_hand=["L26", "L01", "L03"],
        k_hand=["L07", "L04", "L05"],
        row=[("L13", True), ("L25", True), ("L19", False)],
        n_face_up={"R": ["L02"]},
        k_face_up={"R": ["L08", "L14", "L20"]},
        tokens={"R": K},
        n_stratagem="N2",
    )
    state, _ = seal(state, "L26", "L07")
    state, _ = act(state, K, {"kind": "place", "location": "Y"})
    state, _ = act(state, K, {"kind": "skip"})
    state, _ = act(state, K, {"kind": "take", "card": "L13"})
    state, _ = act(state, N, {"kind": "place", "location": "R"})
    assert len(face_up(state, N)["R"]) == 2
    state, events = act(state, N, {"kind": "stratagem", "stratagem": "N2"})
    assert routed(state, K) == {"R": ["L08", "L14", "L20"]}
    assert [e.data["by"] for e in events if e.kind == "rout"] == ["N2"]


def test_g14_e8_royal_summons_recruits_with_two() -> None:
    state = build(
        n_hand=["L30", "L01", "L03"],
        k_hand=["L09", "L04", "L05"],
        row=[("L13", True), ("L25", True), ("L19", False)],
        k_face_up={"B": ["L27"]},
        hero_row=["H01", "H05", "H13", "H17", "H11"],
        k_stratagem="K2",
    )
    state, _ = seal(state, "L30", "L09")
    state, _ = act(state, K, {"kind": "place", "location": "B"})
    assert {"kind": "stratagem", "stratagem": "K2"} in orders(state, K)
    assert all(o["kind"] != "recruit" for o in orders(state, K))
    state, _ = act(state, K, {"kind": "stratagem", "stratagem": "K2"})
    state, _ = act(
        state, K, {"kind": "recruit", "hero": "H11", "route": "summons", "location": "B"}
    )
    # Both legions go under at once (the only pair), then H11's power takes the blue token.
    assert [(h.hero, h.legions) for h in state.players[K].heroes] == [("H11", ["L09", "L27"])]
    state, _ = act(state, K, {"kind": "power"})
    assert state.tokens["B"] == K

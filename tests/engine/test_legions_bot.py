"""The G16 bot: legal, deterministic, decided from its own view, and games between bots end."""

from __future__ import annotations

from typing import Any

import pytest

from engine.legions import RULES
from engine.legions.bot import Board, choose_order
from engine.legions.state import LegionsState
from tests.engine.kit import bot_picker, play, random_picker
from tests.engine.test_legions_support import K, N, act, at_stage, build, seal


@pytest.mark.parametrize("sides", [["necro", "king"], ["king", "necro"]])
@pytest.mark.parametrize("seed", range(6))
def test_g16_bots_play_either_side_to_the_end(seed: int, sides: list[str]) -> None:
    trace = play(RULES, 2, seed, bot_picker(RULES), {"sides": sides})
    outcome = RULES.outcome(trace.final)
    assert outcome is not None and outcome["side_of_seat"] == sides
    assert outcome["reason"] in ("banners", "score", "tiebreak")
    assert outcome["turns"] <= 12


def test_g16_bot_is_deterministic() -> None:
    first = play(RULES, 2, 21, bot_picker(RULES))
    second = play(RULES, 2, 21, bot_picker(RULES))
    assert first.orders == second.orders and first.final == second.final


def test_g16_1_seals_the_legion_that_lets_it_recruit() -> None:
    state = build(
        n_hand=["L05", "L26", "L31"],
        k_hand=["L30", "L04", "L06"],
        row=[("L13", True), ("L25", True), ("L19", False)],
        n_face_up={"R": ["L02", "L08"]},
        hero_row=["H05", "H01", "H13", "H17", "H11"],
    )
    # L26 to red makes 3 there with H05 in the row (+4): it beats the lower L05.
    assert RULES.bot_order(state, N) == {"kind": "seal", "legion": "L26"}


def test_g16_1_equal_place_seals_the_lower_number() -> None:
    state = build(
        n_hand=["L13", "L26", "L29"],
        k_hand=["L30", "L04", "L06"],
        row=[("L01", True), ("L25", True), ("L19", False)],
        k_face_up={"Y": ["L07"], "R": ["L02"], "G": ["L05"]},
    )
    assert RULES.bot_order(state, N) == {"kind": "seal", "legion": "L13"}


def test_g16_2_and_g16_3_collects_and_recruits_the_best_hero() -> None:
    state = build(
        n_hand=["L26", "L01", "L03"],
        k_hand=["L30", "L04", "L06"],
        n_face_up={"R": ["L02"]},
        n_routed={"R": ["L08", "L14"]},
        hero_row=["H07", "H05", "H13", "H17", "H11"],
        n_stratagem="N3",  # nothing to use it on: the bot keeps it
    )
    state, _ = seal(state, "L26", "L30")
    state, _ = act(state, N, RULES.bot_order(state, N))
    # Worth: L08 carries a banner (3) > L14 (1 VP).
    assert RULES.bot_order(state, N) == {"kind": "collect", "legion": "L08"}
    state, _ = act(state, N, RULES.bot_order(state, N))
    order = RULES.bot_order(state, N)
    assert order["kind"] == "recruit" and order["hero"] == "H05"  # 3 VP beats H07's 1 (+0)
    state, _ = act(state, N, order)
    assert RULES.bot_order(state, N) == {"kind": "under", "legions": ["L08", "L26"]}


def test_g16_5_second_player_leaves_the_card_that_hits_hardest() -> None:
    state = build(
        n_hand=["L01", "L02"],
        k_hand=["L03", "L04", "L05"],
        row=[("L13", True), ("L29", True)],
        k_face_up={"Y": ["L07"], "G": ["L11", "L17", "L23"]},
    )
    state = at_stage(state, N, "take", leader=K)
    # Taking L13 (1) leaves green L29 to rout 3: 1 + 3 beats 2 + 1.
    assert RULES.bot_order(state, N) == {"kind": "take", "card": "L13"}


def test_g16_6_white_attack_hits_the_largest_group() -> None:
    state = build(
        n_hand=["L01", "L02"],
        k_hand=["L03", "L04", "L05"],
        row=[("L12", True)],
        k_face_up={"Y": ["L07"], "B": ["L09", "L21"]},
    )
    state = at_stage(state, N, "attack", leader=K)
    assert RULES.bot_order(state, N) == {"kind": "attack", "location": "B"}


def test_g16_7_keeps_the_stratagem_without_a_reason_and_g16_8_shield() -> None:
    state = build(
        n_hand=["L01", "L02"],
        k_hand=["L03", "L04", "L05"],
        row=[("L13", True), ("L12", True)],
        k_face_up={"B": ["L09", "L15", "L21"]},
        tokens={"R": K},
        n_stratagem="N3",
    )
    state = at_stage(state, N, "take", leader=K)
    order = RULES.bot_order(state, N)
    assert order["kind"] == "take"  # N3 has no target worth using it on
    state, _ = act(state, N, {"kind": "take", "card": "L13"})
    state, _ = act(state, N, {"kind": "attack", "location": "B"})
    # The King keeps L15 (a banner, worth 3) with the Shield.
    assert RULES.bot_order(state, K) == {"kind": "shield", "keep": "L15"}


def test_g16_7_uses_dread_on_the_yellow_token() -> None:
    state = build(
        n_hand=["L01", "L02"],
        k_hand=["L03", "L04", "L05"],
        row=[("L13", True), ("L12", True)],
        tokens={"Y": K},
        n_stratagem="N3",
    )
    state = at_stage(state, N, "take", leader=K)
    assert RULES.bot_order(state, N) == {"kind": "stratagem", "stratagem": "N3", "token": "Y"}


def _king_leads_at_take(**position: Any) -> LegionsState:
    """The King, first player with K1 unused, at its step 3 (its last window, G10.1)."""
    state = build(n_hand=["L02", "L12"], k_hand=["L30", "L31"], k_stratagem="K1", **position)
    return at_stage(state, K, "take", leader=K)


SHIELD_WALL = {"kind": "stratagem", "stratagem": "K1"}


def test_g16_7_k1_shield_wall_when_the_attack_would_rout_three() -> None:
    """G16.7: K1 as first player when the max threat of the two legions left is ≥ 3."""
    state = _king_leads_at_take(
        row=[("L29", True), ("L05", True), ("L09", False)],
        k_face_up={"G": ["L11", "L17", "L23"]},
    )
    # Taking L29 (worth 2) leaves green L05, which would rout all 3 green legions.
    assert RULES.bot_order(state, K) == SHIELD_WALL


def test_g16_7_k1_shield_wall_when_the_attack_would_lose_the_yellow_token() -> None:
    """K1 (G1.6) when its trigger holds and the rout would cost more than the stratagem's
    2 VP (G10.2): two yellow legions against one, yellow token held (4 VP, G13.1) — the
    yellow leftover would hand it to the opponent at G11.1. With the red token the Shield
    keeps one legion, yellow stays a tie and the token stays: the bot keeps K1 (G16.7)."""
    row = [("L25", True), ("L19", True), ("L05", False)]
    faces = {"k_face_up": {"Y": ["L07", "L13"]}, "n_face_up": {"Y": ["L01"]}}
    state = _king_leads_at_take(row=row, tokens={"Y": K}, **faces)
    assert RULES.bot_order(state, K) == SHIELD_WALL
    shielded = _king_leads_at_take(row=row, tokens={"Y": K, "R": K}, **faces)
    assert RULES.bot_order(shielded, K)["kind"] == "take"


def test_g16_7_k1_shield_wall_for_a_final_token_only_in_the_last_turn() -> None:
    """A 2-VP token lost to the opponent swings 4 VP; before the last turn it may still
    come back, so the bot keeps K1; in the last turn (G16.7: a gain of at least 3 VP) it
    plays it."""
    row = [("L28", True), ("L22", True), ("L05", False)]
    faces = {"k_face_up": {"P": ["L10", "L16"]}, "n_face_up": {"P": ["L04"]}}
    early = _king_leads_at_take(row=row, tokens={"P": K}, **faces)
    assert RULES.bot_order(early, K)["kind"] == "take"
    last = _king_leads_at_take(row=row, tokens={"P": K}, deck_size=1, **faces)
    assert RULES.bot_order(last, K) == SHIELD_WALL
    _after, events = act(last, K, SHIELD_WALL)
    assert [e.data["stratagem"]["id"] for e in events if e.kind == "stratagem"] == ["K1"]


@pytest.mark.parametrize("seed", [3, 14])
def test_g16_bot_decides_from_its_own_view(seed: int) -> None:
    """The rules hand the bot the parts of ``view(state, seat)`` it reads, straight from
    the state: the same board and the same order as the bot reading the view itself, in
    every state of a game between bots and of a game of random orders."""
    for picker in (bot_picker(RULES), random_picker(RULES, seed)):
        for state in play(RULES, 2, seed, picker).states:
            for seat in (0, 1):
                prompt = RULES.prompt(state, seat)
                if prompt is None:
                    continue
                view = RULES.view(state, seat)
                board = RULES._bot_board(state, seat)
                from_view = Board.from_view(view)
                assert board == from_view
                assert all(
                    board.cards[card] == from_view.cards[card]
                    for faces in (board.mine, board.theirs, board.my_routed)
                    for cards in faces.values()
                    for card in cards
                )
                assert RULES.bot_order(state, seat) == choose_order(view, prompt)

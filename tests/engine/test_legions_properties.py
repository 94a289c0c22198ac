"""G17's checklist of invariants as property tests over random legal play (hypothesis picks
the seeds), and G15's secrecy promises over every state those games pass through."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.legions import RULES
from engine.legions.state import LEADERSHIP, OVER, LegionsState, clone, state_to_json
from tests.engine.kit import Playthrough, assert_json_round_trip, dumps, play, random_picker

ALL_LEGIONS = sorted(RULES.content.legions)
ALL_HEROES = sorted(RULES.content.heroes)
SEEDS = st.integers(min_value=0, max_value=2**63)
PROPERTY_SETTINGS = settings(max_examples=20, deadline=None)
# Checking every view of every state costs ~0.5 s a game: fewer games, still every state.
VIEW_SETTINGS = settings(max_examples=8, deadline=None)


def random_game(seed: int) -> Playthrough:
    return play(RULES, 2, seed, random_picker(RULES, seed ^ 0x5EED))


def legion_places(state: LegionsState) -> list[str]:
    cards = [*state.legion_deck, *(slot.card for slot in state.legion_row)]
    for player in state.players:
        cards += player.hand
        cards += [c for c in (player.sealed, player.revealed) if c is not None]
        for loc in player.face_up:
            cards += player.face_up[loc] + player.routed[loc]
        for hero in player.heroes:
            cards += hero.legions
    return cards


def battlefield_and_under(state: LegionsState) -> int:
    return sum(
        len(p.face_up[loc]) + len(p.routed[loc]) for p in state.players for loc in p.face_up
    ) + sum(len(h.legions) for p in state.players for h in p.heroes)


def check_state(state: LegionsState) -> None:
    # Card conservation: 31 legions, 20 heroes, each exactly once.
    assert sorted(legion_places(state)) == ALL_LEGIONS
    heroes = [*state.hero_deck, *state.hero_row, *(h.hero for p in state.players for h in p.heroes)]
    if state.stage is not None and state.stage.kind == "under":
        heroes.append(state.stage.data["hero"])  # recruited, its 2 legions not yet chosen
    assert sorted(heroes) == ALL_HEROES
    # Exactly 2 legions under each hero; banners ≤ 8 and at most one player reaches 5.
    assert all(len(h.legions) == 2 for p in state.players for h in p.heroes)
    # (Mid-turn a player may hold 5 for a moment, e.g. after H11; only G11.2 checks.)
    banners = [RULES.banners(state, s) for s in (0, 1)]
    assert sum(banners) <= 8 and min(banners) < 5
    # The hero row is short only while the hero deck is empty (G8.4).
    if len(state.hero_row) < 5:
        assert not state.hero_deck


def check_turn_start(state: LegionsState) -> None:
    """Every turn starts with hands 3 + 3, a row of 2 up + 1 down, and the counts of G17."""
    assert [len(p.hand) for p in state.players] == [3, 3]
    assert max(RULES.banners(state, s) for s in (0, 1)) < 5  # else G12.1 had ended it
    assert sorted(slot.face_up for slot in state.legion_row) == [False, True, True]
    played = 2 * (state.turn - 1) + state.extra_placements
    assert battlefield_and_under(state) == played
    assert len(state.legion_deck) == 22 - played
    # Only face-up legions count for majorities: the side with more face-up holds the token.
    for loc in RULES.order:
        counts = [len(state.players[s].face_up[loc]) for s in (0, 1)]
        if counts[0] != counts[1]:
            assert state.tokens[loc] == counts.index(max(counts))


def check_game(trace: Playthrough) -> None:
    previous: LegionsState | None = None
    heroes_at_turn_start = [0, 0]
    for state in trace.states:
        check_state(state)
        turn_starts = previous is None or previous.phase != LEADERSHIP
        if turn_starts and state.phase == LEADERSHIP:
            check_turn_start(state)
            counts = [len(p.heroes) for p in state.players]
            assert all(counts[s] - heroes_at_turn_start[s] <= 1 for s in (0, 1))
            heroes_at_turn_start = counts
        if previous is not None:
            for before, after in zip(previous.players, state.players, strict=True):
                assert after.heroes[: len(before.heroes)] == before.heroes  # G8.7
        previous = state
    final = trace.final
    outcome = RULES.outcome(final)
    assert outcome is not None and outcome["winner"] in (0, 1)
    if outcome["reason"] == "banners":
        assert max(outcome["banners"]) >= 5
    else:
        assert len(final.legion_deck) < 2  # ended because the row could not be refilled
        assert max(outcome["banners"]) < 5
        if final.extra_placements == 0:
            assert final.turn == 12 and len(final.legion_row) == 1


@PROPERTY_SETTINGS
@given(seed=SEEDS)
def test_g17_random_play_keeps_every_invariant_and_ends(seed: int) -> None:
    trace = random_game(seed)
    check_game(trace)
    assert_json_round_trip(RULES, trace.final)


# ---------------------------------------------------------------- G15 secrecy


def secrets_of(state: LegionsState, owner: int) -> set[str]:
    """What only ``owner`` may know (G15): hand, unrevealed seal, unused stratagem, routed."""
    player = state.players[owner]
    hidden = set(player.hand) | {c for loc in player.routed for c in player.routed[loc]}
    if player.sealed is not None:
        hidden.add(player.sealed)
    if not player.stratagem_used:
        hidden |= set(RULES.content.stratagems_of(player.side))  # token and the box ones
    if state.result is not None and state.result["tiebreak"] is not None:
        hidden -= set(player.hand)  # G15: both hands are shown when the tiebreak decided
    return hidden


def face_down_row_card(state: LegionsState) -> str | None:
    return next((s.card for s in state.legion_row if not s.face_up), None)


def hidden_from(state: LegionsState, viewer: int | None) -> set[str]:
    """Every card or token id the viewer must not see."""
    hidden: set[str] = set(state.legion_deck) | set(state.hero_deck)
    for owner in (0, 1):
        if owner != viewer:
            hidden |= secrets_of(state, owner)
    face_down = face_down_row_card(state)
    if face_down is not None:
        hidden.add(face_down)
    if viewer is not None:
        mine = state.players[viewer]
        hidden -= set(mine.hand) | {c for loc in mine.routed for c in mine.routed[loc]}
        hidden -= {mine.stratagem, mine.sealed or ""}
        for note in mine.notes:  # what this seat legitimately saw this turn
            for value in note.values():
                hidden -= set(value) if isinstance(value, list) else {value}
        if state.tokens["P"] == viewer and face_down is not None:
            hidden.discard(face_down)  # G1.1 Foresight
        if state.stage is not None and state.stage.seat == viewer:
            for value in state.stage.data.values():  # peeked heroes / Broker cards
                hidden -= set(value) if isinstance(value, list) else {value}
    return hidden


@VIEW_SETTINGS
@given(seed=SEEDS)
def test_g15_no_view_contains_another_seats_secrets(seed: int) -> None:
    for state in random_game(seed).states:
        for viewer in (None, 0, 1):
            text = dumps(RULES.view(state, viewer))
            leaked = [s for s in hidden_from(state, viewer) if f'"{s}"' in text]
            assert not leaked, f"view for {viewer} leaks {leaked}"
            assert str(state.rng) not in text or state.rng < 1000


def with_other_secrets(state: LegionsState, owner: int) -> LegionsState | None:
    """The same position where ``owner``'s secrets differ: another unused stratagem and a
    hand card swapped with the bottom card of the legion deck."""
    changed = clone(state)
    player = changed.players[owner]
    touched = False
    if not player.stratagem_used:
        pool = RULES.content.stratagems_of(player.side)
        player.stratagem = pool[(pool.index(player.stratagem) + 1) % len(pool)]
        touched = True
    if player.hand and len(changed.legion_deck) > 3:  # below the Broker's reach
        bottom = changed.legion_deck[-1]
        # Replaced, not changed in place: a clone shares the deck with ``state``.
        changed.legion_deck = [*changed.legion_deck[:-1], player.hand[0]]
        player.hand[0] = bottom
        touched = True
    return changed if touched else None


@VIEW_SETTINGS
@given(seed=SEEDS, owner=st.sampled_from([0, 1]))
def test_g15_changing_one_seats_secrets_never_changes_the_other_views(
    seed: int, owner: int
) -> None:
    other = 1 - owner
    for state in random_game(seed).states[::3]:
        if state.phase == OVER or any(n["kind"] == "oracle" for n in state.players[other].notes):
            continue
        before = state_to_json(state)
        changed = with_other_secrets(state, owner)
        assert state_to_json(state) == before, "the position compared with is left as it was"
        if changed is None:
            continue
        assert state_to_json(changed) != before, "its secrets differ"
        assert RULES.view(changed, None) == RULES.view(state, None)
        assert RULES.view(changed, other) == RULES.view(state, other)
        if RULES.prompt(state, other) is not None:
            # The bot decides from its own view only (G16).
            assert RULES.bot_order(changed, other) == RULES.bot_order(state, other)


def test_g15_private_view_shows_own_hand_and_stratagem() -> None:
    state = RULES.setup(2, 8, {"sides": ["necro", "king"]})
    mine = RULES.view(state, 0)["me"]
    assert sorted(c["id"] for c in mine["hand"]) == sorted(state.players[0].hand)
    assert mine["stratagem"]["id"] == state.players[0].stratagem
    assert mine["stratagem"]["used"] is False and mine["stratagem"]["worth"] == 2
    board = RULES.view(state, None)
    assert "me" not in board
    assert [len(loc["sides"]) for loc in board["locations"]] == [2] * 5
    assert [slot["face_up"] for slot in board["legion_row"]] == [True, True, False]


def test_g15_purple_holder_sees_the_face_down_row_card() -> None:
    state = RULES.setup(2, 8, {"sides": ["necro", "king"]})
    state = replace(state, tokens={**state.tokens, "P": 1})
    face_down = face_down_row_card(state)
    assert RULES.view(state, 1)["me"]["row_face_down"]["id"] == face_down
    assert RULES.view(state, 0)["me"]["row_face_down"] is None


def test_events_for_the_board_hold_no_secret_cards() -> None:
    trace = random_game(77)
    revealed_on_table: Counter[str] = Counter()
    for event in trace.events:
        if event.audience is None:
            assert event.kind not in ("take_seen", "oracle_seen", "rout_seen", "draw_seen")
            if event.kind == "take":
                assert event.data["face_down"] == (event.data["legion"] is None)
            revealed_on_table[event.kind] += 1
    assert revealed_on_table["reveal"] >= 9 and revealed_on_table["game_end"] == 1

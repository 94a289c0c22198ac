"""Resolutions played out in board steps, for every game (DESIGN "The reveal is the show").

``resolve_steps`` must be the same resolution as ``resolve`` (same events, same final state),
each step's state must show the board exactly what happened up to that step and nothing of
the next ones, and ``order_is_public`` must never call public an order whose content the
room does not see after it resolved. Random legal games are walked to their end, continuing
from the last step's state, and every resolution is checked.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import pytest

from engine.core import JSON, Event, GameRules, Rng, State, Step, events_for
from engine.registry import engine_games, get_rules
from tests.engine.kit import dumps

GAMES = engine_games()
# Random games per game: enough to reach every resolution kind (Legions' Shield, white
# attacks, banner wins; Hidden Leaders' final scoring) while the module stays fast.
GAMES_PER_RUN = {"hidden_leaders": 24, "legions": 12, "heirs": 12}


def public(events: list[Event]) -> list[JSON]:
    return events_for(events, None)


def fresh(rules: GameRules, text: str) -> State:
    """The state rebuilt from its JSON text: no cached memo can come along."""
    return rules.from_json(json.loads(text))


def string_leaves(value: Any, key: str | None = None) -> Iterator[str]:
    """The strings an order names, apart from its own kind (the board shows what kind of
    decision was asked)."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from string_leaves(v, k)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from string_leaves(v, key)
    elif isinstance(value, str) and key not in ("kind", "type"):
        yield value


@dataclass
class Walk:
    resolutions: int = 0
    steps: int = 0
    kinds: set[tuple[str, ...]] = field(default_factory=set)
    """First public event kind of every step, per resolution: which cuts were seen."""
    silent: list[str] = field(default_factory=list)
    """Steps whose board changed although the step had no public event (see below)."""


# -- the promises every game keeps -------------------------------------------------------


def check_resolution(
    game: str,
    rules: GameRules,
    state: State,
    orders: list[tuple[int, JSON]],
    known: str,
    walk: Walk,
) -> list[tuple[Step, str]]:
    """Check one resolution of ``orders``, given from the state whose JSON text is ``known``;
    the steps with their states' JSON text."""
    before_json = dumps(rules.to_json(state))
    before_board = rules.view(state, None)
    expected, expected_events = rules.resolve(state)
    steps = rules.resolve_steps(state)
    assert dumps(rules.to_json(state)) == before_json, "resolve_steps changed its input"

    # (a) the same resolution as resolve(): the same events in order, the same final state.
    assert steps, "a resolution has at least one step"
    assert [e for step in steps for e in step.events] == expected_events
    texts = [dumps(rules.to_json(step.state)) for step in steps]
    assert texts[-1] == dumps(rules.to_json(expected))
    assert public([e for step in steps for e in step.events]) == public(expected_events)
    shown_turn = before_board.get("turn", before_board.get("round"))
    assert {step.round for step in steps} == {shown_turn}, "Step.round is the turn resolved"
    assert len({id(step.state) for step in steps}) == len(steps), "one state object per step"

    # (b) each step's board comes from that step's own state, and none shows a later step.
    views = [rules.view(step.state, None) for step in steps]
    boards = [dumps(view) for view in views]
    for step, text, shown in zip(steps, texts, boards, strict=True):
        again = fresh(rules, text)
        assert shown == dumps(rules.view(again, None)), "a memo leaked into a view"
        for seat in {seat for seat, _ in orders}:
            assert dumps(rules.view(step.state, seat)) == dumps(rules.view(again, seat))
    for k in range(len(steps) - 1):
        if not public(steps[k + 1].events) and boards[k] != boards[k + 1]:
            kinds = [e.kind for e in steps[k + 1].events]
            walk.silent.append(f"round {steps[0].round}, step {k + 1} of {len(steps)}: {kinds}")
    if len(steps) > 1:
        assert boards[0] != boards[-1], "the first step already shows how it ends"
    BOARD_PROGRESS[game](rules, before_board, steps, views)

    # (c) an order called public names nothing the room does not see after it resolved. A
    # value counts when the state the order was given in holds it (a card, a hero, a
    # place), not a fixed word such as "hidden" or "top".
    seen = dumps(public(expected_events)) + boards[-1]
    for _seat, order in orders:
        if rules.order_is_public(order):
            for value in string_leaves(order):
                if f'"{value}"' in known:
                    assert f'"{value}"' in seen, (order, value)

    walk.resolutions += 1
    walk.steps += len(steps)
    walk.kinds.add(tuple(public(s.events)[0]["kind"] if public(s.events) else "" for s in steps))
    return list(zip(steps, texts, strict=True))


def walk_game(game: str, seed: int, walk: Walk) -> None:
    """One random legal game to its end through resolve_steps, every resolution checked."""
    rules = get_rules(game)
    info = rules.info
    seats = info.min_players + seed % (info.max_players - info.min_players + 1)
    rng = Rng.from_seed(seed ^ 0x5EED)
    state = rules.setup(seats, seed, {})
    snapshots: list[tuple[State, str]] = []
    orders: list[tuple[int, JSON]] = []
    known = dumps(rules.to_json(state))
    for _ in range(5_000):
        if rules.outcome(state) is not None:
            break
        for seat in range(seats):
            if rules.prompt(state, seat) is None:
                continue
            order = rules.random_order(state, seat, rng)
            orders.append((seat, order))
            state = rules.submit(state, seat, order)
        while rules.ready(state) and rules.outcome(state) is None:
            steps = check_resolution(game, rules, state, orders, known, walk)
            snapshots += [(step.state, text) for step, text in steps]
            orders, known = [], steps[-1][1]
            state = steps[-1][0].state  # the game goes on from the last step's state
    else:
        raise AssertionError("the random game did not end")
    # No step's state changed after it was handed out, whatever the game did next.
    for snapshot, text in snapshots:
        assert dumps(rules.to_json(snapshot)) == text


# -- what each game's board must show step by step ----------------------------------------


def legions_progress(rules: Any, view: JSON, steps: list[Step], views: list[JSON]) -> None:
    """Legions (G15 "Turn banner"): the tokens, routed counts, turn and end the board shows
    at each step follow exactly the public events up to that step — so a state taken after
    a later step (a moved token, an attack's rout, the refill) fails here."""
    tokens = {loc["id"]: loc["token"] for loc in view["locations"]}
    routed = [p["routed_count"] for p in view["players"]]
    turn, over = view["turn"], False
    for step, shown in zip(steps, views, strict=True):
        for event in public(step.events):
            kind, data = event["kind"], event["data"]
            if kind == "majority":  # G11.1
                tokens[data["location"]] = data["seat"]
            elif kind == "power" and data.get("used"):
                if rules.content.heroes[data["hero"]].power == "take_token":
                    tokens[data["location"]] = data["seat"]
                routed[data["seat"]] -= len(data.get("legions", ()))  # H08, H19 turn up
            elif kind == "stratagem":
                if data["stratagem"]["id"] == "N3":  # G10.4
                    tokens[data["token"]] = None
                routed[data["seat"]] -= len(data.get("legions", ()))  # N1 turns up
            elif kind == "rout":
                routed[data["seat"]] += data["count"]
            elif kind == "collect":
                routed[data["seat"]] -= len(data["legions"])
            elif kind == "refill":  # G11.3, then G11.4 the next turn
                turn += 1
            elif kind == "game_end":
                over = True
        assert {loc["id"]: loc["token"] for loc in shown["locations"]} == tokens
        assert [p["routed_count"] for p in shown["players"]] == routed
        assert shown["turn"] == turn
        assert (shown["phase"] == "over") == over
        assert (shown["final"] is not None) == over


def hidden_leaders_progress(rules: Any, view: JSON, steps: list[Step], views: list[JSON]) -> None:
    """Hidden Leaders (L10.2, L10.4): the last action, the reveal, each faction's scoring and
    the result appear on the board at the step that plays them, not before."""
    revealed, factions, over = False, 0, False
    for step, shown in zip(steps, views, strict=True):
        for event in public(step.events):
            kind, data = event["kind"], event["data"]
            if kind == "take":
                taken = [t["slot"] for t in shown["last_action"]["taken"]]
                assert taken == [t["slot"] for t in data["slots"]]
            elif kind == "place":
                assert shown["last_action"]["placement"] == data["placement"]
            elif kind == "reveal":  # L6.1
                revealed = True
            elif kind == "score_faction":  # L6.2
                factions += 1
            elif kind == "result":
                over = True
        assert shown["over"] == over
        assert ("scoring" in shown) == revealed
        if revealed:
            assert len(shown["scoring"]["steps"]) == factions
            assert ("winner" in shown["scoring"]) == over
        if revealed or over:
            assert shown["active"] is None


def heirs_progress(rules: Any, view: JSON, steps: list[Step], views: list[JSON]) -> None:
    """Heirs: covered by the checks every game passes (its own tests follow H23)."""


BOARD_PROGRESS: dict[str, Callable[[Any, JSON, list[Step], list[JSON]], None]] = {
    "legions": legions_progress,
    "hidden_leaders": hidden_leaders_progress,
    "heirs": heirs_progress,
}


@cache
def walked(game: str) -> Walk:
    """Random games of ``game`` walked through resolve_steps (once per test session)."""
    walk = Walk()
    for seed in range(GAMES_PER_RUN.get(game, 10)):
        walk_game(game, seed, walk)
    return walk


@pytest.mark.parametrize("game", GAMES)
def test_steps_are_the_resolution_shown_one_step_at_a_time(game: str) -> None:
    walk = walked(game)
    assert walk.steps > walk.resolutions, "some resolution must be cut into several steps"


@pytest.mark.parametrize("game", GAMES)
def test_the_board_changes_only_in_steps_with_public_events(game: str) -> None:
    """A step whose events the board does not see leaves the board as it was: the view at
    step k equals the view at step k + 1 when step k + 1 has no public event."""
    assert walked(game).silent == []


# -- one resolution that reveals several things, per game ----------------------------------


def first_resolution(game: str, seed: int, wanted: Callable[[State], bool]) -> tuple[Any, State]:
    """The state of a random game at its first resolution for which ``wanted`` holds."""
    rules = get_rules(game)
    seats = rules.info.min_players
    rng = Rng.from_seed(seed)
    state = rules.setup(seats, seed, {})
    while rules.outcome(state) is None:
        for seat in range(seats):
            if rules.prompt(state, seat) is not None:
                state = rules.submit(state, seat, rules.random_order(state, seat, rng))
        if rules.ready(state):
            if wanted(state):
                return rules, state
            state = rules.resolve(state)[0]
    raise AssertionError("no such resolution in this game")


def test_legions_g6_4_g11_second_take_plays_attack_then_end_of_turn_in_steps() -> None:
    """G6.4: the second player's take turns the leftover up (G6.4a), then it attacks; G11.1
    moves the majority tokens one by one, then G11.2 checks the banners: each its own step."""
    rules = get_rules("legions")
    rng = Rng.from_seed(3)
    state = rules.setup(2, 3, {})
    while True:
        for seat in (0, 1):
            if rules.prompt(state, seat) is not None:
                state = rules.submit(state, seat, rules.random_order(state, seat, rng))
        steps = rules.resolve_steps(state)
        firsts = [step.events[0].kind if step.events else "" for step in steps]
        if "majority" in firsts and firsts[-1] == "banners":
            break
        state = steps[-1].state
    moved = sum(1 for e in rules.resolve(state)[1] if e.kind == "majority")
    assert moved >= 1
    assert firsts == ["take", "attack_card", "attack", *["majority"] * moved, "banners"]
    # While the take is shown, the leftover lies in the row as it was (G6.4a: turned up
    # only in the next step), and nobody has a decision until the last step.
    taken = state.pending["card"]
    leftover = next(
        slot
        for slot in state.legion_row
        if (slot.face_up and slot.card != taken) or (not slot.face_up and taken != "hidden")
    )
    rows = [rules.view(step.state, None)["legion_row"] for step in steps[:2]]
    assert rows[0] == [{"face_up": False}] if not leftover.face_up else rows[0] == rows[1]
    assert rows[1][0]["face_up"] and rows[1][0]["card"]["id"] == leftover.card
    assert all(rules.prompt(s.state, seat) is None for s in steps[:-1] for seat in (0, 1))


def test_legions_g12_game_end_is_its_own_last_step() -> None:
    """G12/G13: the end of the game (banner win or score table) comes after the banner check."""
    rules = get_rules("legions")
    rng = Rng.from_seed(11)
    state = rules.setup(2, 11, {})
    last: list[Step] = []
    while rules.outcome(state) is None:
        for seat in (0, 1):
            if rules.prompt(state, seat) is not None:
                state = rules.submit(state, seat, rules.random_order(state, seat, rng))
        if rules.ready(state):
            last = rules.resolve_steps(state)
            state = last[-1].state
    kinds = [step.events[0].kind for step in last]
    assert kinds[-2:] == ["banners", "game_end"]
    assert rules.outcome(last[-2].state) is None
    assert rules.view(last[-2].state, None)["final"] is None


def test_hidden_leaders_l10_4_final_turn_plays_reveal_then_each_faction_then_result() -> None:
    """L10.4: after the last placement the board flips every card and shows the councils
    (L6.1), resolves IA, HT, WF, UD one at a time (L6.2), then the armies and the result."""
    rules, state = first_resolution(
        "hidden_leaders", 5, lambda s: s.turn == 14 and s.step == "place"
    )
    steps = rules.resolve_steps(state)
    assert [[e.kind for e in step.events if e.audience is None] for step in steps] == [
        ["place", "draw"],
        ["reveal"],
        ["score_faction"],
        ["score_faction"],
        ["score_faction"],
        ["score_faction"],
        ["result"],
    ]
    factions = [step.events[0].data["faction"] for step in steps[2:6]]
    assert factions == ["IA", "HT", "WF", "UD"]
    views = [rules.view(step.state, None) for step in steps]
    assert "scoring" not in views[0] and not views[0]["over"]
    assert all(slot["hero"]["face_up"] for row in views[1]["rows"].values() for slot in row)
    assert [len(v["scoring"]["steps"]) for v in views[1:]] == [0, 1, 2, 3, 4, 4]
    assert [rules.outcome(step.state) is None for step in steps] == [True] * 6 + [False]
    # Nobody decides while the scoring plays out.
    for step in steps[:-1]:
        assert all(rules.prompt(step.state, seat) is None for seat in (0, 1))
        assert not rules.ready(step.state)


def test_heirs_round_plays_out_in_several_steps() -> None:
    """Heirs (H23 on the board): a round plays out one pedestal at a time."""
    rules, state = first_resolution("heirs", 2, lambda s: s.phase == "orders")
    assert len(rules.resolve_steps(state)) > 1


def cursed_round(caster: str, seed: int) -> tuple[Any, State]:
    """Three heirs on pedestals 1–3; the first curses the third (10 soldiers, H11.3)."""
    from engine.heirs.scenario import edit_heir, scenario, seal

    rules = get_rules("heirs")
    st = scenario(rules, 3, seed=seed)
    st.rng = seed
    hand = ["curse", "hired_knights", "war_cry"]
    edit_heir(rules, st, 0, character=caster, knowledge=3, portraits=[2], hand=hand)
    edit_heir(rules, st, 2, soldiers=10)
    return rules, seal(rules, st, {0: {"trick": {"card": "curse", "target": 2}}})


def test_heirs_h11_7_the_target_of_an_unknown_caster_sees_the_curse_at_dusk_not_in_its_step() -> (
    None
):
    """H11.7: a Curse whose caster stays unknown is told to its target at Dusk. Its target's
    own view in the steps of the pass kept the soldiers it took until then: shown in the
    caster's step, under the caster's pedestal, the loss named the caster after all. The
    pass itself runs on the real numbers, and the round ends as resolve() ends it."""
    rules, state = cursed_round("thief", seed=1)  # the Thief is never exposed (H11.7)
    before = rules.view(state, 2)["me"]
    steps = rules.resolve_steps(state)
    told = [i for i, step in enumerate(steps) for e in step.events if e.kind == "trick_on_you"]
    assert len(told) == 1 and steps[told[0]].events[0].kind == "dusk"
    seen = [rules.view(step.state, 2)["me"] for step in steps]
    for mine in seen[: told[0]]:
        assert mine["soldiers"] == 10
    assert seen[0] == before, "the caster's step changed nothing the target sees"
    assert seen[told[0]]["soldiers"] == 8  # the Thief's Curse: 2 soldiers (H11.6, no pay)
    assert rules.to_json(steps[-1].state) == rules.to_json(rules.resolve(state)[0])


def test_heirs_h11_7_an_exposed_casters_curse_shows_in_its_own_step() -> None:
    """H11.7: given away, the Curse names its caster at once; its effect shows in that step."""
    for seed in range(64):
        rules, state = cursed_round("", seed)
        steps = rules.resolve_steps(state)
        on_target = [e for e in steps[0].events if e.kind == "trick_on_you"]
        if on_target and on_target[0].data["caster"] == 0:
            assert rules.view(steps[0].state, 2)["me"]["soldiers"] == 8
            return
    raise AssertionError("no exposed Curse in 64 seeds")


# -- which orders are public ----------------------------------------------------------------


def test_hidden_leaders_l3_3_l10_3_face_down_placements_are_never_public() -> None:
    rules = get_rules("hidden_leaders")
    assert rules.order_is_public({"type": "take", "slots": ["A1", "B3"]})  # L3.1, L10.2
    council = {
        "type": "place",
        "returns": {"A1": "HT5", "B3": "UD2a"},
        "placement": {"to": "council", "card": "IA3a"},
    }
    block = {
        "type": "place",
        "returns": {"A7": "WF2a", "B6": "UD4"},
        "placement": {"to": "block", "card": "HT4", "slot": "B2"},
    }
    assert not rules.order_is_public(council)  # L3.3(a): face down in the council
    assert not rules.order_is_public(block)  # L3.3(b), L4.4: a blocker's strength is hidden


def test_legions_g15_secret_orders_are_not_public() -> None:
    rules = get_rules("legions")
    assert rules.order_is_public({"kind": "seal", "legion": "L20"})  # G4.2 reveals it
    assert rules.order_is_public({"kind": "take", "card": "hidden"})  # names no card
    assert rules.order_is_public({"kind": "stratagem", "stratagem": "N3", "token": "Y"})
    assert not rules.order_is_public({"kind": "arrange", "order": ["L17", "L22"]})  # deck
    assert not rules.order_is_public({"kind": "power", "legion": "L14"})  # H16: routed
    assert rules.order_is_public({"kind": "power", "legion": "L14", "location": "R"})  # H12
    assert not rules.order_is_public({"kind": "something new"})

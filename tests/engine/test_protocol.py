"""The engine protocol carries everything particular to a game (issue 14.3).

Every registered game answers the whole protocol: its ``GameInfo`` says how a night of games
scores it, its rules give the tie-break score, a timed-out seat's order and what carries over
to the next match. Then a fourth game, defined here and registered only by its line in the
registry's table, is scored in the standings with no change anywhere else.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import pytest

from engine import registry
from engine.core import (
    JSON,
    Event,
    GameDefaults,
    GameInfo,
    GameRules,
    IllegalOrder,
    NextMatch,
    NotYourTurn,
    PlayedMatch,
    Rng,
    State,
    Step,
    advance,
    check_options,
    events_for,
    single_step,
)
from engine.registry import GameEntry, engine_games, get_rules
from engine.tournament import (
    Plan,
    game_points,
    plan_positions,
    standings,
    tiebreak_score,
    tiebreaks,
    upcoming,
)

PROTOCOL_METHODS = sorted(
    name
    for name, member in vars(GameRules).items()
    if inspect.isfunction(member) and not name.startswith("_")
)


def play_to_end(rules: GameRules, seats: int, seed: int, options: Mapping[str, Any]) -> State:
    """A whole game with every seat's default order (a timed-out seat's), as the room seals it
    when nobody decides: it must always be legal and must bring the game to its end."""
    state = rules.setup(seats, seed, options)
    for _ in range(10_000):
        if rules.outcome(state) is not None:
            return state
        for seat in range(seats):
            if rules.prompt(state, seat) is not None:
                state = rules.submit(state, seat, rules.default_order(state, seat))
        state, _steps = advance(rules, state)
    raise AssertionError(f"{rules.info.id} did not end")


# ------------------------------------------------------------------ every registered game


@pytest.mark.parametrize("game", engine_games())
def test_every_game_answers_the_whole_protocol(game: str) -> None:
    rules = get_rules(game)
    assert isinstance(rules, GameRules)
    for name in PROTOCOL_METHODS:
        assert callable(getattr(rules, name)), (game, name)
    info = rules.info
    assert info.id == game
    assert info.scoring in ("result", "placement")
    assert info.tiebreak and info.tiebreak not in ("games_won", "head_to_head", "score")
    assert isinstance(info.rematch_on_draw, bool)
    assert info.bot_styles and 1 <= info.min_players <= info.max_players


@pytest.mark.parametrize("game", engine_games())
def test_a_finished_match_scores_in_a_night_and_carries_over_what_setup_accepts(
    game: str,
) -> None:
    rules = get_rules(game)
    seats = rules.info.min_players
    state = play_to_end(rules, seats, seed=14, options={})
    outcome = rules.outcome(state)
    assert outcome is not None
    players = tuple(range(seats))
    result = {"game": game, "outcome": outcome, "players": list(players)}

    points = game_points(result, seats)
    assert set(points) == set(players)
    if rules.info.scoring == "result":  # 1 per win, ½ each for a draw
        assert sum(points.values()) in (Fraction(1), Fraction(seats, 2))
    for seat in players:
        assert isinstance(tiebreak_score(result, seat), int)
    table = standings(Plan((game,)), [result], seats)
    assert [row["seat"] for row in table] != [] and table[0]["place"] == 1
    assert rules.info.tiebreak in tiebreaks()

    # The next match of the same players: what the rules carry over is an option the game's
    # own setup takes (the room merges it into the options it sets the match up with).
    previous = PlayedMatch(game, players, {}, outcome)
    coming = NextMatch(game, players, previous, night=(result,), start_player=0)
    carried = rules.next_match_options(coming)
    assert isinstance(carried, dict)
    rules.setup(seats, 15, carried)


def test_the_series_rules_are_in_the_games_not_in_the_tournament() -> None:
    """L2.4, L7.3, H20.1, H20.4 and the tie-break columns, as the games declare them."""
    heirs, duel, legions = get_rules("heirs"), get_rules("hidden_leaders"), get_rules("legions")
    assert (heirs.info.scoring, heirs.info.tiebreak) == ("placement", "council")
    assert (duel.info.tiebreak, duel.info.rematch_on_draw) == ("army_strength", True)
    assert (legions.info.tiebreak, legions.info.rematch_on_draw) == ("victory_points", False)
    assert tiebreaks() == (
        "games_won",
        "council",
        "army_strength",
        "victory_points",
        "head_to_head",
    )
    # L2.4: room seat 4 went first last time, so room seat 7 goes first now, whichever
    # engine seat each of them plays.
    for rules in (duel, legions):
        went_first = PlayedMatch(rules.info.id, (4, 7), {"first_player": 0}, {"winner": 1})
        coming = NextMatch(rules.info.id, (7, 4), went_first)
        assert rules.next_match_options(coming) == {"first_player": 0}
        swapped = replace(coming, players=(4, 7))
        assert rules.next_match_options(swapped) == {"first_player": 1}
        other_game = replace(went_first, game="heirs")
        assert rules.next_match_options(replace(coming, previous=other_game)) == {}
    # H20.1 and H20.4: kept colours from the night's last Heirs game and the Catch-up start.
    night = (
        {"game": "heirs", "players": [2, 0], "outcome": {"colours": {"0": "red", "1": "blue"}}},
    )
    coming = NextMatch("heirs", (0, 2), night=night, start_player=1)
    assert heirs.next_match_options(coming) == {"colours": ["blue", "red"], "start_player": 1}
    assert heirs.next_match_options(NextMatch("heirs", (0, 2))) == {}


# ------------------------------------------------------------------ a fourth game


@dataclass(frozen=True, slots=True)
class PipsState:
    picks: tuple[int | None, ...]
    over: bool = False


class PipsRules(GameDefaults):
    """Pips: every seat seals a number from 1 to 3 once; the single highest wins, equal
    highest is a draw (played again in a night of games). Defined here only: its registry
    line, added by the tests below, is all the rest of the project learns of it."""

    info = GameInfo(
        id="pips",
        name="Pips",
        min_players=2,
        max_players=4,
        simultaneous=True,
        tiebreak="pips",
        rematch_on_draw=True,
    )

    def setup(self, seats: int, seed: int, options: Mapping[str, Any]) -> PipsState:
        check_options(self.info.name, options, frozenset())
        if not self.info.min_players <= seats <= self.info.max_players:
            raise ValueError("Pips is for 2 to 4 players.")
        return PipsState(picks=(None,) * seats)

    def prompt(self, state: PipsState, seat: int) -> JSON | None:
        if state.over or state.picks[seat] is not None:
            return None
        return {"kind": "pick", "choices": [1, 2, 3]}

    def submit(self, state: PipsState, seat: int, order: Mapping[str, Any]) -> PipsState:
        if self.prompt(state, seat) is None:
            raise NotYourTurn()
        pick = order.get("pick")
        if pick not in (1, 2, 3) or isinstance(pick, bool):
            raise IllegalOrder("Pick 1, 2 or 3.", code="bad_pick")
        picks = list(state.picks)
        picks[seat] = pick
        return replace(state, picks=tuple(picks))

    def ready(self, state: PipsState) -> bool:
        return not state.over and None not in state.picks

    def resolve(self, state: PipsState) -> tuple[PipsState, list[Event]]:
        return replace(state, over=True), [Event("revealed", {"picks": list(state.picks)})]

    def resolve_steps(self, state: PipsState) -> list[Step]:
        return single_step(self, state, 1)

    def order_is_public(self, order: Mapping[str, Any]) -> bool:
        return True

    def view(self, state: PipsState, seat: int | None) -> JSON:
        shown = [p if state.over or s == seat else p is not None for s, p in enumerate(state.picks)]
        return {"game": "pips", "picks": shown}

    def outcome(self, state: PipsState) -> JSON | None:
        if not state.over:
            return None
        picks = [int(p or 0) for p in state.picks]
        best = [seat for seat, pick in enumerate(picks) if pick == max(picks)]
        return {
            "winners": best if len(best) == 1 else [],
            "pips": {str(seat): pick for seat, pick in enumerate(picks)},
        }

    def bot_order(self, state: PipsState, seat: int, style: str = "default") -> JSON:
        return {"pick": 3}

    def random_order(self, state: PipsState, seat: int, rng: Rng) -> JSON:
        return {"pick": rng.between(1, 3)}

    def to_json(self, state: PipsState) -> JSON:
        return {"picks": list(state.picks), "over": state.over}

    def from_json(self, raw: Mapping[str, Any]) -> PipsState:
        return PipsState(tuple(raw["picks"]), bool(raw["over"]))

    def tiebreak_score(self, outcome: Mapping[str, Any], seat: int) -> int:
        return int(outcome["pips"][str(seat)])


RULES = PipsRules()


@pytest.fixture
def pips_registered(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pips's line in the registry's table (an engine with no pages yet: not hosted)."""
    monkeypatch.setitem(registry.GAMES, "pips", GameEntry(__name__, hosted=False))


def pips_result(players: list[int], picks: list[int]) -> dict[str, Any]:
    """A game of Pips played through the protocol with these picks."""
    rules = get_rules("pips")
    state = rules.setup(len(players), 0, {})
    for seat, pick in enumerate(picks):
        state = rules.submit(state, seat, {"pick": pick})
    state, steps = advance(rules, state)
    assert [step.events[0].kind for step in steps] == ["revealed"]
    return {"game": "pips", "outcome": rules.outcome(state), "players": players}


@pytest.mark.usefixtures("pips_registered")
def test_a_fourth_game_needs_only_its_registry_line() -> None:
    assert "pips" in engine_games() and "pips" not in registry.available_games()
    rules = get_rules("pips")
    assert isinstance(rules, GameRules)
    for name in PROTOCOL_METHODS:
        assert callable(getattr(rules, name)), name
    state = play_to_end(rules, 3, seed=1, options={})
    assert rules.outcome(state) == {"winners": [], "pips": {"0": 3, "1": 3, "2": 3}}
    assert "pips" in tiebreaks()  # after the series' columns, before head to head
    assert tiebreaks()[-2:] == ("pips", "head_to_head")


@pytest.mark.usefixtures("pips_registered")
def test_a_fourth_game_scores_rematches_and_breaks_ties_in_a_night() -> None:
    plan = Plan(("pips",), rounds=2)
    drawn = pips_result([0, 1, 2], [3, 3, 1])
    assert game_points(drawn, 3) == {0: Fraction(1, 2), 1: Fraction(1, 2), 2: Fraction(1, 2)}
    # Pips says a draw is played again: the rematch takes the drawn game's place.
    assert [f.stage for f in upcoming(plan, [drawn])] == [0, 1]
    won_by_0 = pips_result([0, 1, 2], [3, 2, 1])
    won_by_1 = pips_result([0, 1, 2], [1, 3, 2])
    results = [drawn, won_by_0]
    assert plan_positions(plan, results) == [0, 0]
    assert [f.stage for f in upcoming(plan, results)] == [1]

    results = [drawn, won_by_0, won_by_1]
    table = standings(plan, results, 3)
    # Seats 0 and 1 are level on 1½ points; a night of series only skips games won and
    # Pips's own column (pips summed: 7 against 8) decides.
    assert [(row["seat"], row["points"], row["place"]) for row in table] == [
        (1, 1.5, 1),
        (0, 1.5, 2),
        (2, 0.5, 3),
    ]
    assert table[0]["tiebreak"] == "pips" and table[0]["score"] == 8
    # The final stage counts double when the host chose Final ×2 (H20.3).
    doubled = standings(replace(plan, final_double=True), results, 3)
    assert [row["per_game"] for row in doubled if row["seat"] == 1] == [[0.5, 0, 2]]


def test_a_viewer_reads_only_the_events_meant_for_it_in_their_order() -> None:
    events = [
        Event("public", {"n": 1}),
        Event("own", {"n": 2}, audience=(1,)),
        Event("pair", {"n": 3}, audience=(0, 2)),
        Event("public", {"n": 4}),
    ]
    for seat in (None, 0, 1, 2, 3):
        expected = [{"kind": e.kind, "data": e.data} for e in events if e.visible_to(seat)]
        assert events_for(events, seat) == expected
    assert [e["data"]["n"] for e in events_for(events, None)] == [1, 4]
    assert [e["data"]["n"] for e in events_for(events, 2)] == [1, 3, 4]
    assert [e["data"]["n"] for e in events_for(events, 1)] == [1, 2, 4]

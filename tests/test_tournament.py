"""Tournaments: the standings arithmetic (H20, L7, G13) and whole nights through the app."""

from __future__ import annotations

import html
import itertools
import re
import time
from functools import partial
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session, col, select

from app.db import make_engine
from app.games import COLOUR_HEX
from app.models import Match, Room
from engine.tournament import (
    Plan,
    catch_up_start_player,
    games_to_play,
    round_robin,
    standings,
)
from tests.conftest import ServerProcess
from tests.play import auth, create_room, join, order_from_prompt, play_to_end

HOSTED = ("hidden_leaders", "heirs", "legions")


def heirs_result(
    points: dict[int, int], winners: list[int], council: dict[int, int]
) -> dict[str, Any]:
    """An Heirs game as the engine reports it (H20.2: game_points include the Axis +1)."""
    return {
        "game": "heirs",
        "players": sorted(points),
        "outcome": {
            "winners": winners,
            "game_points": {str(seat): p for seat, p in points.items()},
            "council": {str(seat): {"points": c} for seat, c in council.items()},
        },
    }


def duel_result(
    game: str, players: list[int], winner: int | None, scores: list[int]
) -> dict[str, Any]:
    key = "strength" if game == "hidden_leaders" else "score"
    outcome: dict[str, Any] = {"winner": winner, key: scores}
    return {"game": game, "players": players, "outcome": outcome}


def table(rows: list[dict[str, Any]]) -> list[tuple[int, int, Any]]:
    return [(row["place"], row["seat"], row["points"]) for row in rows]


def test_h20_2_placement_points_add_up_game_by_game() -> None:
    plan = Plan(("heirs", "heirs"))
    results = [
        # 4 players: 3, 2, 1, 0 — seat 1 won by entering the Axis: 3 + 1.
        heirs_result({1: 4, 0: 2, 3: 1, 2: 0}, [1], {0: 40, 1: 50, 2: 20, 3: 30}),
        # Seats 0 and 2 tie for second and share the better rank: 2 each.
        heirs_result({3: 3, 0: 2, 2: 2, 1: 0}, [3], {0: 45, 1: 10, 2: 45, 3: 60}),
    ]
    rows = standings(plan, results, 4)
    by_seat = {row["seat"]: row for row in rows}
    assert by_seat[0]["per_game"] == [2, 2] and by_seat[0]["points"] == 4
    assert by_seat[1]["per_game"] == [4, 0] and by_seat[1]["points"] == 4
    assert by_seat[3]["per_game"] == [1, 3] and by_seat[3]["points"] == 4
    assert by_seat[2]["points"] == 2 and by_seat[2]["place"] == 4


def test_h20_5_tiebreak_games_won_then_council_then_shared_place() -> None:
    plan = Plan(("heirs", "heirs"))
    results = [
        heirs_result({1: 4, 0: 2, 3: 1, 2: 0}, [1], {0: 40, 1: 50, 2: 20, 3: 30}),
        heirs_result({3: 3, 0: 2, 2: 2, 1: 0}, [3], {0: 45, 1: 10, 2: 45, 3: 60}),
    ]
    rows = standings(plan, results, 4)
    # 4 points each for seats 0, 1, 3: seats 1 and 3 won a game, seat 0 none;
    # between 1 and 3, Council points summed: 3 has 90, 1 has 60.
    assert table(rows) == [(1, 3, 4), (2, 1, 4), (3, 0, 4), (4, 2, 2)]
    shared = standings(Plan(("heirs",)), [heirs_result({0: 1, 1: 1}, [0, 1], {0: 30, 1: 30})], 2)
    assert [row["place"] for row in shared] == [1, 1], "still tied → a shared place"


def test_h20_3_final_double_counts_the_last_scheduled_game_twice() -> None:
    results = [
        heirs_result({0: 1, 1: 0}, [0], {0: 30, 1: 20}),
        heirs_result({1: 2, 0: 0}, [1], {0: 30, 1: 40}),  # won by the Axis: 1 + 1
    ]
    plain = {r["seat"]: r["points"] for r in standings(Plan(("heirs",) * 2), results, 2)}
    double = {r["seat"]: r for r in standings(Plan(("heirs",) * 2, final_double=True), results, 2)}
    assert plain == {0: 1, 1: 2}
    assert double[1]["points"] == 4 and double[1]["per_game"] == [0, 4]
    assert double[0]["points"] == 1
    # A drawn final's rematch is the final too.
    hl_final = Plan(("hidden_leaders",) * 2, final_double=True)
    played = [
        duel_result("hidden_leaders", [0, 1], 0, [25, 20]),
        duel_result("hidden_leaders", [0, 1], None, [19, 19]),
        duel_result("hidden_leaders", [0, 1], 1, [18, 30]),
    ]
    assert [
        r["per_game"] for r in sorted(standings(hl_final, played, 2), key=lambda r: r["seat"])
    ] == [
        [1, 1, 0],
        [0, 1, 2],
    ]
    # Before the final is played nothing doubles.
    early = standings(Plan(("heirs",) * 3, final_double=True), results, 2)
    assert {r["seat"]: r["points"] for r in early} == {0: 1, 1: 2}


def test_h20_4_catch_up_the_leader_starts_last() -> None:
    rows = standings(
        Plan(("heirs",) * 3), [heirs_result({0: 0, 1: 1, 2: 2}, [2], {0: 9, 1: 9, 2: 9})], 3
    )
    assert catch_up_start_player(rows, 3) == 0, "seat 2 leads, so seat 0 starts"
    tied = [{"seat": 1, "place": 1}, {"seat": 3, "place": 1}, {"seat": 0, "place": 3}]
    assert catch_up_start_player(tied, 4) == 2, "several leaders: the lowest seat's neighbour"


def test_duel_series_wins_draws_and_army_strength() -> None:
    plan = Plan(("hidden_leaders",) * 3)
    results = [
        duel_result("hidden_leaders", [0, 1], 0, [25, 20]),
        duel_result("hidden_leaders", [0, 1], None, [19, 19]),  # L7.3: recorded as a draw
        duel_result("hidden_leaders", [0, 1], 1, [18, 30]),
    ]
    rows = standings(plan, results, 2)
    # 1.5 points each; total army strength decides: seat 1 has 69, seat 0 has 62.
    assert table(rows) == [(1, 1, 1.5), (2, 0, 1.5)]
    assert rows[0]["per_game"] == [0, 0.5, 1]


def test_mid_night_sums_do_not_rank_players_who_played_different_numbers_of_games() -> None:
    """After game 1 of a round robin the loser has some army strength and the one yet to play
    none: level on points, they share second place (not "ahead on army strength"); once the
    night is over the sums decide as the rules say."""
    plan = Plan(("hidden_leaders",)).seated(3, ["hidden_leaders"])
    first, second, third = plan.fixtures
    results = [duel_result("hidden_leaders", list(first.players), 0, [25, 20])]
    rows = standings(plan, results, 3)
    winner, loser = first.players
    waiting = ({0, 1, 2} - set(first.players)).pop()
    assert [(r["seat"], r["place"], r["tiebreak"]) for r in rows] == [
        (winner, 1, None),
        (min(loser, waiting), 2, "shared"),
        (max(loser, waiting), 2, "shared"),
    ]
    # Both others played: the waiting one lost too, by less; level on points and games, the
    # army strength summed decides.
    results.append(duel_result("hidden_leaders", list(second.players), 0, [22, 21]))
    results.append(duel_result("hidden_leaders", list(third.players), 0, [30, 10]))
    over = standings(plan, results, 3)
    assert all(r["tiebreak"] != "shared" for r in over), over


def test_l7_3_a_drawn_last_game_is_followed_by_a_rematch() -> None:
    plan = Plan(("hidden_leaders",) * 2)
    win = duel_result("hidden_leaders", [0, 1], 0, [25, 20])
    draw = duel_result("hidden_leaders", [0, 1], None, [19, 19])
    assert games_to_play(plan, [win]) == ["hidden_leaders"]
    assert games_to_play(plan, [win, win]) == []
    assert games_to_play(plan, [win, draw]) == ["hidden_leaders"], "the rematch"
    assert games_to_play(plan, [win, draw, win]) == []
    assert games_to_play(plan, [draw]) == ["hidden_leaders", "hidden_leaders"]
    mixed = Plan(("hidden_leaders", "legions"))
    assert games_to_play(mixed, [draw]) == ["hidden_leaders", "legions"], "rematch first"
    assert games_to_play(mixed, [draw, win]) == ["legions"]
    legions = Plan(("legions",))
    assert games_to_play(legions, [duel_result("legions", [0, 1], 1, [20, 21])]) == []


def test_round_robin_pairs_everyone_once_and_head_to_head_breaks_ties() -> None:
    for entrants in range(3, 9):
        pairs = round_robin(entrants)
        assert sorted(tuple(sorted(p)) for p in pairs) == list(
            itertools.combinations(range(entrants), 2)
        )
    plan = Plan(("legions",)).seated(3, ["legions"])
    assert [f.players for f in plan.fixtures] == list(round_robin(3))
    # ``winner`` is the game's own seat: players[winner] is the entrant who won.
    results = [
        duel_result("legions", [0, 1], 0, [20, 10]),  # entrant 0 beats 1
        duel_result("legions", [1, 2], 0, [20, 10]),  # entrant 1 beats 2
        duel_result("legions", [2, 0], 1, [10, 20]),  # entrant 0 beats 2
    ]
    assert table(standings(plan, results, 3)) == [(1, 0, 2), (2, 1, 1), (3, 2, 0)]
    # Two games in: entrants 1 and 2 level on points (1) and VP (25); 2 beat 1.
    level = [
        duel_result("legions", [1, 2], 1, [15, 25]),
        duel_result("legions", [0, 1], 1, [0, 10]),
    ]
    assert table(standings(plan, level, 3)) == [(1, 2, 1), (2, 1, 1), (3, 0, 0)]


def test_players_level_after_different_numbers_of_games_are_told_apart_by_head_to_head() -> None:
    """Before the night's last game, sums of players who have played different numbers of
    games do not compare: head to head orders them, and the table says so. It said "ahead on
    army strength" of the one whose army was the weaker (the first sum that differed)."""
    plan = Plan(("hidden_leaders",)).seated(3, ["hidden_leaders"])
    results = [
        duel_result("hidden_leaders", [0, 1], 1, [10, 13]),  # entrant 1 beats 0
        duel_result("hidden_leaders", [0, 2], 0, [18, 9]),  # entrant 0 beats 2
    ]
    rows = standings(plan, results, 3)
    assert table(rows) == [(1, 1, 1), (2, 0, 1), (3, 2, 0)]
    assert rows[0]["score"] < rows[1]["score"], "the one ahead has the weaker armies"
    assert rows[0]["tiebreak"] == "head_to_head"
    # The row put behind says on what, for its own phone; a shared place is no one's loss.
    assert [row["behind"] for row in rows] == [None, "head_to_head", None]
    shared = standings(plan, results[:1], 3)
    assert [r["tiebreak"] for r in shared][1:] == ["shared", "shared"]
    assert all(row["behind"] is None for row in shared)


def test_plans_are_checked() -> None:
    counted = Plan.from_json({"count": 3}, "hidden_leaders", HOSTED)
    assert counted.games == ("hidden_leaders",) and counted.stages == ("hidden_leaders",) * 3
    mixed = Plan.from_json({"games": ["heirs", "legions"], "final_double": True}, "heirs", HOSTED)
    assert mixed.games == ("heirs", "legions") and mixed.final_double
    for bad in (
        {},
        {"count": 0},
        {"count": 21},
        {"games": ["chess"]},
        {"count": 2, "x": 1},
        {"count": 2, "catch_up": "yes"},
        {"count": True},
        {"count": 1_000_000_000},
        {"games": ["heirs"], "rounds": 0},
        {"games": ["heirs", "legions"], "rounds": 11},
        {"games": ["heirs"] * 11, "rounds": 2},
        {"games": ["heirs"], "count": 2},
    ):
        with pytest.raises(ValueError):
            Plan.from_json(bad, "hidden_leaders", HOSTED)


def wait_until(check: Any, seconds: float = 30) -> Any:
    deadline = time.monotonic() + seconds
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_a_duel_series_of_bots_through_the_app(client: TestClient) -> None:
    response = client.post(
        "/api/rooms", json={"game": "hidden_leaders", "tournament": {"count": 3}}
    )
    assert response.status_code == 201
    code, host = response.json()["code"], auth(response.json()["host_token"])
    for _ in range(2):
        client.post(f"/api/rooms/{code}/bots", headers=host)
    client.post(f"/api/rooms/{code}/start", headers=host)
    firsts = []
    for number in range(1, 10):
        board = wait_until(
            lambda n=number: (
                (b := client.get(f"/api/rooms/{code}").json())["match"] == n
                and b["status"] == "finished"
                and b
            )
        )
        firsts.append(board["outcome"]["first_player"])
        tournament = board["tournament"]
        if tournament["over"]:
            break
        assert client.post(f"/api/rooms/{code}/ready", headers=host).status_code == 200
    assert tournament["played"] == tournament["total"] >= 3
    assert all(a != b for a, b in itertools.pairwise(firsts)), "L2.4: the first player alternates"
    points = sum(row["points"] for row in tournament["standings"])
    assert points == tournament["played"], "one point per game, halves for draws"
    assert tournament["next"] is None
    over = client.post(f"/api/rooms/{code}/ready", headers=host)
    assert over.status_code == 409 and "over" in over.json()["detail"]
    # The board's end screen offers no next game once the night is over: no "Next game
    # now" for the host, no ready chips that no phone can fill.
    client.cookies.set(f"pecet_host_{code}", response.json()["host_token"])
    page = client.get(f"/b/{code}")
    assert page.status_code == 200
    assert 'data-testid="next-game-now"' not in page.text
    assert 'data-testid="ready-line"' not in page.text


def test_a_round_robin_of_three_entrants(client: TestClient) -> None:
    room = create_room(client, "hidden_leaders")
    code, host = room["code"], auth(room["host_token"])
    made = client.post(
        f"/api/rooms/{code}/tournament", json={"tournament": {"count": 1}}, headers=host
    )
    assert made.status_code == 200 and made.json()["tournament"]["standings"] == []
    watcher = join(client, code, "Eva")
    for _ in range(2):
        client.post(f"/api/rooms/{code}/bots", headers=host)
    assert client.post(f"/api/rooms/{code}/start", headers=host).status_code == 200
    board = client.get(f"/api/rooms/{code}").json()
    assert board["tournament"]["total"] == 3, "three pairings"
    pairs: list[tuple[int, ...]] = []
    drawn: list[bool] = []
    number = 0
    while not board["tournament"]["over"]:
        number += 1
        assert number <= 8, "three pairings and their rematches should be over by now"
        board = wait_until(
            lambda n=number: (b := client.get(f"/api/rooms/{code}").json())["match"] == n and b
        )
        pair = tuple(sorted(p["seat"] for p in board["players"]))
        me = client.get(f"/api/rooms/{code}/me", headers=auth(watcher["token"])).json()
        if watcher["seat"] not in pair:
            assert me["you"]["player"] is None and me["prompt"] is None
            assert "me" not in me["view"], "a watcher sees the board's view, no hand"
            refused = client.post(
                f"/api/rooms/{code}/orders", json={"type": "take"}, headers=auth(watcher["token"])
            )
            assert refused.status_code == 409
        else:
            tokens = {watcher["seat"]: watcher["token"]}
            play_seat_until_done(client, code, tokens)
        board = wait_until(
            lambda n=number: (
                (b := client.get(f"/api/rooms/{code}").json())["match"] == n
                and b["status"] == "finished"
                and b
            )
        )
        pairs.append(pair)
        drawn.append(board["outcome"]["winner"] is None)
        if not board["tournament"]["over"]:
            client.post(f"/api/rooms/{code}/ready", headers=host)
    # Bots draw now and then: L7.3 has the same pair play again at once, so every pairing is
    # decided exactly once, and each game hands out one point (a draw ½ each).
    decided = [pair for pair, draw in zip(pairs, drawn, strict=True) if not draw]
    assert sorted(decided) == [(0, 1), (0, 2), (1, 2)], "everyone met everyone once"
    for index, draw in enumerate(drawn):
        if draw:
            assert pairs[index + 1] == pairs[index], "L7.3: the rematch comes next"
    assert sum(r["points"] for r in board["tournament"]["standings"]) == len(pairs)


def play_seat_until_done(client: TestClient, code: str, tokens: dict[int, str]) -> None:
    """Play the human seats of the current match from their prompts until it ends."""
    from tests.play import order_from_prompt

    while True:
        board = client.get(f"/api/rooms/{code}").json()
        if board["status"] != "playing":
            return
        humans = [seat for seat in board["to_act"] if seat in tokens]
        if not humans:
            time.sleep(0.02)
            continue
        me = client.get(f"/api/rooms/{code}/me", headers=auth(tokens[humans[0]])).json()
        if me["prompt"] is None:
            continue
        client.post(
            f"/api/rooms/{code}/orders",
            json=order_from_prompt(me["prompt"]),
            headers=auth(tokens[humans[0]]),
        )


@pytest.mark.server
def test_standings_survive_a_server_restart_mid_tournament(server: ServerProcess) -> None:
    with httpx.Client(base_url=server.base_url, timeout=10) as http:
        made = http.post(
            "/api/rooms",
            json={"game": "hidden_leaders", "tournament": {"count": 3, "final_double": True}},
        ).json()
        code, host = made["code"], auth(made["host_token"])
        tokens = [join(http, code, name)["token"] for name in ("Ema", "Petr")]
        http.post(f"/api/rooms/{code}/start", headers=host)
        first = play_to_end(http, code, tokens)
        http.post(f"/api/rooms/{code}/ready", headers=host)
        before = http.get(f"/api/rooms/{code}").json()
    assert before["tournament"]["played"] == 1 and before["match"] == 2
    server.kill()
    server.start()
    with httpx.Client(base_url=server.base_url, timeout=10) as http:
        after = http.get(f"/api/rooms/{code}").json()
        assert after["tournament"] == before["tournament"]
        assert after["tournament"]["standings"] == before["tournament"]["standings"]
        winner = first["outcome"]["winner"]
        if winner is not None:
            row = next(r for r in after["tournament"]["standings"] if r["seat"] == winner)
            assert row["points"] == 1
        play_to_end(http, code, tokens)
        assert http.get(f"/api/rooms/{code}").json()["tournament"]["played"] == 2


@pytest.mark.server
def test_a_three_game_heirs_tournament_of_bots_through_the_server(server: ServerProcess) -> None:
    """H20 end to end: placement points with the Axis +1, Final x2 on game 3, Catch-up
    choosing round 1's start player, colours kept (H20.1), standings after every game."""
    with httpx.Client(base_url=server.base_url, timeout=10) as http:
        made = http.post(
            "/api/rooms",
            json={
                "game": "heirs",
                "options": {"rounds": 6},
                "tournament": {"count": 3, "final_double": True, "catch_up": True},
            },
        )
        assert made.status_code == 201, made.text
        code, host = made.json()["code"], auth(made.json()["host_token"])
        for style in ("expander", "raider", "warlord"):
            assert (
                http.post(
                    f"/api/rooms/{code}/bots", json={"style": style}, headers=host
                ).status_code
                == 201
            )
        assert http.post(f"/api/rooms/{code}/start", headers=host).status_code == 200
        outcomes: list[dict[str, Any]] = []
        colours: list[dict[str, str]] = []
        starts: list[int] = []
        expected = {0: 0, 1: 0, 2: 0}
        for number in (1, 2, 3):
            board = wait_until(
                lambda n=number: (
                    (b := http.get(f"/api/rooms/{code}").json())["match"] == n
                    and b["status"] == "finished"
                    and b
                ),
                seconds=120,
            )
            outcome = board["outcome"]
            outcomes.append(outcome)
            colours.append(outcome["colours"])
            factor = 2 if number == 3 else 1
            for seat, points in outcome["game_points"].items():
                expected[int(seat)] += factor * points
            tournament = board["tournament"]
            assert tournament["played"] == number
            table = {row["seat"]: row["points"] for row in tournament["standings"]}
            assert table == expected, (number, outcome["game_points"])
            per_game = {row["seat"]: row["per_game"][-1] for row in tournament["standings"]}
            assert per_game == {int(s): factor * p for s, p in outcome["game_points"].items()}
            if number < 3:
                leaders = [r["seat"] for r in tournament["standings"] if r["place"] == 1]
                assert tournament["next"]["start_player"] == (min(leaders) + 1) % 3
                starts.append(tournament["next"]["start_player"])
                assert http.post(f"/api/rooms/{code}/ready", headers=host).status_code == 200
        assert colours[0] == colours[1] == colours[2], "H20.1: seats keep their colours"
    engine = make_engine(server.database_url)
    with Session(engine) as session:
        options = session.exec(
            select(Match.options).join(Room).where(Room.code == code).order_by(col(Match.number))
        ).all()
    engine.dispose()
    assert "start_player" not in options[0]
    assert [o["start_player"] for o in options[1:]] == starts, "H20.4: catch-up sets round 1"
    assert options[1]["colours"] == [colours[0][str(seat)] for seat in range(3)]
    final = board["tournament"]
    assert final["over"] and final["next"] is None
    # The TV's table draws each seat's badge in its dynasty's colour (H20.1).
    page = httpx.get(f"{server.base_url}/b/{code}", timeout=10).text
    standings = re.search(r'<table class="standings-table">.*?</table>', page, re.S)
    assert standings, "no standings table on the board"
    legend = page.split('data-testid="standings-legend">', 1)[1].split("</p>", 1)[0]
    assert legend == "1, 2, …: the games in the order played", "nobody sat a game out"
    for row in final["standings"]:
        drawn = re.search(rf'<tr[^>]*data-seat="{row["seat"]}">.*?</tr>', standings[0], re.S)
        assert drawn, f"no standings row for seat {row['seat']}"
        assert f"background: {COLOUR_HEX[row['colour']]}" in drawn[0], drawn[0]
    ranked = [(row["place"], row["points"]) for row in final["standings"]]
    assert ranked == sorted(ranked, key=lambda r: (r[0], -r[1]))
    for outcome in outcomes:
        # H20.2: 2 + 1 + 0 with three players, the Axis winner +1, and a shared rank scores
        # its better place — so a game sums to more than 3 exactly when its ranking has a tie.
        axis = int(outcome["reason"] == "throne")
        spread = sum(outcome["game_points"].values()) - axis
        tied = any(len(group) > 1 for group in outcome["ranking"])
        assert spread > 3 if tied else spread == 3, outcome
    points = sum(row["points"] for row in final["standings"])
    totals = [sum(o["game_points"].values()) for o in outcomes]
    assert points == totals[0] + totals[1] + 2 * totals[2], "H20.3: the final counts double"


def test_a_mixed_night_switches_games_between_matches(client: TestClient) -> None:
    made = client.post(
        "/api/rooms",
        json={"game": "hidden_leaders", "tournament": {"games": ["hidden_leaders", "legions"]}},
    )
    assert made.status_code == 201
    code, host = made.json()["code"], auth(made.json()["host_token"])
    for _ in range(2):
        client.post(f"/api/rooms/{code}/bots", headers=host)
    client.post(f"/api/rooms/{code}/start", headers=host)

    def finished(match: int) -> Any:
        body = client.get(f"/api/rooms/{code}").json()
        return body["match"] == match and body["status"] == "finished" and body

    # Bots draw Hidden Leaders now and then; L7.3 puts the rematch before the Legions game.
    match, played = 1, []
    while True:
        body = wait_until(lambda number=match: finished(number))
        played.append(body["game"])
        if body["game"] == "legions":
            break
        assert body["game"] == "hidden_leaders"
        drawn = body["outcome"]["winner"] is None
        assert body["tournament"]["next"]["game"] == ("hidden_leaders" if drawn else "legions")
        assert match < 6, "bots drew five Hidden Leaders games in a row"
        client.post(f"/api/rooms/{code}/ready", headers=host)
        match += 1
    assert body["view"]["locations"]
    tournament = body["tournament"]
    assert tournament["over"] and tournament["games_played"] == played
    assert all(len(row["per_game"]) == len(played) for row in tournament["standings"])


def test_the_bots_hold_a_night_s_first_move_for_a_watcher_at_the_table_to_predict(
    database_url: str,
) -> None:
    """A bots' pairing of a round robin, watched by Ann's phone: a bot would play within its
    second, before she could predict (the match takes predictions until its first round is
    played). The bots hold the first move until she has predicted, or for
    ``prediction_seconds`` at most; on the test's clock, so nothing waits on the wall."""
    from app.config import Settings
    from app.main import create_app
    from tests.clock import ManualClock
    from tests.live import current_match, live_room, wait_for

    clock = ManualClock()
    settings = Settings(database_url=database_url, bot_delay=0.0, prediction_seconds=10.0)
    with TestClient(create_app(settings, clock=clock)) as client:

        def first_move_held(for_seconds: float) -> bool:
            """The bots sleep on the clock with the first move not played, ``for_seconds``
            after they first looked (the test moved the clock by that much)."""
            match = current_match(live_room(client, code))
            asleep = any(s.wakes_at > clock.at for s in clock._sleepers)
            close = match.predictions_close_at
            return (
                asleep
                and not match.history
                and close is not None
                and (close - clock.now()).total_seconds() == pytest.approx(10 - for_seconds)
            )

        def night_with_ann_watching() -> tuple[str, str, str]:
            created = create_room(client, "hidden_leaders")
            code, host = created["code"], created["host_token"]
            made = client.post(
                f"/api/rooms/{code}/tournament",
                json={"tournament": {"count": 1}},
                headers=auth(host),
            )
            assert made.status_code == 200
            ann = join(client, code, "Ann")["token"]
            for _ in range(2):  # seats 1 and 2: the round robin's first pairing
                assert client.post(f"/api/rooms/{code}/bots", headers=auth(host)).status_code == 201
            return code, host, ann

        # She predicts within the grace: the bots play on at their next look.
        code, host, ann = night_with_ann_watching()
        with client.websocket_connect(f"/ws/rooms/{code}?token={ann}"):
            assert client.post(f"/api/rooms/{code}/start", headers=auth(host)).status_code == 200
            assert 0 not in current_match(live_room(client, code)).players
            wait_for(lambda: first_move_held(0), "the bots holding the first move")
            clock.advance(5)
            wait_for(lambda: first_move_held(5), "the bots still holding it after 5 s")
            predicted = client.post(
                f"/api/rooms/{code}/predictions", json={"winner": 1}, headers=auth(ann)
            )
            assert predicted.status_code == 200, predicted.text
            clock.advance(0.5)
            wait_for(lambda: current_match(live_room(client, code)).history, "the bots' first move")
        # She does not predict: the bots play once the grace is over.
        code, host, ann = night_with_ann_watching()
        with client.websocket_connect(f"/ws/rooms/{code}?token={ann}"):
            assert client.post(f"/api/rooms/{code}/start", headers=auth(host)).status_code == 200
            wait_for(lambda: first_move_held(0), "the bots holding the first move")
            for step in range(1, 20):
                clock.advance(0.5)
                wait_for(partial(first_move_held, step / 2), "the bots holding it within the grace")
            clock.advance(0.5)
            wait_for(lambda: current_match(live_room(client, code)).history, "the bots' first move")
            late = client.post(
                f"/api/rooms/{code}/predictions", json={"winner": 1}, headers=auth(ann)
            )
            assert late.status_code == 409, "the match's first round is played"


def test_each_phone_sees_the_whole_night_at_its_end_and_the_winner_is_told(
    client: TestClient,
) -> None:
    """At the night's end a phone read only its own place, in grey: the winner was not told
    it had won, and nobody saw the others' places. Now every phone has the final table, and
    the winner's phone says so (or that it shares first place)."""
    created = client.post("/api/rooms", json={"game": "hidden_leaders", "tournament": {"count": 2}})
    assert created.status_code == 201
    code, host = created.json()["code"], auth(created.json()["host_token"])
    tokens = [join(client, code, name)["token"] for name in ("Jana", "Petr")]
    assert client.post(f"/api/rooms/{code}/start", headers=host).status_code == 200
    for _ in range(400):
        board = client.get(f"/api/rooms/{code}").json()
        if board["status"] == "finished":
            if board["tournament"]["over"]:
                break
            assert client.post(f"/api/rooms/{code}/ready", headers=host).status_code == 200
            continue
        for token in tokens:
            me = client.get(f"/api/rooms/{code}/me", headers=auth(token)).json()
            if me.get("prompt"):
                order = order_from_prompt(me["prompt"])
                client.post(f"/api/rooms/{code}/orders", json=order, headers=auth(token))
    standings = board["tournament"]["standings"]
    assert board["tournament"]["over"] and len(standings) == 2
    firsts = [row["seat"] for row in standings if row["place"] == 1]
    for seat, token in enumerate(tokens):
        client.cookies.set(f"pecet_seat_{code}", token)
        page = client.get(f"/r/{code}").text
        table = page[page.index('data-testid="night-table"') :]
        shown = re.sub(r"<[^>]+>", " ", table[: table.index("</table>")])
        assert "Jana" in shown and "Petr" in shown
        own = re.search(r'<tr class="me">(.*?)</tr>', table, re.S)
        assert own is not None and ("Jana", "Petr")[seat] in own.group(1), "its own row marked"
        assert all(re.search(rf"\b{row['place']}\.", shown) for row in standings), shown
        if seat not in firsts:
            assert 'data-testid="night-won"' not in page
        elif len(firsts) > 1:
            assert "You share first place!" in page
        else:
            assert "The night is yours!" in page
    assert firsts, "somebody is first"


def test_a_night_opened_as_a_duel_plays_its_heirs_game_with_the_host_s_options(
    client: TestClient,
) -> None:
    """A mixed night's games other than the room's own have options of their own: Heirs'
    rounds and variants (H3.2, H13.1) were the sheet's, with no way for the host to shorten
    the night's longest game, on a night opened as a duel."""
    made = client.post(
        "/api/rooms",
        json={"game": "hidden_leaders", "tournament": {"games": ["heirs", "hidden_leaders"]}},
    )
    assert made.status_code == 201
    code, host = made.json()["code"], auth(made.json()["host_token"])
    for _ in range(3):
        client.post(f"/api/rooms/{code}/bots", headers=host)

    # The board's lobby draws Heirs' own form for the host (rounds, variants), no second timer.
    client.cookies.set(f"pecet_host_{code}", made.json()["host_token"])
    lobby = client.get(f"/b/{code}").text
    night = lobby[lobby.index('data-testid="night-options-heirs"') :]
    assert 'name="night_game" value="heirs"' in night and 'data-testid="opt-rounds"' in night
    assert 'data-testid="night-options-hidden_leaders"' not in lobby  # the room's own game
    assert lobby.count('name="timer"') == 1
    # The form as the page sends it, then the API's way.
    sent = client.post(f"/b/{code}/options", data={"night_game": "heirs", "rounds": "8"})
    assert sent.status_code < 400, sent.text
    options = client.post(
        f"/api/rooms/{code}/options?game=heirs",
        json={"variants": ["elf_per_5"]},
        headers=host,
    )
    assert options.status_code == 200, options.text
    kept = options.json()["options"]["night_games"]["heirs"]
    assert kept == {"rounds": 8, "variants": ["elf_per_5"]}
    # A game not on the night's list, and the room's own options, are refused with a reason.
    other = client.post(f"/api/rooms/{code}/options?game=legions", json={"x": 1}, headers=host)
    assert other.status_code == 422 and other.json()["code"] == "bad_game"
    timer = client.post(f"/api/rooms/{code}/options?game=heirs", json={"timer": 60}, headers=host)
    assert timer.status_code == 422
    bad = client.post(f"/api/rooms/{code}/options?game=heirs", json={"rounds": 99}, headers=host)
    assert bad.status_code == 422 and bad.json()["code"] == "bad_options"
    # Sent whole, unchecked, they would have failed only at Start.
    whole = {"night_games": {"heirs": {"rounds": 99}}}
    sneaked = client.post(f"/api/rooms/{code}/options", json=whole, headers=host)
    assert sneaked.status_code == 422 and sneaked.json()["code"] == "bad_options"
    made_with = client.post("/api/rooms", json={"game": "legions", "options": whole})
    assert made_with.status_code == 422 and made_with.json()["code"] == "bad_options"

    client.post(f"/api/rooms/{code}/start", headers=host)
    body = client.get(f"/api/rooms/{code}").json()
    assert body["game"] == "heirs"
    assert body["view"]["rounds"] == 8 and body["view"]["variants"] == ["elf_per_5"]


def test_a_phone_in_a_night_s_lobby_counts_the_games_once_two_players_sit(
    client: TestClient,
) -> None:
    """A duel game's round robin grows with the players: with one seated, the phone's
    heading said "3 games" where three players made it 7."""
    made = client.post(
        "/api/rooms",
        json={"game": "heirs", "tournament": {"games": ["heirs", "hidden_leaders", "legions"]}},
    )
    code = made.json()["code"]

    def heading(token: str) -> str:
        client.cookies.set(f"pecet_seat_{code}", token)
        page = client.get(f"/r/{code}").text
        found = re.search(
            r'data-testid="my-standing">\s*(?:\{#.*?#\}\s*)?<h2>(.*?)</h2>', page, re.S
        )
        assert found, page[:2000]
        return re.sub(r"<[^>]+>", "", found.group(1))

    first = join(client, code, "Anna")["token"]
    assert heading(first).strip() == "Tournament"
    join(client, code, "Ben")
    join(client, code, "Cyril")
    assert heading(first).strip() == "Tournament · 7 games"


def test_a_seat_handed_to_a_bot_while_it_watches_a_duel_is_told_so(client: TestClient) -> None:
    """In a night's duel, the host's menu offers a watcher's seat as its next games, and the
    phone of that seat, once handed, watches the duel as before: the bot plays its seat's
    games to come, not this one, which the phone said it did."""
    room = create_room(client, "hidden_leaders")
    code, host = room["code"], room["host_token"]
    made = client.post(
        f"/api/rooms/{code}/tournament", json={"tournament": {"count": 1}}, headers=auth(host)
    )
    assert made.status_code == 200
    seats = {name: join(client, code, name) for name in ("Ann", "Ben", "Eva")}
    assert client.post(f"/api/rooms/{code}/start", headers=auth(host)).status_code == 200
    playing = {p["seat"] for p in client.get(f"/api/rooms/{code}").json()["players"]}
    (watcher,) = [name for name, seat in seats.items() if seat["seat"] not in playing]
    player = next(name for name, seat in seats.items() if seat["seat"] in playing)

    client.cookies.set(f"pecet_host_{code}", host)
    menu = html.unescape(client.get(f"/b/{code}").text)
    assert f"Hand {watcher}'s next games to a bot" in menu, "the watcher's games to come"
    assert f"Hand {player}'s seat to a bot" in menu, "a player's seat in this duel"
    assert f"Hand {watcher}'s seat to a bot" not in menu
    client.cookies.clear()

    gone = client.delete(f"/api/rooms/{code}/seats/{seats[watcher]['seat']}", headers=auth(host))
    assert gone.status_code == 200, gone.text
    client.cookies.set(f"pecet_seat_{code}", seats[watcher]["token"])
    page = html.unescape(client.get(f"/r/{code}").text)
    client.cookies.clear()
    assert 'data-testid="handed"' in page and 'data-testid="come-back-link"' in page
    assert "You are watching" in page and "A bot plays your seat now" not in page
    assert "which plays your seat's games from now on" in page


def test_after_a_night_s_game_the_next_match_s_prediction_is_under_the_result(
    client: TestClient,
) -> None:
    """A player whose next match of the night is one to watch is offered its prediction as
    the game ends: the card sat at the page's foot, below the seat's details and the whole
    log, screens away on a small phone. It now comes right under the result, with Ready."""
    room = create_room(client, "hidden_leaders")
    code, host = room["code"], auth(room["host_token"])
    made = client.post(
        f"/api/rooms/{code}/tournament", json={"tournament": {"count": 1}}, headers=host
    )
    assert made.status_code == 200
    humans = {
        seat["seat"]: seat["token"] for seat in (join(client, code, n) for n in ("Ann", "Ben"))
    }
    for _ in range(2):
        assert client.post(f"/api/rooms/{code}/bots", headers=host).status_code == 201
    assert client.post(f"/api/rooms/{code}/start", headers=host).status_code == 200
    for number in range(1, 12):
        board = wait_until(
            lambda n=number: (b := client.get(f"/api/rooms/{code}").json())["match"] == n and b
        )
        played = {p["seat"] for p in board["players"]}
        play_seat_until_done(client, code, humans)
        board = wait_until(
            lambda n=number: (
                (b := client.get(f"/api/rooms/{code}").json())["match"] == n
                and b["status"] == "finished"
                and b
            )
        )
        coming = (board["tournament"]["next"] or {}).get("players") or []
        watcher = next((s for s in humans if s in played and s not in coming), None)
        if board["tournament"]["over"] or (coming and watcher is not None):
            break
        client.post(f"/api/rooms/{code}/ready", headers=host)
    assert watcher is not None and coming, "no player of a match watched the next one"
    client.cookies.set(f"pecet_seat_{code}", humans[watcher])
    page = client.get(f"/r/{code}").text
    client.cookies.clear()
    result, offer = page.index('id="phone-result"'), page.index('data-testid="predict"')
    assert result < offer < page.index("ph-history"), "the prediction under the result"

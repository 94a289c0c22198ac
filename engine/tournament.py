"""A night of games with the same people: the schedule and the standings (pure arithmetic).

Rules: Heirs of the Axis H20 (placement points, +1 for a win by entering the Axis, Final ×2,
Catch-up, the tiebreak chain), Hidden Leaders Duel L2.4/L7.3 (the starting player alternates;
a draw is recorded and followed by a rematch) and Legions G13 (VP). A duel series scores 1 per
win and ½ per draw, then total army strength (Hidden Leaders) or VP (Legions), then head to
head.

Results are given in the order the games were played, each ``{"game", "outcome", "players"}``
where ``players[i]`` is the tournament seat that played engine seat ``i``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from engine.core import JSON

DUEL_GAMES = ("hidden_leaders", "legions")
MAX_GAMES = 20


@dataclass(frozen=True, slots=True)
class Plan:
    """What the host chose: the games in order, Final ×2 (H20.3) and Catch-up (H20.4)."""

    games: tuple[str, ...]
    final_double: bool = False
    catch_up: bool = False
    pairings: tuple[tuple[int, int], ...] = ()
    """A round robin's pairings, one per game (set when the first game starts)."""

    @staticmethod
    def from_stored(raw: Mapping[str, Any]) -> Plan:
        return Plan(
            tuple(raw["games"]),
            bool(raw.get("final_double")),
            bool(raw.get("catch_up")),
            tuple((int(a), int(b)) for a, b in raw.get("pairings", ())),
        )

    @staticmethod
    def from_json(raw: Mapping[str, Any], default_game: str, hosted: Sequence[str]) -> Plan:
        """Checks the host's choice; raises ``ValueError`` with a readable reason."""
        games = raw.get("games")
        count = raw.get("count")
        if games is None:
            if isinstance(count, bool) or not isinstance(count, int):
                raise ValueError("a tournament needs a number of games (count) or a list (games)")
            games = [default_game] * count
        if not isinstance(games, list) or not all(isinstance(g, str) for g in games):
            raise ValueError("games must be a list of game ids")
        if not 1 <= len(games) <= MAX_GAMES:
            raise ValueError(f"a tournament has 1 to {MAX_GAMES} games")
        unknown = sorted(set(games) - set(hosted))
        if unknown:
            raise ValueError(f"not playable here: {', '.join(unknown)}")
        for key in ("final_double", "catch_up"):
            if not isinstance(raw.get(key, False), bool):
                raise ValueError(f"{key} must be true or false")
        extra = set(raw) - {"games", "count", "final_double", "catch_up"}
        if extra:
            raise ValueError(f"unknown tournament settings: {', '.join(sorted(extra))}")
        return Plan(tuple(games), bool(raw.get("final_double")), bool(raw.get("catch_up")))

    def to_json(self) -> JSON:
        raw: JSON = {
            "games": list(self.games),
            "final_double": self.final_double,
            "catch_up": self.catch_up,
        }
        if self.pairings:
            raw["pairings"] = [list(pair) for pair in self.pairings]
        return raw


def round_robin(entrants: int) -> tuple[tuple[int, int], ...]:
    """Every pair of entrants once, in rounds (the circle method), so that nobody waits long
    and nobody plays twice in a row when it can be helped. Seat order alternates who is
    engine seat 0 so that each entrant starts about half of its games."""
    seats: list[int | None] = list(range(entrants))
    if entrants % 2:
        seats.append(None)
    size = len(seats)
    pairs: list[tuple[int, int]] = []
    for round_number in range(size - 1):
        for i in range(size // 2):
            a, b = seats[i], seats[size - 1 - i]
            if a is not None and b is not None:
                pairs.append((a, b) if (round_number + i) % 2 == 0 else (b, a))
        seats = [seats[0], seats[-1], *seats[1:-1]]
    return tuple(pairs)


def winners_of(outcome: Mapping[str, Any]) -> list[int]:
    winners = outcome.get("winners")
    if winners is not None:
        return [int(w) for w in winners]
    return [] if outcome.get("winner") is None else [int(outcome["winner"])]


def is_draw(result: Mapping[str, Any]) -> bool:
    return not winners_of(result["outcome"])


def plan_positions(plan: Plan, results: Sequence[Mapping[str, Any]]) -> list[int]:
    """The place in the plan of each game played. L7.3: a drawn Hidden Leaders game is
    followed by a rematch, which takes the drawn game's place instead of the next one."""
    positions: list[int] = []
    for index in range(len(results)):
        if index == 0:
            positions.append(0)
        elif _needs_rematch(results[index - 1]):
            positions.append(positions[-1])
        else:
            positions.append(positions[-1] + 1)
    return positions


def _needs_rematch(result: Mapping[str, Any]) -> bool:
    # Legions always has a winner (G13.3); only a Hidden Leaders draw calls for a rematch.
    return result["game"] == "hidden_leaders" and is_draw(result)


def games_to_play(plan: Plan, results: Sequence[Mapping[str, Any]]) -> list[str]:
    """The games still to come, a rematch first after a drawn Hidden Leaders game (L7.3)."""
    if not results:
        return list(plan.games)
    last = plan_positions(plan, results)[-1]
    remaining = list(plan.games[last + 1 :])
    if _needs_rematch(results[-1]):
        remaining.insert(0, results[-1]["game"])
    return remaining


def next_position(plan: Plan, results: Sequence[Mapping[str, Any]]) -> int:
    """The place in the plan of the next game (a rematch keeps the drawn game's place)."""
    if not results:
        return 0
    last = plan_positions(plan, results)[-1]
    return last if _needs_rematch(results[-1]) else last + 1


def game_points(result: Mapping[str, Any], seats: int) -> dict[int, Fraction]:
    """Points each tournament seat scored in one game (seats that sat out score nothing)."""
    outcome, players = result["outcome"], result["players"]
    points: dict[int, Fraction] = {}
    if result["game"] in DUEL_GAMES:
        winners = winners_of(outcome)
        for engine_seat, seat in enumerate(players):
            if not winners:
                points[seat] = Fraction(1, 2)
            else:
                points[seat] = Fraction(1 if engine_seat in winners else 0)
    else:  # H20.2: placement points, the Axis +1 already in the outcome's game_points
        for engine_seat, seat in enumerate(players):
            points[seat] = Fraction(outcome["game_points"][str(engine_seat)])
    return points


def tiebreak_score(result: Mapping[str, Any], engine_seat: int) -> int:
    """The second standings key a game adds: army strength (Hidden Leaders), VP (Legions),
    Council points (Heirs, H20.5)."""
    outcome = result["outcome"]
    game = result["game"]
    if game == "hidden_leaders":
        return int(outcome["strength"][engine_seat])
    if game == "legions":
        return int(outcome["score"][engine_seat])
    return int(outcome["council"][str(engine_seat)]["points"])


def standings(plan: Plan, results: Sequence[Mapping[str, Any]], seats: int) -> list[JSON]:
    """The table, best first: place (shared when tied), points per game and in total.

    Order: points; then games won (H20.5) for Heirs or the summed army strength / VP for a
    duel series; then summed Council points (Heirs); then head to head among the tied; else a
    shared place.
    """
    final_index = len(plan.games) - 1
    positions = plan_positions(plan, results)
    rows: dict[int, dict[str, Any]] = {
        seat: {"seat": seat, "points": Fraction(0), "per_game": [], "games_won": 0, "score": 0}
        for seat in range(seats)
    }
    for index, result in enumerate(results):
        earned = game_points(result, seats)
        # H20.3: the final doubles, and so does its rematch if it was drawn (L7.3).
        factor = 2 if plan.final_double and positions[index] == final_index else 1
        winners = set(winners_of(result["outcome"]))
        for seat, row in rows.items():
            if seat in earned:
                row["points"] += factor * earned[seat]
                row["per_game"].append(_number(factor * earned[seat]))
            else:
                row["per_game"].append(None)
        for engine_seat, seat in enumerate(result["players"]):
            rows[seat]["games_won"] += engine_seat in winners
            rows[seat]["score"] += tiebreak_score(result, engine_seat)
    duel_only = all(g in DUEL_GAMES for g in plan.games)

    def key(row: Mapping[str, Any]) -> tuple[Any, ...]:
        if duel_only:
            return (-row["points"], -row["score"])
        return (-row["points"], -row["games_won"], -row["score"])

    ordered = sorted(rows.values(), key=lambda r: (*key(r), r["seat"]))
    ordered = _head_to_head(ordered, key, results, seats)
    place, previous = 0, None
    for index, row in enumerate(ordered):
        marker = (*key(row), row.get("h2h", 0))
        if marker != previous:
            place, previous = index + 1, marker
        row["place"] = place
        row["points"] = _number(row["points"])
        row.pop("h2h", None)
    return ordered


def _head_to_head(
    ordered: list[dict[str, Any]], key: Any, results: Sequence[Mapping[str, Any]], seats: int
) -> list[dict[str, Any]]:
    """Among players tied on every key, points from the games they played only among
    themselves decide (a round-robin's head to head); equal there too → a shared place."""
    out: list[dict[str, Any]] = []
    start = 0
    while start < len(ordered):
        end = start
        while end + 1 < len(ordered) and key(ordered[end + 1]) == key(ordered[start]):
            end += 1
        group = ordered[start : end + 1]
        tied = {row["seat"] for row in group}
        among = [r for r in results if len(tied) > 1 and set(r["players"]) <= tied]
        for row in group:
            row["h2h"] = -sum(game_points(r, seats).get(row["seat"], 0) for r in among)
        out.extend(sorted(group, key=lambda r: (r["h2h"], r["seat"])))
        start = end + 1
    return out


def catch_up_start_player(table: Sequence[Mapping[str, Any]], players: int) -> int:
    """H20.4: the next game's round-1 start player is the seat clockwise after the leader
    (several leaders: the one in the lowest seat)."""
    leaders = [int(row["seat"]) for row in table if row["place"] == 1]
    return (min(leaders) + 1) % players


def _number(value: Fraction) -> int | float:
    return int(value) if value.denominator == 1 else float(value)

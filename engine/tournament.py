"""A night of games with the same people: the schedule and the standings (pure arithmetic).

Rules: Heirs of the Axis H20 (placement points, +1 for a win by entering the Axis, Final ×2,
Catch-up, the tiebreak chain), Hidden Leaders Duel L2.4/L7.3 (the starting player alternates;
a draw is recorded and followed by a rematch) and Legions G13 (VP). A duel series scores 1 per
win and ½ per draw, then total army strength (Hidden Leaders) or VP (Legions), then head to
head.

Nothing here names a game: each game's ``GameInfo`` says how its matches score (``scoring``),
which standings column its tie-break score adds to (``tiebreak``) and whether a draw is
played again (``rematch_on_draw``); its rules object gives the score (``tiebreak_score``).

Results are given in the order the games were played, each ``{"game", "outcome", "players"}``
where ``players[i]`` is the tournament seat that played engine seat ``i``.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from engine.core import JSON, NextMatch
from engine.registry import engine_games, game_info, get_rules

MAX_GAMES = 20
"""At most this many games in the list times its rounds."""
MAX_ROUNDS = 10
ROUND_ROBIN_MAX = 8
"""A duel game seats 3 to 8 entrants as a round robin, one pairing after another."""


@dataclass(frozen=True, slots=True)
class Fixture:
    """One match of the night: its game and the tournament seats that play it, in the game's
    own seat order; ``stage`` is its place in the list of games (the list times its rounds),
    shared by every pairing of a round robin."""

    game: str
    players: tuple[int, ...]
    stage: int

    def to_json(self) -> JSON:
        return {"game": self.game, "players": list(self.players), "stage": self.stage}


@dataclass(frozen=True, slots=True)
class Plan:
    """What the host chose: a list of games played ``rounds`` times over, Final ×2 (H20.3)
    and Catch-up (H20.4); ``fixtures`` once the night has started and everyone is seated."""

    games: tuple[str, ...]
    rounds: int = 1
    final_double: bool = False
    catch_up: bool = False
    fixtures: tuple[Fixture, ...] = ()

    @property
    def stages(self) -> tuple[str, ...]:
        """The games in the order they are played, each once for the whole table."""
        return self.games * self.rounds

    @staticmethod
    def from_stored(raw: Mapping[str, Any]) -> Plan:
        games = tuple(raw["games"])
        fixtures = tuple(
            Fixture(str(f["game"]), tuple(int(p) for p in f["players"]), int(f["stage"]))
            for f in raw.get("fixtures", ())
        )
        if not fixtures and raw.get("pairings"):  # stored before fixtures: one game per pair
            fixtures = tuple(Fixture(games[0], (int(a), int(b)), 0) for a, b in raw["pairings"])
            games = games[:1]
        return Plan(
            games,
            int(raw.get("rounds", 1)),
            bool(raw.get("final_double")),
            bool(raw.get("catch_up")),
            fixtures,
        )

    @staticmethod
    def from_json(raw: Mapping[str, Any], default_game: str, hosted: Sequence[str]) -> Plan:
        """Checks the host's choice; raises ``ValueError`` with a readable reason.

        ``{"games": [...], "rounds": n}`` plays the list n times; ``{"count": n}`` is n
        rounds of the room's own game. Every number and length is checked before anything
        is built from it (issue 13.1: a count of 10⁹ must not become a list)."""
        extra = set(raw) - {"games", "count", "rounds", "final_double", "catch_up"}
        if extra:
            raise ValueError(f"unknown tournament settings: {', '.join(sorted(extra))}")
        games = raw.get("games")
        count = raw.get("count")
        rounds = raw.get("rounds", 1)
        if games is None:
            if count is None:
                raise ValueError("a tournament needs a list of games (games) or a count")
            if "rounds" in raw:
                raise ValueError("rounds go with a list of games; a count already says how many")
            if isinstance(count, bool) or not isinstance(count, int) or not 0 < count <= MAX_ROUNDS:
                raise ValueError(f"count must be a whole number from 1 to {MAX_ROUNDS}")
            rounds, games = count, [default_game]
        elif count is not None:
            raise ValueError("give either a list of games or a count, not both")
        if isinstance(rounds, bool) or not isinstance(rounds, int):
            raise ValueError("the number of rounds must be a whole number")
        if not 1 <= rounds <= MAX_ROUNDS:
            raise ValueError(f"a tournament plays its list 1 to {MAX_ROUNDS} times")
        if not isinstance(games, list):
            raise ValueError("games must be a list of game ids")
        if not 1 <= len(games) * rounds <= MAX_GAMES:
            raise ValueError(f"a tournament has 1 to {MAX_GAMES} games")
        if not all(isinstance(g, str) for g in games):
            raise ValueError("games must be a list of game ids")
        unknown = sorted(set(games) - set(hosted))
        if unknown:
            raise ValueError(f"not playable here: {', '.join(unknown)}")
        for key in ("final_double", "catch_up"):
            if not isinstance(raw.get(key, False), bool):
                raise ValueError(f"{key} must be true or false")
        return Plan(tuple(games), rounds, bool(raw.get("final_double")), bool(raw.get("catch_up")))

    def to_json(self) -> JSON:
        raw: JSON = {
            "games": list(self.games),
            "rounds": self.rounds,
            "final_double": self.final_double,
            "catch_up": self.catch_up,
        }
        if self.fixtures:
            raw["fixtures"] = [f.to_json() for f in self.fixtures]
        return raw

    def seated(self, entrants: int, duels: Iterable[str]) -> Plan:
        """The night for ``entrants`` players: a duel game is a round robin among them (every
        pairing once, the others watching) and any other game seats everyone."""
        duel_games = set(duels)
        everyone = tuple(range(entrants))
        fixtures: list[Fixture] = []
        for stage, game in enumerate(self.stages):
            if game in duel_games and entrants > 2:
                fixtures += [Fixture(game, pair, stage) for pair in round_robin(entrants)]
            else:
                fixtures.append(Fixture(game, everyone, stage))
        return replace(self, fixtures=tuple(fixtures))

    def schedule(self) -> tuple[Fixture, ...]:
        """The matches of the night; before it starts, one per stage for the whole table."""
        if self.fixtures:
            return self.fixtures
        return tuple(Fixture(game, (), stage) for stage, game in enumerate(self.stages))


def round_robin(entrants: int) -> tuple[tuple[int, int], ...]:
    """Every pair of entrants once, in rounds (the circle method), so that nobody waits long
    and nobody plays twice in a row when it can be helped (with an odd count one entrant
    sits each round out: the bye). Seat order alternates who is engine seat 0 so that each
    entrant starts about half of its games."""
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
    """The place in the schedule of each game played. L7.3: a drawn Hidden Leaders game is
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
    # A Hidden Leaders draw is played again (L7.3); Legions always has a winner (G13.3) and
    # Heirs ranks every seat, so neither calls for one.
    return game_info(result["game"]).rematch_on_draw and is_draw(result)


def upcoming(plan: Plan, results: Sequence[Mapping[str, Any]]) -> list[Fixture]:
    """The matches still to come, a rematch first after a drawn Hidden Leaders game (L7.3)."""
    schedule = plan.schedule()
    if not results:
        return list(schedule)
    last = plan_positions(plan, results)[-1]
    remaining = list(schedule[last + 1 :])
    if _needs_rematch(results[-1]):
        remaining.insert(0, schedule[last])
    return remaining


def games_to_play(plan: Plan, results: Sequence[Mapping[str, Any]]) -> list[str]:
    """The games of the matches still to come."""
    return [fixture.game for fixture in upcoming(plan, results)]


def next_position(plan: Plan, results: Sequence[Mapping[str, Any]]) -> int:
    """The place in the schedule of the next game (a rematch keeps the drawn game's place)."""
    if not results:
        return 0
    last = plan_positions(plan, results)[-1]
    return last if _needs_rematch(results[-1]) else last + 1


def game_points(result: Mapping[str, Any], seats: int) -> dict[int, Fraction]:
    """Points each tournament seat scored in one game (seats that sat out score nothing)."""
    outcome, players = result["outcome"], result["players"]
    points: dict[int, Fraction] = {}
    if game_info(result["game"]).scoring == "result":
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
    return int(get_rules(result["game"]).tiebreak_score(result["outcome"], engine_seat))


def score_columns() -> tuple[str, ...]:
    """The standings columns the games' tie-break scores add to, in the order they decide:
    the placement games' first (H20.5: Council points, right after games won), then the
    series' (army strength for Hidden Leaders, VP for Legions)."""
    infos = [game_info(game) for game in engine_games()]
    placement = [info.tiebreak for info in infos if info.scoring == "placement"]
    series = [info.tiebreak for info in infos if info.scoring == "result"]
    return tuple(dict.fromkeys(placement + series))


def tiebreaks() -> tuple[str, ...]:
    """The keys that may put one of two players level on points ahead, as ``tiebreak`` names
    them in the standings: games won (H20.5), the games' score columns, then head to head
    (``games_won``, ``council``, ``army_strength``, ``victory_points``, ``head_to_head``)."""
    return ("games_won", *score_columns(), "head_to_head")


def standings(plan: Plan, results: Sequence[Mapping[str, Any]], seats: int) -> list[JSON]:
    """The table, best first: place (shared when tied after every tie-break), points per
    game and in total, ``tiebreak``: what put a row ahead of the next one on equal points
    (one of ``TIEBREAKS``), ``"shared"`` when they share the place, else None; and
    ``behind``: what put a row behind the one before it on equal points, else None.

    Order: points; then games won (H20.5; not in a night of duels only, whose points are
    already its wins); then Council points summed (H20.5); then army strength and VP summed
    (the duel rules); then head to head among the tied; else a shared place. Before the
    night's last game, players level on points who have played different numbers of games
    go straight to head to head: their sums do not compare (one who lost a duel has some army
    strength, one yet to play has none).
    """
    schedule = plan.schedule()
    final_stage = len(plan.stages) - 1
    positions = plan_positions(plan, results)
    columns = score_columns()
    rows: dict[int, dict[str, Any]] = {
        seat: {
            "seat": seat,
            "points": Fraction(0),
            "per_game": [],
            "games_won": 0,
            "played": 0,
            **{key: 0 for key in columns},
        }
        for seat in range(seats)
    }
    for index, result in enumerate(results):
        earned = game_points(result, seats)
        # H20.3: every game of the final stage counts double (each pairing of a final round
        # robin), and so does a drawn final's rematch (L7.3).
        position = positions[index]
        final = position < len(schedule) and schedule[position].stage == final_stage
        factor = 2 if plan.final_double and final else 1
        winners = set(winners_of(result["outcome"]))
        for seat, row in rows.items():
            if seat in earned:
                row["points"] += factor * earned[seat]
                row["per_game"].append(_number(factor * earned[seat]))
            else:
                row["per_game"].append(None)
        score_key = game_info(result["game"]).tiebreak
        for engine_seat, seat in enumerate(result["players"]):
            rows[seat]["played"] += 1
            rows[seat]["games_won"] += engine_seat in winners
            rows[seat][score_key] += tiebreak_score(result, engine_seat)
    # A night of series only: its points are already its wins.
    series_only = all(game_info(game).scoring == "result" for game in plan.games)
    chain = [k for k in tiebreaks()[:-1] if not (series_only and k == "games_won")]

    over = not games_to_play(plan, results)
    played_at: dict[Fraction, set[int]] = {}
    for row in rows.values():
        played_at.setdefault(row["points"], set()).add(row["played"])

    def key(row: Mapping[str, Any]) -> tuple[Any, ...]:
        if not over and len(played_at[row["points"]]) > 1:
            return (-row["points"], *(0 for _ in chain))
        return (-row["points"], *(-row[k] for k in chain))

    ordered = sorted(rows.values(), key=lambda r: (*key(r), r["seat"]))
    ordered = _head_to_head(ordered, key, results, seats)
    place, previous = 0, None
    for index, row in enumerate(ordered):
        marker = (*key(row), row["h2h"])
        if marker != previous:
            place, previous = index + 1, marker
        row["place"] = place
        row["tiebreak"] = row["behind"] = None
    for upper, lower in itertools.pairwise(ordered):
        if upper["points"] != lower["points"]:
            continue
        if upper["place"] == lower["place"]:
            upper["tiebreak"] = lower["tiebreak"] = "shared"
        else:
            # The first sum the order compared that differs (none were compared for players
            # who have played different numbers of games): else head to head decided.
            compared = zip(chain, key(upper)[1:], key(lower)[1:], strict=True)
            upper["tiebreak"] = next((k for k, a, b in compared if a != b), "head_to_head")
            lower["behind"] = upper["tiebreak"]
    for row in ordered:
        row["points"] = _number(row["points"])
        row["score"] = sum(row.pop(k) for k in columns)
        row.pop("h2h")
        row.pop("played")
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


def prediction_score(
    outcome: Mapping[str, Any], players: Sequence[int], winner: int, ending: str | None
) -> JSON:
    """A watcher's oracle points for one match: 1 for naming the winner, 1 more for naming
    how it ended too (``outcome["reason"]``). A draw has no winner to name."""
    right_winner = winner in [players[w] for w in winners_of(outcome)]
    right_ending = ending is not None and ending == outcome.get("reason")
    return {
        "right_winner": right_winner,
        "right_ending": right_ending,
        "points": int(right_winner) * (1 + int(right_ending)),
    }


def catch_up_start_player(table: Sequence[Mapping[str, Any]], players: int) -> int:
    """H20.4: the next game's round-1 start player is the seat clockwise after the leader
    (several leaders: the one in the lowest seat)."""
    leaders = [int(row["seat"]) for row in table if row["place"] == 1]
    return (min(leaders) + 1) % players


def kept_colours(results: Sequence[Mapping[str, Any]], players: Sequence[int]) -> list[str] | None:
    """H20.1: each player's colour from the last game of the night whose outcome gives
    colours (``{str(engine_seat): colour}``, an Heirs game's) and seated all of ``players``,
    in ``players``' order; None before there is one."""
    for result in reversed(results):
        colours = (result["outcome"] or {}).get("colours")
        if colours:
            by_seat = {seat: colours[str(i)] for i, seat in enumerate(result["players"])}
            if all(p in by_seat for p in players):
                return [by_seat[p] for p in players]
    return None


def alternate_first_player(coming: NextMatch) -> JSON:
    """L2.4 (and Legions' series): when the same two players play the same game again, who
    went second last time goes first now; ``{"first_player": engine seat}`` or ``{}``."""
    previous = coming.previous
    if previous is None or previous.game != coming.game or len(coming.players) != 2:
        return {}
    first = (previous.outcome or {}).get("first_player", previous.options.get("first_player"))
    if not isinstance(first, int) or sorted(previous.players) != sorted(coming.players):
        return {}
    went_first = previous.players[first]
    return {"first_player": 1 - coming.players.index(went_first)}


def _number(value: Fraction) -> int | float:
    return int(value) if value.denominator == 1 else float(value)

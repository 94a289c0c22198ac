"""Tournament scoring (H20): several games with the same seats; placement points add up.

Each finished game's ``outcome`` already carries ``game_points`` (H20.2, the Axis +1
included). These helpers add games up; the app keeps the list of outcomes.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.core import JSON


def standings(outcomes: Sequence[JSON], final_double: bool = False) -> list[JSON]:
    """Tournament table, best first (H20.2–H20.5).

    ``final_double`` (H20.3) counts the last game's points, +1 included, twice. Ties: more
    games won, then more Council points summed over all games; still tied → shared place.
    """
    if not outcomes:
        return []
    seats = sorted(int(seat) for seat in outcomes[0]["game_points"])
    rows: dict[int, JSON] = {
        seat: {"seat": seat, "points": 0, "games_won": 0, "council": 0} for seat in seats
    }
    for number, outcome in enumerate(outcomes):
        factor = 2 if final_double and number == len(outcomes) - 1 else 1
        for seat in seats:
            row = rows[seat]
            row["points"] += factor * outcome["game_points"][str(seat)]
            row["council"] += outcome["council"][str(seat)]["points"]
            row["games_won"] += seat in outcome["winners"]
    ordered = sorted(
        rows.values(), key=lambda r: (-r["points"], -r["games_won"], -r["council"], r["seat"])
    )
    place = 0
    previous: tuple[int, int, int] | None = None
    for index, row in enumerate(ordered):
        key = (row["points"], row["games_won"], row["council"])
        if key != previous:
            place = index + 1
            previous = key
        row["place"] = place
    return ordered


def catch_up_start_player(table: Sequence[JSON], players: int) -> int:
    """H20.4: the next game's round-1 start player is the seat clockwise after the leader
    (several leaders: the one in the lowest seat). Pass it as option ``start_player``."""
    leaders: list[int] = [row["seat"] for row in table if row["place"] == 1]
    return (min(leaders) + 1) % players

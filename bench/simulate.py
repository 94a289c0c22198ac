"""Bots-only games per second of each engine, as ``pecet simulate`` plays them.

Runs :func:`app.simulate.simulate` for each game and prints the games per second of the
best pass in one process, in CPU time of this process (``time.process_time``), so a busy
machine that takes the core away does not count: what one core of the engine does. Then the
wall-clock games per second of the best pass as ``pecet simulate`` plays by default, the games
shared out to one process per usable core (``--jobs``), which a busy machine does slow down.

    .venv/bin/python bench/simulate.py [--repeat K] [--scale X]

Targets (issue 14): Hidden Leaders Duel >= 1,000, Legions >= 500, Heirs 6 players >= 100.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.simulate import simulate, usable_cores

RUNS: tuple[tuple[str, int, int, int], ...] = (
    # game, players, games per pass, target games/s
    ("hidden_leaders", 2, 400, 1000),
    ("legions", 2, 200, 500),
    ("heirs", 6, 100, 100),
)


def games_per_second(game: str, players: int, games: int, repeat: int) -> float:
    """The best of ``repeat`` passes of ``games`` games (seed 1), in CPU time."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        simulate(game, players, games, seed=1)
        best = min(best, time.process_time() - start)
    return games / best


def wall_clock_games_per_second(game: str, players: int, games: int, repeat: int) -> float:
    """The best of ``repeat`` passes, wall-clock, with one process per usable core."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        simulate(game, players, games, seed=1, jobs=usable_cores())
        best = min(best, time.perf_counter() - start)
    return games / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--scale", type=float, default=1.0, help="multiply the games per pass")
    parser.add_argument("game", nargs="*", help="only these games (default: all three)")
    args = parser.parse_args()
    for game, players, games, target in RUNS:
        if args.game and game not in args.game:
            continue
        count = max(1, int(games * args.scale))
        rate = games_per_second(game, players, count, args.repeat)
        # Enough games for every core's worker to play several shares.
        wall = wall_clock_games_per_second(game, players, count * 4, args.repeat)
        print(
            f"{game:15} {players} players  {rate:8.1f} games/s CPU in one process"
            f"  {wall:8.1f} games/s wall-clock on {usable_cores()} cores  (target >= {target})"
        )


if __name__ == "__main__":
    main()

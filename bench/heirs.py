"""Heirs of the Axis benchmark: one core, pure engine, no I/O.

Prints the median time to resolve one sealed 6-heir round, the median time of a full
6-player bots game (setup choices, every prompt, view and bot decision, every seal through
the real sealing check, every resolution) and the resulting games per second.

Times are CPU time of this process (``time.process_time``), so a busy machine that takes the
core away does not count; each figure is the best of ``--repeat`` passes.

    .venv/bin/python bench/heirs.py [--games N] [--repeat K]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.heirs import RULES
from engine.heirs.state import HeirsState

PLAYERS = 6


def bots_game(seed: int, sealed_rounds: list[HeirsState] | None = None) -> HeirsState:
    """One full game, every seat a bot (styles alternate), driven through the protocol."""
    styles = RULES.info.bot_styles
    state = RULES.setup(PLAYERS, seed, {})
    while RULES.outcome(state) is None:
        for seat in range(PLAYERS):
            if RULES.prompt(state, seat) is not None:
                order = RULES.bot_order(state, seat, styles[(seat + seed) % len(styles)])
                state = RULES.submit(state, seat, order)
        if sealed_rounds is not None and state.phase == "orders":
            sealed_rounds.append(state)
        state, _ = RULES.resolve(state)
    return state


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    clock = time.process_time

    sealed: list[HeirsState] = []
    endings: dict[str, int] = {}
    best_games: list[float] | None = None
    for attempt in range(args.repeat):
        game_times: list[float] = []
        for seed in range(args.games):
            start = clock()
            final = bots_game(seed, sealed if attempt == 0 and seed < 20 else None)
            game_times.append(clock() - start)
            if attempt == 0:
                reason = final.outcome["reason"] if final.outcome else "none"
                endings[reason] = endings.get(reason, 0) + 1
        if best_games is None or sum(game_times) < sum(best_games):
            best_games = game_times
    assert best_games is not None

    round_times: list[float] = []
    for state in sealed:
        best = float("inf")
        for _ in range(max(3, args.repeat)):
            start = clock()
            for _ in range(10):
                RULES.resolve(state)
            best = min(best, (clock() - start) / 10)
        round_times.append(best)

    median_round = statistics.median(round_times)
    median_game = statistics.median(best_games)
    print(f"rounds measured:             {len(round_times)} (6 heirs, sealed by bots)")
    print(f"median 6-heir round resolve: {median_round * 1e3:.3f} ms  (target < 1 ms)")
    print(f"median full 6-player game:   {median_game * 1e3:.1f} ms  ({args.games} games)")
    rate = len(best_games) / sum(best_games)
    print(f"games per second (1 core):   {rate:.1f}  (target >= 50)")
    print(f"endings:                     {endings}")


if __name__ == "__main__":
    main()

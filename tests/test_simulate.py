"""``pecet simulate``: bots against bots, the same figures for the same seed."""

from __future__ import annotations

import json
import subprocess
import sys

from app.config import PROJECT_DIR
from app.simulate import simulate


def without_timing(figures: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in figures.items() if k != "games_per_second"}


def test_the_same_seed_gives_the_same_figures() -> None:
    first = simulate("hidden_leaders", 2, 30, seed=11)
    again = simulate("hidden_leaders", 2, 30, seed=11)
    other = simulate("hidden_leaders", 2, 30, seed=12)
    assert without_timing(first) == without_timing(again)
    assert without_timing(first) != without_timing(other)
    assert first["games"] == 30
    wins = first["wins_by_seat"]
    assert isinstance(wins, dict) and sum(wins.values()) == 30
    assert isinstance(first["games_per_second"], float) and first["games_per_second"] > 0


def test_the_command_prints_json_figures() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "app.cli",
            "simulate",
            "hidden_leaders",
            "--games",
            "10",
            "--seed",
            "5",
            "--json",
        ],
        cwd=PROJECT_DIR,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    figures = json.loads(done.stdout)
    assert figures["games"] == 10 and figures["players"] == 2
    assert set(figures) >= {"wins_by_seat", "end_reasons", "mean_rounds", "games_per_second"}


def test_the_command_refuses_unknown_games_and_player_counts() -> None:
    unknown = subprocess.run(
        [sys.executable, "-m", "app.cli", "simulate", "chess"],
        cwd=PROJECT_DIR,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert unknown.returncode == 2 and "Unknown game" in unknown.stdout
    crowded = subprocess.run(
        [sys.executable, "-m", "app.cli", "simulate", "hidden_leaders", "--players", "3"],
        cwd=PROJECT_DIR,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert crowded.returncode == 2 and "2–2 players" in crowded.stdout

"""``pecet simulate``: bots against bots, the same figures for the same seed."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

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


# -- Heirs of the Axis ----------------------------------------------------------------------


def test_heirs_figures_are_right_and_repeatable() -> None:
    from app.simulate import SEED_STRIDE, play_one
    from engine.registry import get_rules

    first = simulate("heirs", 3, 6, seed=4)
    again = simulate("heirs", 3, 6, seed=4)
    assert without_timing(first) == without_timing(again)
    assert first["players"] == 3 and first["games"] == 6
    # The same games played one by one give the same figures.
    rules = get_rules("heirs")
    styles_all = rules.info.bot_styles
    rounds = 0
    reasons: dict[str, int] = {}
    wins = 0
    for number in range(6):
        styles = [styles_all[(seat + number) % len(styles_all)] for seat in range(3)]
        outcome = play_one(rules, 3, 4 + number * SEED_STRIDE, styles)
        rounds += outcome["round"]
        reasons[outcome["reason"]] = reasons.get(outcome["reason"], 0) + 1
        wins += len(outcome["winners"])
    assert first["mean_rounds"] == round(rounds / 6, 3) and 1 <= first["mean_rounds"] <= 12
    assert first["end_reasons"] == dict(sorted(reasons.items()))
    assert sum(first["wins_by_seat"].values()) == wins
    assert sum(first["wins_by_character"].values()) == wins
    assert sum(first["wins_by_style"].values()) == wins
    assert set(first["wins_by_style"]) <= set(styles_all)
    assert sum(first["games_by_character"].values()) == 6 * 3


def test_heirs_honours_the_player_count() -> None:
    for players in (2, 4, 6):
        figures = simulate("heirs", players, 2, seed=9)
        assert figures["players"] == players
        assert sum(figures["games_by_character"].values()) == 2 * players
    for players in (0, 1, 7):
        try:
            simulate("heirs", players, 1, seed=9)
        except ValueError as error:
            assert "2–6 players" in str(error)
        else:
            raise AssertionError(f"{players} players accepted")


def test_heirs_command_prints_json_figures() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "app.cli",
            "simulate",
            "heirs",
            "--players",
            "4",
            "--games",
            "4",
            "--seed",
            "3",
            "--json",
        ],
        cwd=PROJECT_DIR,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    figures = json.loads(done.stdout)
    assert figures["game"] == "heirs" and figures["players"] == 4 and figures["games"] == 4
    assert set(figures) >= {
        "wins_by_seat",
        "end_reasons",
        "mean_rounds",
        "games_per_second",
        "wins_by_character",
        "games_by_character",
        "wins_by_style",
    }


def test_h13_1_heirs_variants_are_selectable_and_recorded() -> None:
    """H13.1: ``--variant NAME`` plays every game with that variant on; the figures say which
    variants were on (none: the sheet's numbers), and an unknown name is refused."""
    sheet = simulate("heirs", 4, 4, seed=2)
    tuned = simulate("heirs", 4, 4, seed=2, variants=["elf_per_5"])
    assert sheet["variants"] == [] and tuned["variants"] == ["elf_per_5"]
    assert tuned["games_by_character"] == sheet["games_by_character"]  # the same setups
    try:
        simulate("heirs", 4, 1, seed=2, variants=["elf_per_9"])
    except ValueError as error:
        assert "unknown variant" in str(error) and "elf_per_5" in str(error)
    else:
        raise AssertionError("an unknown variant was accepted")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "app.cli",
            "simulate",
            "heirs",
            "--players",
            "3",
            "--games",
            "2",
            "--variant",
            "elf_per_5",
            "--json",
        ],
        cwd=PROJECT_DIR,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert json.loads(done.stdout)["variants"] == ["elf_per_5"]
    refused = subprocess.run(
        [sys.executable, "-m", "app.cli", "simulate", "legions", "--variant", "elf_per_5"],
        cwd=PROJECT_DIR,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert refused.returncode == 2 and "has no variants" in refused.stdout


def test_legions_figures_count_stratagems_dealt_and_played() -> None:
    """G10: each game deals one stratagem per side; the figures count them by id, how often
    the bots played each (K1 Shield Wall included) and the routs K1 blocked."""
    figures = simulate("legions", 2, 30, seed=3)
    dealt, used = figures["stratagems_dealt"], figures["stratagems_used"]
    assert sum(dealt.values()) == 2 * 30 and set(used) == set(dealt)
    assert all(0 <= used[sid] <= dealt[sid] for sid in dealt)
    assert isinstance(figures["routs_blocked"], int) and figures["routs_blocked"] >= 0


def test_games_shared_out_to_processes_give_the_same_figures() -> None:
    """``--jobs``: the games go to several processes in shares and come back merged; every
    figure but the wall-clock rate is the one a single process gives, stratagems and all."""
    for game, players, games in (("legions", 2, 60), ("heirs", 4, 30)):
        alone = simulate(game, players, games, seed=3, jobs=1)
        shared = simulate(game, players, games, seed=3, jobs=2)
        assert alone["jobs"] == 1 and shared["jobs"] == 2
        assert without_timing(shared) | {"jobs": 1} == without_timing(alone)
        assert shared["games"] == games
    legions = simulate("legions", 2, 60, seed=3, jobs=2)
    assert sum(legions["stratagems_dealt"].values()) == 60 * 2
    # Fewer games than a share: one process plays them, whatever was asked.
    assert simulate("hidden_leaders", 2, 5, seed=3, jobs=2)["jobs"] == 1


def test_the_command_refuses_no_processes() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", "simulate", "legions", "--jobs", "0"],
        cwd=PROJECT_DIR,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "at least one process (--jobs)" in done.stdout


def test_a_game_that_fails_in_a_worker_fails_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """An engine's fault in one game of a shared run is the run's error, raised as it is (the
    workers are forked from this process, and run the code as this test has it)."""
    import app.simulate as simulation

    played = simulation.play_game

    def failing(rules: Any, players: int, seed: int, *rest: Any) -> Any:
        if seed == 3 + 40 * simulation.SEED_STRIDE:
            raise RuntimeError("game 40 failed")
        return played(rules, players, seed, *rest)

    monkeypatch.setattr(simulation, "play_game", failing)
    with pytest.raises(RuntimeError, match="game 40 failed"):
        simulate("hidden_leaders", 2, 60, seed=3, jobs=2)

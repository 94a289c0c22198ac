"""``pecet simulate``: bots against bots, for win rates and speed."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field, fields
from typing import Any, TextIO

from engine.core import JSON, GameRules
from engine.registry import engine_games, get_rules

SEED_STRIDE = 7919
"""Game k of a run plays seed ``seed + k * SEED_STRIDE``: spread out, and the same every run."""


@dataclass
class Tally:
    games: int = 0
    wins_by_seat: Counter[str] = field(default_factory=Counter)
    end_reasons: Counter[str] = field(default_factory=Counter)
    rounds: int = 0
    wins_by_character: Counter[str] = field(default_factory=Counter)
    games_by_character: Counter[str] = field(default_factory=Counter)
    wins_by_style: Counter[str] = field(default_factory=Counter)
    wins_by_side: Counter[str] = field(default_factory=Counter)
    wins_by_first_leader: Counter[str] = field(default_factory=Counter)

    def merge(self, other: Tally) -> None:
        """Add ``other``'s games to these (every field is a count or a Counter)."""
        for name in (f.name for f in fields(self)):
            mine = getattr(self, name)
            if isinstance(mine, Counter):
                mine.update(getattr(other, name))
            else:
                setattr(self, name, mine + getattr(other, name))

    def add(self, outcome: JSON, styles: list[str]) -> None:
        self.games += 1
        if "characters" in outcome:
            for seat in range(len(styles)):
                self.games_by_character[str(per_seat(outcome["characters"], seat))] += 1
        winners = outcome.get("winners")
        if winners is None:
            winners = [] if outcome.get("winner") is None else [outcome["winner"]]
        for seat in winners:
            self.wins_by_seat[str(seat)] += 1
            self.wins_by_style[styles[seat]] += 1
            for key, tally in (
                ("characters", self.wins_by_character),
                ("side_of_seat", self.wins_by_side),
            ):
                if key in outcome:
                    tally[str(per_seat(outcome[key], seat))] += 1
            first = outcome.get("first_leader")
            if isinstance(first, int):
                key = "first_leader" if seat == first else "other"
                self.wins_by_first_leader[key] += 1
        if not winners:
            self.wins_by_seat["none"] += 1
        self.end_reasons[str(outcome.get("end") or outcome.get("reason") or "unknown")] += 1
        self.rounds += int(
            outcome.get("rounds") or outcome.get("round") or outcome.get("turns") or 0
        )


def per_seat(values: Any, seat: int) -> Any:
    """A seat's entry of an outcome field given as a list or as a JSON object keyed by seat."""
    return values[str(seat)] if isinstance(values, dict) else values[seat]


def play_one(
    rules: GameRules,
    players: int,
    seed: int,
    styles: list[str],
    options: JSON | None = None,
) -> JSON:
    """One bots-only game, driven exactly as the room service drives a match."""
    return play_game(rules, players, seed, styles, options).outcome


@dataclass
class Played:
    """A finished bots-only game: its outcome, final state and what the tally reads of it."""

    outcome: JSON
    final: Any
    events: Counter[str] = field(default_factory=Counter)
    """Public event counts worth a figure: stratagems used by id, routs blocked (Legions)."""


def play_game(
    rules: GameRules,
    players: int,
    seed: int,
    styles: list[str],
    options: JSON | None = None,
) -> Played:
    state = rules.setup(players, seed, options or {})
    counts: Counter[str] = Counter()
    while (outcome := rules.outcome(state)) is None:
        acted = False
        for seat in range(players):
            if rules.prompt(state, seat) is not None:
                state = rules.submit(state, seat, rules.bot_order(state, seat, styles[seat]))
                acted = True
        if rules.ready(state):
            state, events = rules.resolve(state)
            for event in events:
                if event.audience is not None:
                    continue
                if event.kind == "stratagem":
                    counts[f"stratagem:{event.data['stratagem']['id']}"] += 1
                elif event.kind == "rout_blocked":
                    counts["rout_blocked"] += 1
        elif not acted:
            raise RuntimeError("the game waits for nobody, yet it is not over")
    return Played(outcome, state, counts)


@dataclass
class Part:
    """The figures of a run of consecutive games (all of a run, or one worker's share)."""

    tally: Tally = field(default_factory=Tally)
    dealt: Counter[str] = field(default_factory=Counter)
    used: Counter[str] = field(default_factory=Counter)
    blocked: int = 0

    def merge(self, other: Part) -> None:
        self.tally.merge(other.tally)
        self.dealt.update(other.dealt)
        self.used.update(other.used)
        self.blocked += other.blocked


def play_games(
    game: str,
    players: int,
    numbers: range,
    seed: int,
    options: JSON,
    progress: Callable[[], None] | None = None,
) -> Part:
    """Games ``numbers`` of a run: game k plays seed ``seed + k * SEED_STRIDE``, its seats
    taking the bot styles in turn from k, so every style sits in every seat across a run and
    a game is the same whichever process plays it."""
    rules = get_rules(game)
    styles_all = rules.info.bot_styles
    part = Part()
    # Whether the seats' final views show a dealt stratagem: the first game tells (a game
    # deals them always or never); the other games build their final views (with the whole
    # scoring in Hidden Leaders) only if the tally reads them.
    deals_stratagems = True
    for number in numbers:
        styles = [styles_all[(seat + number) % len(styles_all)] for seat in range(players)]
        played = play_game(rules, players, seed + number * SEED_STRIDE, styles, options)
        part.tally.add(played.outcome, styles)
        if deals_stratagems:
            found = _count_dealt(rules, played.final, players, part.dealt)
            if number == numbers.start and not found:
                deals_stratagems = False
        for key, count in played.events.items():
            if key.startswith("stratagem:"):
                part.used[key.split(":", 1)[1]] += count
        part.blocked += played.events["rout_blocked"]
        if progress is not None:
            progress()
    return part


def usable_cores() -> int:
    """The cores this process may run on (a container or ``taskset`` may allow fewer than
    the machine has)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


GAMES_PER_SHARE = 25
"""Games a worker plays before it reports: progress moves on, and no worker is left with a
long tail while the others idle."""


def simulate(
    game: str,
    players: int | None,
    games: int,
    seed: int,
    progress: TextIO | None = None,
    variants: Sequence[str] = (),
    jobs: int = 1,
) -> JSON:
    """Play ``games`` bots-only games and tally them. With ``jobs`` above 1 the games are
    shared out to that many processes (the games are independent): the figures are the
    same as with one, only ``games_per_second`` (wall-clock) differs."""
    rules = get_rules(game)
    info = rules.info
    players = info.min_players if players is None else players
    if not info.min_players <= players <= info.max_players:
        raise ValueError(f"{info.name} takes {info.min_players}–{info.max_players} players")
    if jobs < 1:
        raise ValueError("The games need at least one process (--jobs).")
    has_variants = bool(rules.available_variants())
    if variants and not has_variants:
        raise ValueError(f"{info.name} has no variants")
    options: JSON = {"variants": list(variants)} if variants else {}
    if variants:
        rules.setup(players, seed, options)  # an unknown variant is refused before any game
    done = 0

    def one_more(count: int = 1) -> None:
        nonlocal done
        done += count
        if progress is not None:
            _draw_progress(progress, done, games)

    started = time.perf_counter()
    shares = [
        range(start, min(start + GAMES_PER_SHARE, games))
        for start in range(0, games, GAMES_PER_SHARE)
    ]
    jobs = max(1, min(jobs, len(shares)))
    if jobs == 1:
        total = play_games(game, players, range(games), seed, options, one_more)
    else:
        total = Part()
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = {
                pool.submit(play_games, game, players, share, seed, options): len(share)
                for share in shares
            }
            try:
                for future in as_completed(futures):
                    future.result()  # a game that failed stops the run now, not at its end
                    one_more(futures[future])
            except BaseException:  # and so does Ctrl-C: the shares not begun are dropped
                pool.shutdown(wait=False, cancel_futures=True)
                raise
            # Merged in the games' order: the same figures, to the last counter's order.
            for future in futures:
                total.merge(future.result())
    elapsed = time.perf_counter() - started
    if progress is not None:
        progress.write("\n")
    tally, dealt, used, blocked = total.tally, total.dealt, total.used, total.blocked
    figures: JSON = {
        "game": game,
        "players": players,
        "games": tally.games,
        "seed": seed,
    }
    if has_variants:
        figures["variants"] = list(variants)  # H13.1: none = the sheet's numbers
    figures.update(
        {
            "wins_by_seat": dict(sorted(tally.wins_by_seat.items())),
            "end_reasons": dict(sorted(tally.end_reasons.items())),
            "mean_rounds": round(tally.rounds / max(tally.games, 1), 3),
            "games_per_second": round(tally.games / elapsed, 1) if elapsed > 0 else None,
            "jobs": jobs,
        }
    )
    if tally.wins_by_character:
        figures["wins_by_character"] = dict(sorted(tally.wins_by_character.items()))
    if tally.games_by_character:
        # Appearances: a character's fair share of wins is its games / players.
        figures["games_by_character"] = dict(sorted(tally.games_by_character.items()))
    if tally.wins_by_side:
        figures["wins_by_side"] = dict(sorted(tally.wins_by_side.items()))
    if tally.wins_by_first_leader:
        figures["wins_by_first_leader"] = dict(sorted(tally.wins_by_first_leader.items()))
    if dealt:
        # Legions (G1.6, G10): how often each stratagem was dealt and how often played;
        # K1 Shield Wall's blocked routs (G10.3) show what its plays saved.
        figures["stratagems_dealt"] = dict(sorted(dealt.items()))
        figures["stratagems_used"] = {sid: used[sid] for sid in sorted(dealt)}
        figures["routs_blocked"] = blocked
    if len(info.bot_styles) > 1:
        figures["wins_by_style"] = dict(sorted(tally.wins_by_style.items()))
    return figures


def _count_dealt(rules: GameRules, final: Any, players: int, dealt: Counter[str]) -> bool:
    """Count the stratagem each seat's view of the final state shows it was dealt (Legions,
    G2.4); whether any seat had one."""
    found = False
    for seat in range(players):
        me = rules.view(final, seat).get("me") or {}
        stratagem = me.get("stratagem")
        if isinstance(stratagem, dict) and "id" in stratagem:
            dealt[str(stratagem["id"])] += 1
            found = True
    return found


def _draw_progress(stream: TextIO, done: int, total: int) -> None:
    width = 30
    filled = width * done // total
    stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
    stream.flush()


def run_cli(args: argparse.Namespace) -> int:
    if args.game not in engine_games():
        print(f"Unknown game {args.game!r}; choose one of {', '.join(engine_games())}.")
        return 2
    try:
        figures = simulate(
            args.game,
            args.players,
            args.games,
            args.seed,
            progress=sys.stderr if sys.stderr.isatty() else None,
            variants=args.variants or (),
            jobs=usable_cores() if args.jobs is None else args.jobs,
        )
    except ValueError as error:
        print(error)
        return 2
    if args.json:
        print(json.dumps(figures, indent=2, ensure_ascii=False))
        return 0
    for key, value in figures.items():
        print(f"{key}: {_plain(value)}")
    return 0


def _plain(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k}={v}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(map(str, value)) or "none"
    return str(value)

"""A room as the server holds it between two commands: its seats, its match with the order
log's tail, its night of games, and how it is read back from the database after a restart.

Plain data with the questions it answers about itself (who acts, what a sheet drawn at a
version is worth, what the night's standings are); the room service changes it, the payloads
read it, the store writes it.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from app import names
from app.models import Match, OrderLog, Resolution, Seat, utcnow
from engine.core import JSON, Event, GameRules, NextMatch, Step, replay_resolutions
from engine.registry import get_rules
from engine.tournament import (
    ROUND_ROBIN_MAX,
    Plan,
    catch_up_start_player,
    kept_colours,
    prediction_score,
    standings,
    upcoming,
)

Measured = TypeVar("Measured", datetime, float)
"""A seat's deadline, or the time it has left while the clock is paused."""

RESULT_SECONDS = 20.0
"""How long the board shows a tournament game's result before its standings."""


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(slots=True)
class SeatInfo:
    position: int
    name: str
    is_bot: bool
    bot_style: str | None
    lang: str
    token_hash: str
    row_id: int
    pin: str = ""
    time_factor: float | None = 1.0
    """The host's "more time" for this seat: its sealing deadline is the round's start plus
    the timer times this; None: no limit for this seat (H5.4)."""
    handed_token_hash: str = ""
    """The token hash of the phone that held the seat until the host handed it to a bot
    (``Seat.handed_token_hash``): that phone watches, and sees nothing of the seat's own."""
    sockets: int = 0
    """Phone sockets open for this seat now, in this process."""
    elsewhere: int = 0
    """Phone sockets open for this seat in the other processes serving the room."""
    away_since: datetime = field(default_factory=utcnow)
    """When its last phone socket closed (or when the server learned of the seat)."""
    away_after: timedelta = timedelta(seconds=10)
    """How long without a phone socket before the board shows the seat as away (a reload
    or a phone waking up is not leaving)."""

    @property
    def connected(self) -> bool:
        if self.is_bot or self.sockets > 0 or self.elsewhere > 0:
            return True
        return utcnow() - self.away_since < self.away_after

    def set_elsewhere(self, count: int) -> None:
        """The other processes' count of this seat's sockets; the last one gone starts the
        seat's time away, as a socket closing here does."""
        if self.elsewhere and not count and not self.sockets:
            self.away_since = utcnow()
        self.elsewhere = count

    def public(self) -> JSON:
        connected = self.connected
        return {
            "seat": self.position,
            "name": self.name,
            "bot": self.is_bot,
            "bot_style": self.bot_style if self.is_bot else None,
            "connected": connected,
            "away_since": None if connected else self.away_since.isoformat(),
            "time_factor": self.time_factor,
        }


@dataclass(slots=True)
class SealedOrder:
    """An order of the log with its proof, kept while the room may still show or reveal it."""

    seq: int
    position: int
    """The room seat that sealed it."""
    order: JSON
    salt: str
    commitment: str
    by_timer: bool = False
    """The sealing timer sealed it, the seat's time having run out (H5.4)."""
    by_bot: bool = False
    """A bot sealed it, the seat being handed to one then (not the timer's default)."""

    def reveal(self) -> JSON:
        return {"order": self.order, "salt": self.salt, "commitment": self.commitment}


TIMED_OUT = "timed_out"
"""The log's mark of a resolution whose order for ``data.seat`` (the game's own seat) the
sealing timer sealed: its default was played (H5.4). Public: the room saw the clock run out."""


def timed_out_seats(orders: Iterable[tuple[int, bool]]) -> tuple[int, ...]:
    """The engine seats whose order the sealing timer sealed, of a resolution's orders given
    as ``(engine seat, by_timer)``: the one reading of "whose time ran out" for the live
    match, a match loaded from the database and a replay."""
    return tuple(sorted({seat for seat, by_timer in orders if by_timer}))


def timer_marks(seats: Iterable[int]) -> list[JSON]:
    """The log's marks, before a resolution's events, of the seats whose time ran out in it."""
    return [{"kind": TIMED_OUT, "data": {"seat": seat}} for seat in sorted(set(seats))]


@dataclass(frozen=True, slots=True)
class RanOut:
    """A seat's default order that the sealing timer sealed and a resolution played (H5.4)."""

    round: int
    """The round of that resolution."""
    order: JSON
    """The order played: the seat's own, told to its phone alone (what was played for it)."""


@dataclass(slots=True)
class ResolutionRecord:
    """One resolution of the match, for its history: the orders it played and its events."""

    number: int
    round: int
    first_seq: int
    last_seq: int
    events: list[Event]
    timed_out: tuple[int, ...] = ()
    """Engine seats whose order in it the sealing timer sealed: their default was played
    (H5.4). Public: the whole table saw the clock run out on them."""


@dataclass(slots=True)
class LiveMatch:
    row_id: int
    number: int
    game: str
    players: list[int]
    """Room seats in engine order: ``players[i]`` plays engine seat ``i``."""
    seed: int
    options: dict[str, Any]
    state: Any
    version: int
    status: str
    outcome: JSON | None
    recent_events: list[Event]
    ready_seats: list[int]
    deadline_at: datetime | None = None
    timer_left: float | None = None
    steps: list[Step] = field(default_factory=list)
    """The newest resolution in the steps the board plays it out in."""
    history: list[ResolutionRecord] = field(default_factory=list)
    sealed: list[SealedOrder] = field(default_factory=list)
    """Orders from the newest resolution's first on: its own, then those not yet resolved."""
    show_started_at: datetime | None = None
    show_elapsed: float | None = None
    fast_forward: bool = False
    ran_out: dict[int, RanOut] = field(default_factory=dict)
    """Room seat → the default order the sealing timer sealed for it and the round whose
    resolution played it (H5.4), until the seat seals again: its phone says so even after
    others have moved on (in a game of turns, the next move is someone else's)."""
    predictions_close_at: datetime | None = None
    """When the bots stop holding the first move for the watchers' predictions (set at their
    first look, ``Scheduler._held_for_predictions``; memory only)."""
    decided_since: dict[int, int] = field(default_factory=dict)
    """Room seat → the match version from which its current decision (its prompt) stands: a
    sheet drawn at an older version was for an earlier decision (issue 13.10). A seat not
    listed (nothing changed for it since the match was loaded or started) has decided since
    the newest resolution: a sheet drawn before a restart still counts, and the engine
    judges the order itself either way."""
    step_views: dict[tuple[int, int | None], JSON] = field(default_factory=dict)
    """(Step of the show, engine seat or None for the board) → the view after that step:
    each built once while the board plays the show out (a step frame compares the view
    before a step with the view after it, and the next step's frame compares that one
    again). Emptied when a resolution brings new steps and when the show ends. Read only."""
    logs: dict[int | None, tuple[int, list[JSON]]] = field(default_factory=dict)
    """Engine seat (None: the board) → (how many resolutions it covers, the log as that
    viewer reads it): built once per resolution, not once per frame. Read only."""
    to_act_memo: tuple[object, tuple[int, ...]] | None = None
    """(A state, the room seats with a prompt in it): ``LiveRoom.to_act`` is read by every
    view and notice of a change, and asks the rules for each seat's prompt."""

    def repeats_seal(self, position: int, order: object, version: int) -> bool:
        """Whether ``order``, from a sheet drawn at ``version``, is one this seat sealed
        from that sheet already: the same frame come again. A phone whose connection died
        sends once more what the server may have heard, and a double tap sends a form
        twice; the second must not read as a refusal of the first."""
        return any(
            sealed.position == position
            and sealed.seq > version
            and not (sealed.by_timer or sealed.by_bot)
            and sealed.order == order
            for sealed in self.sealed
        )

    def sheet_is_stale(self, position: int, version: int) -> bool:
        """Whether an order sheet drawn at ``version`` no longer fits this seat's decision.
        Other seats sealing in the same round change the version but not the decision."""
        since = self.decided_since.get(position, self.resolved_seq())
        return not since <= version <= self.version

    @property
    def showing(self) -> bool:
        """The board is playing the newest resolution out (possibly paused by the host)."""
        return self.show_started_at is not None or self.show_elapsed is not None

    def show_elapsed_now(self, now: datetime) -> float:
        """Seconds of the show played by ``now`` (the room's clock)."""
        if self.show_started_at is not None:
            return (now - self.show_started_at).total_seconds()
        return self.show_elapsed or 0.0

    def resolved_seq(self) -> int:
        """The last order of the log that a resolution has played."""
        return self.history[-1].last_seq if self.history else 0

    def pending_orders(self) -> list[SealedOrder]:
        """Sealed and not yet played: the room sees only their commitments."""
        done = self.resolved_seq()
        return [o for o in self.sealed if o.seq > done]

    def last_resolution_orders(self) -> list[SealedOrder]:
        if not self.history:
            return []
        last = self.history[-1]
        return [o for o in self.sealed if last.first_seq <= o.seq <= last.last_seq]

    def engine_seat(self, position: int) -> int | None:
        """The engine seat a room seat plays in this match; None if it only watches."""
        return self.players.index(position) if position in self.players else None

    def result(self) -> JSON:
        """This finished match as a tournament result."""
        return {
            "game": self.game,
            "outcome": self.outcome,
            "players": list(self.players),
            "number": self.number,
        }

    @property
    def timer(self) -> float | None:
        """The sealing timer in seconds (option ``timer``), or None when there is none."""
        value = self.options.get("timer")
        return float(value) if isinstance(value, int | float) and value > 0 else None

    def deadline_for(self, factor: float | None) -> datetime | None:
        """When a seat with ``factor`` times the timer runs out of time this round: the
        round's start plus the timer times the factor (the room's ``deadline_at`` is factor
        1). None while paused, without a timer, or with no limit for the seat."""
        timer = self.timer
        if timer is None or factor is None or self.deadline_at is None:
            return None
        return self.deadline_at + timedelta(seconds=timer * (factor - 1))

    def time_left_for(self, factor: float | None) -> float | None:
        """What a seat with ``factor`` has left while the clock is paused (``timer_left`` is
        the room's, below zero once the room's time ran out before the pause)."""
        timer = self.timer
        if timer is None or factor is None or self.timer_left is None:
            return None
        return self.timer_left + timer * (factor - 1)


@dataclass(slots=True)
class LiveRoom:
    """The in-memory mirror of one room; the database row is the truth it was loaded from."""

    row_id: int
    code: str
    lobby_game: str
    """The game the room was opened for (its options are that game's)."""
    game: str
    """The game being played now (a tournament may change it from match to match)."""
    rules: GameRules
    options: dict[str, Any]
    status: str
    host_token_hash: str
    seats: list[SeatInfo]
    match: LiveMatch | None
    paused: bool = False
    host_pin: str = ""
    """The host's PIN (``Room.host_pin``): shown on the host's board, it brings the host's
    controls to another screen."""
    tournament: Plan | None = None
    results: list[JSON] = field(default_factory=list)
    """Finished matches of the tournament, in the order they were played."""
    predictions: dict[int, dict[int, tuple[int, str | None]]] = field(default_factory=dict)
    """Match number → watcher's seat → (the seat it expects to win, the ending)."""
    result_at: datetime | None = None
    """When the newest result appeared on the board (its standings follow 20 s later)."""
    standings_mode: str = "auto"
    """The host's choice between a result and the standings: auto, shown or hidden."""
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    bot_task: asyncio.Task[None] | None = None
    timer_task: asyncio.Task[None] | None = None
    show_task: asyncio.Task[None] | None = None
    changes: int = 0
    """How many changes the listeners have been told of (the hub's views are per change)."""
    revision: str | None = None
    """The label of the stored room this copy was loaded at (several processes: app/cluster.py)."""
    boards: int = 0
    """Board sockets open for this room in this process."""
    touched_at: datetime | None = None
    """When a seal last wrote the room row's ``updated_at`` (it is written again only once
    ``ROOM_TOUCH_EVERY`` has passed: a seal is one statement fewer)."""
    boards_elsewhere: int = 0
    """Board sockets open for this room in the other processes."""
    removed: set[str] = field(default_factory=set)
    """Token hashes of the seats the host removed in the lobby: their phones are told so, not
    that the seat is played elsewhere (memory only: after a restart they hear the latter)."""
    turned_away: list[str] = field(default_factory=list)
    """Names a full lobby refused, newest last, for the host's board (memory only): a duel's
    third player was told "full" while the host could still make the room a night."""

    def bot_styles(self) -> tuple[str, ...]:
        """The styles a bot of this room may take: the table's game's and, on a night, each
        of its games' (a bot plays a game's default where its style is not that game's)."""
        games = [self.game, *(self.tournament.games if self.tournament else ())]
        return tuple(dict.fromkeys(style for g in games for style in get_rules(g).info.bot_styles))

    def seat_by_token(self, token: str | None) -> SeatInfo | None:
        return self.seat_by_hash(hash_token(token) if token else None)

    def seat_by_hash(self, token_hash: str | None) -> SeatInfo | None:
        """The seat whose token hashes to ``token_hash`` (``hash_token``)."""
        if not token_hash:
            return None
        return next(
            (s for s in self.seats if secrets.compare_digest(s.token_hash, token_hash)), None
        )

    def phone_seat(self, token: str | None) -> tuple[SeatInfo, bool] | None:
        """The seat a phone's ``token`` stands for, and whether the phone only watches it: the
        seat whose token it is (``False``), or else the seat it was until the host handed the
        seat to a bot (``True``: that phone stays in the room as a watcher of the match, never
        again its seat's own view); ``None`` for any other token."""
        return self.phone_seat_by_hash(hash_token(token) if token else None)

    def phone_seat_by_hash(self, token_hash: str | None) -> tuple[SeatInfo, bool] | None:
        """:meth:`phone_seat` by the token's hash (``hash_token``): the hub holds each
        socket's hash, and finds its seat at every change of the room without hashing."""
        seat = self.seat_by_hash(token_hash)
        if seat is not None:
            return seat, False
        if not token_hash:
            return None
        handed = next(
            (
                s
                for s in self.seats
                if s.is_bot
                and s.handed_token_hash
                and secrets.compare_digest(s.handed_token_hash, token_hash)
            ),
            None,
        )
        return None if handed is None else (handed, True)

    def seat_to_reclaim(self, typed: str) -> SeatInfo | None:
        """The seat a name typed on "Come back to my seat" stands for (``names.named``):
        only a seat with a PIN can be taken back (a bot's has none)."""
        return names.named((s for s in self.seats if s.pin), typed, lambda s: s.name)

    def is_host(self, token: str | None) -> bool:
        return bool(token) and secrets.compare_digest(self.host_token_hash, hash_token(token or ""))

    def to_act(self) -> list[int]:
        """Seats that have something to decide now (public: the board shows who it waits for)."""
        match = self.match
        if match is None or match.status != "playing" or match.showing:
            return []
        # States are never changed in place: the same state has the same seats to act.
        memo = match.to_act_memo
        if memo is None or memo[0] is not match.state:
            seats = tuple(
                position
                for engine_seat, position in enumerate(match.players)
                if self.rules.prompt(match.state, engine_seat) is not None
            )
            memo = match.to_act_memo = (match.state, seats)
        return list(memo[1])

    def next_deadline(self) -> datetime | None:
        """The earliest deadline of a seat still deciding (each has its own: H5.4 per seat);
        None when none of them has a limit. The board counts down to it: once the others'
        time is up, to the deadline of a player given more time."""
        match = self.match
        if match is None or match.deadline_at is None:
            return None
        return min(self._for_deciding_seats(match.deadline_for), default=None)

    def next_time_left(self) -> float | None:
        """While the clock is paused: the least time a seat still deciding has left."""
        match = self.match
        if match is None or match.timer_left is None:
            return None
        return min(self._for_deciding_seats(match.time_left_for), default=None)

    def _for_deciding_seats(
        self, measure: Callable[[float | None], Measured | None]
    ) -> list[Measured]:
        """``measure`` of each clocked seat's time factor, for those that have one."""
        found = (measure(seat.time_factor) for seat in self.clocked_seats())
        return [value for value in found if value is not None]

    def clocked_seats(self) -> list[SeatInfo]:
        """The players deciding now, whom the sealing timer times: a bot has no clock (it
        plays within its delay; a countdown on its turn, Legions' every step, ran down for
        nobody, and its order sealed by the timer was logged as its time running out)."""
        match = self.match
        if match is None or match.status != "playing":
            return []
        deciding = set(self.to_act())
        return [seat for seat in self.seats if seat.position in deciding and not seat.is_bot]

    def seat_limits(self) -> tuple[int, int]:
        """How many players may sit down: the game's range, or what every game of the
        tournament allows; a round robin of one duel game takes 3 to 8 entrants too."""
        if self.tournament is None:
            info = self.rules.info
            return info.min_players, info.max_players
        return night_seat_limits(self.tournament)

    def seats_more_as_a_night(self) -> bool:
        """Whether this lobby, full as a single game, would seat more as a night of its game
        (a duel game's round robin seats up to ``ROUND_ROBIN_MAX``)."""
        return (
            self.status == "lobby"
            and self.tournament is None
            and night_seat_limits(Plan(games=(self.game,)))[1] > len(self.seats)
        )

    def tournament_json(self) -> JSON | None:
        plan = self.tournament
        if plan is None:
            return None
        match = self.match
        # While the board still plays a match's last round out, its result is not shown.
        hiding = match is not None and match.status == "finished" and match.showing
        results = self.results[:-1] if hiding else self.results
        table = standings(plan, results, len(self.seats)) if self.seats else []
        colours = kept_colours(results, [s.position for s in self.seats])
        for row in table:  # Heirs colours stay all tournament long (H20.1)
            row["colour"] = None if colours is None else colours[row["seat"]]
        # Before the start the night is planned for whoever is seated now, as the start
        # will fix it: the lobby can say who plays the first duel and who watches it.
        seated = plan
        if not plan.fixtures and len(self.seats) >= 2:
            seated = plan.seated(len(self.seats), duel_games(plan))
        remaining = upcoming(seated, results)
        playing = match is not None and (match.status == "playing" or hiding)
        later = remaining[1:] if playing else remaining
        next_game: JSON | None = None
        if later:
            fixture = later[0]
            next_game = {
                "game": fixture.game,
                "number": len(results) + (2 if playing else 1),
                "stage": fixture.stage,
            }
            if fixture.players and len(fixture.players) < len(self.seats):
                next_game["players"] = list(fixture.players)
            if plan.catch_up and results:
                # Shown only for a game that takes the Catch-up start player (H20.4).
                coming = NextMatch(
                    fixture.game,
                    fixture.players or tuple(range(len(self.seats))),
                    start_player=catch_up_start_player(table, len(self.seats)),
                )
                start = get_rules(fixture.game).next_match_options(coming).get("start_player")
                if start is not None:
                    next_game["start_player"] = start
        return {
            **plan.to_json(),
            "played": len(results),
            "total": len(results) + len(remaining),
            "stages": self._stages(plan),
            "standings": table,
            "next": next_game,
            "over": not remaining and not playing,
            "games_played": [r["game"] for r in results],
            "oracle": self.oracle_table(len(results)),
            "standings_mode": self.standings_mode,
            "standings_at": None
            if self.result_at is None or playing
            else (self.result_at + timedelta(seconds=RESULT_SECONDS)).isoformat(),
        }

    # ---------------------------------------------------------------- predictions

    def prediction_target(self, seat: SeatInfo) -> tuple[int, str, list[int]] | None:
        """The match this seat may predict now, as (number, game, players): one it watches,
        before its first round is played, or the next one of the night while it waits."""
        match = self.match
        if match is None:
            return None
        if match.status == "playing" and not match.history:
            if seat.position in match.players:
                return None
            return match.number, match.game, list(match.players)
        if match.status != "finished" or match.showing or self.tournament is None:
            return None
        later = upcoming(self.tournament, self.results)
        if not later or not later[0].players or seat.position in later[0].players:
            return None
        return match.number + 1, later[0].game, list(later[0].players)

    def predictions_json(self) -> list[JSON]:
        """The newest match's predictions: who predicted while it runs, what and how well
        once it is over (the choices stay hidden until then)."""
        match = self.match
        if match is None:
            return []
        over = match.status == "finished" and not match.showing
        made = self.predictions.get(match.number, {})
        if not over:
            return [{"seat": seat} for seat in sorted(made)]
        return [
            {
                "seat": seat,
                "winner": winner,
                "ending": ending,
                **prediction_score(match.outcome or {}, match.players, winner, ending),
            }
            for seat, (winner, ending) in sorted(made.items())
        ]

    def oracle_table(self, finished: int) -> list[JSON]:
        """Oracle points of the night's finished matches, best first: 1 for the winner, 1
        more for the ending too; a side table that never changes the standings."""
        points: dict[int, int] = {}
        for result_index, result in enumerate(self.results[:finished]):
            number = result.get("number", result_index + 1)
            for seat, (winner, ending) in self.predictions.get(number, {}).items():
                scored = prediction_score(
                    result["outcome"] or {}, result["players"], winner, ending
                )
                points[seat] = points.get(seat, 0) + scored["points"]
        return [
            {"seat": seat, "points": total}
            for seat, total in sorted(points.items(), key=lambda item: (-item[1], item[0]))
        ]

    def _stages(self, plan: Plan) -> list[JSON]:
        """The plan as the lobby shows it: each game of the list, round after round, with
        how many matches it takes for the people seated now (a round robin's pairings)."""
        seated = plan if plan.fixtures else plan.seated(len(self.seats), duel_games(plan))
        counts = [0] * len(plan.stages)
        for fixture in seated.schedule():
            counts[fixture.stage] += 1
        return [
            {"game": game, "matches": counts[stage], "round_robin": counts[stage] > 1}
            for stage, game in enumerate(plan.stages)
        ]


@dataclass(frozen=True)
class Change:
    """What a listener hears of a room: it changed (every socket needs a new view), only its
    boards' part changed (who is away), one seat sealed an order and nothing else moved but
    the options of others' decisions, or the board's show went on by a step."""

    boards_only: bool = False
    sealed: int | None = None
    """The room seat that sealed: its own view changed, the others' views did not."""
    before: Any = None
    """With ``sealed``: the match's state before the seal, which the sealer's own view is
    brought on from."""
    narrowed: frozenset[int] = frozenset()
    """With ``sealed``: the room seats whose decision the seal narrowed (their prompt's
    options, as a colour taken in Heirs' setup); each is told its new prompt."""
    show_step: bool = False
    """The board's show went on by one step, and nothing else moved."""
    number: int = 0
    """The room's count of changes when this one was told (``LiveRoom.changes``)."""


Listener = Callable[[LiveRoom, Change], None]
"""Told of a change to a room, at once (it must not wait for anything)."""


ROOM_OPTIONS = ("timer",)
"""Options the room itself keeps (the engine never sees them)."""

NIGHT_GAMES = "night_games"
"""The room's options key for the options of a night's games other than the room's own, by
game id (a night opened as a duel whose Heirs game is played over 8 rounds)."""


def game_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """The options the game's engine is set up with: all but the room's own."""
    return {k: v for k, v in options.items() if k not in ROOM_OPTIONS and k != NIGHT_GAMES}


def night_game_options(options: Mapping[str, Any], game: str) -> dict[str, Any]:
    """The options the host set for ``game``, one of a night's games other than the room's."""
    kept = options.get(NIGHT_GAMES)
    chosen = kept.get(game) if isinstance(kept, Mapping) else None
    return dict(chosen) if isinstance(chosen, Mapping) else {}


def seat_info_of(seat: Seat, away_after: timedelta) -> SeatInfo:
    assert seat.id is not None
    return SeatInfo(
        position=seat.position,
        name=seat.name,
        is_bot=seat.is_bot,
        bot_style=seat.bot_style,
        lang=seat.lang,
        token_hash=seat.token_hash,
        row_id=seat.id,
        pin=seat.pin,
        time_factor=seat.time_factor,
        handed_token_hash=seat.handed_token_hash,
        away_after=away_after,
    )


def players_of(match: Match) -> list[int]:
    """Matches stored before seats were mapped had every seat, in seat order."""
    return list(match.players) or list(range(match.seats))


def live_match_of(
    rules: GameRules,
    match: Match,
    game: str,
    history: list[Resolution],
    orders: list[OrderLog],
) -> LiveMatch:
    assert match.id is not None
    records = [
        ResolutionRecord(
            number=r.number,
            round=r.round,
            first_seq=r.first_seq,
            last_seq=r.last_seq,
            events=[Event.from_json(e) for e in r.events],
            timed_out=timed_out_seats(
                (o.seat, o.by_timer) for o in orders if r.first_seq <= o.seq <= r.last_seq
            ),
        )
        for r in history
    ]
    kept_from = records[-1].first_seq if records else 0
    players = players_of(match)
    ran_out: dict[int, RanOut] = {}
    for o in orders:  # each seat's newest order decides: the timer's, once it is played
        ran_out.pop(players[o.seat], None)
        if not o.by_timer:
            continue  # every room loads at start-up: only the timer's few orders are looked up
        played = next((r for r in reversed(records) if r.first_seq <= o.seq <= r.last_seq), None)
        if played is not None:
            ran_out[players[o.seat]] = RanOut(played.round, dict(o.order))
    sealed = [
        SealedOrder(
            o.seq,
            players[o.seat],
            dict(o.order),
            o.salt,
            o.commitment,
            o.by_timer,
            by_bot=o.by_bot and not o.by_timer,
        )
        for o in orders
        if o.seq >= kept_from
    ]
    steps: list[Step] = []
    if records:  # the newest resolution's steps, rebuilt from the order log
        logged = [(o.seat, o.order) for o in orders[: records[-1].last_seq]]
        for _index, _state, resolved in replay_resolutions(
            rules, match.seats, match.seed, game_options(match.options), logged
        ):
            steps = resolved or steps
    # The stored state is the one after the newest resolution; the orders sealed since are
    # in the log only, and are sealed again here exactly as they were.
    state = rules.from_json(match.state)
    version = match.version
    for order in orders:
        if order.seq > match.version:
            state = rules.submit(state, order.seat, order.order)
            version = order.seq
    return LiveMatch(
        row_id=match.id,
        number=match.number,
        game=game,
        players=players_of(match),
        seed=match.seed,
        options=dict(match.options),
        state=state,
        version=version,
        status=match.status,
        outcome=match.outcome,
        recent_events=[Event.from_json(e) for e in match.recent_events],
        ready_seats=list(match.ready_seats),
        deadline_at=as_aware(match.deadline_at),
        timer_left=match.timer_left,
        steps=steps,
        history=records,
        sealed=sealed,
        show_started_at=as_aware(match.show_started_at),
        show_elapsed=match.show_elapsed,
        fast_forward=match.fast_forward,
        ran_out=ran_out,
    )


def as_aware(moment: datetime | None) -> datetime | None:
    """SQLite hands datetimes back without their zone; every time here is UTC."""
    if moment is None or moment.tzinfo is not None:
        return moment
    return moment.replace(tzinfo=UTC)


def is_duel(game: str) -> bool:
    """Whether ``game`` is for exactly two players: a night plays it as a round robin, and
    its other players watch and predict."""
    return get_rules(game).info.max_players == 2


def duel_games(plan: Plan) -> list[str]:
    """The games of the plan for exactly two players: played as round robins."""
    return [game for game in set(plan.games) if is_duel(game)]


def night_seat_limits(plan: Plan) -> tuple[int, int]:
    """A night seats as many as its largest game takes: a duel game seats up to 8 entrants
    as a round robin, any other game its own most."""
    infos = [get_rules(game).info for game in set(plan.games)]
    duels = set(duel_games(plan))
    most = min(ROUND_ROBIN_MAX if i.id in duels else i.max_players for i in infos)
    return max(i.min_players for i in infos), most

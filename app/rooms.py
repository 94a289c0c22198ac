"""The room service: the one place that changes a room or a match.

Every change runs under the room's lock: load, call the engine, write the order log and the
new snapshot in one transaction, and only then acknowledge and broadcast. The app never sends
raw state anywhere: payloads are built from ``rules.view`` and ``rules.prompt`` alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import secrets
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from itertools import product
from typing import Any

from sqlalchemy import delete
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from app import names, proofs
from app.models import Match, OrderLog, Prediction, Resolution, Room, Seat, utcnow
from app.ratelimit import Throttle
from engine.core import (
    JSON,
    Event,
    GameRules,
    IllegalOrder,
    NotYourTurn,
    Step,
    advance,
    events_for,
    replay_resolutions,
)
from engine.registry import KNOWN_GAMES, available_games, get_rules
from engine.tournament import (
    ROUND_ROBIN_MAX,
    Plan,
    catch_up_start_player,
    games_to_play,
    prediction_score,
    standings,
    upcoming,
)

log = logging.getLogger("pecet.rooms")

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ"
"""Upper-case letters without I and O, which read as 1 and 0 on a small screen."""
CODE_LENGTH = 4
NAME_MAX = names.NAME_MAX
IDLE_ROOM_LIFETIME = timedelta(hours=12)
"""A room nobody has touched for this long is closed and its code goes back to the pool."""
KEEP_CLOSED_FOR = timedelta(days=30)
"""Closed rooms' rows (seats, matches, orders) are deleted after this long."""
HOUSEKEEPING_EVERY = 600.0
"""Seconds between two housekeeping passes."""
HOUSEKEEPING_BATCH = 200
CODE_TRIES = 32
RECLAIM_LIMIT = "5/10 minutes"
"""Wrong seat PINs allowed per seat before reclaiming it answers 429."""
RESULT_SECONDS = 20.0
"""How long the board shows a tournament game's result before its standings."""
OPEN_STATUSES = ("lobby", "playing", "finished")


class RoomError(Exception):
    """A request the room refuses; ``status`` is the HTTP status the API answers with."""

    status = 400

    def __init__(
        self,
        detail: str,
        code: str = "error",
        retry_after: int | None = None,
        params: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(detail)
        self.detail = detail
        self.code = code
        self.retry_after = retry_after
        """Seconds before trying again makes sense (``Retry-After``), for a 429."""
        self.params: dict[str, Any] = dict(params or {})
        """What fills in the message where a client translates it by ``code`` (an engine's
        refusal carries them)."""


class RoomNotFound(RoomError):
    status = 404


class Conflict(RoomError):
    status = 409


class Invalid(RoomError):
    status = 422


class Unauthorized(RoomError):
    status = 401


class TooManyTries(RoomError):
    status = 429


@dataclass(frozen=True, slots=True)
class Seated:
    """A player's new seat: its number, the secret token and the PIN to come back with."""

    seat: int
    token: str
    pin: str


class Forbidden(RoomError):
    status = 403


class Unavailable(RoomError):
    status = 503


@dataclass(frozen=True, slots=True)
class Housekeeping:
    """What one housekeeping pass did."""

    closed: int
    deleted: int


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def normalize_code(code: str) -> str:
    return code.strip().upper()


def clean_name(name: str) -> str:
    """A name as shown: NFKC, trimmed, inner runs of spaces folded."""
    return names.normalize(name)


def name_key(name: str) -> str:
    """What two names in one room must not share (their confusable skeleton)."""
    return names.name_key(name)


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
    sockets: int = 0
    """Phone sockets open for this seat now."""
    away_since: datetime = field(default_factory=utcnow)
    """When its last phone socket closed (or when the server learned of the seat)."""
    away_after: timedelta = timedelta(seconds=10)
    """How long without a phone socket before the board shows the seat as away (a reload
    or a phone waking up is not leaving)."""

    @property
    def connected(self) -> bool:
        return self.is_bot or self.sockets > 0 or utcnow() - self.away_since < self.away_after

    def public(self) -> JSON:
        return {
            "seat": self.position,
            "name": self.name,
            "bot": self.is_bot,
            "bot_style": self.bot_style if self.is_bot else None,
            "connected": self.connected,
            "away_since": None if self.connected else self.away_since.isoformat(),
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

    def reveal(self) -> JSON:
        return {"order": self.order, "salt": self.salt, "commitment": self.commitment}


@dataclass(slots=True)
class ResolutionRecord:
    """One resolution of the match, for its history: the orders it played and its events."""

    number: int
    round: int
    first_seq: int
    last_seq: int
    events: list[Event]


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
    decided_since: dict[int, int] = field(default_factory=dict)
    """Room seat → the match version from which its current decision (its prompt) stands: a
    sheet drawn at an older version was for an earlier decision (issue 13.10). A seat not
    listed (nothing changed for it since the match was loaded or started) has decided since
    the newest resolution: a sheet drawn before a restart still counts, and the engine
    judges the order itself either way."""

    def sheet_is_stale(self, position: int, version: int) -> bool:
        """Whether an order sheet drawn at ``version`` no longer fits this seat's decision.
        Other seats sealing in the same round change the version but not the decision."""
        since = self.decided_since.get(position, self.resolved_seq())
        return not since <= version <= self.version

    @property
    def showing(self) -> bool:
        """The board is playing the newest resolution out (possibly paused by the host)."""
        return self.show_started_at is not None or self.show_elapsed is not None

    def show_elapsed_now(self) -> float:
        if self.show_started_at is not None:
            return (utcnow() - self.show_started_at).total_seconds()
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

    def seat_by_token(self, token: str | None) -> SeatInfo | None:
        if not token:
            return None
        wanted = hash_token(token)
        return next((s for s in self.seats if secrets.compare_digest(s.token_hash, wanted)), None)

    def is_host(self, token: str | None) -> bool:
        return bool(token) and secrets.compare_digest(self.host_token_hash, hash_token(token or ""))

    def to_act(self) -> list[int]:
        """Seats that have something to decide now (public: the board shows who it waits for)."""
        match = self.match
        if match is None or match.status != "playing" or match.showing:
            return []
        return [
            position
            for engine_seat, position in enumerate(match.players)
            if self.rules.prompt(match.state, engine_seat) is not None
        ]

    def seat_limits(self) -> tuple[int, int]:
        """How many players may sit down: the game's range, or what every game of the
        tournament allows; a round robin of one duel game takes 3 to 8 entrants too."""
        if self.tournament is None:
            info = self.rules.info
            return info.min_players, info.max_players
        return _limits(self.tournament)

    def tournament_json(self) -> JSON | None:
        plan = self.tournament
        if plan is None:
            return None
        match = self.match
        # While the board still plays a match's last round out, its result is not shown.
        hiding = match is not None and match.status == "finished" and match.showing
        results = self.results[:-1] if hiding else self.results
        table = standings(plan, results, len(self.seats)) if self.seats else []
        colours = _kept_colours(results, [s.position for s in self.seats])
        for row in table:  # Heirs colours stay all tournament long (H20.1)
            row["colour"] = None if colours is None else colours[row["seat"]]
        remaining = upcoming(plan, results)
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
            if plan.catch_up and fixture.game == "heirs" and results:
                next_game["start_player"] = catch_up_start_player(table, len(self.seats))
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
        seated = plan if plan.fixtures else plan.seated(len(self.seats), _duel_games(plan))
        counts = [0] * len(plan.stages)
        for fixture in seated.schedule():
            counts[fixture.stage] += 1
        return [
            {"game": game, "matches": counts[stage], "round_robin": counts[stage] > 1}
            for stage, game in enumerate(plan.stages)
        ]


Listener = Callable[[LiveRoom, bool], Coroutine[Any, Any, None]]
"""Told of a change to a room; the flag is True when only boards need to hear of it."""


class RoomService:
    """Creates rooms, seats players, applies orders; tells ``listener`` after every change."""

    def __init__(
        self,
        db: Engine,
        bot_delay: float = 1.0,
        step_seconds: float = 1.6,
        away_seconds: float = 10.0,
        idle_after: timedelta = IDLE_ROOM_LIFETIME,
        keep_for: timedelta = KEEP_CLOSED_FOR,
        housekeeping_every: float = HOUSEKEEPING_EVERY,
    ) -> None:
        self.db = db
        self.away_after = timedelta(seconds=away_seconds)
        self.idle_after, self.keep_for = idle_after, keep_for
        self.housekeeping_every = housekeeping_every
        self._housekeeping: asyncio.Task[None] | None = None
        self.bot_delay = bot_delay
        self.step_seconds = step_seconds
        """How long the board shows each step of a resolution."""
        self.board_watching: Callable[[str], bool] = lambda _code: False
        """Whether a board of this room is connected (the hub answers); no board, no show."""
        self._rooms: dict[str, LiveRoom] = {}
        self._listeners: list[Listener] = []
        self._broadcasts: set[asyncio.Task[None]] = set()
        self._wrong_pins = Throttle(RECLAIM_LIMIT)
        self._load_lock = asyncio.Lock()
        self._closing = False

    def add_listener(self, listener: Listener) -> None:
        self._listeners.append(listener)

    # ---------------------------------------------------------------- loading

    async def room(self, code: str) -> LiveRoom:
        """The open room with this code (any case); ``RoomNotFound`` otherwise."""
        code = normalize_code(code)
        live = self._rooms.get(code)
        if live is not None:
            return live
        async with self._load_lock:
            live = self._rooms.get(code)
            if live is None:
                live = self._load(code)
                self._rooms[code] = live
                self._schedule_show(live)  # a show stored before a restart goes on
        return live

    def _load(self, code: str) -> LiveRoom:
        with Session(self.db) as session:
            room = session.exec(
                select(Room)
                .where(Room.code == code, col(Room.status).in_(OPEN_STATUSES))
                .order_by(col(Room.id).desc())
            ).first()
            if room is None or not _valid_code(code):
                raise RoomNotFound(f"There is no room {code}. Check the code on the board.")
            assert room.id is not None
            seats = session.exec(
                select(Seat).where(Seat.room_id == room.id).order_by(col(Seat.position))
            ).all()
            matches = session.exec(
                select(Match).where(Match.room_id == room.id).order_by(col(Match.number))
            ).all()
            match = matches[-1] if matches else None
            game = (match.game if match is not None else "") or room.game
            history: list[Resolution] = []
            orders: list[OrderLog] = []
            if match is not None:
                history = list(
                    session.exec(
                        select(Resolution)
                        .where(Resolution.match_id == match.id)
                        .order_by(col(Resolution.number))
                    ).all()
                )
                orders = list(
                    session.exec(
                        select(OrderLog)
                        .where(OrderLog.match_id == match.id)
                        .order_by(col(OrderLog.seq))
                    ).all()
                )
            rules = get_rules(game)
            plan = None if room.tournament is None else Plan.from_stored(room.tournament)
            results = [
                {
                    "game": m.game or room.game,
                    "outcome": m.outcome,
                    "players": _players(m),
                    "number": m.number,
                }
                for m in matches
                if plan is not None and m.status == "finished"
            ]
            predictions: dict[int, dict[int, tuple[int, str | None]]] = {}
            for guess in session.exec(select(Prediction).where(Prediction.room_id == room.id)):
                predictions.setdefault(guess.match_number, {})[guess.seat] = (
                    guess.winner,
                    guess.ending,
                )
            return LiveRoom(
                row_id=room.id,
                code=room.code,
                lobby_game=room.game,
                game=game,
                rules=rules,
                tournament=plan,
                results=results,
                options=dict(room.options),
                status=room.status,
                host_token_hash=room.host_token_hash,
                seats=[_seat_info(s, self.away_after) for s in seats],
                predictions=predictions,
                match=None if match is None else _live_match(rules, match, game, history, orders),
                paused=room.paused,
            )

    async def recover(self) -> None:
        """After a start: wake the bots of every room that was being played, and start the
        housekeeping that closes idle rooms and deletes old ones."""
        if self._housekeeping is None:
            self._housekeeping = asyncio.get_running_loop().create_task(self._housekeep_forever())
        with Session(self.db) as session:
            codes = session.exec(select(Room.code).where(Room.status == "playing")).all()
        for code in codes:
            with contextlib.suppress(RoomNotFound):
                live = await self.room(code)
                self._schedule_bots(live)
                self._schedule_timer(live)
                self._schedule_show(live)

    async def close(self) -> None:
        self._closing = True
        tasks = [
            task
            for r in self._rooms.values()
            for task in (r.bot_task, r.timer_task, r.show_task)
            if task is not None
        ]
        if self._housekeeping is not None:
            tasks.append(self._housekeeping)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    # ---------------------------------------------------------------- lobby

    async def create_room(
        self,
        game: str,
        options: Mapping[str, Any] | None = None,
        tournament: Mapping[str, Any] | None = None,
    ) -> tuple[str, str]:
        """A new room in the lobby. Returns its code and the host's secret token."""
        if game not in KNOWN_GAMES:
            raise Invalid(f"Unknown game {game!r}. Choose one of: {', '.join(KNOWN_GAMES)}.")
        if game not in available_games():
            raise Invalid(f"{game} is not playable on this server yet.", code="game_not_built")
        options = dict(options or {})
        rules = get_rules(game)
        try:  # options are checked now, not when the host presses Start
            check_room_options(options)
            rules.setup(rules.info.min_players, 0, game_options(options))
        except (ValueError, TypeError, KeyError) as error:
            raise Invalid(f"Bad options for {game}: {error}", code="bad_options") from error
        plan = None if tournament is None else _plan(tournament, game)
        host_token = secrets.token_urlsafe(24)
        with Session(self.db) as session:
            code = _free_code(session)
            session.add(
                Room(
                    code=code,
                    game=game,
                    options=options,
                    host_token_hash=hash_token(host_token),
                    tournament=None if plan is None else plan.to_json(),
                )
            )
            session.commit()
        self._rooms.pop(code, None)
        return code, host_token

    # ---------------------------------------------------------------- housekeeping

    def housekeep(self, now: datetime | None = None) -> Housekeeping:
        """Close the rooms nobody has touched for ``idle_after`` (their codes go back to the
        pool) and delete every row of rooms closed longer than ``keep_for``, a batch at a
        time so that one pass never holds the server for long."""
        now = now or utcnow()
        closed = deleted = 0
        with Session(self.db) as session:
            idle = session.exec(
                select(Room)
                .where(col(Room.status).in_(OPEN_STATUSES), Room.updated_at < now - self.idle_after)
                .limit(HOUSEKEEPING_BATCH)
            ).all()
            for room in idle:
                room.status, room.updated_at = "closed", now
                session.add(room)
                self._forget(room.code)
            closed = len(idle)
            old = session.exec(
                select(Room.id)
                .where(Room.status == "closed", Room.updated_at < now - self.keep_for)
                .limit(HOUSEKEEPING_BATCH)
            ).all()
            room_ids = [room_id for room_id in old if room_id is not None]
            if room_ids:
                match_ids = select(Match.id).where(col(Match.room_id).in_(room_ids))
                for statement in (  # children first: the foreign keys are checked
                    delete(OrderLog).where(col(OrderLog.match_id).in_(match_ids)),
                    delete(Resolution).where(col(Resolution.match_id).in_(match_ids)),
                    delete(Match).where(col(Match.room_id).in_(room_ids)),
                    delete(Prediction).where(col(Prediction.room_id).in_(room_ids)),
                    delete(Seat).where(col(Seat.room_id).in_(room_ids)),
                    delete(Room).where(col(Room.id).in_(room_ids)),
                ):
                    session.execute(statement)
                deleted = len(room_ids)
            session.commit()
        if closed or deleted:
            log.info("housekeeping: %d idle rooms closed, %d old rooms deleted", closed, deleted)
        return Housekeeping(closed=closed, deleted=deleted)

    async def _housekeep_forever(self) -> None:
        while not self._closing:
            try:
                self.housekeep()
            except Exception:  # a failed pass is tried again at the next one
                log.exception("housekeeping failed")
            await asyncio.sleep(self.housekeeping_every)

    def _forget(self, code: str) -> None:
        """A closed room leaves memory: its tasks stop, its code may be given out again."""
        live = self._rooms.pop(code, None)
        if live is None:
            return
        for task in (live.bot_task, live.timer_task, live.show_task):
            if task is not None:
                task.cancel()

    async def join(self, code: str, name: str, lang: str = "en") -> Seated:
        """Seat a player by name, with a fresh token and a 4-digit PIN to come back with."""
        try:
            shown = names.check(name)
        except names.NameRefused as refused:
            raise Invalid(refused.detail, code=refused.code) from refused
        live = await self.room(code)
        async with live.lock:
            pin = f"{secrets.randbelow(10_000):04d}"
            seat, token = self._add_seat(
                live, shown, is_bot=False, bot_style=None, lang=lang, pin=pin
            )
            return Seated(seat, token, pin)

    async def reclaim(self, code: str, name: str, pin: str) -> Seated:
        """A player's seat on a new device, by name and PIN, at any time (a seat handed to a
        bot too: the bot leaves it at the next decision). The old token stops working."""
        live = await self.room(code)
        async with live.lock:
            key = name_key(name)
            seat = next((s for s in live.seats if name_key(s.name) == key and s.pin), None)
            if seat is None:
                raise RoomNotFound(
                    f"Nobody called {clean_name(name)} sits in this room.", code="no_such_name"
                )
            tries = (live.code, str(seat.row_id))
            wait = self._wrong_pins.wait(*tries)
            if wait is not None:
                raise TooManyTries(
                    "Too many wrong PINs for this seat. Ask the host, or wait a few minutes.",
                    code="too_many_tries",
                    retry_after=wait,
                )
            if not secrets.compare_digest(seat.pin, str(pin).strip()):
                self._wrong_pins.hit(*tries)
                raise Forbidden("That PIN does not match this seat.", code="wrong_pin")
            token = secrets.token_urlsafe(24)
            with Session(self.db) as session:
                row = session.get(Seat, seat.row_id)
                assert row is not None
                row.token_hash, row.is_bot = hash_token(token), False
                session.add(row)
                self._touch(session, live)
                session.commit()
            seat.token_hash, seat.is_bot = hash_token(token), False
            seat.away_since = utcnow()
            self._changed(live)  # the old phone's sockets learn their token is gone
            return Seated(seat.position, token, seat.pin)

    def phone_socket(self, live: LiveRoom, position: int, opened: bool) -> None:
        """The hub tells of a phone socket opening or closing: the board shows who is away."""
        seat = next((s for s in live.seats if s.position == position), None)
        if seat is None:
            return
        seat.sockets = max(0, seat.sockets + (1 if opened else -1))
        if seat.sockets == 0:
            seat.away_since = utcnow()
            # Tell the board again once the seat counts as away.
            loop = asyncio.get_running_loop()
            loop.call_later(seat.away_after.total_seconds() + 0.05, self._tell, live, True)
        self._tell(live, boards_only=True)  # phones do not show who is away

    async def add_bot(self, code: str, host_token: str | None, style: str | None = None) -> int:
        live = await self.room(code)
        self._require_host(live, host_token)
        styles = live.rules.info.bot_styles
        style = style or styles[0]
        if style not in styles:
            raise Invalid(f"Unknown bot style {style!r}. Choose one of: {', '.join(styles)}.")
        async with live.lock:
            taken = {name_key(s.name) for s in live.seats}
            number = 1
            while name_key(f"Bot {number}") in taken:
                number += 1
            seat, _token = self._add_seat(live, f"Bot {number}", is_bot=True, bot_style=style)
            return seat

    def _add_seat(
        self,
        live: LiveRoom,
        name: str,
        *,
        is_bot: bool,
        bot_style: str | None,
        lang: str = "en",
        pin: str = "",
    ) -> tuple[int, str]:
        if live.status != "lobby":
            raise Conflict("This game has already started.", code="started")
        if len(live.seats) >= live.seat_limits()[1]:
            raise Conflict("This room is full.", code="full")
        other = names.look_alike(name, (s.name for s in live.seats))
        if other is not None:
            raise Conflict(
                f"The name {name} is taken in this room. Pick another."
                if other.casefold() == name.casefold()
                else f"{name} looks too much like {other}, who already sits in this room. "
                "Pick another name.",
                code="name_taken",
            )
        token = secrets.token_urlsafe(24)
        seat = Seat(
            room_id=live.row_id,
            position=len(live.seats),
            name=name,
            name_key=names.stored_key(name),
            token_hash=hash_token(token),
            is_bot=is_bot,
            bot_style=bot_style,
            lang=lang if lang in ("en", "cs") else "en",
            pin=pin,
        )
        with Session(self.db) as session:
            session.add(seat)
            self._touch(session, live)
            session.commit()
            session.refresh(seat)
        live.seats.append(_seat_info(seat, self.away_after))
        self._changed(live)
        return seat.position, token

    async def kick(self, code: str, host_token: str | None, position: int) -> None:
        """In the lobby the seat is freed; during a game a bot takes it over."""
        live = await self.room(code)
        self._require_host(live, host_token)
        async with live.lock:
            target = self._seat_at(live, position)
            remaining = [s for s in live.seats if s.position != position]
            in_lobby = live.status == "lobby"
            with Session(self.db) as session:
                row = session.get(Seat, target.row_id)
                assert row is not None
                if in_lobby:
                    session.delete(row)
                    self._renumber(session, remaining)
                else:
                    row.is_bot = True
                    row.bot_style = row.bot_style or live.rules.info.bot_styles[0]
                    row.token_hash = hash_token(secrets.token_urlsafe(24))  # the phone is out
                    session.add(row)
                bot_style, token_hash = row.bot_style, row.token_hash
                self._touch(session, live)
                # Memory follows the commit (issue 13.10): a failed one leaves the room as is.
                session.commit()
            if in_lobby:
                _seat_in_order(remaining)
                live.seats = remaining
            else:
                target.is_bot, target.bot_style, target.token_hash = True, bot_style, token_hash
            self._changed(live)

    async def move_seat(self, code: str, host_token: str | None, position: int, to: int) -> None:
        """Move a seat so that the seat order matches the table clockwise (lobby only)."""
        live = await self.room(code)
        self._require_host(live, host_token)
        async with live.lock:
            if live.status != "lobby":
                raise Conflict("Seats can only be moved before the game starts.", code="started")
            target = self._seat_at(live, position)
            if not 0 <= to < len(live.seats):
                raise Invalid(f"There is no seat {to}.", code="no_seat")
            order = [s for s in live.seats if s is not target]
            order.insert(to, target)
            with Session(self.db) as session:
                self._renumber(session, order)
                self._touch(session, live)
                session.commit()
            _seat_in_order(order)
            live.seats = order
            self._changed(live)

    def _renumber(self, session: Session, seats: list[SeatInfo]) -> None:
        """Store ``seats`` numbered in their order; the live seats keep their numbers until
        the commit has succeeded (:func:`_seat_in_order`)."""
        for index, seat in enumerate(seats):
            row = session.get(Seat, seat.row_id)
            assert row is not None
            row.position = index
            session.add(row)

    async def set_options(
        self, code: str, host_token: str | None, options: Mapping[str, Any]
    ) -> dict[str, Any]:
        """Host, in the lobby: change the game's options (rounds, sealing timer, ...)."""
        live = await self.room(code)
        self._require_host(live, host_token)
        async with live.lock:
            if live.status != "lobby":
                raise Conflict("Options can only change before the game starts.", code="started")
            merged = {**live.options, **options}
            merged = {k: v for k, v in merged.items() if v is not None}
            try:
                check_room_options(merged)
                players = max(len(live.seats), live.rules.info.min_players)
                live.rules.setup(players, 0, game_options(merged))
            except (ValueError, TypeError, KeyError) as error:
                raise Invalid(f"Bad options: {error}", code="bad_options") from error
            with Session(self.db) as session:
                room = session.get(Room, live.row_id)
                assert room is not None
                room.options = merged
                room.updated_at = utcnow()
                session.add(room)
                session.commit()
            live.options = merged
            self._changed(live)
            return dict(merged)

    async def set_paused(self, code: str, host_token: str | None, paused: bool) -> None:
        """Host: stop or restart the clock. While paused the sealing timer and the bots wait;
        phones may still seal, and the board holds its animation."""
        live = await self.room(code)
        self._require_host(live, host_token)
        async with live.lock:
            if live.paused == paused:
                return
            match = live.match
            clocks = None if match is None else _paused_clocks(match, paused)
            with Session(self.db) as session:
                room = session.get(Room, live.row_id)
                assert room is not None
                room.paused = paused
                session.add(room)
                if match is not None and clocks is not None:
                    row = session.get(Match, match.row_id)
                    assert row is not None
                    row.deadline_at, row.timer_left = clocks.deadline_at, clocks.timer_left
                    row.show_started_at = clocks.show_started_at
                    row.show_elapsed = clocks.show_elapsed
                    session.add(row)
                # Memory follows the commit (issue 13.10): a failed one leaves the room as is.
                session.commit()
            if match is not None and clocks is not None:
                match.deadline_at, match.timer_left = clocks.deadline_at, clocks.timer_left
                match.show_started_at = clocks.show_started_at
                match.show_elapsed = clocks.show_elapsed
            live.paused = paused
            self._changed(live)

    async def start(self, code: str, host_token: str | None) -> None:
        live = await self.room(code)
        self._require_host(live, host_token)
        async with live.lock:
            if live.status != "lobby":
                raise Conflict("This game has already started.", code="started")
            least = live.seat_limits()[0]
            if len(live.seats) < least:
                raise Conflict(
                    f"{live.rules.info.name} needs at least {least} players; "
                    f"{len(live.seats)} joined so far.",
                    code="too_few_players",
                )
            if live.tournament is not None:
                live.tournament = self._fix_schedule(live, live.tournament)
            self._start_match(live)

    async def play_again(self, code: str, token: str | None) -> None:
        """A seat taps Ready (or the host forces it): the next game starts once all are ready.

        L7.3: after a drawn Hidden Leaders Duel both phones tap Ready; L2.4: the player who
        went second goes first in the next game.
        """
        live = await self.room(code)
        async with live.lock:
            match = live.match
            if match is None or match.status != "finished":
                raise Conflict("The game is not over yet.", code="not_finished")
            if live.is_host(token):
                ready = {s.position for s in live.seats}
            else:
                seat = live.seat_by_token(token)
                if seat is None:
                    raise Unauthorized("This seat's token is not valid here.", code="bad_token")
                ready = set(match.ready_seats) | {seat.position}
            ready |= {s.position for s in live.seats if s.is_bot}
            if live.tournament is not None and not games_to_play(live.tournament, live.results):
                raise Conflict("The tournament is over.", code="tournament_over")
            if len(ready) < len(live.seats):
                with Session(self.db) as session:
                    row = session.get(Match, match.row_id)
                    assert row is not None
                    row.ready_seats = sorted(ready)
                    session.add(row)
                    session.commit()
                match.ready_seats = sorted(ready)
                self._changed(live)
                return
            self._start_match(live)

    async def set_tournament(
        self, code: str, host_token: str | None, tournament: Mapping[str, Any] | None
    ) -> JSON | None:
        """Host, in the lobby: turn the room into a tournament (or back into one game)."""
        live = await self.room(code)
        self._require_host(live, host_token)
        async with live.lock:
            if live.status != "lobby":
                raise Conflict("The tournament is set before the first game.", code="started")
            plan = None if tournament is None else _plan(tournament, live.game)
            if plan is not None and len(live.seats) > _limits(plan)[1]:
                raise Conflict("More players sit here than these games allow.", code="full")
            with Session(self.db) as session:
                room = session.get(Room, live.row_id)
                assert room is not None
                room.tournament = None if plan is None else plan.to_json()
                session.add(room)
                session.commit()
            live.tournament = plan
            self._changed(live)
            return live.tournament_json()

    def _fix_schedule(self, live: LiveRoom, plan: Plan) -> Plan:
        """At the start: every game of the night seats everyone it can; a duel game with
        more than two entrants becomes a round robin, one pairing per match, played on the
        same board while the others watch."""
        fixed = plan.seated(len(live.seats), _duel_games(plan))
        with Session(self.db) as session:
            room = session.get(Room, live.row_id)
            assert room is not None
            room.tournament = fixed.to_json()
            session.add(room)
            session.commit()
        return fixed

    def _next_match_setup(self, live: LiveRoom) -> tuple[str, list[int], dict[str, Any]]:
        """The next match's game, its players (room seats in engine order) and options."""
        previous = live.match
        game, players = live.game, list(range(len(live.seats)))
        plan = live.tournament
        if plan is not None:
            fixture = upcoming(plan, live.results)[0]
            game, players = fixture.game, list(fixture.players or players)
        options = dict(live.options) if game == live.lobby_game else {}
        options = {**options, **{k: live.options[k] for k in ROOM_OPTIONS if k in live.options}}
        if previous is not None and previous.game == game and len(players) == 2:
            # L2.4: who went second in the last game of this kind goes first now.
            first = (previous.outcome or {}).get(
                "first_player", previous.options.get("first_player")
            )
            if isinstance(first, int) and sorted(previous.players) == sorted(players):
                went_first = previous.players[first]
                options["first_player"] = 1 - players.index(went_first)
        if plan is not None and game == "heirs":
            kept = _kept_colours(live.results, players)
            if kept is not None:
                options["colours"] = kept
        if plan is not None and plan.catch_up and game == "heirs" and live.results:
            table = standings(plan, live.results, len(live.seats))
            options["start_player"] = catch_up_start_player(table, len(live.seats))
        return game, players, options

    def _start_match(self, live: LiveRoom) -> None:
        game, players, options = self._next_match_setup(live)
        rules = get_rules(game)
        seed = secrets.randbits(62)
        number = 1 if live.match is None else live.match.number + 1
        try:  # the options were checked for the seats of the time; more may have joined
            state = rules.setup(len(players), seed, game_options(options))
        except (ValueError, TypeError, KeyError) as error:
            raise Invalid(
                f"Bad options for {len(players)} players: {error}", code="bad_options"
            ) from error
        match = LiveMatch(
            row_id=0,
            number=number,
            game=game,
            players=players,
            seed=seed,
            options=options,
            state=state,
            version=0,
            status="playing",
            outcome=None,
            recent_events=[],
            ready_seats=[],
        )
        self._restart_timer(live, match)
        row = Match(
            room_id=live.row_id,
            number=number,
            game=game,
            players=players,
            seed=seed,
            options=options,
            seats=len(players),
            state=rules.to_json(state),
            deadline_at=match.deadline_at,
            timer_left=match.timer_left,
        )
        with Session(self.db) as session:
            session.add(row)
            room = session.get(Room, live.row_id)
            assert room is not None
            room.status = "playing"
            room.updated_at = utcnow()
            session.add(room)
            session.commit()
            session.refresh(row)
        assert row.id is not None
        match.row_id = row.id
        live.game, live.rules = game, rules
        live.status = "playing"
        live.match = match
        self._changed(live)

    # ---------------------------------------------------------------- orders

    async def submit(
        self,
        code: str,
        token: str | None,
        order: Any,
        version: object = None,
        match_number: object = None,
    ) -> None:
        """Apply a seat's order. Committed to the database before this returns.

        ``version`` (and ``match_number``) say which view the order sheet was drawn from; a
        sheet for an earlier decision is refused with 409 ``stale``. Without them the order
        is judged as it comes (API clients)."""
        drawn_at = _drawn_at(version, match_number)
        live = await self.room(code)
        async with live.lock:
            seat = live.seat_by_token(token)
            if seat is None:
                raise Unauthorized("This seat's token is not valid here.", code="bad_token")
            self._apply(live, seat, order, drawn_at=drawn_at)

    def _apply(
        self,
        live: LiveRoom,
        seat: SeatInfo,
        order: Any,
        by_timer: bool = False,
        drawn_at: DrawnAt | None = None,
    ) -> None:
        match = live.match
        if match is None or match.status != "playing":
            raise Conflict("There is no game running in this room.", code="not_playing")
        if match.showing:
            raise Conflict(
                "The board is still playing the last round out. Watch it; your turn comes next.",
                code="show",
            )
        if not isinstance(order, Mapping):
            raise Invalid("An order must be a JSON object.", code="malformed")
        rules = live.rules
        engine_seat = match.engine_seat(seat.position)
        if engine_seat is None:
            raise Conflict("You are watching this game; your turn comes later.", code="watching")
        if drawn_at is not None and (
            drawn_at.match not in (None, match.number)
            or match.sheet_is_stale(seat.position, drawn_at.version)
        ):
            raise Conflict(
                "The table moved on while you were choosing; here is the new sheet.",
                code="stale",
            )
        prompts_before = [rules.prompt(match.state, i) for i in range(len(match.players))]
        try:
            state, steps = advance(rules, rules.submit(match.state, engine_seat, order))
        except NotYourTurn as refusal:
            raise Conflict(refusal.message, code=refusal.code, params=refusal.params) from refusal
        except IllegalOrder as refusal:
            raise Invalid(refusal.message, code=refusal.code, params=refusal.params) from refusal
        seq = match.version + 1
        salt, commitment = proofs.seal(order)
        sealed = SealedOrder(seq, seat.position, dict(order), salt, commitment)
        events = [event for step in steps for event in step.events]
        record = None
        if steps:
            record = ResolutionRecord(
                number=len(match.history) + 1,
                round=steps[0].round,
                first_seq=match.resolved_seq() + 1,
                last_seq=seq,
                events=events,
            )
        outcome = rules.outcome(state)
        show = bool(steps) and self._wants_show(live, match, steps)
        before = (match.deadline_at, match.timer_left, match.show_started_at, match.show_elapsed)
        if outcome is not None or show:
            # The next decision's timer starts once the board has played the round out.
            match.deadline_at = match.timer_left = None
        elif steps:  # a resolution starts a new round of decisions, with a fresh timer
            self._restart_timer(live, match)
        if show:
            match.show_started_at, match.show_elapsed = (
                (None, 0.0) if live.paused else (utcnow(), None)
            )
        with Session(self.db) as session:
            session.add(
                OrderLog(
                    match_id=match.row_id,
                    seq=seq,
                    seat=engine_seat,
                    by_bot=seat.is_bot or by_timer,
                    order=sealed.order,
                    salt=salt,
                    commitment=commitment,
                )
            )
            if record is not None:
                session.add(
                    Resolution(
                        match_id=match.row_id,
                        number=record.number,
                        round=record.round,
                        first_seq=record.first_seq,
                        last_seq=record.last_seq,
                        events=[e.to_json() for e in events],
                    )
                )
            row = session.get(Match, match.row_id)
            assert row is not None
            row.state = rules.to_json(state)
            row.version = seq
            row.updated_at = utcnow()
            if events:
                row.recent_events = [e.to_json() for e in events]
            if outcome is not None:
                row.status, row.outcome = "finished", outcome
            row.deadline_at, row.timer_left = match.deadline_at, match.timer_left
            row.show_started_at, row.show_elapsed = match.show_started_at, match.show_elapsed
            session.add(row)
            self._touch(session, live, status="finished" if outcome is not None else None)
            try:
                session.commit()
            except Exception:
                match.deadline_at, match.timer_left = before[0], before[1]
                match.show_started_at, match.show_elapsed = before[2], before[3]
                raise
        if show and match.show_started_at is not None:
            # The show starts when the room hears of it, not before a slow commit.
            match.show_started_at = utcnow()
        match.state, match.version = state, seq
        for other_seat, before_prompt in enumerate(prompts_before):
            # A resolution opens a new round for everyone, even when its prompt looks alike.
            if steps or rules.prompt(state, other_seat) != before_prompt:
                match.decided_since[match.players[other_seat]] = seq
        if record is not None:
            match.recent_events, match.steps = events, steps
            match.history.append(record)
            match.sealed = [o for o in match.sealed if o.seq >= record.first_seq]
        match.sealed.append(sealed)
        if outcome is not None:
            match.status, match.outcome = "finished", outcome
            live.status = "finished"
            live.standings_mode = "auto"
            live.result_at = None if show else utcnow()
            if live.tournament is not None:
                live.results.append(match.result())
        self._changed(live)

    # ---------------------------------------------------------------- the show

    def _wants_show(self, live: LiveRoom, match: LiveMatch, steps: list[Step]) -> bool:
        """A resolution is played out on the board when a board watches, the host has not
        fast-forwarded, and there is something to pace: several steps, or a round that
        everybody sealed at once."""
        if match.fast_forward or not self.board_watching(live.code):
            return False
        return len(steps) > 1 or live.rules.info.simultaneous

    def show_json(self, match: LiveMatch | None) -> JSON | None:
        """Where the show stands: the step the board draws now (the server keeps the clock)."""
        if match is None or not match.showing or not match.steps:
            return None
        step = min(len(match.steps) - 1, int(match.show_elapsed_now() // self.step_seconds))
        return {
            "round": match.steps[0].round,
            "step": max(0, step),
            "steps": len(match.steps),
            "step_ms": round(self.step_seconds * 1000),
        }

    def _schedule_show(self, live: LiveRoom) -> None:
        match = live.match
        due = match is not None and match.show_started_at is not None
        if self._closing or not due or live.show_task is not None:
            return
        live.show_task = asyncio.get_running_loop().create_task(self._run_show(live))

    async def _run_show(self, live: LiveRoom) -> None:
        """Tell the room at every step; end the show after the last one, or at once when no
        board has watched for a whole step (the phones need not wait for nobody)."""
        unwatched = 0
        told: int | None = None
        match = live.match
        try:
            while True:
                match = live.match
                if match is None or match.show_started_at is None:
                    return
                elapsed = match.show_elapsed_now()
                if told is None:
                    told = int(elapsed // self.step_seconds)
                next_step = (int(elapsed // self.step_seconds) + 1) * self.step_seconds
                await asyncio.sleep(max(0.0, next_step - elapsed) + 0.005)
                async with live.lock:
                    if live.match is not match or match.show_started_at is None:
                        return
                    step = int(match.show_elapsed_now() // self.step_seconds)
                    if step > told + 1:
                        # The server stalled for longer than a step: hold the clock back so
                        # that the board still draws every step, one after the other.
                        held = (step - told - 1) * self.step_seconds
                        match.show_started_at += timedelta(seconds=held)
                        step = told + 1
                    told = step
                    over = match.show_elapsed_now() >= len(match.steps) * self.step_seconds
                    # A board that reloads or reconnects is back within a step; none for two
                    # steps running means nobody watches.
                    unwatched = 0 if self.board_watching(live.code) else unwatched + 1
                    if over or unwatched >= 2:
                        self._end_show(live, match)
                        return
                    self._tell(live)
        except Exception:  # the show must never take the server down, nor hold the room
            log.exception("the show failed in room %s", live.code)
            if match is not None and live.match is match and match.show_started_at is not None:
                try:  # the board jumps to the end of the round; the phones go on
                    self._end_show(live, match)
                except Exception:
                    log.exception("the show of room %s could not be ended", live.code)
        finally:
            live.show_task = None

    def _end_show(self, live: LiveRoom, match: LiveMatch, fast_forward: bool = False) -> None:
        """The board has played the round out: the next decision opens, with its timer."""
        playing = match.status == "playing"
        deadline_at, timer_left = (
            self._fresh_timer(live, match) if playing else (match.deadline_at, match.timer_left)
        )
        with Session(self.db) as session:
            row = session.get(Match, match.row_id)
            assert row is not None
            row.show_started_at = row.show_elapsed = None
            row.deadline_at, row.timer_left = deadline_at, timer_left
            row.fast_forward = match.fast_forward or fast_forward
            session.add(row)
            session.commit()
        match.show_started_at = match.show_elapsed = None
        match.deadline_at, match.timer_left = deadline_at, timer_left
        match.fast_forward = match.fast_forward or fast_forward
        if not playing:
            live.result_at = utcnow()
        self._changed(live)

    async def skip_show(self, code: str, host_token: str | None, to_the_end: bool = False) -> None:
        """Host: end the board's show of this round now; ``to_the_end`` plays every later
        round of the match at once too (bots-only rounds included)."""
        live = await self.room(code)
        self._require_host(live, host_token)
        async with live.lock:
            match = live.match
            if match is None:
                raise Conflict("There is no game in this room yet.", code="not_playing")
            if match.showing:
                self._end_show(live, match, fast_forward=to_the_end)
            elif to_the_end:
                with Session(self.db) as session:
                    row = session.get(Match, match.row_id)
                    assert row is not None
                    row.fast_forward = True
                    session.add(row)
                    session.commit()
                match.fast_forward = True
                self._changed(live)

    # ---------------------------------------------------------------- bots

    def _schedule_bots(self, live: LiveRoom) -> None:
        if self._closing or live.bot_task is not None or live.paused:
            return
        bots = {s.position for s in live.seats if s.is_bot}
        if bots & set(live.to_act()):
            live.bot_task = asyncio.get_running_loop().create_task(self._drive_bots(live))

    async def _drive_bots(self, live: LiveRoom) -> None:
        try:
            while True:
                await asyncio.sleep(self.bot_delay)
                async with live.lock:
                    if live.paused:
                        return
                    waiting = [
                        s for s in live.seats if s.is_bot and s.position in set(live.to_act())
                    ]
                    if not waiting:
                        return
                    for seat in waiting:
                        match = live.match
                        assert match is not None
                        engine_seat = match.engine_seat(seat.position)
                        if engine_seat is None or (
                            live.rules.prompt(match.state, engine_seat) is None
                        ):
                            continue
                        order = live.rules.bot_order(
                            match.state, engine_seat, _bot_style(live, seat)
                        )
                        self._apply(live, seat, order)
        except Exception:  # a bot must never take the server down; the room stays as it was
            log.exception("bot failed in room %s", live.code)
        finally:
            live.bot_task = None
            if not self._closing:
                # Something may have become due while this task was finishing.
                bots = {s.position for s in live.seats if s.is_bot}
                if bots & set(live.to_act()) and live.match and live.match.status == "playing":
                    self._schedule_bots(live)

    # ---------------------------------------------------------------- sealing timer

    def _restart_timer(self, live: LiveRoom, match: LiveMatch) -> None:
        """A new round of decisions begins: the whole timer again (H5.4)."""
        match.deadline_at, match.timer_left = self._fresh_timer(live, match)

    @staticmethod
    def _fresh_timer(live: LiveRoom, match: LiveMatch) -> tuple[datetime | None, float | None]:
        """A new round's (deadline, time left): running, or held whole while paused."""
        timer = match.timer
        if timer is None:
            return None, None
        if live.paused:
            return None, timer
        return utcnow() + timedelta(seconds=timer), None

    def _schedule_timer(self, live: LiveRoom) -> None:
        match = live.match
        due = match is not None and match.status == "playing" and match.deadline_at is not None
        if self._closing or not due or live.timer_task is not None:
            return
        live.timer_task = asyncio.get_running_loop().create_task(self._run_timer(live))

    async def _run_timer(self, live: LiveRoom) -> None:
        try:
            while True:
                match = live.match
                if match is None or match.deadline_at is None or match.status != "playing":
                    return
                wait = (match.deadline_at - utcnow()).total_seconds()
                if wait > 0:
                    await asyncio.sleep(min(wait, 60.0))
                    continue
                async with live.lock:
                    self._expire(live)
        except Exception:  # the clock must never take the server down
            log.exception("sealing timer failed in room %s", live.code)
        finally:
            live.timer_task = None

    def _expire(self, live: LiveRoom) -> None:
        """Time is up: every seat still deciding gets its default order (H5.4)."""
        match = live.match
        if match is None or match.deadline_at is None or match.deadline_at > utcnow():
            return
        version = match.version
        late = [s for s in live.seats if s.position in set(live.to_act())]
        match.deadline_at = None
        for seat in late:
            if live.match is not match or match.deadline_at is not None:
                break  # a resolution began a new round with its own timer
            engine_seat = match.engine_seat(seat.position)
            if engine_seat is None or live.rules.prompt(match.state, engine_seat) is None:
                continue
            self._apply(live, seat, self._default_order(live, engine_seat, seat), by_timer=True)
        if match.version == version:  # nobody was late: just clear the stale deadline
            self._changed(live)

    def _default_order(self, live: LiveRoom, engine_seat: int, seat: SeatInfo) -> JSON:
        """The game's default order for a seat whose time ran out; a bot's move otherwise."""
        assert live.match is not None
        default = getattr(live.rules, "default_order", None)
        if default is not None:
            order: JSON = default(live.match.state, engine_seat)
            return order
        return live.rules.bot_order(live.match.state, engine_seat, _bot_style(live, seat))

    # ---------------------------------------------------------------- views

    def board_payload(self, live: LiveRoom, host: bool = False) -> JSON:
        """The board's view of the room: public information only (and, for the host's
        board, the seats' PINs, so that a player without a phone can be helped back).

        ``view`` is the newest position and ``playback`` the newest resolution step by step,
        each with the public view after it; while ``show`` runs, the board draws
        ``playback[show.step]`` and nothing later."""
        payload = self._room_payload(live)
        if host:
            payload["pins"] = {str(s.position): s.pin for s in live.seats if s.pin}
        match = live.match
        if match is None:
            payload.update(view=None, events=[], playback=[], history=[])
            return payload
        show = payload["show"]
        payload["view"] = live.rules.view(match.state, None)
        payload["playback"] = [
            {
                "round": step.round,
                "events": events_for(step.events, None),
                "view": live.rules.view(step.state, None),
            }
            for step in match.steps
        ]
        payload["events"] = events_for(self._shown_events(match, show), None)
        payload["history"] = self._history(match, None, show)
        return payload

    def seat_payload(self, live: LiveRoom, seat: SeatInfo) -> JSON:
        """One seat's private view of the room, with what it must decide now.

        While the board plays a resolution out, the seat sees its own view as of the step
        on the board, its own events up to that step, and no decision yet."""
        payload = self._room_payload(live)
        match = live.match
        engine_seat = None if match is None else match.engine_seat(seat.position)
        payload["you"] = {
            "seat": seat.position,
            "name": seat.name,
            "lang": seat.lang,
            "player": engine_seat,
            "pin": seat.pin,
        }
        if match is None:
            payload.update(
                view=None, prompt=None, events=[], history=[], my_commitment=None, prediction=None
            )
            return payload
        show = payload["show"]
        # A seat that sits this match out watches it like the board.
        shown_state = match.steps[show["step"]].state if show is not None else match.state
        payload["view"] = live.rules.view(shown_state, engine_seat)
        payload["prompt"] = (
            None
            if engine_seat is None or show is not None
            else live.rules.prompt(match.state, engine_seat)
        )
        payload["events"] = events_for(self._shown_events(match, show), engine_seat)
        payload["history"] = self._history(match, engine_seat, show)
        mine = [o for o in match.pending_orders() if o.position == seat.position]
        payload["my_commitment"] = mine[-1].commitment if mine else None
        payload["prediction"] = self._prediction_offer(live, seat)
        return payload

    @staticmethod
    def _prediction_offer(live: LiveRoom, seat: SeatInfo) -> JSON | None:
        """What this seat may predict now, with its own current guess."""
        target = live.prediction_target(seat)
        if target is None:
            return None
        number, game, players = target
        guess = live.predictions.get(number, {}).get(seat.position)
        return {
            "match": number,
            "game": game,
            "players": players,
            "endings": list(get_rules(game).info.endings),
            "winner": None if guess is None else guess[0],
            "ending": None if guess is None else guess[1],
        }

    @staticmethod
    def _shown_events(match: LiveMatch, show: JSON | None) -> list[Event]:
        """The newest resolution's events, up to the step on the board while it plays."""
        if show is None:
            return match.recent_events
        return [event for step in match.steps[: show["step"] + 1] for event in step.events]

    @staticmethod
    def _history(match: LiveMatch, engine_seat: int | None, show: JSON | None) -> list[JSON]:
        """The match's log round by round, as ``engine_seat`` (None: the board) may read it;
        the resolution the board is still playing out is not history yet."""
        records = match.history[:-1] if show is not None else match.history
        rounds: list[JSON] = []
        for record in records:
            events = events_for(record.events, engine_seat)
            if rounds and rounds[-1]["round"] == record.round:
                rounds[-1]["events"].extend(events)
            else:
                rounds.append({"round": record.round, "events": events})
        return rounds

    def _proofs(self, live: LiveRoom, match: LiveMatch | None) -> tuple[JSON, JSON]:
        """Commitments of the orders sealed and not yet played, and the reveals of the
        newest resolution's orders that hide nothing any more (all of them once the match
        is over and shown)."""
        if match is None:
            return {}, {}
        commitments = {str(o.position): o.commitment for o in match.pending_orders()}
        over = match.status == "finished" and not match.showing
        reveals = {
            str(o.position): o.reveal()
            for o in match.last_resolution_orders()
            if over or live.rules.order_is_public(o.order)
        }
        return commitments, reveals

    def _room_payload(self, live: LiveRoom) -> JSON:
        match = live.match
        info = live.rules.info
        least, most = live.seat_limits()
        names = {s.position: s for s in live.seats}
        show = self.show_json(match)
        commitments, reveals = self._proofs(live, match)
        # The end is not announced before the board has played the last round out.
        ended = match is not None and match.status == "finished" and show is None
        return {
            "code": live.code,
            "game": live.game,
            "game_name": info.name,
            "min_players": least,
            "max_players": most,
            "players": None
            if match is None
            else [names[p].public() for p in match.players if p in names],
            "tournament": live.tournament_json(),
            "status": "playing" if live.status == "finished" and not ended else live.status,
            "seats": [s.public() for s in live.seats],
            "match": None if match is None else match.number,
            "version": None if match is None else match.version,
            "to_act": live.to_act(),
            "outcome": match.outcome if ended and match is not None else None,
            "ready": [] if match is None else match.ready_seats,
            "options": dict(live.options),
            "paused": live.paused,
            "deadline": None
            if match is None or match.deadline_at is None
            else match.deadline_at.isoformat(),
            "timer_left": None if match is None else match.timer_left,
            "show": show,
            "predictions": live.predictions_json(),
            "fast_forward": match is not None and match.fast_forward,
            "commitments": commitments,
            "reveals": reveals,
        }

    async def replay(self, code: str, number: int, token: str | None = None) -> JSON:
        """A finished match rebuilt from its order log and the engine alone: every step with
        its events and view, public, or a seat's own when ``token`` is one of its players'.
        Each resolution's first step carries the proofs of the orders it played."""
        live = await self.room(code)
        seat = None if token is None else live.seat_by_token(token)
        if token is not None and seat is None:
            raise Unauthorized("This seat's token is not valid here.", code="bad_token")
        with Session(self.db) as session:
            match = session.exec(
                select(Match).where(Match.room_id == live.row_id, Match.number == number)
            ).first()
            if match is None:
                raise RoomNotFound(f"There is no game {number} in this room.", code="no_match")
            if match.status != "finished" or (
                live.match is not None and live.match.number == number and live.match.showing
            ):
                raise Conflict("A game can be watched again once it is over.", code="not_over")
            orders = list(
                session.exec(
                    select(OrderLog)
                    .where(OrderLog.match_id == match.id)
                    .order_by(col(OrderLog.seq))
                ).all()
            )
        rules = get_rules(match.game or live.lobby_game)
        players = _players(match)
        engine_seat = (
            None
            if seat is None
            else (players.index(seat.position) if seat.position in players else None)
        )
        seats = {s.position: s for s in live.seats}
        names = {position: s.name for position, s in seats.items()}
        steps: list[JSON] = []
        played: list[JSON] = []
        logged = [(o.seat, o.order) for o in orders]
        for index, state, resolved in replay_resolutions(
            rules, match.seats, match.seed, game_options(match.options), logged
        ):
            if index < 0:
                steps.append(
                    {"round": 0, "events": [], "view": rules.view(state, engine_seat), "proofs": []}
                )
                continue
            entry = orders[index]
            played.append(
                {
                    "seat": players[entry.seat],
                    "name": names.get(players[entry.seat], ""),
                    "commitment": entry.commitment,
                    "salt": entry.salt,
                    "order": entry.order,
                }
            )
            for k, step in enumerate(resolved):
                steps.append(
                    {
                        "round": step.round,
                        "events": events_for(step.events, engine_seat),
                        "view": rules.view(step.state, engine_seat),
                        "proofs": played if k == 0 else [],
                    }
                )
            if resolved:
                played = []
        return {
            "game": rules.info.id,
            "match": number,
            "players": [seats[p].public() for p in players if p in seats],
            "steps": steps,
        }

    async def predict(
        self, code: str, token: str | None, winner: int, ending: str | None = None
    ) -> None:
        """A watcher's prediction for the match it watches (or waits to watch): who wins and,
        in a game with several endings, how. It can change until the match's first round
        is played, and stays hidden until the match is over."""
        live = await self.room(code)
        async with live.lock:
            seat = live.seat_by_token(token)
            if seat is None:
                raise Unauthorized("This seat's token is not valid here.", code="bad_token")
            target = live.prediction_target(seat)
            if target is None:
                raise Conflict(
                    "Predictions are for watchers, before the match's first round.",
                    code="no_prediction",
                )
            number, game, players = target
            if winner not in players:
                raise Invalid("Pick one of the players of this match.", code="bad_winner")
            endings = get_rules(game).info.endings
            if endings and ending not in endings:
                raise Invalid(f"Pick how it ends: {', '.join(endings)}.", code="bad_ending")
            if not endings:
                ending = None
            with Session(self.db) as session:
                row = session.exec(
                    select(Prediction).where(
                        Prediction.room_id == live.row_id,
                        Prediction.match_number == number,
                        Prediction.seat == seat.position,
                    )
                ).first() or Prediction(
                    room_id=live.row_id, match_number=number, seat=seat.position, winner=winner
                )
                row.winner, row.ending = winner, ending
                session.add(row)
                session.commit()
            live.predictions.setdefault(number, {})[seat.position] = (winner, ending)
            self._changed(live)

    async def set_standings(self, code: str, host_token: str | None, shown: bool) -> None:
        """Host: show the standings now, or dismiss them (back to the result)."""
        live = await self.room(code)
        self._require_host(live, host_token)
        async with live.lock:
            live.standings_mode = "shown" if shown else "hidden"
            self._changed(live)

    async def set_language(self, code: str, token: str | None, lang: str) -> None:
        live = await self.room(code)
        # Under the lock (issue 13.10): a kick or a come-back racing it must not leave the
        # language on a seat row that changed hands.
        async with live.lock:
            seat = live.seat_by_token(token)
            if seat is None:
                raise Unauthorized("This seat's token is not valid here.", code="bad_token")
            if lang not in ("en", "cs"):
                raise Invalid("Languages: en, cs.", code="bad_lang")
            with Session(self.db) as session:
                row = session.get(Seat, seat.row_id)
                assert row is not None
                row.lang = lang
                session.add(row)
                session.commit()
            seat.lang = lang

    # ---------------------------------------------------------------- helpers

    def _require_host(self, live: LiveRoom, token: str | None) -> None:
        if not token:
            raise Unauthorized("Only the host can do this; the host token is missing.")
        if not live.is_host(token):
            raise Forbidden("Only the host can do this.", code="not_host")

    def _seat_at(self, live: LiveRoom, position: int) -> SeatInfo:
        for seat in live.seats:
            if seat.position == position:
                return seat
        raise RoomNotFound(f"There is no seat {position} in this room.", code="no_seat")

    def _touch(self, session: Session, live: LiveRoom, status: str | None = None) -> None:
        room = session.get(Room, live.row_id)
        assert room is not None
        room.updated_at = utcnow()
        if status is not None:
            room.status = status
        session.add(room)

    def _changed(self, live: LiveRoom) -> None:
        """Tell the listeners (the hub) and wake the bots, the timer and the show."""
        self._tell(live)
        self._schedule_bots(live)
        self._schedule_timer(live)
        self._schedule_show(live)

    def _tell(self, live: LiveRoom, boards_only: bool = False) -> None:
        for listener in self._listeners:
            task = asyncio.get_running_loop().create_task(listener(live, boards_only))
            # The loop keeps only weak references to tasks: hold each broadcast until done.
            self._broadcasts.add(task)
            task.add_done_callback(self._broadcasts.discard)


ROOM_OPTIONS = ("timer",)
"""Options the room itself keeps (the engine never sees them)."""
TIMER_RANGE = (1, 3600)


def check_room_options(options: Mapping[str, Any]) -> None:
    timer = options.get("timer")
    if timer is None:
        return
    low, high = TIMER_RANGE
    if isinstance(timer, bool) or not isinstance(timer, int | float) or not low <= timer <= high:
        raise ValueError(f"timer must be a number of seconds from {low} to {high}")


def game_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """The options the game's engine is set up with: all but the room's own."""
    return {k: v for k, v in options.items() if k not in ROOM_OPTIONS}


def _valid_code(code: str) -> bool:
    return len(code) == CODE_LENGTH and all(ch in CODE_ALPHABET for ch in code)


def _random_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def _free_code(session: Session) -> str:
    """A code no open room has. Random tries, each one indexed lookup, find one at once
    while the pool is far from full; only a nearly full pool is read whole, and a full one
    answers 503 instead of trying for ever."""
    for _ in range(CODE_TRIES):
        code = _random_code()
        in_use = session.exec(
            select(Room.id).where(Room.code == code, col(Room.status).in_(OPEN_STATUSES))
        ).first()
        if in_use is None:
            return code
    taken = set(session.exec(select(Room.code).where(col(Room.status).in_(OPEN_STATUSES))).all())
    free = [
        code
        for code in ("".join(p) for p in product(CODE_ALPHABET, repeat=CODE_LENGTH))
        if code not in taken
    ]
    if not free:
        raise Unavailable(
            "Every room code is in use right now. Try again in a few minutes.", code="no_codes"
        )
    return secrets.choice(free)


def _seat_info(seat: Seat, away_after: timedelta) -> SeatInfo:
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
        away_after=away_after,
    )


@dataclass(frozen=True, slots=True)
class DrawnAt:
    """The view an order sheet was drawn from: the match version, and the match if known."""

    version: int
    match: int | None = None


def _drawn_at(version: object, match_number: object) -> DrawnAt | None:
    """What a frame says about the view its order was drawn from; None when it says nothing."""
    if version is None:
        return None
    for value in (version, match_number):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise Invalid("An order's version must be a whole number.", code="malformed")
    assert isinstance(version, int)
    return DrawnAt(version, match_number if isinstance(match_number, int) else None)


def _seat_in_order(seats: list[SeatInfo]) -> None:
    """Number the live seats as :meth:`RoomService._renumber` stored them."""
    for index, seat in enumerate(seats):
        seat.position = index


@dataclass(frozen=True, slots=True)
class MatchClocks:
    """A match's sealing timer and show clock, as stored."""

    deadline_at: datetime | None
    timer_left: float | None
    show_started_at: datetime | None
    show_elapsed: float | None


def _paused_clocks(match: LiveMatch, paused: bool) -> MatchClocks:
    """The match's clocks once the host pauses (they keep what is left) or resumes (they
    run on from there); the match itself is not changed."""
    deadline_at, timer_left = match.deadline_at, match.timer_left
    show_started_at, show_elapsed = match.show_started_at, match.show_elapsed
    if paused and deadline_at is not None:
        timer_left = max(0.0, (deadline_at - utcnow()).total_seconds())
        deadline_at = None
    elif not paused and timer_left is not None:
        deadline_at, timer_left = utcnow() + timedelta(seconds=timer_left), None
    if paused and show_started_at is not None:  # the board holds its show
        show_elapsed, show_started_at = match.show_elapsed_now(), None
    elif not paused and show_elapsed is not None:
        show_started_at = utcnow() - timedelta(seconds=show_elapsed)
        show_elapsed = None
    return MatchClocks(deadline_at, timer_left, show_started_at, show_elapsed)


def _bot_style(live: LiveRoom, seat: SeatInfo) -> str:
    """The seat's bot style if the game being played has it, else that game's default: a bot
    plays every game of a mixed night."""
    styles = live.rules.info.bot_styles
    return seat.bot_style if seat.bot_style in styles else styles[0]


def _kept_colours(results: list[JSON], players: list[int]) -> list[str] | None:
    """H20.1: each heir's colour from the last Heirs game of the tournament, in the new
    game's seat order; None before the first one."""
    for result in reversed(results):
        colours = result["game"] == "heirs" and (result["outcome"] or {}).get("colours")
        if colours:
            by_seat = {seat: colours[str(i)] for i, seat in enumerate(result["players"])}
            if all(p in by_seat for p in players):
                return [by_seat[p] for p in players]
    return None


def _players(match: Match) -> list[int]:
    """Matches stored before seats were mapped had every seat, in seat order."""
    return list(match.players) or list(range(match.seats))


def _plan(raw: Mapping[str, Any], game: str) -> Plan:
    try:
        return Plan.from_json(raw, game, available_games())
    except ValueError as error:
        raise Invalid(f"Bad tournament: {error}", code="bad_tournament") from error


def _duel_games(plan: Plan) -> list[str]:
    """The games of the plan for exactly two players: played as round robins."""
    return [game for game in set(plan.games) if get_rules(game).info.max_players == 2]


def _limits(plan: Plan) -> tuple[int, int]:
    """A night seats as many as its largest game takes: a duel game seats up to 8 entrants
    as a round robin, any other game its own most."""
    infos = [get_rules(game).info for game in set(plan.games)]
    duels = set(_duel_games(plan))
    most = min(ROUND_ROBIN_MAX if i.id in duels else i.max_players for i in infos)
    return max(i.min_players for i in infos), most


def _live_match(
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
        )
        for r in history
    ]
    kept_from = records[-1].first_seq if records else 0
    players = _players(match)
    sealed = [
        SealedOrder(o.seq, players[o.seat], dict(o.order), o.salt, o.commitment)
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
    return LiveMatch(
        row_id=match.id,
        number=match.number,
        game=game,
        players=_players(match),
        seed=match.seed,
        options=dict(match.options),
        state=rules.from_json(match.state),
        version=match.version,
        status=match.status,
        outcome=match.outcome,
        recent_events=[Event.from_json(e) for e in match.recent_events],
        ready_seats=list(match.ready_seats),
        deadline_at=_aware(match.deadline_at),
        timer_left=match.timer_left,
        steps=steps,
        history=records,
        sealed=sealed,
        show_started_at=_aware(match.show_started_at),
        show_elapsed=match.show_elapsed,
        fast_forward=match.fast_forward,
    )


def _aware(moment: datetime | None) -> datetime | None:
    """SQLite hands datetimes back without their zone; every time here is UTC."""
    if moment is None or moment.tzinfo is not None:
        return moment
    return moment.replace(tzinfo=UTC)

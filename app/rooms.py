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
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from app.models import Match, OrderLog, Room, Seat, utcnow
from engine.core import JSON, Event, GameRules, IllegalOrder, NotYourTurn, events_for
from engine.registry import KNOWN_GAMES, available_games, get_rules
from engine.tournament import (
    DUEL_GAMES,
    Plan,
    catch_up_start_player,
    games_to_play,
    next_position,
    round_robin,
    standings,
)

log = logging.getLogger("pecet.rooms")

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ"
"""Upper-case letters without I and O, which read as 1 and 0 on a small screen."""
CODE_LENGTH = 4
NAME_MAX = 24
IDLE_ROOM_LIFETIME = timedelta(hours=12)
OPEN_STATUSES = ("lobby", "playing", "finished")


class RoomError(Exception):
    """A request the room refuses; ``status`` is the HTTP status the API answers with."""

    status = 400

    def __init__(self, detail: str, code: str = "error") -> None:
        super().__init__(detail)
        self.detail = detail
        self.code = code


class RoomNotFound(RoomError):
    status = 404


class Conflict(RoomError):
    status = 409


class Invalid(RoomError):
    status = 422


class Unauthorized(RoomError):
    status = 401


class Forbidden(RoomError):
    status = 403


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def normalize_code(code: str) -> str:
    return code.strip().upper()


def clean_name(name: str) -> str:
    """A name as shown: trimmed, inner runs of spaces folded."""
    return " ".join(name.split())


def name_key(name: str) -> str:
    return clean_name(name).casefold()


@dataclass(slots=True)
class SeatInfo:
    position: int
    name: str
    is_bot: bool
    bot_style: str | None
    lang: str
    token_hash: str
    row_id: int

    def public(self) -> JSON:
        return {"seat": self.position, "name": self.name, "bot": self.is_bot}


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

    def engine_seat(self, position: int) -> int | None:
        """The engine seat a room seat plays in this match; None if it only watches."""
        return self.players.index(position) if position in self.players else None

    def result(self) -> JSON:
        """This finished match as a tournament result."""
        return {"game": self.game, "outcome": self.outcome, "players": list(self.players)}

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
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    bot_task: asyncio.Task[None] | None = None
    timer_task: asyncio.Task[None] | None = None

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
        if match is None or match.status != "playing":
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
        table = standings(plan, self.results, len(self.seats)) if self.seats else []
        colours = _kept_colours(self.results, [s.position for s in self.seats])
        for row in table:  # Heirs colours stay all tournament long (H20.1)
            row["colour"] = None if colours is None else colours[row["seat"]]
        remaining = games_to_play(plan, self.results)
        playing = self.match is not None and self.match.status == "playing"
        upcoming = remaining[1:] if playing else remaining
        next_game: JSON | None = None
        if upcoming:
            next_game = {"game": upcoming[0], "number": len(self.results) + (2 if playing else 1)}
            if plan.pairings and not playing:
                next_game["players"] = list(plan.pairings[next_position(plan, self.results)])
            if plan.catch_up and upcoming[0] == "heirs" and self.results:
                next_game["start_player"] = catch_up_start_player(table, len(self.seats))
        return {
            **plan.to_json(),
            "played": len(self.results),
            "total": len(self.results) + len(remaining),
            "standings": table,
            "next": next_game,
            "over": not remaining and not playing,
            "games_played": [r["game"] for r in self.results],
        }


Listener = Callable[[LiveRoom], Awaitable[None]]


class RoomService:
    """Creates rooms, seats players, applies orders; tells ``listener`` after every change."""

    def __init__(self, db: Engine, bot_delay: float = 1.0) -> None:
        self.db = db
        self.bot_delay = bot_delay
        self._rooms: dict[str, LiveRoom] = {}
        self._listeners: list[Listener] = []
        self._broadcasts: set[asyncio.Task[None]] = set()
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
            rules = get_rules(game)
            plan = None if room.tournament is None else Plan.from_stored(room.tournament)
            results = [
                {"game": m.game or room.game, "outcome": m.outcome, "players": _players(m)}
                for m in matches
                if plan is not None and m.status == "finished"
            ]
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
                seats=[_seat_info(s) for s in seats],
                match=None if match is None else _live_match(rules, match, game),
                paused=room.paused,
            )

    async def recover(self) -> None:
        """After a start: wake the bots of every room that was being played."""
        with Session(self.db) as session:
            codes = session.exec(select(Room.code).where(Room.status == "playing")).all()
        for code in codes:
            with contextlib.suppress(RoomNotFound):
                live = await self.room(code)
                self._schedule_bots(live)
                self._schedule_timer(live)

    async def close(self) -> None:
        self._closing = True
        tasks = [
            task
            for r in self._rooms.values()
            for task in (r.bot_task, r.timer_task)
            if task is not None
        ]
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
            self._close_idle_rooms(session)
            taken = set(
                session.exec(select(Room.code).where(col(Room.status).in_(OPEN_STATUSES))).all()
            )
            code = _new_code(taken)
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

    def _close_idle_rooms(self, session: Session) -> None:
        cutoff = utcnow() - IDLE_ROOM_LIFETIME
        idle = session.exec(
            select(Room).where(col(Room.status).in_(OPEN_STATUSES), Room.updated_at < cutoff)
        ).all()
        for room in idle:
            room.status = "closed"
            session.add(room)
            self._rooms.pop(room.code, None)

    async def join(self, code: str, name: str, lang: str = "en") -> tuple[int, str]:
        """Seat a player by name. Returns the seat number and the player's secret token."""
        shown = clean_name(name)
        if not shown:
            raise Invalid("Please enter your name.", code="name_empty")
        if len(shown) > NAME_MAX:
            raise Invalid(f"Names are at most {NAME_MAX} characters.", code="name_too_long")
        live = await self.room(code)
        async with live.lock:
            return self._add_seat(live, shown, is_bot=False, bot_style=None, lang=lang)

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
        self, live: LiveRoom, name: str, *, is_bot: bool, bot_style: str | None, lang: str = "en"
    ) -> tuple[int, str]:
        if live.status != "lobby":
            raise Conflict("This game has already started.", code="started")
        if len(live.seats) >= live.seat_limits()[1]:
            raise Conflict("This room is full.", code="full")
        key = name_key(name)
        if any(name_key(s.name) == key for s in live.seats):
            raise Conflict(
                f"The name {name} is taken in this room. Pick another.", code="name_taken"
            )
        token = secrets.token_urlsafe(24)
        seat = Seat(
            room_id=live.row_id,
            position=len(live.seats),
            name=name,
            name_key=key,
            token_hash=hash_token(token),
            is_bot=is_bot,
            bot_style=bot_style,
            lang=lang if lang in ("en", "cs") else "en",
        )
        with Session(self.db) as session:
            session.add(seat)
            self._touch(session, live)
            session.commit()
            session.refresh(seat)
        live.seats.append(_seat_info(seat))
        self._changed(live)
        return seat.position, token

    async def kick(self, code: str, host_token: str | None, position: int) -> None:
        """In the lobby the seat is freed; during a game a bot takes it over."""
        live = await self.room(code)
        self._require_host(live, host_token)
        async with live.lock:
            target = self._seat_at(live, position)
            with Session(self.db) as session:
                row = session.get(Seat, target.row_id)
                assert row is not None
                if live.status == "lobby":
                    session.delete(row)
                    remaining = [s for s in live.seats if s.position != position]
                    self._renumber(session, remaining)
                    live.seats = remaining
                else:
                    row.is_bot = True
                    row.bot_style = row.bot_style or live.rules.info.bot_styles[0]
                    row.token_hash = hash_token(secrets.token_urlsafe(24))  # the phone is out
                    session.add(row)
                    target.is_bot, target.bot_style = True, row.bot_style
                    target.token_hash = row.token_hash
                self._touch(session, live)
                session.commit()
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
            live.seats = order
            self._changed(live)

    def _renumber(self, session: Session, seats: list[SeatInfo]) -> None:
        for index, seat in enumerate(seats):
            row = session.get(Seat, seat.row_id)
            assert row is not None
            row.position = index
            session.add(row)
            seat.position = index

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
            if match is not None:
                if paused and match.deadline_at is not None:
                    match.timer_left = max(0.0, (match.deadline_at - utcnow()).total_seconds())
                    match.deadline_at = None
                elif not paused and match.timer_left is not None:
                    match.deadline_at = utcnow() + timedelta(seconds=match.timer_left)
                    match.timer_left = None
            with Session(self.db) as session:
                room = session.get(Room, live.row_id)
                assert room is not None
                room.paused = paused
                session.add(room)
                if match is not None:
                    row = session.get(Match, match.row_id)
                    assert row is not None
                    row.deadline_at, row.timer_left = match.deadline_at, match.timer_left
                    session.add(row)
                session.commit()
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
            match.ready_seats = sorted(ready)
            if len(ready) < len(live.seats):
                with Session(self.db) as session:
                    row = session.get(Match, match.row_id)
                    assert row is not None
                    row.ready_seats = match.ready_seats
                    session.add(row)
                    session.commit()
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
        """At the start: a duel game with more than two entrants becomes a round robin, one
        pairing per game, played on the same board while the others watch."""
        if len(live.seats) <= 2 or any(game not in DUEL_GAMES for game in plan.games):
            return plan
        pairings = round_robin(len(live.seats))
        fixed = Plan((plan.games[0],) * len(pairings), plan.final_double, False, pairings)
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
            game = games_to_play(plan, live.results)[0]
            if plan.pairings:
                players = list(plan.pairings[next_position(plan, live.results)])
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
        if game != live.game:
            live.game, live.rules = game, get_rules(game)
        seed = secrets.randbits(62)
        number = 1 if live.match is None else live.match.number + 1
        state = live.rules.setup(len(players), seed, game_options(options))
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
            state=live.rules.to_json(state),
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
        live.status = "playing"
        live.match = match
        self._changed(live)

    # ---------------------------------------------------------------- orders

    async def submit(self, code: str, token: str | None, order: Any) -> None:
        """Apply a seat's order. Committed to the database before this returns."""
        live = await self.room(code)
        async with live.lock:
            seat = live.seat_by_token(token)
            if seat is None:
                raise Unauthorized("This seat's token is not valid here.", code="bad_token")
            self._apply(live, seat, order)

    def _apply(self, live: LiveRoom, seat: SeatInfo, order: Any, by_timer: bool = False) -> None:
        match = live.match
        if match is None or match.status != "playing":
            raise Conflict("There is no game running in this room.", code="not_playing")
        if not isinstance(order, Mapping):
            raise Invalid("An order must be a JSON object.", code="malformed")
        rules = live.rules
        engine_seat = match.engine_seat(seat.position)
        if engine_seat is None:
            raise Conflict("You are watching this game; your turn comes later.", code="watching")
        try:
            state = rules.submit(match.state, engine_seat, order)
        except NotYourTurn as refusal:
            raise Conflict(refusal.message, code=refusal.code) from refusal
        except IllegalOrder as refusal:
            raise Invalid(refusal.message, code=refusal.code) from refusal
        events: list[Event] = []
        while rules.ready(state) and rules.outcome(state) is None:
            state, new_events = rules.resolve(state)
            events.extend(new_events)
        outcome = rules.outcome(state)
        previous_timer = (match.deadline_at, match.timer_left)
        if outcome is not None:
            match.deadline_at = match.timer_left = None
        elif events:  # a resolution starts a new round of decisions, with a fresh timer
            self._restart_timer(live, match)
        with Session(self.db) as session:
            session.add(
                OrderLog(
                    match_id=match.row_id,
                    seq=match.version + 1,
                    seat=engine_seat,
                    by_bot=seat.is_bot or by_timer,
                    order=dict(order),
                )
            )
            row = session.get(Match, match.row_id)
            assert row is not None
            row.state = rules.to_json(state)
            row.version = match.version + 1
            row.updated_at = utcnow()
            if events:
                row.recent_events = [e.to_json() for e in events]
            if outcome is not None:
                row.status, row.outcome = "finished", outcome
            row.deadline_at, row.timer_left = match.deadline_at, match.timer_left
            session.add(row)
            self._touch(session, live, status="finished" if outcome is not None else None)
            try:
                session.commit()
            except Exception:
                match.deadline_at, match.timer_left = previous_timer
                raise
        match.state, match.version = state, match.version + 1
        if events:
            match.recent_events = events
        if outcome is not None:
            match.status, match.outcome = "finished", outcome
            live.status = "finished"
            if live.tournament is not None:
                live.results.append(match.result())
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
                            match.state, engine_seat, seat.bot_style or "default"
                        )
                        self._apply(live, seat, order)
        except asyncio.CancelledError:
            raise
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
        timer = match.timer
        if timer is None:
            match.deadline_at = match.timer_left = None
        elif live.paused:
            match.deadline_at, match.timer_left = None, timer
        else:
            match.deadline_at, match.timer_left = utcnow() + timedelta(seconds=timer), None

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
        except asyncio.CancelledError:
            raise
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
        return live.rules.bot_order(live.match.state, engine_seat, seat.bot_style or "default")

    # ---------------------------------------------------------------- views

    def board_payload(self, live: LiveRoom) -> JSON:
        """The board's view of the room: public information only."""
        payload = self._room_payload(live)
        match = live.match
        payload["view"] = None if match is None else live.rules.view(match.state, None)
        payload["events"] = [] if match is None else events_for(match.recent_events, None)
        return payload

    def seat_payload(self, live: LiveRoom, seat: SeatInfo) -> JSON:
        """One seat's private view of the room, with what it must decide now."""
        payload = self._room_payload(live)
        match = live.match
        engine_seat = None if match is None else match.engine_seat(seat.position)
        payload["you"] = {
            "seat": seat.position,
            "name": seat.name,
            "lang": seat.lang,
            "player": engine_seat,
        }
        if match is None:
            payload["view"], payload["prompt"], payload["events"] = None, None, []
        else:  # a seat that sits this match out watches it like the board
            payload["view"] = live.rules.view(match.state, engine_seat)
            payload["prompt"] = (
                None if engine_seat is None else live.rules.prompt(match.state, engine_seat)
            )
            payload["events"] = events_for(match.recent_events, engine_seat)
        return payload

    def _room_payload(self, live: LiveRoom) -> JSON:
        match = live.match
        info = live.rules.info
        least, most = live.seat_limits()
        names = {s.position: s for s in live.seats}
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
            "status": live.status,
            "seats": [s.public() for s in live.seats],
            "match": None if match is None else match.number,
            "version": None if match is None else match.version,
            "to_act": live.to_act(),
            "outcome": None if match is None else match.outcome,
            "ready": [] if match is None else match.ready_seats,
            "options": dict(live.options),
            "paused": live.paused,
            "deadline": None
            if match is None or match.deadline_at is None
            else match.deadline_at.isoformat(),
            "timer_left": None if match is None else match.timer_left,
        }

    async def set_language(self, code: str, token: str | None, lang: str) -> None:
        live = await self.room(code)
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
        """Tell the listeners (the hub) and wake the bots."""
        for listener in self._listeners:
            task = asyncio.get_running_loop().create_task(listener(live))
            # The loop keeps only weak references to tasks: hold each broadcast until done.
            self._broadcasts.add(task)
            task.add_done_callback(self._broadcasts.discard)
        self._schedule_bots(live)
        self._schedule_timer(live)


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


def _new_code(taken: set[str]) -> str:
    while True:
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
        if code not in taken:
            return code


def _seat_info(seat: Seat) -> SeatInfo:
    assert seat.id is not None
    return SeatInfo(
        position=seat.position,
        name=seat.name,
        is_bot=seat.is_bot,
        bot_style=seat.bot_style,
        lang=seat.lang,
        token_hash=seat.token_hash,
        row_id=seat.id,
    )


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


def _limits(plan: Plan) -> tuple[int, int]:
    infos = [get_rules(game).info for game in set(plan.games)]
    if len(infos) == 1 and plan.games[0] in DUEL_GAMES:
        return 2, 8
    return max(i.min_players for i in infos), min(i.max_players for i in infos)


def _live_match(rules: GameRules, match: Match, game: str) -> LiveMatch:
    assert match.id is not None
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
    )


def _aware(moment: datetime | None) -> datetime | None:
    """SQLite hands datetimes back without their zone; every time here is UTC."""
    if moment is None or moment.tzinfo is not None:
        return moment
    return moment.replace(tzinfo=UTC)

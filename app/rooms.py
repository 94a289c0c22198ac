"""The room service: the one place that changes a room or a match.

Every change runs under the room's lock: load, call the engine, write the order log and the
new snapshot in one transaction, and only then acknowledge and broadcast. The app never sends
raw state anywhere: payloads are built from ``rules.view`` and ``rules.prompt`` alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from itertools import product
from typing import Any

from sqlalchemy import Table, bindparam, delete
from sqlalchemy.engine import Engine
from sqlalchemy.sql.expression import Executable
from sqlmodel import Session, col, select

from app import i18n, names, proofs
from app.clock import Clock, SystemClock
from app.cluster import OneProcess
from app.errors import (
    Conflict,
    Forbidden,
    Invalid,
    RoomNotFound,
    TooManyTries,
    Unauthorized,
    Unavailable,
)
from app.live import (
    NIGHT_GAMES,
    ROOM_OPTIONS,
    Change,
    Listener,
    LiveMatch,
    LiveRoom,
    RanOut,
    ResolutionRecord,
    SealedOrder,
    SeatInfo,
    as_aware,
    duel_games,
    game_options,
    hash_token,
    live_match_of,
    night_game_options,
    night_seat_limits,
    players_of,
    seat_info_of,
    timed_out_seats,
    timer_marks,
)
from app.models import Match, OrderLog, Prediction, Resolution, Room, Seat, utcnow
from app.payloads import Payloads
from app.ratelimit import Throttle
from app.scheduler import Scheduler
from app.store import Statements, Store
from engine.core import (
    JSON,
    IllegalOrder,
    NextMatch,
    NotYourTurn,
    PlayedMatch,
    advance,
    events_for,
    replay_resolutions,
)
from engine.registry import KNOWN_GAMES, available_games, get_rules
from engine.tournament import (
    Plan,
    catch_up_start_player,
    games_to_play,
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
ROOM_TOUCH_EVERY = timedelta(minutes=1)
"""How stale a playing room's ``updated_at`` may be: a seal writes it only this often, as
only housekeeping reads it (a room idle for ``IDLE_ROOM_LIFETIME``)."""
HOUSEKEEPING_EVERY = 600.0
"""Seconds between two housekeeping passes."""
HOUSEKEEPING_BATCH = 200
CODE_TRIES = 32
RECLAIM_LIMIT = "5/10 minutes"
"""Wrong seat PINs allowed per seat before reclaiming it answers 429."""
OPEN_STATUSES = ("lobby", "playing", "finished")
ORDERS: Table = OrderLog.__table__  # type: ignore[attr-defined]
RESOLUTIONS: Table = Resolution.__table__  # type: ignore[attr-defined]
MATCHES: Table = Match.__table__  # type: ignore[attr-defined]
ROOMS: Table = Room.__table__  # type: ignore[attr-defined]
# The hot path's statements, built once: building one and working out its cache key took
# longer than SQLAlchemy's run of the compiled statement (bench/load.py, under cProfile).
INSERT_ORDER = ORDERS.insert()
INSERT_RESOLUTION = RESOLUTIONS.insert()
UPDATE_MATCH = MATCHES.update().where(MATCHES.c.id == bindparam("match_row_id"))
"""Sets the given columns of the match whose id is ``match_row_id``."""
UPDATE_ROOM = ROOMS.update().where(ROOMS.c.id == bindparam("room_row_id"))
"""Sets the given columns of the room whose id is ``room_row_id``."""


@dataclass(frozen=True, slots=True)
class Seated:
    """A player's new seat: its number, the secret token and the PIN to come back with."""

    seat: int
    token: str
    pin: str


@dataclass(frozen=True, slots=True)
class Housekeeping:
    """What one housekeeping pass did."""

    closed: int
    deleted: int


def normalize_code(code: str) -> str:
    return code.strip().upper()


def clean_name(name: str) -> str:
    """A name as shown: NFKC, trimmed, inner runs of spaces folded."""
    return names.normalize(name)


def name_key(name: str) -> str:
    """What two names in one room must not share (their confusable skeleton)."""
    return names.name_key(name)


class RoomService:
    """Creates rooms, seats players, applies orders; tells ``listener`` after every change."""

    def __init__(
        self,
        db: Engine,
        bot_delay: float = 1.0,
        step_seconds: float = 1.6,
        prediction_seconds: float = 0.0,
        away_seconds: float = 10.0,
        idle_after: timedelta = IDLE_ROOM_LIFETIME,
        keep_for: timedelta = KEEP_CLOSED_FOR,
        housekeeping_every: float = HOUSEKEEPING_EVERY,
        clock: Clock | None = None,
        cluster: OneProcess | None = None,
    ) -> None:
        self.db = db
        self.cluster = cluster or OneProcess()
        """How this process shares the rooms with others (app/cluster.py)."""
        self.away_after = timedelta(seconds=away_seconds)
        self.idle_after, self.keep_for = idle_after, keep_for
        self.housekeeping_every = housekeeping_every
        self._housekeeping: asyncio.Task[None] | None = None
        self.clock: Clock = clock or SystemClock()
        self.board_watching: Callable[[str], bool] = lambda _code: False
        """Whether a board of this room is connected (the hub answers); no board, no show."""
        self._rooms: dict[str, LiveRoom] = {}
        self._listeners: list[Listener] = []
        self._wrong_pins = Throttle(RECLAIM_LIMIT)
        self._load_lock = asyncio.Lock()
        self.store = Store(db)
        self.payloads = Payloads(step_seconds, self.clock)
        self.scheduler = Scheduler(
            self,
            self.clock,
            bot_delay=bot_delay,
            step_seconds=step_seconds,
            prediction_seconds=prediction_seconds,
        )

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
                revision = await self.cluster.loading(code)
                live = self._load(code)
                live.revision = revision
                self._rooms[code] = live  # before any wait: news of it may come meanwhile
                await self.cluster.presence_of(live)
                self.scheduler.schedule_show(live)  # a show stored before a restart goes on
        return live

    def hold(self, live: LiveRoom) -> contextlib.AbstractAsyncContextManager[Any]:
        """The room to oneself for one command, its newest state in memory: every change
        runs under it."""
        return self.cluster.hold(live)

    def loaded(self, code: str) -> LiveRoom | None:
        """The room if this process holds a copy of it."""
        return self._rooms.get(code)

    def loaded_rooms(self) -> list[LiveRoom]:
        return list(self._rooms.values())

    def playing_codes(self) -> list[str]:
        """Codes of the rooms being played (their bots and timers need a driver)."""
        with Session(self.db) as session:
            return list(session.exec(select(Room.code).where(Room.status == "playing")).all())

    def codes_to_drive(self) -> list[str]:
        """Codes of the rooms with something still to run: those being played, and those
        whose board still plays the last round of a game out (its end waits for it)."""
        with Session(self.db) as session:
            showing = (
                select(Room.code)
                .join(Match, col(Match.room_id) == col(Room.id))
                .where(col(Room.status).in_(OPEN_STATUSES), col(Match.show_started_at).is_not(None))
            )
            return sorted(set(self.playing_codes()) | set(session.exec(showing).all()))

    def reload(self, live: LiveRoom) -> None:
        """Bring the copy in memory to the stored room (another process changed it), in
        place: sockets, tasks and the lock hold on to this object. What only this process
        knows stays: its sockets and the running match's object."""
        fresh = self._load(live.code)
        if fresh.row_id != live.row_id:  # closed, and its code given to a new room since
            raise RoomNotFound(f"Room {live.code} was closed.", code="closed")
        sockets = {s.row_id: (s.sockets, s.elsewhere, s.away_since) for s in live.seats}
        for seat in fresh.seats:
            if seat.row_id in sockets:
                seat.sockets, seat.elsewhere, seat.away_since = sockets[seat.row_id]
        match, fresh_match = live.match, fresh.match
        if match is not None and fresh_match is not None and match.row_id == fresh_match.row_id:
            for name in LiveMatch.__dataclass_fields__:
                setattr(match, name, getattr(fresh_match, name))
            fresh.match = match
        for name in RELOADED:
            setattr(live, name, getattr(fresh, name))

    def _load(self, code: str) -> LiveRoom:
        if not _valid_code(code):  # before any query: PostgreSQL refuses text with a NUL
            raise RoomNotFound(f"There is no room {code}. Check the code on the board.")
        with Session(self.db) as session:
            room = session.exec(
                select(Room)
                .where(Room.code == code, col(Room.status).in_(OPEN_STATUSES))
                .order_by(col(Room.id).desc())
            ).first()
            if room is None:
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
                    "players": players_of(m),
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
                host_pin=room.host_pin,
                seats=[seat_info_of(s, self.away_after) for s in seats],
                predictions=predictions,
                match=None if match is None else live_match_of(rules, match, game, history, orders),
                paused=room.paused,
                standings_mode=room.standings_mode,
                result_at=as_aware(room.result_at),
            )

    async def recover(self) -> None:
        """After a start: wake the bots of every room that was being played, and start the
        housekeeping that closes idle rooms and deletes old ones."""
        if self._housekeeping is None:
            self._housekeeping = asyncio.get_running_loop().create_task(self._housekeep_forever())
        if self.cluster.shared:
            return  # each room being played is taken over by one process (app/cluster.py)
        for code in self.playing_codes():
            with contextlib.suppress(RoomNotFound):
                live = await self.room(code)
                self.scheduler.wake(live)
            # Loading a room does not wait on anything: let the requests that came meanwhile
            # in between two (the first page does not wait for every room of the evening).
            await asyncio.sleep(0)

    async def close(self) -> None:
        await self.scheduler.close(list(self._rooms.values()))
        if self._housekeeping is not None:
            self._housekeeping.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._housekeeping
        # What was queued is committed before the process goes (its phones were not told yet).
        await self.store.close()

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
            refuse_night_games(options)
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
                    host_pin=new_pin(),
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
                self.cluster.closed(room.code)
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
        while True:
            try:
                self.housekeep()
            except Exception:  # a failed pass is tried again at the next one
                log.exception("housekeeping failed")
            await asyncio.sleep(self.housekeeping_every)

    def forget(self, code: str) -> None:
        """A room closed elsewhere leaves this process too."""
        self._forget(code)

    def _forget(self, code: str) -> None:
        """A closed room leaves memory: its tasks stop, its code may be given out again."""
        self.cluster.let_go(code)
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
        async with self.hold(live):
            pin = new_pin()
            try:
                seat, token = self._add_seat(
                    live, shown, is_bot=False, bot_style=None, lang=lang, pin=pin
                )
            except Conflict as refused:
                if refused.code == "full" and live.status == "lobby":
                    self._turned_away(live, shown)
                raise
            return Seated(seat, token, pin)

    def _turned_away(self, live: LiveRoom, name: str) -> None:
        """The host's board names who a full lobby refused: the host may still seat them
        (a night of a duel game seats more), and they were told only "full"."""
        if name in live.turned_away:
            return
        live.turned_away = [*live.turned_away, name][-TURNED_AWAY_KEPT:]
        self.tell_boards(live)

    async def reclaim(self, code: str, name: str, pin: str) -> Seated:
        """A player's seat on a new device, by name and PIN, at any time (a seat handed to a
        bot too: the bot leaves it at the next decision). The old token stops working, and so
        does the PIN: the seat gets a new one, shown on the new phone and to the host, so a
        PIN read over a shoulder or from the host's board brings the seat back once only."""
        live = await self.room(code)
        async with self.hold(live):
            seat = live.seat_to_reclaim(name)
            if seat is None:
                raise RoomNotFound(
                    f"Nobody called {clean_name(name)} sits in this room.", code="no_such_name"
                )
            self._check_pin(
                (live.code, str(seat.row_id)),
                seat.pin,
                pin,
                too_many="Too many wrong PINs for this seat. Ask the host, or wait a few minutes.",
                wrong="That PIN does not match this seat.",
            )
            token, pin = secrets.token_urlsafe(24), new_pin(unlike=seat.pin)
            with Session(self.db) as session:
                row = session.get(Seat, seat.row_id)
                assert row is not None
                row.token_hash, row.is_bot, row.pin = hash_token(token), False, pin
                row.handed_token_hash = ""  # the phone that watched is signed out too
                session.add(row)
                self._touch(session, live)
                session.commit()
            seat.token_hash, seat.is_bot, seat.pin = hash_token(token), False, pin
            seat.handed_token_hash = ""
            seat.away_since = utcnow()
            self.changed(live)  # the old phone's sockets learn their token is gone
            return Seated(seat.position, token, pin)

    async def reclaim_host(self, code: str, pin: str) -> tuple[str, str]:
        """The host's controls on another screen, by the host's PIN (a TV browser that lost
        its cookies). The old host token stops working, and so does the PIN: the host gets a
        new token and a new PIN (shown on the new screen's board), so a PIN seen over a
        shoulder brings the controls over once only. Returns the token and the new PIN."""
        live = await self.room(code)
        async with self.hold(live):
            if not live.host_pin:
                raise Conflict(
                    "This room was opened before host PINs: its host's controls stay on the "
                    "screen that opened it.",
                    code="no_host_pin",
                )
            self._check_pin(
                (live.code, "host"),
                live.host_pin,
                pin,
                too_many="Too many wrong PINs for the host. Wait a few minutes.",
                wrong="That is not the host's PIN.",
            )
            token, pin = secrets.token_urlsafe(24), new_pin(unlike=live.host_pin)
            with Session(self.db) as session:
                room = session.get(Room, live.row_id)
                assert room is not None
                room.host_token_hash, room.host_pin = hash_token(token), pin
                self._touch(session, live)
                session.commit()
            live.host_token_hash, live.host_pin = hash_token(token), pin
            self.changed(live)  # the old host screen's sockets lose the host's view
            return token, pin

    def _check_pin(
        self, tries: tuple[str, str], expected: str, given: object, *, too_many: str, wrong: str
    ) -> None:
        """Refuse ``given`` unless it is the PIN ``expected``: 403 ``wrong_pin``, counted
        under ``tries``; 429 ``too_many_tries`` once ``RECLAIM_LIMIT`` wrong ones were."""
        wait = self._wrong_pins.wait(*tries)
        if wait is not None:
            raise TooManyTries(too_many, code="too_many_tries", retry_after=wait)
        if not same_pin(expected, given):
            self._wrong_pins.hit(*tries)
            raise Forbidden(wrong, code="wrong_pin")

    def phone_socket(self, live: LiveRoom, row_id: int, opened: bool) -> None:
        """The hub tells of a phone socket opening or closing, by its seat's database row (a
        seat the host moved keeps its row): the board shows who is away."""
        seat = next((s for s in live.seats if s.row_id == row_id), None)
        if seat is None:
            return
        seat.sockets = max(0, seat.sockets + (1 if opened else -1))
        self.cluster.presence(live)
        if seat.sockets == 0 and seat.elsewhere == 0:
            seat.away_since = utcnow()
            # Tell the board again once the seat counts as away.
            loop = asyncio.get_running_loop()
            away = Change(boards_only=True)
            loop.call_later(seat.away_after.total_seconds() + 0.05, self.tell, live, away)
        self.tell(live, Change(boards_only=True))  # phones do not show who is away

    def board_socket(self, live: LiveRoom, opened: bool) -> None:
        """The hub tells of a board socket opening or closing (the other processes count
        boards too: a show is played where a board watches)."""
        live.boards = max(0, live.boards + (1 if opened else -1))
        self.cluster.presence(live)

    async def add_bot(self, code: str, host_token: str | None, style: str | None = None) -> int:
        live = await self.room(code)
        self._require_host(live, host_token)
        styles = live.bot_styles()
        style = style or live.rules.info.bot_styles[0]
        if style not in styles:
            raise Invalid(f"Unknown bot style {style!r}. Choose one of: {', '.join(styles)}.")
        async with self.hold(live):
            taken = {name_key(s.name) for s in live.seats}
            number = 1
            while name_key(names.bot_seat_name(number)) in taken:
                number += 1
            seat, _token = self._add_seat(
                live, names.bot_seat_name(number), is_bot=True, bot_style=style
            )
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
            lang=i18n.normalize_language(lang) or i18n.DEFAULT_LANGUAGE,
            pin=pin,
        )
        with Session(self.db) as session:
            session.add(seat)
            self._touch(session, live)
            session.commit()
            session.refresh(seat)
        live.seats.append(seat_info_of(seat, self.away_after))
        self.changed(live)
        return seat.position, token

    async def kick(self, code: str, host_token: str | None, position: int) -> None:
        """In the lobby the seat is freed; during a game a bot takes it over."""
        live = await self.room(code)
        self._require_host(live, host_token)
        async with self.hold(live):
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
                    if not row.is_bot:  # its phone watches from now on (a seat's own no more)
                        row.handed_token_hash = row.token_hash
                    row.is_bot = True
                    row.bot_style = row.bot_style or live.rules.info.bot_styles[0]
                    row.token_hash = hash_token(secrets.token_urlsafe(24))  # the phone is out
                    session.add(row)
                bot_style, token_hash = row.bot_style, row.token_hash
                handed = row.handed_token_hash
                self._touch(session, live)
                # Memory follows the commit (issue 13.10): a failed one leaves the room as is.
                session.commit()
            if in_lobby:
                _seat_in_order(remaining)
                live.seats = remaining
                live.removed.add(target.token_hash)
            else:
                target.is_bot, target.bot_style, target.token_hash = True, bot_style, token_hash
                target.handed_token_hash = handed
            self.changed(live)

    async def move_seat(self, code: str, host_token: str | None, position: int, to: int) -> None:
        """Move a seat so that the seat order matches the table clockwise (lobby only)."""
        live = await self.room(code)
        self._require_host(live, host_token)
        async with self.hold(live):
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
            self.changed(live)

    def _renumber(self, session: Session, seats: list[SeatInfo]) -> None:
        """Store ``seats`` numbered in their order; the live seats keep their numbers until
        the commit has succeeded (:func:`_seat_in_order`)."""
        for index, seat in enumerate(seats):
            row = session.get(Seat, seat.row_id)
            assert row is not None
            row.position = index
            session.add(row)

    async def set_options(
        self,
        code: str,
        host_token: str | None,
        options: Mapping[str, Any],
        game: str | None = None,
    ) -> dict[str, Any]:
        """Host, in the lobby: change the game's options (rounds, sealing timer, ...).

        ``game``: one of the night's games other than the room's own (its plan's list), whose
        own options these are (Heirs' rounds on a night opened as a duel); the room's options
        (the timer) are set without it."""
        live = await self.room(code)
        self._require_host(live, host_token)
        async with self.hold(live):
            if live.status != "lobby":
                raise Conflict("Options can only change before the game starts.", code="started")
            if game is not None and game != live.lobby_game:
                merged = self._night_game_options(live, game, options)
            else:
                merged = {**live.options, **options}
                merged = {k: v for k, v in merged.items() if v is not None}
                try:
                    check_room_options(merged)
                    refuse_night_games(options)
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
            self.changed(live)
            return dict(merged)

    @staticmethod
    def _night_game_options(
        live: LiveRoom, game: str, options: Mapping[str, Any]
    ) -> dict[str, Any]:
        """The room's options with ``options`` set for ``game``, a game of the night's plan
        other than the room's own; checked as the game is set up with them."""
        plan = live.tournament
        if plan is None or game not in plan.games:
            raise Invalid(
                "Options of another game are for a game of the night's list.", code="bad_game"
            )
        if any(key in ROOM_OPTIONS or key == NIGHT_GAMES for key in options):
            raise Invalid("The room's own options are set without a game.", code="bad_options")
        chosen = {**night_game_options(live.options, game), **options}
        chosen = {k: v for k, v in chosen.items() if v is not None}
        rules = get_rules(game)
        try:
            rules.setup(max(len(live.seats), rules.info.min_players), 0, chosen)
        except (ValueError, TypeError, KeyError) as error:
            raise Invalid(f"Bad options: {error}", code="bad_options") from error
        kept = live.options.get(NIGHT_GAMES)
        night = dict(kept) if isinstance(kept, Mapping) else {}
        if chosen:
            night[game] = chosen
        else:
            night.pop(game, None)
        merged = {k: v for k, v in live.options.items() if k != NIGHT_GAMES}
        if night:
            merged[NIGHT_GAMES] = night
        return merged

    async def set_time_factor(
        self, code: str, host_token: str | None, position: int, factor: float | None
    ) -> None:
        """Host, in the lobby or during a game: more time for one seat (H5.4 per seat). Its
        deadline becomes the round's start plus the timer times ``factor``; None lifts the
        limit for that seat. A change mid-round counts for the round under way."""
        if factor is not None and (isinstance(factor, bool) or factor not in TIME_FACTORS):
            choices = ", ".join(f"{f:g}" for f in TIME_FACTORS)
            raise Invalid(f"More time is one of {choices}, or null (no limit).", code="bad_time")
        live = await self.room(code)
        self._require_host(live, host_token)
        async with self.hold(live):
            target = self._seat_at(live, position)
            if target.is_bot:
                raise Conflict("A bot needs no more time.", code="bot_seat")
            with Session(self.db) as session:
                row = session.get(Seat, target.row_id)
                assert row is not None
                row.time_factor = factor
                session.add(row)
                self._touch(session, live)
                session.commit()
            target.time_factor = factor
            self.changed(live)

    async def set_timer(self, code: str, host_token: str | None, timer: int | None) -> None:
        """Host, in the lobby or during a game: set the room's sealing timer (seconds) or turn
        it off (None). Mid-round the round keeps its start: a longer timer moves every
        deadline on, a shorter one leaves at most the new timer from now, a timer turned on
        starts whole now, one turned off ends them all."""
        try:
            check_room_options({"timer": timer})
        except ValueError as error:
            raise Invalid(f"Bad options: {error}", code="bad_options") from error
        live = await self.room(code)
        self._require_host(live, host_token)
        async with self.hold(live):
            options = {k: v for k, v in live.options.items() if k != "timer"}
            if timer is not None:
                options["timer"] = timer
            match = live.match
            playing = match is not None and match.status == "playing"
            clocks: tuple[dict[str, Any], datetime | None, float | None] | None = None
            if match is not None and playing:
                clocks = self._retimed(live, match, timer)
            with Session(self.db) as session:
                room = session.get(Room, live.row_id)
                assert room is not None
                room.options = options
                room.updated_at = utcnow()
                session.add(room)
                if match is not None and clocks is not None:
                    row = session.get(Match, match.row_id)
                    assert row is not None
                    row.options, row.deadline_at, row.timer_left = clocks
                    session.add(row)
                session.commit()
            live.options = options
            if match is not None and clocks is not None:
                match.options, match.deadline_at, match.timer_left = clocks
            self.changed(live)

    def _retimed(
        self, live: LiveRoom, match: LiveMatch, timer: int | None
    ) -> tuple[dict[str, Any], datetime | None, float | None]:
        """The match's options and clocks once its timer becomes ``timer``."""
        options = {k: v for k, v in match.options.items() if k != "timer"}
        if timer is None:
            return options, None, None
        options["timer"] = timer
        before = match.timer
        if match.showing:  # the next round's timer starts when the show ends
            return options, None, None
        if before is None or (match.deadline_at is None and match.timer_left is None):
            if live.paused:  # held whole until the host resumes
                return options, None, float(timer)
            return options, self.clock.now() + timedelta(seconds=timer), None
        longer = timedelta(seconds=timer - before)
        if timer < before:
            # A shorter timer leaves each player at most the new timer from now: counted
            # from the round's start it timed out at once a player who had been thinking
            # longer than that (30 s set two minutes into a round).
            if match.deadline_at is not None:
                now = self.clock.now()
                return options, min(match.deadline_at, now + timedelta(seconds=timer)), None
            assert match.timer_left is not None
            return options, None, min(match.timer_left, float(timer))
        if match.deadline_at is not None:
            return options, match.deadline_at + longer, None
        assert match.timer_left is not None
        return options, None, match.timer_left + longer.total_seconds()

    async def set_paused(self, code: str, host_token: str | None, paused: bool) -> None:
        """Host: stop or restart the clock. While paused the sealing timer and the bots wait;
        phones may still seal, and the board holds its animation."""
        live = await self.room(code)
        self._require_host(live, host_token)
        async with self.hold(live):
            if live.paused == paused:
                return
            match = live.match
            now = self.clock.now()
            clocks = None if match is None else _paused_clocks(match, paused, now)
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
            self.changed(live)

    async def start(self, code: str, host_token: str | None) -> None:
        live = await self.room(code)
        self._require_host(live, host_token)
        async with self.hold(live):
            if live.status != "lobby":
                raise Conflict("This game has already started.", code="started")
            least, most = live.seat_limits()
            if len(live.seats) < least:
                raise Conflict(
                    f"{live.rules.info.name} needs at least {least} players; "
                    f"{len(live.seats)} joined so far.",
                    code="too_few_players",
                )
            if len(live.seats) > most:
                # The room filled up for a tournament night the host then called off.
                raise Conflict(
                    f"{live.rules.info.name} seats at most {most} players; {len(live.seats)} "
                    "joined. Remove some, or set up a tournament night.",
                    code="too_many_players",
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
        async with self.hold(live):
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
                self.changed(live)
                return
            self._start_match(live)

    async def set_tournament(
        self, code: str, host_token: str | None, tournament: Mapping[str, Any] | None
    ) -> JSON | None:
        """Host, in the lobby: turn the room into a tournament (or back into one game)."""
        live = await self.room(code)
        self._require_host(live, host_token)
        async with self.hold(live):
            if live.status != "lobby":
                raise Conflict("The tournament is set before the first game.", code="started")
            plan = None if tournament is None else _plan(tournament, live.game)
            if plan is not None and len(live.seats) > night_seat_limits(plan)[1]:
                raise Conflict("More players sit here than these games allow.", code="full")
            with Session(self.db) as session:
                room = session.get(Room, live.row_id)
                assert room is not None
                room.tournament = None if plan is None else plan.to_json()
                session.add(room)
                session.commit()
            live.tournament = plan
            self.changed(live)
            return live.tournament_json()

    def _fix_schedule(self, live: LiveRoom, plan: Plan) -> Plan:
        """At the start: every game of the night seats everyone it can; a duel game with
        more than two entrants becomes a round robin, one pairing per match, played on the
        same board while the others watch."""
        fixed = plan.seated(len(live.seats), duel_games(plan))
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
        options = (
            game_options(live.options)
            if game == live.lobby_game
            else night_game_options(live.options, game)
        )
        options = {**options, **{k: live.options[k] for k in ROOM_OPTIONS if k in live.options}}
        start_player = None
        if plan is not None and plan.catch_up and live.results:
            table = standings(plan, live.results, len(live.seats))
            start_player = catch_up_start_player(table, len(live.seats))
        played = None
        if previous is not None:
            played = PlayedMatch(
                previous.game, tuple(previous.players), previous.options, previous.outcome
            )
        night = tuple(live.results) if plan is not None else ()
        coming = NextMatch(game, tuple(players), played, night, start_player)
        # What the game's rules carry from one match to the next (who starts, colours).
        options.update(get_rules(game).next_match_options(coming))
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
        self.scheduler.restart_timer(live, match)
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
        live.turned_away = []
        self.changed(live)

    # ---------------------------------------------------------------- orders

    async def submit(
        self,
        code: str,
        token: str | None,
        order: Any,
        version: object = None,
        match_number: object = None,
    ) -> bool:
        """Apply a seat's order. Committed to the database before this returns.

        ``version`` (and ``match_number``) say which view the order sheet was drawn from; a
        sheet for an earlier decision is refused with 409 ``stale``. Without them the order
        is judged as it comes (API clients). ``False``: nothing was done, the order being
        one the seat sealed from that very sheet already (``LiveMatch.repeats_seal``)."""
        drawn_at = _drawn_at(version, match_number)
        live = await self.room(code)
        async with self.hold(live):
            seat = live.seat_by_token(token)
            if seat is None:
                raise Unauthorized("This seat's token is not valid here.", code="bad_token")
            match = live.match
            if (
                drawn_at is not None
                and match is not None
                and drawn_at.match in (None, match.number)
                and match.repeats_seal(seat.position, order, drawn_at.version)
            ):
                return False
            await self.apply_order(live, seat, order, drawn_at=drawn_at)
            return True

    async def apply_order(
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
        sealed = SealedOrder(
            seq,
            seat.position,
            dict(order),
            salt,
            commitment,
            by_timer,
            by_bot=seat.is_bot and not by_timer,
        )
        events = [event for step in steps for event in step.events]
        record = None
        if steps:
            record = ResolutionRecord(
                number=len(match.history) + 1,
                round=steps[0].round,
                first_seq=match.resolved_seq() + 1,
                last_seq=seq,
                events=events,
                timed_out=timed_out_seats(
                    (match.players.index(o.position), o.by_timer)
                    for o in [*match.pending_orders(), sealed]
                ),
            )
        outcome = rules.outcome(state)
        show = bool(steps) and self.scheduler.wants_show(live, match, steps)
        before = (match.deadline_at, match.timer_left, match.show_started_at, match.show_elapsed)
        if outcome is not None or show:
            # The next decision's timer starts once the board has played the round out.
            match.deadline_at = match.timer_left = None
        elif steps:  # a resolution starts a new round of decisions, with a fresh timer
            self.scheduler.restart_timer(live, match)
        if show:
            match.show_started_at, match.show_elapsed = (
                (None, 0.0) if live.paused else (self.clock.now(), None)
            )
        # The state is stored at resolutions only: between two, the order log holds what
        # changed, and loading a room submits those orders again (the engine is pure).
        snapshot = bool(steps) or outcome is not None
        events_json = [e.to_json() for e in events]  # the match's and the resolution's rows
        match_row: JSON = {}
        if snapshot:
            match_row = {
                "state": rules.to_json(state),
                "version": seq,
                "updated_at": utcnow(),
                "deadline_at": match.deadline_at,
                "timer_left": match.timer_left,
                "show_started_at": match.show_started_at,
                "show_elapsed": match.show_elapsed,
            }
            if events:
                match_row["recent_events"] = events_json
            if outcome is not None:
                match_row.update(status="finished", outcome=outcome)
        order_row: JSON = {
            "match_id": match.row_id,
            "seq": seq,
            "seat": engine_seat,
            "by_bot": seat.is_bot or by_timer,
            "by_timer": by_timer,
            "order": sealed.order,
            "salt": salt,
            "commitment": commitment,
            "created_at": utcnow(),
        }
        resolution_row: JSON | None = None
        if record is not None:
            resolution_row = {
                "match_id": match.row_id,
                "number": record.number,
                "round": record.round,
                "first_seq": record.first_seq,
                "last_seq": record.last_seq,
                "events": events_json,
                "created_at": utcnow(),
            }
        now = self.clock.now()
        room_row: JSON = {}
        if live.touched_at is None or now - live.touched_at >= ROOM_TOUCH_EVERY:
            room_row["updated_at"] = now
        result_at = None if show else now
        if outcome is not None:
            room_row.update(
                updated_at=now, status="finished", standings_mode="auto", result_at=result_at
            )

        # Plain table statements: the ORM's bulk paths cost more than the SQL itself.
        write: list[tuple[Executable, JSON]] = [(INSERT_ORDER, order_row)]
        if resolution_row is not None:
            write.append((INSERT_RESOLUTION, resolution_row))
        if match_row:
            write.append((UPDATE_MATCH, {**match_row, "match_row_id": match.row_id}))
        if room_row:
            write.append((UPDATE_ROOM, {**room_row, "room_row_id": live.row_id}))
        try:
            await self.store.write(Statements(write))
        except Exception:
            match.deadline_at, match.timer_left = before[0], before[1]
            match.show_started_at, match.show_elapsed = before[2], before[3]
            raise
        if "updated_at" in room_row:
            live.touched_at = now
        if show and match.show_started_at is not None:
            # The show starts when the room hears of it, not before a slow commit.
            match.show_started_at = self.clock.now()
        state_before = match.state
        match.state, match.version = state, seq
        moved, narrowed = set(), set()
        for other_seat, before_prompt in enumerate(prompts_before):
            # A resolution opens a new round for everyone, even when its prompt looks alike.
            prompt = rules.prompt(state, other_seat)
            if steps or prompt != before_prompt:
                moved.add(other_seat)
                if steps or not _same_decision(before_prompt, prompt):
                    match.decided_since[match.players[other_seat]] = seq
                elif other_seat != engine_seat:
                    narrowed.add(other_seat)
        if record is not None:
            match.recent_events, match.steps = events, steps
            match.step_views.clear()
            match.history.append(record)
            match.sealed = [o for o in match.sealed if o.seq >= record.first_seq]
        match.sealed.append(sealed)
        match.ran_out.pop(seat.position, None)  # it sealed again
        if record is not None:
            for played in match.last_resolution_orders():
                if played.by_timer:
                    match.ran_out[played.position] = RanOut(record.round, played.order)
        if outcome is not None:
            match.status, match.outcome = "finished", outcome
            live.status = "finished"
            live.standings_mode, live.result_at = "auto", result_at
            if live.tournament is not None:
                live.results.append(match.result())
        # In a round of sealed orders, a seal that moves nobody else on changes no other
        # view but for the game's mark of a sealed seat (the order is secret): the others
        # only hear that this seat has sealed; a seat whose options it narrowed (Heirs'
        # setup: a colour taken) hears its new prompt too.
        quiet = (
            rules.info.simultaneous
            and not steps
            and outcome is None
            and moved <= {engine_seat, *narrowed}
        )
        change = Change()
        if quiet:
            narrowed_seats = frozenset(match.players[other] for other in narrowed)
            change = Change(sealed=seat.position, before=state_before, narrowed=narrowed_seats)
        self.changed(live, change)

    # ---------------------------------------------------------------- the show

    async def end_show(self, live: LiveRoom, match: LiveMatch, fast_forward: bool = False) -> None:
        """The board has played the round out: the next decision opens, with its timer."""
        playing = match.status == "playing"
        deadline_at, timer_left = (
            self.scheduler.fresh_timer(live, match)
            if playing
            else (match.deadline_at, match.timer_left)
        )
        row = {
            "show_started_at": None,
            "show_elapsed": None,
            "deadline_at": deadline_at,
            "timer_left": timer_left,
            "fast_forward": match.fast_forward or fast_forward,
        }
        # The last round played out: the result is on the board from now on.
        result_at = live.result_at if playing else self.clock.now()

        write: list[tuple[Executable, JSON]] = [
            (UPDATE_MATCH, {**row, "match_row_id": match.row_id})
        ]
        if not playing:
            write.append((UPDATE_ROOM, {"result_at": result_at, "room_row_id": live.row_id}))
        await self.store.write(Statements(write))
        match.show_started_at = match.show_elapsed = None
        match.step_views.clear()
        match.deadline_at, match.timer_left = deadline_at, timer_left
        match.fast_forward = match.fast_forward or fast_forward
        live.result_at = result_at
        self.changed(live)

    async def skip_show(self, code: str, host_token: str | None, to_the_end: bool = False) -> None:
        """Host: end the board's show of this round now; ``to_the_end`` plays every later
        round of the match at once too (bots-only rounds included)."""
        live = await self.room(code)
        self._require_host(live, host_token)
        async with self.hold(live):
            match = live.match
            if match is None:
                raise Conflict("There is no game in this room yet.", code="not_playing")
            if match.showing:
                await self.end_show(live, match, fast_forward=to_the_end)
            elif to_the_end:
                with Session(self.db) as session:
                    row = session.get(Match, match.row_id)
                    assert row is not None
                    row.fast_forward = True
                    session.add(row)
                    session.commit()
                match.fast_forward = True
                self.changed(live)

    # ---------------------------------------------------------------- bots

    # ---------------------------------------------------------------- sealing timer

    # ---------------------------------------------------------------- views

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
        players = players_of(match)
        engine_seat = (
            None
            if seat is None
            else (players.index(seat.position) if seat.position in players else None)
        )
        seats = {s.position: s for s in live.seats}
        names = {position: s.name for position, s in seats.items()}
        steps: list[JSON] = []
        played: list[JSON] = []
        resolving: list[OrderLog] = []
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
            resolving.append(entry)
            played.append(
                {
                    "seat": players[entry.seat],
                    "name": names.get(players[entry.seat], ""),
                    "commitment": entry.commitment,
                    "salt": entry.salt,
                    "order": entry.order,
                }
            )
            # As the live log: whose time ran out, before the resolution's events.
            marks = timer_marks(timed_out_seats((o.seat, o.by_timer) for o in resolving))
            for k, step in enumerate(resolved):
                events = events_for(step.events, engine_seat)
                steps.append(
                    {
                        "round": step.round,
                        "events": [*marks, *events] if k == 0 else events,
                        "view": rules.view(step.state, engine_seat),
                        "proofs": played if k == 0 else [],
                    }
                )
            if resolved:
                played, resolving = [], []
        if len(steps) > 1:
            # The position before the first order is where the first round's decisions are
            # made: it opens that round (Setup in Heirs; Turn 1 in a game with no setup
            # round, where it stood alone as a "Turn 0" nobody played).
            steps[0]["round"] = steps[1]["round"]
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
        in a game with several endings, how. It can change until the match's first move
        is played, and stays hidden until the match is over."""
        live = await self.room(code)
        async with self.hold(live):
            seat = live.seat_by_token(token)
            if seat is None:
                raise Unauthorized("This seat's token is not valid here.", code="bad_token")
            target = live.prediction_target(seat)
            if target is None:
                raise Conflict(
                    "Predictions are for watchers, before the match's first move.",
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
            self.changed(live)

    async def set_standings(self, code: str, host_token: str | None, shown: bool) -> None:
        """Host: show the standings now, or dismiss them (back to the result)."""
        live = await self.room(code)
        self._require_host(live, host_token)
        async with self.hold(live):
            mode = "shown" if shown else "hidden"

            await self.store.write(
                Statements([(UPDATE_ROOM, {"standings_mode": mode, "room_row_id": live.row_id})])
            )
            live.standings_mode = mode
            self.changed(live)

    async def set_language(self, code: str, token: str | None, lang: str) -> None:
        live = await self.room(code)
        # Under the lock (issue 13.10): a kick or a come-back racing it must not leave the
        # language on a seat row that changed hands.
        async with self.hold(live):
            seat = live.seat_by_token(token)
            if seat is None:
                raise Unauthorized("This seat's token is not valid here.", code="bad_token")
            if lang not in i18n.LANGUAGES:
                raise Invalid(f"Languages: {', '.join(i18n.LANGUAGES)}.", code="bad_lang")
            with Session(self.db) as session:
                row = session.get(Seat, seat.row_id)
                assert row is not None
                row.lang = lang
                session.add(row)
                session.commit()
            seat.lang = lang
            self.cluster.changed(live)  # the other processes' pages speak it too

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

    def changed(self, live: LiveRoom, change: Change | None = None) -> None:
        """Tell the listeners (the hub) and the other processes, and wake the bots, the
        timer and the show."""
        self.cluster.changed(live)
        self.changed_elsewhere(live, change)

    def changed_elsewhere(self, live: LiveRoom, change: Change | None = None) -> None:
        """Another process changed the room (this copy is reloaded): tell the listeners and
        wake the bots, the timer and the show."""
        self.tell(live, change or Change())
        self.scheduler.wake(live)

    def tell_boards(self, live: LiveRoom) -> None:
        """Only who is connected changed: the boards show it."""
        self.tell(live, Change(boards_only=True))

    def watched(self, live: LiveRoom) -> bool:
        """Whether a board of the room is connected to any process (no board, no show)."""
        return live.boards_elsewhere > 0 or self.board_watching(live.code)

    def tell(self, live: LiveRoom, change: Change | None = None) -> None:
        """Tell the listeners at once, from the room as the change left it: the hub
        queues every socket's frames there and then (nothing it does waits)."""
        live.changes += 1
        change = replace(change or Change(), number=live.changes)
        for listener in self._listeners:
            try:
                listener(live, change)
            except Exception:  # the change is made and kept: a listener's fault is its own
                log.exception("a listener failed on a change of room %s", live.code)


RELOADED = (
    "lobby_game",
    "game",
    "rules",
    "options",
    "status",
    "host_token_hash",
    "host_pin",
    "seats",
    "match",
    "paused",
    "tournament",
    "results",
    "predictions",
    "standings_mode",
    "result_at",
)
"""What a copy of a room takes from the stored room when it is loaded again."""

TURNED_AWAY_KEPT = 4
"""How many names a full lobby refused its board shows (the newest)."""

TIMER_RANGE = (1, 3600)

TIME_FACTORS = (1.0, 1.5, 2.0, 3.0)
"""How much more time the host may give one seat (None: no limit for it)."""


def refuse_night_games(options: Mapping[str, Any]) -> None:
    """The night's other games' options come one game at a time, checked as that game is set
    up with them (``set_options`` with ``game``); sent whole, they were stored unchecked and
    refused only when the host pressed Start."""
    if NIGHT_GAMES in options:
        raise ValueError(f"{NIGHT_GAMES} are set one game at a time, with ?game=")


def check_room_options(options: Mapping[str, Any]) -> None:
    timer = options.get("timer")
    if timer is None:
        return
    low, high = TIMER_RANGE
    if isinstance(timer, bool) or not isinstance(timer, int | float) or not low <= timer <= high:
        raise ValueError(f"timer must be a number of seconds from {low} to {high}")


def _valid_code(code: str) -> bool:
    return len(code) == CODE_LENGTH and all(ch in CODE_ALPHABET for ch in code)


def same_pin(expected: str, given: object) -> bool:
    """Whether ``given`` is the PIN ``expected``, compared in constant time, as bytes: a
    typed PIN may hold any character (``compare_digest`` refuses text that is not ASCII)."""
    return secrets.compare_digest(expected.encode(), str(given).strip().encode())


def new_pin(unlike: str = "") -> str:
    """A seat's 4-digit PIN; a new one ``unlike`` the seat's old PIN, so the old stops working."""
    while (pin := f"{secrets.randbelow(10_000):04d}") == unlike:
        pass
    return pin


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


def _same_decision(before: JSON | None, now: JSON | None) -> bool:
    """Whether a seat's prompt after another seat's order is the decision it had, its options
    narrowed (Heirs' setup: a colour taken): the same fields, each the same value or, for a
    list, what is left of it. Then a sheet drawn before still stands, and the engine judges
    its order, which names a taken colour as such. Any other change — a prompt of another
    kind, one that comes or goes, a choice that was not there — is a new decision: a sheet
    drawn before it is stale."""
    if before is None or now is None or before.keys() != now.keys():
        return False
    return all(
        value == before[key] or (isinstance(value, list) and _left_of(value, before[key]))
        for key, value in now.items()
    )


def _left_of(now: list[Any], before: Any) -> bool:
    """Whether ``now`` is ``before`` with some of its items gone, in the same order."""
    if not isinstance(before, list):
        return False
    rest = iter(before)
    return all(any(item == earlier for earlier in rest) for item in now)


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


def _paused_clocks(match: LiveMatch, paused: bool, now: datetime) -> MatchClocks:
    """The match's clocks once the host pauses (they keep what is left) or resumes (they
    run on from there); the match itself is not changed."""
    deadline_at, timer_left = match.deadline_at, match.timer_left
    show_started_at, show_elapsed = match.show_started_at, match.show_elapsed
    if paused and deadline_at is not None:
        # Below zero once the room's time ran out: a seat with more time keeps the rest.
        timer_left = (deadline_at - now).total_seconds()
        deadline_at = None
    elif not paused and timer_left is not None:
        deadline_at, timer_left = now + timedelta(seconds=timer_left), None
    if paused and show_started_at is not None:  # the board holds its show
        show_elapsed, show_started_at = match.show_elapsed_now(now), None
    elif not paused and show_elapsed is not None:
        show_started_at = now - timedelta(seconds=show_elapsed)
        show_elapsed = None
    return MatchClocks(deadline_at, timer_left, show_started_at, show_elapsed)


def _plan(raw: Mapping[str, Any], game: str) -> Plan:
    try:
        return Plan.from_json(raw, game, available_games())
    except ValueError as error:
        raise Invalid(f"Bad tournament: {error}", code="bad_tournament") from error

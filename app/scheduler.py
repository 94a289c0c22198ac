"""What happens in a room by itself, as time passes: the bots' moves, the sealing timer
(H5.4) and the board's show of a resolution, step by step. One task of each kind per room, on
a :class:`~app.clock.Clock` that the tests drive by hand instead of sleeping on the wall clock.
What each of them then changes goes through the room service like any command.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from app.clock import Clock
from app.errors import Unavailable
from app.live import Change, LiveMatch, LiveRoom, SeatInfo
from engine.core import JSON, Rng, Step

if TYPE_CHECKING:
    from app.rooms import RoomService

log = logging.getLogger("pecet.scheduler")

PREDICTION_CHECK = 0.5
"""Seconds between the bots' looks at whether every watcher has predicted (see
``Scheduler._held_for_predictions``)."""
BUSY_RETRIES = 3
"""Tries to end a show when the room stays busy (each waits as long as a command would)."""


class Scheduler:
    """Starts and runs the timed tasks of every room for ``service``."""

    def __init__(
        self,
        service: RoomService,
        clock: Clock,
        *,
        bot_delay: float,
        step_seconds: float,
        prediction_seconds: float = 0.0,
    ) -> None:
        self.service = service
        self.clock = clock
        self.bot_delay = bot_delay
        self.step_seconds = step_seconds
        """How long the board shows each step of a resolution."""
        self.prediction_seconds = prediction_seconds
        """How long the bots hold a match's first move for its watchers' predictions."""
        self.closing = False
        self._napping: set[asyncio.Task[None]] = set()
        """Timer tasks asleep until a deadline (safe to cancel and start again)."""

    def wake(self, live: LiveRoom) -> None:
        """Something changed: start whatever became due (bots to move, a timer, a show)."""
        self.schedule_bots(live)
        self.schedule_timer(live)
        self.schedule_show(live)

    async def close(self, rooms: list[LiveRoom]) -> None:
        """Stop every task of these rooms (a shutdown)."""
        self.closing = True
        tasks = [
            task
            for live in rooms
            for task in (live.bot_task, live.timer_task, live.show_task)
            if task is not None
        ]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    def wants_show(self, live: LiveRoom, match: LiveMatch, steps: list[Step]) -> bool:
        """A resolution is played out on the board when a board watches, the host has not
        fast-forwarded, and there is something to pace: several steps, or a round that
        everybody sealed at once."""
        if match.fast_forward or not self.service.watched(live):
            return False
        return len(steps) > 1 or live.rules.info.simultaneous

    def schedule_show(self, live: LiveRoom) -> None:
        match = live.match
        due = match is not None and match.show_started_at is not None
        if self.closing or not due or live.show_task is not None:
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
                elapsed = match.show_elapsed_now(self.clock.now())
                if told is None:
                    told = int(elapsed // self.step_seconds)
                next_step = (int(elapsed // self.step_seconds) + 1) * self.step_seconds
                await self.clock.sleep(max(0.0, next_step - elapsed) + 0.005)
                async with live.lock:
                    if live.match is not match or match.show_started_at is None:
                        return
                    step = int(match.show_elapsed_now(self.clock.now()) // self.step_seconds)
                    if step > told + 1:
                        # The server stalled for longer than a step: hold the clock back so
                        # that the board still draws every step, one after the other.
                        held = (step - told - 1) * self.step_seconds
                        match.show_started_at += timedelta(seconds=held)
                        step = told + 1
                    told = step
                    over = (
                        match.show_elapsed_now(self.clock.now())
                        >= len(match.steps) * self.step_seconds
                    )
                    # A board that reloads or reconnects is back within a step; none for two
                    # steps running means nobody watches.
                    unwatched = 0 if self.service.watched(live) else unwatched + 1
                    if not (over or unwatched >= 2):
                        self.service.tell(live, Change(show_step=True))
                        continue
                    if not self.service.cluster.shared:
                        await self.service.end_show(live, match)
                        return
                # Every process paces the steps for its own sockets; the room's driver ends
                # the show for all of them, under the room's lock across the processes.
                if self.service.cluster.drives(live.code):
                    await self._end_show(live, match)
                return
        except Exception:  # the show must never take the server down, nor hold the room
            log.exception("the show failed in room %s", live.code)
            ending = match is not None and live.match is match and match.show_started_at
            if ending and match is not None and self.service.cluster.drives(live.code):
                try:  # the board jumps to the end of the round; the phones go on
                    await self._end_show(live, match)
                except Exception:
                    log.exception("the show of room %s could not be ended", live.code)
        finally:
            live.show_task = None

    async def _end_show(self, live: LiveRoom, match: LiveMatch) -> None:
        for attempt in range(BUSY_RETRIES):
            try:
                async with self.service.hold(live):
                    if live.match is match and match.show_started_at is not None:
                        await self.service.end_show(live, match)
                return
            except Unavailable:  # another process held the room all that while
                if attempt == BUSY_RETRIES - 1:
                    raise

    def schedule_bots(self, live: LiveRoom) -> None:
        if self.closing or live.bot_task is not None or live.paused:
            return
        if not self.service.cluster.drives(live.code):
            return
        bots = {s.position for s in live.seats if s.is_bot}
        if bots & set(live.to_act()):
            live.bot_task = asyncio.get_running_loop().create_task(self._drive_bots(live))

    async def _drive_bots(self, live: LiveRoom) -> None:
        try:
            while True:
                # A bot takes its moment so the room sees its move come; once the host has
                # fast-forwarded, nobody watches them come: the rest plays at once, as the
                # board says (a game of bots took a second a decision, a Legions turn about 8).
                match = live.match
                fast = match is not None and match.fast_forward
                await self.clock.sleep(0.0 if fast else self.bot_delay)
                while (held := self._held_for_predictions(live)) > 0:
                    await self.clock.sleep(min(held, PREDICTION_CHECK))
                async with self.service.hold(live):
                    if live.paused or not self.service.cluster.drives(live.code):
                        return  # paused, or driven by another process since
                    waiting = [
                        s for s in live.seats if s.is_bot and s.position in set(live.to_act())
                    ]
                    if not waiting:
                        return
                    for seat in waiting:
                        # Asked again for each: the bot before may have closed the round,
                        # and the next one waits for the board's show to end.
                        if seat.position not in live.to_act():
                            continue
                        match = live.match
                        assert match is not None
                        engine_seat = match.engine_seat(seat.position)
                        if engine_seat is None:
                            continue
                        await self._play_bot(live, seat, engine_seat)
        except Exception:  # a bot must never take the server down; the room stays as it was
            log.exception("bot failed in room %s", live.code)
        finally:
            live.bot_task = None
            if not self.closing:
                # Something may have become due while this task was finishing.
                bots = {s.position for s in live.seats if s.is_bot}
                if bots & set(live.to_act()) and live.match and live.match.status == "playing":
                    self.schedule_bots(live)

    async def _play_bot(self, live: LiveRoom, seat: SeatInfo, engine_seat: int) -> None:
        """The bot's move; should its choice fail or be refused (a fault of the game's bot),
        a legal order drawn from its prompt, so the room goes on: no clock plays for a bot
        (the game's default order is most often the bot's move itself)."""
        match = live.match
        assert match is not None
        try:
            order = live.rules.bot_order(match.state, engine_seat, _bot_style(live, seat))
            await self.service.apply_order(live, seat, order)
        except Exception:
            log.exception("bot failed in room %s: its seat plays a legal order", live.code)
            if live.match is match and live.rules.prompt(match.state, engine_seat) is not None:
                drawn = live.rules.random_order(match.state, engine_seat, Rng(match.version))
                await self.service.apply_order(live, seat, drawn)

    def _held_for_predictions(self, live: LiveRoom) -> float:
        """Seconds the bots still hold the match's first move: a night's match may be
        predicted until its first round is played, and a person at the table who watches
        it and has not predicted yet is given ``prediction_seconds`` from the bots' first
        turn (a bot would play within ``bot_delay``). 0 once every such watcher has."""
        match = live.match
        if (
            self.prediction_seconds <= 0
            or live.tournament is None
            or match is None
            or match.status != "playing"
            or match.history
        ):
            return 0.0
        made = live.predictions.get(match.number, {})
        waiting = [
            s
            for s in live.seats
            if not s.is_bot
            and s.connected
            and s.position not in made
            and live.prediction_target(s) is not None
        ]
        if not waiting:
            return 0.0
        now = self.clock.now()
        if match.predictions_close_at is None:
            match.predictions_close_at = now + timedelta(seconds=self.prediction_seconds)
        return max(0.0, (match.predictions_close_at - now).total_seconds())

    def restart_timer(self, live: LiveRoom, match: LiveMatch) -> None:
        """A new round of decisions begins: the whole timer again (H5.4)."""
        match.deadline_at, match.timer_left = self.fresh_timer(live, match)

    def fresh_timer(self, live: LiveRoom, match: LiveMatch) -> tuple[datetime | None, float | None]:
        """A new round's (deadline, time left): running, or held whole while paused."""
        timer = match.timer
        if timer is None:
            return None, None
        if live.paused:
            return None, timer
        return self.clock.now() + timedelta(seconds=timer), None

    def schedule_timer(self, live: LiveRoom) -> None:
        """Run the room's timer task; one that waits is started again, so that a change
        (a seat given more time, the timer turned off) counts at once, not after its nap."""
        match = live.match
        due = match is not None and match.status == "playing" and match.deadline_at is not None
        if self.closing or not due:
            return
        if not self.service.cluster.drives(live.code):
            return
        task = live.timer_task
        if task is not None:
            if task not in self._napping:
                return  # it is sealing now, and looks again when done
            self._napping.discard(task)
            task.cancel()
        live.timer_task = asyncio.get_running_loop().create_task(self._run_timer(live))

    async def _run_timer(self, live: LiveRoom) -> None:
        me = asyncio.current_task()
        try:
            while True:
                due = live.next_deadline()
                if due is None:
                    return
                wait = (due - self.clock.now()).total_seconds()
                if wait > 0:
                    if me is not None:
                        self._napping.add(me)
                    try:
                        await self.clock.sleep(min(wait, 60.0))
                    finally:
                        if me is not None:
                            self._napping.discard(me)
                    continue
                try:
                    async with self.service.hold(live):
                        if not self.service.cluster.drives(live.code):
                            return  # driven by another process since
                        if not await self.expire(live):
                            return  # nobody was late after all: wait for the next change
                except Unavailable:  # another process held the room all that while
                    await self.clock.sleep(1.0)
        except Exception:  # the clock must never take the server down
            log.exception("sealing timer failed in room %s", live.code)
        finally:
            if live.timer_task is me:
                live.timer_task = None

    async def expire(self, live: LiveRoom) -> bool:
        """Time is up for some seats: each seat still deciding whose own deadline has passed
        gets its default order (H5.4); a seat with more time goes on deciding. Whether any
        order was sealed."""
        match = live.match
        if match is None or match.deadline_at is None:
            return False
        now = self.clock.now()
        late = [
            s
            for s in live.clocked_seats()
            if (deadline := match.deadline_for(s.time_factor)) is not None and deadline <= now
        ]
        version, round_deadline = match.version, match.deadline_at
        for seat in late:
            if live.match is not match or match.deadline_at != round_deadline:
                break  # a resolution began a new round with its own timer
            engine_seat = match.engine_seat(seat.position)
            if engine_seat is None or live.rules.prompt(match.state, engine_seat) is None:
                continue
            order = self.default_order(live, engine_seat, seat)
            await self.service.apply_order(live, seat, order, by_timer=True)
        return match.version != version

    def default_order(self, live: LiveRoom, engine_seat: int, seat: SeatInfo) -> JSON:
        """The game's default order for a seat whose time ran out (for most games the bot's
        move in its default style)."""
        assert live.match is not None
        return live.rules.default_order(live.match.state, engine_seat)


def _bot_style(live: LiveRoom, seat: SeatInfo) -> str:
    """The seat's bot style if the game being played has it, else that game's default: a bot
    plays every game of a mixed night."""
    styles = live.rules.info.bot_styles
    return seat.bot_style if seat.bot_style in styles else styles[0]

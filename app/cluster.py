"""How the processes serving Pečeť share its rooms: one process alone, or several through Redis.

One laptop runs one process, and :class:`OneProcess` costs nothing: a room's lock is its
``asyncio.Lock``, every room is driven here. With ``PECET_REDIS_URL`` any number of ``pecet
serve`` processes share the rooms of one database (:class:`RedisRooms`):

- **One writer at a time.** A command takes the room's lock in Redis as well as its local
  lock. Whoever holds it reads the room's *revision* (a random label the last writer set in
  Redis after its commit): a copy in memory with another label is loaded again from the
  database before the command runs. So every process applies orders to the newest state,
  and one at a time; the order log's unique ``(match, seq)`` turns away an order that
  would still race (a lock that expired under a stalled process; lobby changes have no such
  guard).
- **Every change heard everywhere.** After a command that changed the room, its holder sets
  a new revision and publishes it on one channel; each process holding a copy of that room
  loads it again and sends its own sockets their new views.
- **One driver per room.** The bots, the sealing timer and the end of the board's show run
  in the one process holding the room's *driver lease*, renewed every second; when that
  process dies its leases lapse within seconds and another process takes its rooms over
  (it looks every few seconds for playing rooms nobody drives). Every process paces the
  show's steps for its own sockets.
- **Presence.** Which seats have a phone connected, and whether a board watches, are kept
  per process in one Redis hash per room; processes that stop beating are left out.

Redis holds nothing that cannot be lost: locks, leases and revisions are rebuilt from the
database, and a lost revision makes every copy load again. While Redis is out of reach a
command is refused as unavailable (503, ``Retry-After``) rather than run unguarded, and
``/healthz`` says so; news that could not leave is sent again once Redis answers, and each
process tells its sockets' presence again after it lost its channel (a restarted Redis
starts empty).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import AsyncIterator, Coroutine, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import TYPE_CHECKING, Any

import orjson

from app.errors import RoomNotFound, Unavailable

if TYPE_CHECKING:
    from redis.asyncio import Redis

    from app.live import LiveRoom
    from app.rooms import RoomService

log = logging.getLogger("pecet.cluster")

CHANNEL = "pecet:rooms"
PROCESSES = "pecet:processes"
LOCK_SECONDS = 3.0
"""A room's lock lapses this long after its holder stops renewing it (a dead process)."""
LOCK_WAIT = 10.0
"""How long a command waits for a room's lock before it is refused as busy."""
LOCK_POLL = 0.002
LEASE_SECONDS = 5.0
"""A room's driver lease lapses this long after its process stops renewing it."""
BEAT_SECONDS = 1.0
"""How often a process renews its leases and says it is alive."""
DEAD_AFTER = 5.0
"""A process not heard of for this long is gone: its sockets no longer count."""
ADOPT_EVERY = 3
"""Beats between two looks for playing rooms that nobody drives."""
REDIS_TIMEOUT = 2.0
"""Seconds one Redis call may take (to connect, or to answer) before Redis counts as out of
reach: a command never waits on a stalled Redis longer than that, and a couple of tries."""
RETRY_AFTER = 2
"""Seconds a client is told to wait when Redis is out of reach."""
UNREACHABLE = "The game server is briefly out of reach. Try again in a moment."


TAKE_ROOM = """
if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
    redis.call('set', KEYS[3], ARGV[3], 'NX', 'PX', ARGV[4])
    return {1, redis.call('get', KEYS[2]), redis.call('get', KEYS[3])}
end
return {0, false, false}
"""
"""A room's lock (KEYS[1]) for a command, and its driver lease (KEYS[3]) if nobody holds it;
answers whether it was taken, the room's revision (KEYS[2]) and its driver."""

LEAVE_ROOM = """
if ARGV[2] ~= '' then
    redis.call('set', KEYS[2], ARGV[2])
    redis.call('publish', ARGV[3], ARGV[4])
end
if redis.call('get', KEYS[1]) == ARGV[1] then
    return redis.call('del', KEYS[1])
end
return 0
"""
"""After a command: the new revision (KEYS[2]) and its news, if it changed the room, then the
lock (KEYS[1]) let go if it is still this command's."""

RENEW_LEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then
    return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0
"""
"""Extend a lease or a lock only if it is still ours (a lapsed one may be another's now)."""


def _key(code: str, part: str) -> str:
    return f"pecet:room:{code}:{part}"


class OneProcess:
    """The rooms of one process: nothing to share."""

    name: str | None = None
    """This process's name among those sharing the rooms (``/healthz`` tells it)."""
    shared = False
    """Whether other processes serve the same rooms."""

    async def start(self, service: RoomService) -> None:
        """Begin sharing (after the service exists, before the first request)."""

    async def close(self) -> None:
        """Stop sharing (the process is going)."""

    def hold(self, live: LiveRoom) -> contextlib.AbstractAsyncContextManager[Any]:
        """Exclusive use of the room for one command, with its newest state in memory."""
        return live.lock

    def drives(self, code: str) -> bool:
        """Whether this process runs the room's bots, timer and the end of its shows."""
        return True

    def changed(self, live: LiveRoom) -> None:
        """The room changed: the other processes must hear of it."""

    def closed(self, code: str) -> None:
        """The room was closed here (housekeeping): the other processes let it go too."""

    def let_go(self, code: str) -> None:
        """This process keeps no copy of the room any more."""

    async def loading(self, code: str) -> str | None:
        """About to load the room from the database: the revision that copy will have."""
        return None

    def presence(self, live: LiveRoom) -> None:
        """This process's sockets of the room changed (a phone or a board came or went)."""

    async def presence_of(self, live: LiveRoom) -> None:
        """Count the other processes' sockets of a room just loaded."""

    async def healthy(self) -> bool:
        """Whether this process can serve commands now (``/healthz``)."""
        return True


class RedisRooms(OneProcess):
    """Several processes, one set of rooms, coordinated through Redis (see the module)."""

    shared = True

    def __init__(self, url: str) -> None:
        from redis.asyncio import BlockingConnectionPool, Redis
        from redis.asyncio.retry import Retry
        from redis.backoff import ExponentialBackoff

        # A command waits for a free connection rather than failing when many rooms are
        # busy at once (the default pool refuses past its size). A blip is tried again at
        # once; an outage answers within seconds (redis-py's default retries back off for
        # up to 10 s each, which a phone would feel as a hang).
        pool = BlockingConnectionPool.from_url(
            url,
            max_connections=64,
            timeout=LOCK_WAIT,
            socket_timeout=REDIS_TIMEOUT,
            socket_connect_timeout=REDIS_TIMEOUT,
            retry=Retry(ExponentialBackoff(cap=0.2, base=0.02), retries=2),
        )
        self.redis: Redis = Redis.from_pool(pool)
        self.me = secrets.token_hex(6)  # fresh at every start
        self.name = self.me
        self.service: RoomService | None = None
        self._driving: set[str] = set()
        self._holding: set[str] = set()
        """Rooms a command of this process holds now (their changes are told as it ends)."""
        self._dirty: set[str] = set()
        self._alive: set[str] = {self.me}
        self._tasks: list[asyncio.Task[None]] = []
        self._adopting: asyncio.Task[None] | None = None
        self._background: set[asyncio.Task[None]] = set()
        self._keeping: dict[str, asyncio.TimerHandle | asyncio.Task[None]] = {}
        """Lock token → the timer or task renewing that lock while a command holds it."""
        self._presence_due: set[str] = set()
        self._presence_writers: dict[str, asyncio.Task[None]] = {}
        self._unsent: set[str] = set()
        """Rooms changed here whose news did not reach Redis (it was out of reach)."""
        self._reachable = True
        self._renew = self.redis.register_script(RENEW_LEASE)
        self._acquire = self.redis.register_script(TAKE_ROOM)
        self._release = self.redis.register_script(LEAVE_ROOM)

    # ---------------------------------------------------------------- life

    async def start(self, service: RoomService) -> None:
        self.service = service
        await self._beat()
        listening = asyncio.Event()
        loop = asyncio.get_running_loop()
        self._tasks = [
            loop.create_task(self._listen(listening), name="cluster-listen"),
            loop.create_task(self._beat_forever(), name="cluster-beat"),
        ]
        await listening.wait()

    async def close(self) -> None:
        for handle in self._keeping.values():
            handle.cancel()
        tasks = [*self._tasks, *self._background, *self._presence_writers.values()]
        if self._adopting is not None:
            tasks.append(self._adopting)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        with contextlib.suppress(Exception):  # the others take over within a lease anyway
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.zrem(PROCESSES, self.me)
                for code in self._driving:
                    await self._let_go_of(_key(code, "driver"), self.me, client=pipe)
                await pipe.execute()
        self._driving.clear()
        await self.redis.aclose()

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` beside the request that asked for it, holding on to it until done."""
        task = asyncio.get_running_loop().create_task(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # ---------------------------------------------------------------- commands

    @asynccontextmanager
    async def hold(self, live: LiveRoom) -> AsyncIterator[None]:
        async with live.lock:
            code, token = live.code, secrets.token_hex(8)
            keys = [_key(code, "lock"), _key(code, "revision"), _key(code, "driver")]
            drove = self.drives(code)
            with _refused_while_unreachable():
                _taken, revision, driver = await self._take(keys, token)
            self._keeping[token] = asyncio.get_running_loop().call_later(
                LOCK_SECONDS / 3, self._keep, keys[0], token
            )
            self._holding.add(code)
            self._dirty.discard(code)
            try:
                self._note_driver(code, driver)
                if _text(revision) != live.revision or live.revision is None:
                    try:
                        with _refused_while_unreachable():
                            await self._reload(live)
                    except RoomNotFound:  # closed elsewhere: this copy goes too
                        self.service_of().forget(code)
                        raise
                yield
            finally:
                self._holding.discard(code)
                keeping = self._keeping.pop(token, None)
                if keeping is not None:
                    keeping.cancel()
                news: list[str | bytes] = ["", CHANNEL, ""]
                changed = code in self._dirty
                if changed:
                    self._dirty.discard(code)
                    news = [self._new_revision(live), CHANNEL, self._change_message(code)]
                try:
                    await self._release(keys=keys[:2], args=[token, *news])
                except Exception as error:
                    # The command is done and committed; its lock lapses by itself. Its
                    # news leaves with the next beat that reaches Redis.
                    self._lost_touch(error)
                    if changed:
                        self._unsent.add(code)
            if self.drives(code) and not drove:
                # Driven here from now on (its driver died): its bots and timer start here.
                self.service_of().scheduler.wake(live)

    async def _take(self, keys: list[str], token: str) -> list[Any]:
        """The room's lock (and its driver lease, if nobody has it), waiting for it up to
        ``LOCK_WAIT``: one round trip per try, answering the revision and the driver too."""
        args: list[str | int] = [token, _ms(LOCK_SECONDS), self.me, _ms(LEASE_SECONDS)]
        deadline = time.monotonic() + LOCK_WAIT
        while True:
            try:
                taken: list[Any] = await self._acquire(keys=keys, args=args)
            except asyncio.CancelledError:
                # The script may have taken the lock before the answer was lost: let go.
                self._spawn(self._let_go_of(keys[0], token))
                raise
            if taken[0]:
                return taken
            if time.monotonic() > deadline:
                raise Unavailable("This room is busy. Try again in a moment.", code="busy")
            await asyncio.sleep(LOCK_POLL)

    async def _let_go_of(self, key: str, token: str, client: Any = None) -> None:
        """Delete a lock or lease only if it is still ``token``'s."""
        await self._release(keys=[key, key], args=[token, "", CHANNEL, ""], client=client)

    def _keep(self, lock: str, token: str) -> None:
        """Renew the lock while a long command (a bot's round of several orders) holds it."""
        if token in self._keeping:
            task = asyncio.get_running_loop().create_task(self._renew_lock(lock, token))
            self._keeping[token] = task

    async def _renew_lock(self, lock: str, token: str) -> None:
        try:
            renewed = await self._renew(keys=[lock], args=[token, _ms(LOCK_SECONDS)])
        except Exception:
            renewed = 0
        if token not in self._keeping:
            return  # the command ended meanwhile
        if not renewed:
            # Lapsed (the process stalled past its expiry): another may write now; the
            # order log's unique sequence still refuses a second order at the same place.
            log.warning("room lock %s lapsed while held", lock)
            del self._keeping[token]
            return
        self._keeping[token] = asyncio.get_running_loop().call_later(
            LOCK_SECONDS / 3, self._keep, lock, token
        )

    def drives(self, code: str) -> bool:
        return code in self._driving

    def changed(self, live: LiveRoom) -> None:
        if live.code in self._holding:
            self._dirty.add(live.code)  # told as the command lets go of the room
        else:
            self._spawn(self._tell_change(live))

    async def _tell_change(self, live: LiveRoom) -> None:
        try:
            await self._publish(live.code, self._new_revision(live))
        except Exception as error:
            self._lost_touch(error)
            self._unsent.add(live.code)

    async def _send_unsent(self) -> None:
        """The news that could not leave while Redis was out of reach (a newer revision
        than the one stored makes every other copy load the room again)."""
        service = self.service_of()
        for code in sorted(self._unsent):
            live = service.loaded(code)
            if live is not None:
                await self._publish(code, self._new_revision(live))
            self._unsent.discard(code)

    def closed(self, code: str) -> None:
        self._spawn(self._publish(code, secrets.token_hex(8)))

    def let_go(self, code: str) -> None:
        if code in self._driving:
            self._driving.discard(code)
            self._spawn(self._let_go_of(_key(code, "driver"), self.me))

    def _new_revision(self, live: LiveRoom) -> str:
        live.revision = secrets.token_hex(8)
        return live.revision

    def _change_message(self, code: str) -> bytes:
        return orjson.dumps({"kind": "change", "code": code, "from": self.me})

    async def _publish(self, code: str, revision: str) -> None:
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.set(_key(code, "revision"), revision)
            pipe.publish(CHANNEL, self._change_message(code))
            await pipe.execute()

    async def loading(self, code: str) -> str | None:
        """The room's revision, named now if it has none yet, so that the copy about to be
        read is never newer than the label it is kept under."""
        key = _key(code, "revision")
        with _refused_while_unreachable():
            await self.redis.set(key, secrets.token_hex(8), nx=True)
            return _text(await self.redis.get(key))

    async def _reload(self, live: LiveRoom) -> None:
        """Load the room again, and tell this process's sockets and scheduler what changed
        (whether a command here or the news from elsewhere found the copy old)."""
        service = self.service_of()
        revision = await self.loading(live.code)
        service.reload(live)
        live.revision = revision
        await self.presence_of(live)
        service.changed_elsewhere(live)

    def service_of(self) -> RoomService:
        assert self.service is not None, "start() first"
        return self.service

    # ---------------------------------------------------------------- hearing the others

    async def _listen(self, listening: asyncio.Event) -> None:
        while True:
            try:
                async with self.redis.pubsub(ignore_subscribe_messages=True) as pubsub:
                    await pubsub.subscribe(CHANNEL)
                    listening.set()
                    # What was said while nobody listened (a lost connection) is caught up,
                    # and a Redis that restarted empty hears who is connected here.
                    await self._catch_up()
                    for live in self.service_of().loaded_rooms():
                        if _attached(live):
                            self.presence(live)
                    async for message in pubsub.listen():
                        # Each on its own: one room waiting for its lock must not hold up
                        # the news of the others (every handler loads the newest revision,
                        # so their order does not matter).
                        self._spawn(self._heard(orjson.loads(message["data"])))
            except asyncio.CancelledError:
                raise
            except Exception as error:
                self._lost_touch(error)
                await asyncio.sleep(BEAT_SECONDS)

    async def _heard(self, message: dict[str, Any]) -> None:
        try:
            await self._take_news(message)
        except Exception:  # the beat's catch-up brings the copy up to date
            log.exception("news of room %s failed", message.get("code"))

    async def _take_news(self, message: dict[str, Any]) -> None:
        service = self.service_of()
        if message.get("from") == self.me:
            return
        live = service.loaded(str(message.get("code")))
        if live is None:
            return
        if message.get("kind") == "presence":
            await self.presence_of(live)
            service.tell_boards(live)
            return
        if not self.drives(live.code) and not _attached(live) and not live.lock.locked():
            # Nobody here watches the room: let the copy go rather than load it at every
            # change (a later request loads it afresh).
            service.forget(live.code)
            return
        async with live.lock:
            revision = _text(await self.redis.get(_key(live.code, "revision")))
            if revision is not None and revision == live.revision:
                return  # a command here has loaded this change already
            try:
                await self._reload(live)
            except RoomNotFound:  # closed elsewhere
                service.forget(live.code)

    async def _catch_up(self) -> None:
        """Load again every copy whose revision is not the stored one: news lost while the
        channel was down, or a handler that failed."""
        rooms = self.service_of().loaded_rooms()
        if not rooms:
            return
        stored = await self.redis.mget([_key(live.code, "revision") for live in rooms])
        for live, revision in zip(rooms, stored, strict=True):
            if _text(revision) != live.revision and not live.lock.locked():
                self._spawn(self._heard({"kind": "change", "code": live.code}))

    # ---------------------------------------------------------------- presence

    def presence(self, live: LiveRoom) -> None:
        # One writer per room, so that counts reach Redis in the order they changed.
        self._presence_due.add(live.code)
        if live.code not in self._presence_writers:
            writer = asyncio.get_running_loop().create_task(self._write_presence(live))
            self._presence_writers[live.code] = writer

    async def _write_presence(self, live: LiveRoom) -> None:
        try:
            while live.code in self._presence_due:
                self._presence_due.discard(live.code)
                here = {str(seat.position): seat.sockets for seat in live.seats if seat.sockets}
                if live.boards:
                    here["board"] = live.boards
                news = {"kind": "presence", "code": live.code, "from": self.me}
                async with self.redis.pipeline(transaction=False) as pipe:
                    pipe.hset(_key(live.code, "presence"), self.me, orjson.dumps(here).decode())
                    pipe.publish(CHANNEL, orjson.dumps(news))
                    await pipe.execute()
        except Exception as error:  # told again once the channel is back (_listen)
            self._lost_touch(error)
        finally:
            del self._presence_writers[live.code]

    async def presence_of(self, live: LiveRoom) -> None:
        try:
            counted = await self.redis.hgetall(_key(live.code, "presence"))
        except Exception as error:  # counted again once Redis is back (a process comes)
            self._lost_touch(error)
            return
        sockets: dict[str, int] = {}
        for process, raw in counted.items():
            if _text(process) == self.me or _text(process) not in self._alive:
                continue
            for who, count in orjson.loads(raw).items():
                sockets[who] = sockets.get(who, 0) + int(count)
        live.boards_elsewhere = sockets.get("board", 0)
        service = self.service_of()
        for seat in live.seats:
            was_connected = seat.sockets or seat.elsewhere
            seat.set_elsewhere(sockets.get(str(seat.position), 0))
            if was_connected and not (seat.sockets or seat.elsewhere):
                # The board shows the seat away once it has been gone a while.
                asyncio.get_running_loop().call_later(
                    seat.away_after.total_seconds() + 0.05, service.tell_boards, live
                )

    # ---------------------------------------------------------------- beats and leases

    async def _beat_forever(self) -> None:
        beats = 0
        while True:
            await asyncio.sleep(BEAT_SECONDS)
            beats += 1
            try:
                await self._beat()
                await self._send_unsent()
                await self._catch_up()
            except asyncio.CancelledError:
                raise
            except Exception as error:
                self._lost_touch(error)
                continue
            self._in_touch()
            # Taking rooms over loads them and may wait for their locks: never in the way
            # of the beat, whose leases must not lapse meanwhile.
            if beats % ADOPT_EVERY == 0 and self._adopting is None:
                self._adopting = asyncio.get_running_loop().create_task(self._adopt_all())

    async def _beat(self) -> None:
        """Say this process is alive, renew its leases (of the rooms it still keeps), and
        count again who is connected when a process came or went."""
        service = self.service_of()
        for code in [code for code in self._driving if service.loaded(code) is None]:
            self.let_go(code)
        now = time.time()
        driving = sorted(self._driving)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zadd(PROCESSES, {self.me: now})
            pipe.zremrangebyscore(PROCESSES, "-inf", now - DEAD_AFTER * 4)
            pipe.zrangebyscore(PROCESSES, now - DEAD_AFTER, "+inf")
            for code in driving:  # queued in the pipeline (awaiting only queues it)
                await self._renew(
                    keys=[_key(code, "driver")], args=[self.me, _ms(LEASE_SECONDS)], client=pipe
                )
            results = await pipe.execute()
        alive = {name for name in (_text(n) for n in results[2]) if name is not None}
        came_or_went = alive != self._alive
        self._alive = alive
        for code, renewed in zip(driving, results[3:], strict=True):
            if not renewed:  # lapsed (a stall) and taken, or gone: not ours any more
                self._driving.discard(code)
        if came_or_went:
            for live in service.loaded_rooms():
                await self.presence_of(live)
                service.tell_boards(live)

    async def _adopt_all(self) -> None:
        """Take over the rooms whose driver is gone (its lease lapsed): those being played,
        and those whose last round the board still plays out."""
        try:
            service = self.service_of()
            codes = service.codes_to_drive()
            if not codes:
                return
            drivers = await self.redis.mget([_key(code, "driver") for code in codes])
            for code, driver in zip(codes, drivers, strict=True):
                if driver is None:
                    await self._adopt(code)
        except Exception:
            log.exception("taking rooms over failed")
        finally:
            self._adopting = None

    async def _adopt(self, code: str) -> None:
        lease = _key(code, "driver")
        if not await self.redis.set(lease, self.me, nx=True, px=_ms(LEASE_SECONDS)):
            return  # another process was quicker
        self._driving.add(code)
        log.info("room %s: driven here now", code)
        service = self.service_of()
        try:
            live = await service.room(code)
            async with self.hold(live):
                pass  # brings the copy up to date
            service.scheduler.wake(live)
        except RoomNotFound:  # closed meanwhile
            self.let_go(code)
        except Exception:
            log.exception("room %s could not be taken over", code)
            self.let_go(code)

    async def healthy(self) -> bool:
        try:
            async with asyncio.timeout(REDIS_TIMEOUT):
                await self.redis.ping()
        except Exception as error:
            self._lost_touch(error)
            return False
        self._in_touch()
        return True

    def _lost_touch(self, error: BaseException) -> None:
        """Redis is out of reach (or failed): said once in the log, not at every beat; any
        other failure is a fault, with its traceback."""
        from redis.exceptions import RedisError

        if not isinstance(error, RedisError):
            log.error("cluster failure", exc_info=error)
        elif self._reachable:
            self._reachable = False
            log.warning("Redis is out of reach (%s); commands are refused until it answers", error)

    def _in_touch(self) -> None:
        if not self._reachable:
            self._reachable = True
            log.warning("Redis answers again")

    def _note_driver(self, code: str, driver: bytes | None) -> None:
        if _text(driver) == self.me:
            self._driving.add(code)
        else:
            self._driving.discard(code)


@contextmanager
def _refused_while_unreachable() -> Iterator[None]:
    """Redis out of reach: the command is refused as unavailable (503), not failed (500)."""
    from redis.exceptions import RedisError

    try:
        yield
    except RedisError as error:
        raise Unavailable(UNREACHABLE, code="unavailable", retry_after=RETRY_AFTER) from error


def _attached(live: LiveRoom) -> bool:
    """Whether sockets of this process watch the room."""
    return live.boards > 0 or any(seat.sockets for seat in live.seats)


def _ms(seconds: float) -> int:
    return int(seconds * 1000)


def _text(value: bytes | str | None) -> str | None:
    if isinstance(value, bytes):
        return value.decode()
    return value

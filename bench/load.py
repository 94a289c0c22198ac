"""Load benchmark: the real server, R Heirs of the Axis rooms, 6 phones and 1 board each.

Starts ``pecet serve`` on a fresh SQLite file, opens R rooms through the JSON API, seats six
phones in each, starts the matches and connects every phone and board websocket. Then every
phone plays whole rounds with the real protocol: when its view has a prompt, it waits a random
moment within ``--window`` seconds and seals an order read off the prompt. It measures

- last seal → board: from sending the last seal of a round to the board's first frame that
  shows that round resolved (its ``show`` or newest ``history`` round);
- seal → acknowledgement: from sending an order to the phone's next frame that shows it
  sealed (its own ``sealed`` notice, or a view with ``my_commitment`` set or no prompt any
  more) or refuses it (an error frame);
- server RSS and CPU, client CPU, frames and bytes per kind, refusals and errors.

    .venv/bin/python bench/load.py [--rooms R] [--rounds N | --seconds S] [--window W]
                                   [--saturate] [--clients K] [--json PATH]

Every figure is printed as one line of a plain table; ``--json`` writes the same figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import multiprocessing
import multiprocessing.synchronize
import os
import queue
import random
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

JSON = dict[str, Any]

PROJECT_DIR = Path(__file__).resolve().parent.parent
GAME = "heirs"
PHONES_PER_ROOM = 6
MAX_HEIRS_ROUNDS = 20
"""The longest game of Heirs a room may be set up for (seeds/heirs/setup.json)."""
DEFAULT_HEIRS_ROUNDS = 12
CONNECT_AT_ONCE = 50
"""Websockets opened at the same time; more would only queue in the server's backlog."""
ROOMS_OPENED_AT_ONCE = 8
RETRIES_PER_DECISION = 4
"""Refusals one phone takes for one decision before it gives that decision up."""
ACK_GRACE = 10.0
"""Seconds the run waits at its end for orders still without an answer."""
CLIENT_BUSY_PERCENT = 70.0
"""A client process busier than this may be what holds the figures back."""
FRAME_TYPE = re.compile(r'\{\s*"type"\s*:\s*"([A-Za-z_]+)"')
"""The server writes ``type`` first; reading it off the head spares parsing idle frames."""
NO_PROMPT = ('"prompt": null', '"prompt":null')
"""A view without a decision, told from its text: ``prompt`` is a top-level key only, and
inside a JSON string its quotes would be escaped. Such views (the first and last step of
the board's show) need no parsing on a phone that waits for nothing but its next prompt;
the ``step`` frames between them it does not read at all."""


# ------------------------------------------------------------------ orders from prompts


def order_from_prompt(prompt: JSON, rng: random.Random, simplest: bool = False) -> JSON:
    """An order read off a Heirs prompt alone, as a phone's sheet would fill it in.

    ``simplest`` gives the prompt's own default (the order a timer would seal, H5.1), or at
    setup the first colour and character offered: what a phone falls back to after a refusal.
    Otherwise each part is drawn at random among what the prompt offers and calls affordable;
    parts that compete for the same resources may still add up to a refusal, which the phone
    counts and recovers from, as a player would."""
    kind = prompt.get("kind")
    if kind == "setup":
        colours, characters = prompt["colours"], prompt["characters"]
        if simplest:
            return {"colour": colours[0], "character": characters[0]}
        return {"colour": rng.choice(colours), "character": rng.choice(characters)}
    default: JSON = dict(prompt.get("default") or {})
    if kind != "orders" or simplest:
        return default
    order = default
    expedition = prompt["expedition"]
    choices: list[JSON] = [{"kind": "stay", "field": None}]
    for expedition_kind in ("move", "attack", "scout"):
        for target in expedition.get(expedition_kind) or ():
            choices.append({"kind": expedition_kind, "field": target})
    order["expedition"] = rng.choice(choices)
    recruit = prompt["recruit"]
    order["recruit"] = rng.randint(0, max(0, min(recruit["cap"], recruit["affordable"])))
    buildings = [b["id"] for b in prompt["buildings"] if b["affordable"]]
    if buildings and rng.random() < 0.5:
        order["build"] = rng.choice(buildings)
    abilities = [a["id"] for a in prompt["abilities"] if a["affordable"]]
    if abilities and rng.random() < 0.5:
        order["learn"] = rng.choice(abilities)
    # Only tricks that cost nothing: the rest compete with recruits and buildings.
    free_tricks = [t for t in prompt["tricks"] if t["affordable"] and not any(t["cost"].values())]
    if free_tricks and rng.random() < 0.3:
        trick = rng.choice(free_tricks)
        played: JSON = {"card": trick["card"]}
        if "targets" in trick:
            if trick["targets"]:
                played["target"] = rng.choice(trick["targets"])
                order["trick"] = played
        elif "fields_after" in trick or "fields" in trick:
            # The extra step starts where the expedition ends: the fields offered after it.
            after = trick.get("fields_after") or {}
            chosen = order["expedition"]
            ends = after.get(chosen["kind"])
            fields = ends.get(chosen["field"], []) if isinstance(ends, dict) else ends
            if fields is None:
                fields = trick.get("fields") or []
            if fields:
                played["field"] = rng.choice(fields)
                order["trick"] = played
        else:
            order["trick"] = played
    return order


def decision_round(prompt: JSON) -> int:
    """The round a prompt decides, as the board names its resolution (setup is round 0)."""
    return int(prompt.get("round", 0)) if prompt.get("kind") == "orders" else 0


# ------------------------------------------------------------------ figures


@dataclass
class FrameTally:
    count: int = 0
    total_bytes: int = 0
    max_bytes: int = 0

    def add(self, size: int) -> None:
        self.count += 1
        self.total_bytes += size
        self.max_bytes = max(self.max_bytes, size)

    def merge(self, other: FrameTally) -> None:
        self.count += other.count
        self.total_bytes += other.total_bytes
        self.max_bytes = max(self.max_bytes, other.max_bytes)


@dataclass
class WorkerReport:
    """What one client process measured over its rooms."""

    sockets: int = 0
    board_ms: list[float] = field(default_factory=list)
    ack_ms: list[float] = field(default_factory=list)
    seals: int = 0
    order_rounds: int = 0
    setups: int = 0
    finished_games: int = 0
    refusals: dict[str, int] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    frames: dict[str, FrameTally] = field(default_factory=dict)
    started_at: float = 0.0
    finished_at: float = 0.0
    cpu_seconds: float = 0.0

    def count(self, table: dict[str, int], key: str) -> None:
        table[key] = table.get(key, 0) + 1

    def merge(self, other: WorkerReport) -> None:
        self.sockets += other.sockets
        self.board_ms += other.board_ms
        self.ack_ms += other.ack_ms
        self.seals += other.seals
        self.order_rounds += other.order_rounds
        self.setups += other.setups
        self.finished_games += other.finished_games
        for mine, theirs in ((self.refusals, other.refusals), (self.errors, other.errors)):
            for key, value in theirs.items():
                mine[key] = mine.get(key, 0) + value
        for kind, tally in other.frames.items():
            self.frames.setdefault(kind, FrameTally()).merge(tally)
        self.started_at = min(self.started_at or other.started_at, other.started_at)
        self.finished_at = max(self.finished_at, other.finished_at)
        self.cpu_seconds += other.cpu_seconds


def percentile(values: list[float], share: float) -> float | None:
    """The nearest-rank percentile (``share`` in 0..1); None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(share * len(ordered)))
    return ordered[rank - 1]


# ------------------------------------------------------------------ the client side


@dataclass(frozen=True)
class RoomSeats:
    code: str
    host_token: str
    seat_tokens: list[str]


@dataclass(frozen=True)
class DriveOptions:
    ws_url: str
    window: float
    rounds: int
    seconds: float | None
    stall: float
    seed: int
    compression: bool


class Phone:
    """One seat's websocket, answering every prompt once with an order built from it."""

    def __init__(self, room: RoomDriver, token: str, rng: random.Random) -> None:
        self.room = room
        self.token = token
        self.rng = rng
        self.socket: ClientConnection | None = None
        self.view: JSON | None = None
        self.answered: tuple[int, int] | None = None
        """(match, version) of the view the last order was drawn from."""
        self.sent_at: float | None = None
        """When the order still waiting for its acknowledgement was sent."""
        self.sent_kind = ""
        """The kind of prompt (setup, orders) the order waiting for its answer was for."""
        self.attempts = 0
        self.timer: asyncio.TimerHandle | None = None
        self.greeted = False
        """The phone has had its first view since it connected."""
        self.seat: int | None = None
        """The phone's room seat, read off its first view with a decision."""

    def on_frame(self, kind: str, text: str) -> None:
        if kind == "error":
            self._on_refusal(json.loads(text))
        elif kind == "view" and (not self.room.done.is_set() or self.sent_at is not None):
            self.greeted = True
            if any(marker in text for marker in NO_PROMPT):
                self._on_idle_view()
            else:
                self._on_view(json.loads(text))
        elif (
            kind == "sealed"
            and self.sent_at is not None
            and json.loads(text).get("seat") == self.seat
        ):
            # The phone's own seal comes back as a notice (in Heirs it leaves the seat
            # nothing to decide until the next whole view).
            self.view = None
            self._acknowledged()
        # Anything else (another seat's notice, a step of the show, a pong) changes nothing.

    def _on_idle_view(self) -> None:
        """A view with nothing to decide: it acknowledges a sealed order, if one waits."""
        self.view = None
        if self.sent_at is not None:
            self._acknowledged()

    def _acknowledged(self) -> None:
        assert self.sent_at is not None
        now = time.perf_counter()
        self.room.report.ack_ms.append((now - self.sent_at) * 1000)
        self.room.report.seals += 1
        self.room.progress(now)
        self.sent_at = None

    def _on_view(self, view: JSON) -> None:
        self.view = view
        self.seat = (view.get("you") or {}).get("seat", self.seat)
        if self.sent_at is not None and (
            view.get("my_commitment") is not None or view.get("prompt") is None
        ):
            self._acknowledged()
        self.consider(self.rng.uniform(0, self.room.options.window))

    def _on_refusal(self, error: JSON) -> None:
        code = str(error.get("code"))
        if self.sent_at is None:  # not an answer to an order of ours
            self.room.report.count(self.room.report.refusals, f"unasked {code}")
            return
        self.room.report.count(self.room.report.refusals, f"{self.sent_kind} {code}")
        now = time.perf_counter()
        self.room.report.ack_ms.append((now - self.sent_at) * 1000)
        self.sent_at = None
        self.attempts += 1
        if self.attempts > RETRIES_PER_DECISION:
            self.room.report.count(self.room.report.errors, "gave_up_a_decision")
            return
        key = self._view_key()
        if code in ("stale", "show") and key == self.answered:
            return  # the server sends the fresh sheet (or the next prompt) on its own
        # Recover at once: a fresh view gets a fresh order; the same view the simplest one.
        self.consider(0.0, simplest=key == self.answered)

    def _view_key(self) -> tuple[int, int] | None:
        view = self.view
        if view is None or view.get("match") is None or view.get("version") is None:
            return None
        return int(view["match"]), int(view["version"])

    def consider(self, delay: float, simplest: bool = False) -> None:
        """Answer the view's prompt after ``delay`` seconds, unless already answered."""
        if self.timer is not None or self.sent_at is not None or not self.room.playing:
            return
        view = self.view
        if view is None or view.get("prompt") is None:
            return
        if self._view_key() == self.answered and not simplest:
            return
        if self._view_key() != self.answered:
            self.attempts = 0
        self.timer = asyncio.get_running_loop().call_later(delay, self._send, simplest)

    def _send(self, simplest: bool) -> None:
        self.timer = None
        view, key = self.view, self._view_key()
        if view is None or key is None or self.sent_at is not None or not self.room.playing:
            return
        prompt = view.get("prompt")
        if prompt is None or (key == self.answered and not simplest):
            return
        order = order_from_prompt(prompt, self.rng, simplest)
        frame = {"type": "order", "order": order, "version": key[1], "match": key[0]}
        self.answered = key
        self.sent_kind = str(prompt.get("kind"))
        self.sent_at = time.perf_counter()
        self.room.sent(key[0], decision_round(prompt), self.sent_at)
        self.room.spawn(self._transmit(json.dumps(frame)))

    async def _transmit(self, text: str) -> None:
        assert self.socket is not None
        try:
            await self.socket.send(text)
        except ConnectionClosed:
            self.room.report.count(self.room.report.errors, "send_on_closed_socket")
            self.sent_at = None


class RoomDriver:
    """One room: its six phones, its board, and the rounds they play."""

    def __init__(
        self, seats: RoomSeats, options: DriveOptions, report: WorkerReport, rng: random.Random
    ) -> None:
        self.seats = seats
        self.options = options
        self.report = report
        self.phones = [
            Phone(self, token, random.Random(rng.random())) for token in seats.seat_tokens
        ]
        self.board: ClientConnection | None = None
        self.playing = False
        self.done = asyncio.Event()
        self.last_sent: dict[tuple[int, int], float] = {}
        """(match, round) → when its last seal so far was sent."""
        self.resolved: set[tuple[int, int]] = set()
        self.unresolved: set[tuple[int, int]] = set()
        """Rounds sealed into and not yet shown resolved: the board must read its frames."""
        self.last_progress = time.perf_counter()
        self.tasks: set[asyncio.Task[None]] = set()

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def sent(self, match: int, round_number: int, at: float) -> None:
        self.last_sent[(match, round_number)] = at
        self.unresolved.add((match, round_number))

    def progress(self, at: float) -> None:
        self.last_progress = at

    def begin(self) -> None:
        self.playing = True
        self.last_progress = time.perf_counter()
        for phone in self.phones:
            phone.consider(phone.rng.uniform(0, self.options.window))

    def finish(self) -> None:
        self.playing = False
        self.done.set()
        for phone in self.phones:
            if phone.timer is not None:
                phone.timer.cancel()
                phone.timer = None

    def on_board_frame(self, kind: str, text: str) -> None:
        if kind != "view" or not self.playing:
            return
        if not self.unresolved and '"finished"' not in text:
            return  # the show of a round already counted: nothing to learn from it
        now = time.perf_counter()
        view: JSON = json.loads(text)
        match = view.get("match")
        if match is None:
            return
        show = view.get("show")
        history = view.get("history") or []
        newest = show["round"] if show else (history[-1]["round"] if history else None)
        if newest is not None and (match, newest) not in self.resolved:
            self.resolved.add((match, newest))
            self.unresolved.discard((match, newest))
            self.progress(now)
            sent = self.last_sent.get((match, newest))
            if sent is not None:
                self.report.board_ms.append((now - sent) * 1000)
            if newest == 0:
                self.report.setups += 1
            else:
                self.report.order_rounds += 1
                if newest >= self.options.rounds:
                    self.finish()
        if view.get("status") == "finished" and self.playing:
            self.report.finished_games += 1
            self.finish()


async def _read(
    socket: ClientConnection,
    role: str,
    handle: Callable[[str, str], None],
    report: WorkerReport,
    closing: asyncio.Event,
) -> None:
    """Every frame of one socket, tallied by kind and handed on; a socket that ends before
    ``closing`` is set counts as an error."""
    frames = report.frames
    try:
        async for message in socket:
            if isinstance(message, bytes):
                frames.setdefault(f"{role} binary", FrameTally()).add(len(message))
                continue
            head = FRAME_TYPE.match(message)
            kind = head.group(1) if head else str(json.loads(message).get("type"))
            size = len(message) if message.isascii() else len(message.encode())
            tally = frames.get(f"{role} {kind}")
            if tally is None:
                tally = frames[f"{role} {kind}"] = FrameTally()
            tally.add(size)
            handle(kind, message)
    except ConnectionClosed:
        pass
    if not closing.is_set():
        code = "no close frame" if socket.close_code is None else socket.close_code
        report.count(report.errors, f"{role} socket closed during the run ({code})")


async def _open(
    url: str, token: str, options: DriveOptions, gate: asyncio.Semaphore
) -> ClientConnection:
    async with gate:
        return await connect(
            url,
            additional_headers={"Authorization": f"Bearer {token}"},
            compression="deflate" if options.compression else None,
            ping_interval=None,  # like a browser: the server pings, the client answers
            max_size=2**22,
            open_timeout=120,
            close_timeout=5,
        )


async def drive(
    rooms: list[RoomSeats], options: DriveOptions, ready: Callable[[], Awaitable[None]]
) -> WorkerReport:
    """Connect every socket of ``rooms``, await ``ready()`` (the go), play, and report."""
    report = WorkerReport()
    rng = random.Random(options.seed)
    drivers = [RoomDriver(seats, options, report, rng) for seats in rooms]
    gate = asyncio.Semaphore(CONNECT_AT_ONCE)
    readers: list[asyncio.Task[None]] = []
    closing = asyncio.Event()

    async def connect_room(driver: RoomDriver) -> None:
        base = f"{options.ws_url}/ws/rooms/{driver.seats.code}"
        driver.board = await _open(f"{base}/board", driver.seats.host_token, options, gate)
        for phone in driver.phones:
            phone.socket = await _open(base, phone.token, options, gate)
        report.sockets += 1 + len(driver.phones)

    await asyncio.gather(*(connect_room(driver) for driver in drivers))
    for driver in drivers:
        assert driver.board is not None
        readers.append(
            asyncio.create_task(
                _read(driver.board, "board", driver.on_board_frame, report, closing)
            )
        )
        for phone in driver.phones:
            assert phone.socket is not None
            readers.append(
                asyncio.create_task(_read(phone.socket, "phone", phone.on_frame, report, closing))
            )
    # Idle: every phone has its first view (the setup prompt) before the go.
    greeting_deadline = time.perf_counter() + options.stall
    while not all(phone.greeted for driver in drivers for phone in driver.phones):
        if time.perf_counter() > greeting_deadline:
            raise RuntimeError(f"some phones had no view {options.stall:g} s after connecting")
        await asyncio.sleep(0.05)
    await ready()

    report.started_at = time.time()
    cpu_start = time.process_time()
    for driver in drivers:
        driver.begin()
    deadline = None if options.seconds is None else time.perf_counter() + options.seconds
    while not all(driver.done.is_set() for driver in drivers):
        await asyncio.sleep(0.25)
        now = time.perf_counter()
        for driver in drivers:
            if driver.playing and now - driver.last_progress > options.stall:
                report.count(report.errors, f"room stalled for {options.stall:g} s")
                driver.finish()
        if deadline is not None and now >= deadline:
            for driver in drivers:
                if driver.playing:
                    driver.finish()
    report.finished_at = time.time()
    report.cpu_seconds = time.process_time() - cpu_start
    # The board may show a room's last round before its last sealer hears back: wait for that.
    phones = [phone for driver in drivers for phone in driver.phones]
    acks_deadline = time.perf_counter() + ACK_GRACE
    while any(p.sent_at is not None for p in phones) and time.perf_counter() < acks_deadline:
        await asyncio.sleep(0.05)
    unanswered = sum(1 for p in phones if p.sent_at is not None)
    if unanswered:
        report.errors["orders never acknowledged"] = unanswered

    closing.set()
    sockets = [d.board for d in drivers] + [p.socket for d in drivers for p in d.phones]
    await asyncio.gather(*(s.close() for s in sockets if s is not None), return_exceptions=True)
    await asyncio.gather(*readers, return_exceptions=True)
    return report


def _worker_process(
    rooms: list[RoomSeats],
    options: DriveOptions,
    connected: multiprocessing.Queue[Any],
    go: multiprocessing.synchronize.Event,
) -> None:
    """A client process of ``--clients K``: drives its share of the rooms."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops the run

    async def ready() -> None:
        connected.put(("connected", os.getpid()))
        await asyncio.get_running_loop().run_in_executor(None, go.wait)

    try:
        report = asyncio.run(drive(rooms, options, ready))
        connected.put(("report", report))
    except Exception as error:  # the parent must hear of it instead of waiting forever
        connected.put(("failed", f"{type(error).__name__}: {error}"))


# ------------------------------------------------------------------ the server side


class Server:
    """``pecet serve`` on a fresh SQLite file, stopped with SIGTERM at the end."""

    def __init__(self, folder: Path, step_seconds: float) -> None:
        self.folder = folder
        self.port = _free_port()
        self.log_path = folder / "server.log"
        self.step_seconds = step_seconds
        self.process: subprocess.Popen[bytes] | None = None
        self.cold_start = 0.0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        pecet = Path(sys.executable).parent / "pecet"
        if not pecet.exists():
            pecet = PROJECT_DIR / ".venv" / "bin" / "pecet"
        env = {
            **os.environ,
            "PECET_DATA_DIR": str(self.folder),
            "DATABASE_URL": f"sqlite:///{self.folder / 'pecet.sqlite3'}",
            "PECET_RATE_LIMITS": "off",  # every phone comes from 127.0.0.1
            "PECET_STEP_SECONDS": str(self.step_seconds),
        }
        with open(self.log_path, "wb") as log:
            spawned = time.perf_counter()
            # A session of its own: Ctrl-C reaches this script, which stops the server itself.
            self.process = subprocess.Popen(
                [str(pecet), "serve", "--host", "127.0.0.1", "--port", str(self.port)],
                cwd=PROJECT_DIR,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        with httpx.Client(timeout=2) as http:
            while True:
                if self.process.poll() is not None:
                    raise RuntimeError(f"the server exited at start ({self.process.returncode})")
                try:
                    if http.get(f"{self.base_url}/").status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.perf_counter() - spawned > 120:
                    raise RuntimeError("the server did not answer GET / within 120 s")
                time.sleep(0.01)
        self.cold_start = time.perf_counter() - spawned

    def rss_kib(self) -> int:
        assert self.process is not None
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return 0

    def cpu_seconds(self) -> float:
        assert self.process is not None
        stat = Path(f"/proc/{self.process.pid}/stat").read_text()
        # The command name may hold spaces; the fields after its closing parenthesis do not.
        fields = stat[stat.rindex(")") + 2 :].split()
        utime, stime = int(fields[11]), int(fields[12])
        return (utime + stime) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        process = self.process
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)

    def log_tail(self) -> str:
        lines = self.log_path.read_text(errors="replace").splitlines()[-15:]
        return "\n".join(lines) or "(empty server log)"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


async def open_rooms(base_url: str, count: int, options: JSON) -> list[RoomSeats]:
    """Create ``count`` rooms, seat six phones in each and start their matches (the API)."""
    gate = asyncio.Semaphore(ROOMS_OPENED_AT_ONCE)

    async def one(http: httpx.AsyncClient) -> RoomSeats:
        async with gate:
            created = await http.post("/api/rooms", json={"game": GAME, "options": options})
            created.raise_for_status()
            code, host = created.json()["code"], created.json()["host_token"]
            tokens = []
            for number in range(1, PHONES_PER_ROOM + 1):
                joined = await http.post(
                    f"/api/rooms/{code}/seats", json={"name": f"Heir {number}"}
                )
                joined.raise_for_status()
                tokens.append(joined.json()["token"])
            started = await http.post(
                f"/api/rooms/{code}/start", headers={"Authorization": f"Bearer {host}"}
            )
            started.raise_for_status()
            return RoomSeats(code, host, tokens)

    async with httpx.AsyncClient(base_url=base_url, timeout=120) as http:
        return list(await asyncio.gather(*(one(http) for _ in range(count))))


# ------------------------------------------------------------------ the run


def _git_commit() -> str:
    """The checkout's commit, marked ``-dirty`` when tracked files differ from it (the
    figures then belong to uncommitted code)."""

    def git(*arguments: str) -> str:
        done = subprocess.run(
            ["git", *arguments], cwd=PROJECT_DIR, capture_output=True, text=True, check=True
        )
        return done.stdout.strip()

    try:
        commit = git("rev-parse", "--short", "HEAD")
        changed = git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return f"{commit}-dirty" if changed else commit


def _rounded(value: float | None, digits: int = 1) -> float | None:
    return None if value is None else round(value, digits)


def run(args: argparse.Namespace) -> JSON:
    window = 0.0 if args.saturate else args.window
    options = DriveOptions(
        ws_url="",
        window=window,
        rounds=args.rounds,
        seconds=args.seconds,
        stall=args.stall,
        seed=args.seed,
        compression=not args.no_compression,
    )
    game_rounds = MAX_HEIRS_ROUNDS if args.seconds else max(DEFAULT_HEIRS_ROUNDS, args.rounds)
    figures: JSON = {
        "commit": _git_commit(),
        "mode": "saturate (window 0)" if args.saturate else f"window {window:g} s",
        "load_average_start": [round(x, 2) for x in os.getloadavg()],
        "step_seconds": args.step_seconds,
        "clients": args.clients,
    }
    with tempfile.TemporaryDirectory(prefix="pecet-bench-") as folder:
        server = Server(Path(folder), args.step_seconds)
        try:
            server.start()
            figures["cold_start_s"] = round(server.cold_start, 3)
            print(f"server up in {server.cold_start:.2f} s on {server.base_url}", flush=True)
            options = DriveOptions(**{**asdict(options), "ws_url": f"ws://127.0.0.1:{server.port}"})
            rss_before = server.rss_kib()
            rooms = asyncio.run(open_rooms(server.base_url, args.rooms, {"rounds": game_rounds}))
            print(f"{len(rooms)} rooms open and started; connecting sockets", flush=True)
            report, rss_idle, cpu_interval = _drive_all(server, rooms, options, args.clients)
            rss_end = server.rss_kib()
        except Exception:
            if server.process is not None:
                print(f"server log (last lines):\n{server.log_tail()}", file=sys.stderr)
            raise
        finally:
            server.stop()
    interval = max(1e-9, report.finished_at - report.started_at)
    figures.update(
        rooms=args.rooms,
        sockets=report.sockets,
        measured_s=round(interval, 2),
        setups_resolved=report.setups,
        rounds_played=report.order_rounds,
        games_finished=report.finished_games,
        seals=report.seals,
        seals_per_s=round(report.seals / interval, 1),
        last_seal_to_board_ms={
            "p50": _rounded(percentile(report.board_ms, 0.50)),
            "p95": _rounded(percentile(report.board_ms, 0.95)),
            "p99": _rounded(percentile(report.board_ms, 0.99)),
            "max": _rounded(max(report.board_ms, default=None)),
            "rounds": len(report.board_ms),
        },
        seal_to_ack_ms={
            "p50": _rounded(percentile(report.ack_ms, 0.50)),
            "p99": _rounded(percentile(report.ack_ms, 0.99)),
        },
        server_rss_kib={"before_rooms": rss_before, "idle_after_connect": rss_idle, "end": rss_end},
        rss_per_idle_room_kib=round((rss_idle - rss_before) / max(1, args.rooms), 1),
        server_cpu_percent=round(cpu_interval / interval * 100, 1),
        client_cpu_percent=round(report.cpu_seconds / interval * 100, 1),
        frames={
            kind: {
                "count": tally.count,
                "mean_bytes": round(tally.total_bytes / max(1, tally.count)),
                "max_bytes": tally.max_bytes,
            }
            for kind, tally in sorted(report.frames.items())
        },
        refusals=dict(sorted(report.refusals.items())),
        errors=dict(sorted(report.errors.items())),
        load_average_end=[round(x, 2) for x in os.getloadavg()],
    )
    return figures


def _drive_all(
    server: Server, rooms: list[RoomSeats], options: DriveOptions, clients: int
) -> tuple[WorkerReport, int, float]:
    """Play every room; returns the merged report, the idle RSS and the server's CPU
    seconds over the measured interval."""
    marks: dict[str, float] = {}

    def at_go() -> int:
        rss = server.rss_kib()
        marks["cpu"] = server.cpu_seconds()
        return rss

    if clients <= 1:
        idle: list[int] = []

        async def ready() -> None:
            idle.append(at_go())

        report = asyncio.run(drive(rooms, options, ready))
        return report, idle[0], server.cpu_seconds() - marks["cpu"]

    context = multiprocessing.get_context("spawn")
    messages: multiprocessing.Queue[Any] = context.Queue()
    go = context.Event()
    shares = [rooms[index::clients] for index in range(clients)]
    workers = [
        context.Process(target=_worker_process, args=(share, options, messages, go))
        for share in shares
        if share
    ]
    for worker in workers:
        worker.start()
    completed = False
    try:
        waiting_for = len(workers)
        while waiting_for:
            kind, body = _next_message(messages, workers)
            if kind == "failed":
                raise RuntimeError(f"a client process failed: {body}")
            waiting_for -= 1
        rss_idle = at_go()
        go.set()
        report = WorkerReport()
        for _ in workers:
            kind, body = _next_message(messages, workers)
            if kind == "failed":
                raise RuntimeError(f"a client process failed: {body}")
            report.merge(body)
        completed = True
        return report, rss_idle, server.cpu_seconds() - marks["cpu"]
    finally:
        for worker in workers:
            if not completed:  # interrupted or failed: the others need not finish
                worker.terminate()
            worker.join(timeout=10)
            if worker.is_alive():
                worker.terminate()


def _next_message(
    messages: multiprocessing.Queue[Any], workers: Sequence[multiprocessing.process.BaseProcess]
) -> tuple[str, Any]:
    while True:
        try:
            message: tuple[str, Any] = messages.get(timeout=1)
            return message
        except queue.Empty:
            if all(not worker.is_alive() for worker in workers):
                raise RuntimeError("the client processes ended without a report") from None


def print_table(figures: JSON) -> None:
    def line(name: str, value: object) -> None:
        print(f"{name:<34} {value}")

    def ms(table: JSON, *keys: str) -> str:
        return " / ".join("-" if table[k] is None else f"{table[k]:g}" for k in keys)

    print()
    line("commit", figures["commit"])
    line("mode", figures["mode"])
    line("client processes", figures["clients"])
    line("board step (PECET_STEP_SECONDS)", f"{figures['step_seconds']:g} s")
    line("cold start to first page", f"{figures['cold_start_s']:.2f} s")
    line("rooms", figures["rooms"])
    line("sockets", figures["sockets"])
    line("measured interval", f"{figures['measured_s']:g} s")
    line("setups resolved", figures["setups_resolved"])
    line("rounds played", figures["rounds_played"])
    line("games finished early", figures["games_finished"])
    line("seals (acknowledged)", figures["seals"])
    line("seals/s", figures["seals_per_s"])
    board = figures["last_seal_to_board_ms"]
    line("last seal→board p50/p95/p99/max", f"{ms(board, 'p50', 'p95', 'p99', 'max')} ms")
    line("  rounds measured", board["rounds"])
    line("seal→ack p50/p99", f"{ms(figures['seal_to_ack_ms'], 'p50', 'p99')} ms")
    rss = figures["server_rss_kib"]
    line("server RSS before rooms", f"{rss['before_rooms']} KiB")
    line("server RSS idle after connect", f"{rss['idle_after_connect']} KiB")
    line("server RSS at end", f"{rss['end']} KiB")
    line("RSS per started idle room", f"{figures['rss_per_idle_room_kib']:g} KiB")
    line("server CPU", f"{figures['server_cpu_percent']:g} % of one core")
    line("client CPU", f"{figures['client_cpu_percent']:g} % of one core")
    per_process = figures["client_cpu_percent"] / figures["clients"]
    if per_process > CLIENT_BUSY_PERCENT:
        line("  warning", "the client may be the bottleneck: split it with --clients K")
    for kind, tally in figures["frames"].items():
        line(
            f"frames {kind}",
            f"{tally['count']} × mean {tally['mean_bytes']} B, max {tally['max_bytes']} B",
        )
    refusals = figures["refusals"]
    line("refusals", sum(refusals.values()))
    for code, number in refusals.items():
        line(f"  refused {code}", number)
    errors = figures["errors"]
    line("errors", sum(errors.values()))
    for what, number in errors.items():
        line(f"  {what}", number)
    line("load average at start", " ".join(map(str, figures["load_average_start"])))
    line("load average at end", " ".join(map(str, figures["load_average_end"])))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rooms", type=int, default=5, help="Heirs rooms (6 phones + 1 board)")
    length = parser.add_mutually_exclusive_group()
    length.add_argument(
        "--rounds",
        type=int,
        default=5,
        help=f"order rounds per room after setup (at most {MAX_HEIRS_ROUNDS}; default 5)",
    )
    length.add_argument("--seconds", type=float, help="play for this long instead")
    parser.add_argument(
        "--window", type=float, default=2.0, help="a phone seals within this many seconds"
    )
    parser.add_argument(
        "--saturate", action="store_true", help="window 0: phones seal as soon as asked"
    )
    parser.add_argument(
        "--step-seconds",
        type=float,
        default=0.05,
        help="PECET_STEP_SECONDS: the board's pace per reveal step (default 0.05)",
    )
    parser.add_argument("--clients", type=int, default=1, help="client processes sharing the rooms")
    parser.add_argument(
        "--stall",
        type=float,
        default=60.0,
        help="seconds without progress after which a room counts as stalled",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--no-compression", action="store_true", help="no permessage-deflate (browsers use it)"
    )
    parser.add_argument("--json", type=Path, help="also write the figures as JSON here")
    args = parser.parse_args()
    if not 1 <= args.rounds <= MAX_HEIRS_ROUNDS:
        parser.error(f"--rounds is 1..{MAX_HEIRS_ROUNDS}")
    if args.rooms < 1 or args.clients < 1:
        parser.error("--rooms and --clients are at least 1")
    if args.seconds is not None:
        args.rounds = MAX_HEIRS_ROUNDS

    pace = "saturate" if args.saturate else f"window {args.window:g} s"
    print(
        f"load: {args.rooms} rooms × ({PHONES_PER_ROOM} phones + 1 board), "
        f"step {args.step_seconds:g} s, {pace}, {args.clients} client process(es)",
        flush=True,
    )
    try:
        figures = run(args)
    except KeyboardInterrupt:
        print("interrupted; the server was stopped", file=sys.stderr)
        sys.exit(130)
    print_table(figures)
    if args.json is not None:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()

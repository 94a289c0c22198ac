"""Cold start benchmark: from ``pecet serve`` to the first page.

Spawns the real server (``.venv/bin/pecet serve --host 127.0.0.1 --port <free>``) and polls
``GET /`` until it answers 200; prints the best and the median of ``--runs`` starts for two
databases:

- **fresh**: an empty data directory (every migration runs);
- **stored**: a database already holding ``--finished`` finished rooms and ``--live`` rooms
  in the middle of a game (paused, so they stay there), built once through the HTTP API of a
  server started for that purpose. Each run starts on a copy of it, so every run recovers
  the same rooms. For this case the time until a live room's board answers
  (``GET /rooms/<code>``) is printed too: that is when a player can go on.

The checkout's modules are compiled first, as ``make run`` leaves them. Then the modules
the server imports, by cumulative time (``python -X importtime``), and with
``--profile`` a cProfile of the start in-process (import, migrations, recovery, first page).

    .venv/bin/python bench/start.py [--runs 5] [--finished 200] [--live 20] [--profile]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PROJECT_DIR = Path(__file__).resolve().parent.parent
PECET = PROJECT_DIR / ".venv" / "bin" / "pecet"
PYTHON = PROJECT_DIR / ".venv" / "bin" / "python"
# The code measured is this checkout's, even when the virtualenv was installed from another.
CODE_ENV = {"PYTHONPATH": str(PROJECT_DIR)}
START_TIMEOUT = 60.0
LIVE_ORDERS = 24
"""Orders a stored live room has applied when its clock is stopped (four 6-heir rounds)."""
LIVE_BOT_DELAY = 1.0
"""Seconds a bot waits while the live rooms are made, so that they can be stopped mid-game."""
POLL_SECONDS = 0.005


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return False


def call(method: str, url: str, body: Mapping[str, Any] | None = None, token: str = "") -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read() or b"null")


@contextmanager
def serving(
    database: Path, port: int, extra_env: Mapping[str, str] | None = None
) -> Iterator[subprocess.Popen[bytes]]:
    env = {
        **os.environ,
        **CODE_ENV,
        "DATABASE_URL": f"sqlite:///{database}",
        "PECET_PUBLIC_URL": f"http://127.0.0.1:{port}",
        # Rooms are created faster than the address limits allow a real visitor.
        "PECET_RATE_LIMITS": "off",
        **(extra_env or {}),
    }
    command = [str(PECET), "serve", "--host", "127.0.0.1", "--port", str(port)]
    process = subprocess.Popen(
        [*command, "--log-level", "warning"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield process
    finally:
        process.terminate()
        process.wait(timeout=30)


def wait_until(url: str, process: subprocess.Popen[bytes], since: float) -> float:
    """Seconds from ``since`` until ``url`` answers 200."""
    while not answers(url):
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode}")
        if time.perf_counter() - since > START_TIMEOUT:
            raise RuntimeError(f"{url} did not answer within {START_TIMEOUT} s")
        time.sleep(POLL_SECONDS)
    return time.perf_counter() - since


@dataclass(frozen=True)
class Start:
    first_page: float
    """Seconds from the spawn to the first ``GET /`` answered 200."""
    cpu: float
    """CPU seconds (user and system) the server had used by then: what the start costs,
    whatever else the machine is doing meanwhile."""
    room: float | None
    """Seconds from the spawn until a live room's board answered (stored database only)."""


def cpu_seconds(pid: int) -> float:
    """User and system time of a running process, from ``/proc`` (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def one_start(database: Path, live_code: str | None) -> Start:
    port = free_port()
    started = time.perf_counter()
    with serving(database, port) as process:
        first_page = wait_until(f"http://127.0.0.1:{port}/", process, started)
        cpu = cpu_seconds(process.pid)
        room = None
        if live_code is not None:
            room = wait_until(f"http://127.0.0.1:{port}/api/rooms/{live_code}", process, started)
    return Start(first_page, cpu, room)


def build_stored(folder: Path, finished: int, live: int) -> tuple[Path, list[str]]:
    """A database with ``finished`` rooms whose game is over and ``live`` paused mid-game
    rooms of six bots, made through the API of a real server (started twice: its bots
    finish the first rooms at once, then play slowly enough to be stopped mid-game)."""
    database = folder / "stored.sqlite3"

    def bots_room(base: str, game: str, bots: int) -> tuple[str, str]:
        room = call("POST", f"{base}/api/rooms", {"game": game})
        code, host = room["code"], room["host_token"]
        for _ in range(bots):
            call("POST", f"{base}/api/rooms/{code}/bots", {}, host)
        call("POST", f"{base}/api/rooms/{code}/start", None, host)
        return code, host

    deadline = time.perf_counter() + 600
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with serving(database, port, {"PECET_BOT_DELAY": "0", "PECET_STEP_SECONDS": "0"}) as process:
        wait_until(f"{base}/healthz", process, time.perf_counter())
        games = ("hidden_leaders", "legions")
        finished_codes = [bots_room(base, games[n % 2], 2)[0] for n in range(finished)]
        for code in finished_codes:
            while call("GET", f"{base}/api/rooms/{code}")["status"] != "finished":
                if time.perf_counter() > deadline:
                    raise RuntimeError(f"room {code} did not finish")
                time.sleep(0.05)

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    slow = {"PECET_BOT_DELAY": str(LIVE_BOT_DELAY), "PECET_STEP_SECONDS": "0"}
    with serving(database, port, slow) as process:
        wait_until(f"{base}/healthz", process, time.perf_counter())
        # Let the live games play some rounds, then stop their clocks: they stay mid-game.
        playing = dict(bots_room(base, "heirs", 6) for _ in range(live))
        paused: list[str] = []
        while playing and time.perf_counter() < deadline:
            for code, host in list(playing.items()):
                if call("GET", f"{base}/api/rooms/{code}")["version"] >= LIVE_ORDERS:
                    call("POST", f"{base}/api/rooms/{code}/pause", {"paused": True}, host)
                    paused.append(code)
                    del playing[code]
            time.sleep(0.02)
        boards = [call("GET", f"{base}/api/rooms/{code}") for code in paused]
    # A game that ended before its pause landed counts with the finished ones.
    live_boards = [board for board in boards if board["status"] == "playing"]
    versions = [board["version"] for board in live_boards] or [0]
    print(
        f"stored database: {finished + live - len(live_boards)} finished rooms, "
        f"{len(live_boards)} live heirs rooms "
        f"(orders applied: {min(versions)}–{max(versions)}), "
        f"{database.stat().st_size / 2**20:.1f} MiB"
    )
    return database, [board["code"] for board in live_boards]


def summary(label: str, times: list[float]) -> str:
    return (
        f"{label}: best {min(times) * 1000:.0f} ms, median {statistics.median(times) * 1000:.0f} ms"
        f" ({', '.join(f'{t * 1000:.0f}' for t in times)})"
    )


def report(database: str, starts: list[Start]) -> None:
    print(summary(f"{database}, first page", [s.first_page for s in starts]))
    print(summary(f"{database}, server CPU until the first page", [s.cpu for s in starts]))
    rooms = [s.room for s in starts if s.room is not None]
    if rooms:
        print(summary(f"{database}, a live room's board", rooms))


def import_offenders(top: int) -> None:
    """The modules ``pecet serve`` imports, by cumulative import time (one cold process)."""
    result = subprocess.run(
        [str(PYTHON), "-X", "importtime", "-c", "import app.cli, app.main, uvicorn"],
        cwd=PROJECT_DIR,
        env={**os.environ, **CODE_ENV},
        capture_output=True,
        text=True,
        check=True,
    )
    rows: list[tuple[int, int, str]] = []
    for line in result.stderr.splitlines():
        if not line.startswith("import time:") or "|" not in line:
            continue
        own_us, cumulative_us, name = line.removeprefix("import time:").split("|")
        if own_us.strip().isdigit():
            rows.append((int(cumulative_us), int(own_us), name.rstrip()))
    print(f"\nimports (python -X importtime; total {sum(r[1] for r in rows) / 1000:.0f} ms)")
    print("  cumulative ms   own ms  module")
    for cumulative, own, name in sorted(rows, reverse=True)[:top]:
        print(f"  {cumulative / 1000:13.1f} {own / 1000:8.1f}  {name}")


PROFILE_SCRIPT = """
import asyncio, cProfile, os, pstats, sys

def start():
    from app.config import Settings
    from app.main import create_app
    app = create_app(Settings.from_env())

    async def first_page():
        sent = []
        async def receive():
            return {"type": "http.request", "body": b"", "more_body": False}
        async def send(message):
            sent.append(message)
        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
                 "method": "GET", "scheme": "http", "path": "/", "raw_path": b"/",
                 "query_string": b"", "root_path": "", "headers": [(b"host", b"127.0.0.1")],
                 "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 80), "app": app,
                 "state": {}}
        async with app.router.lifespan_context(app):
            await app(scope, receive, send)
        assert sent[0]["status"] == 200, sent[0]

    asyncio.run(first_page())

profile = cProfile.Profile()
profile.runcall(start)
pstats.Stats(profile).sort_stats("cumulative").print_stats(int(sys.argv[1]))
"""


def profile_start(database: Path, top: int) -> None:
    """cProfile of one start in-process: import, create_app, lifespan (migrations and
    recovery) and the first page, on a copy of ``database``."""
    env = {
        **os.environ,
        **CODE_ENV,
        "DATABASE_URL": f"sqlite:///{database}",
        "PECET_RATE_LIMITS": "off",
    }
    result = subprocess.run(
        [str(PYTHON), "-c", PROFILE_SCRIPT, str(top)],
        cwd=PROJECT_DIR,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    print("\ncProfile of one start (import, migrations, recovery, first page):")
    print("\n".join(line for line in result.stdout.splitlines() if "frozen importlib" not in line))


def compile_bytecode() -> None:
    """Compile the measured checkout's modules, as ``make run`` does before it serves: an
    editable install leaves them uncompiled, and with ``PYTHONDONTWRITEBYTECODE`` set every
    start would compile them again (about 200 ms), which is not what a player waits for."""
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", "app", "engine"], cwd=PROJECT_DIR, check=True
    )


def copy_database(source: Path, target: Path) -> Path:
    for suffix in ("", "-wal", "-shm"):
        if Path(f"{source}{suffix}").exists():
            shutil.copyfile(f"{source}{suffix}", f"{target}{suffix}")
    return target


def live_codes_file(database: Path) -> Path:
    return database.with_suffix(".live.json")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--finished", type=int, default=200)
    parser.add_argument("--live", type=int, default=20)
    parser.add_argument("--imports", type=int, default=25, help="rows of importtime")
    parser.add_argument("--profile", type=int, default=0, help="rows of cProfile (0: none)")
    parser.add_argument(
        "--stored",
        type=Path,
        help="keep the stored database here and reuse it on later runs (built if missing)",
    )
    args = parser.parse_args()
    with open("/proc/loadavg") as loadavg:
        print(f"load average before: {' '.join(loadavg.read().split()[:3])}")

    compile_bytecode()
    with tempfile.TemporaryDirectory(prefix="pecet-start-") as scratch:
        folder = Path(scratch)
        fresh = [
            one_start(folder / f"fresh-{run}" / "pecet.sqlite3", None) for run in range(args.runs)
        ]
        report("fresh database", fresh)

        if args.stored is not None and args.stored.exists():
            stored, live_codes = args.stored, json.loads(live_codes_file(args.stored).read_text())
        else:
            stored, live_codes = build_stored(folder, args.finished, args.live)
            if args.stored is not None:
                copy_database(stored, args.stored)
                live_codes_file(args.stored).write_text(json.dumps(live_codes))
        restarts = [
            one_start(
                copy_database(stored, folder / f"stored-{run}.sqlite3"),
                live_codes[-1] if live_codes else None,
            )
            for run in range(args.runs)
        ]
        report("stored database", restarts)

        import_offenders(args.imports)
        if args.profile:
            profile_start(copy_database(stored, folder / "profiled.sqlite3"), args.profile)
    with open("/proc/loadavg") as loadavg:
        print(f"\nload average after: {' '.join(loadavg.read().split()[:3])}")


if __name__ == "__main__":
    main()

"""Throwaway services from Debian's packages for the tests: a PostgreSQL server and a Redis
server, each with its files in a temporary folder and listening on 127.0.0.1 on a free port,
stopped when the ``with`` block ends."""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from uuid import uuid4

import redis
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.engine import make_url

POSTGRES_ROLE = "pecet"
"""The superuser ``initdb`` creates; every local connection is trusted, so it has no password."""
POSTGRES_ACCOUNT = "postgres"
"""The system account Debian's ``postgresql`` package creates; PostgreSQL refuses to run as
root, so a root test run starts the server as this account."""
STARTUP_SECONDS = 60
INSTALL_HINT = "install Debian's postgresql and redis-server packages (`make services`)"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class LocalAddress:
    """The addresses of something listening on ``port`` of this machine."""

    port: int

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"


def stop_process(process: subprocess.Popen[bytes], grace: float = 10) -> None:
    """SIGTERM, and SIGKILL if it is still there after ``grace`` seconds."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


def postgres_program(name: str) -> str:
    """A PostgreSQL program (``initdb``, ``pg_ctl``) from the PATH or, as Debian installs them,
    from the newest ``/usr/lib/postgresql/<version>/bin``."""
    found = shutil.which(name)
    if found:
        return found
    versions = sorted(
        Path("/usr/lib/postgresql").glob(f"*/bin/{name}"),
        key=lambda program: (
            int(program.parent.parent.name) if program.parent.parent.name.isdigit() else 0
        ),
    )
    if not versions:
        raise RuntimeError(f"PostgreSQL's {name} is missing: {INSTALL_HINT}")
    return str(versions[-1])


@contextmanager
def postgres_server(folder: Path) -> Iterator[str]:
    """A PostgreSQL server of its own; yields the URL of its ``postgres`` database as the
    superuser (``postgresql+psycopg://pecet@127.0.0.1:PORT/postgres``)."""
    account = POSTGRES_ACCOUNT if os.geteuid() == 0 else None
    with _postgres_home(folder, account) as home:
        data = home / "data"
        _run_as(
            account,
            [
                postgres_program("initdb"),
                f"--pgdata={data}",
                f"--username={POSTGRES_ROLE}",
                "--auth=trust",
                "--encoding=UTF8",
                "--locale=C",
                "--no-sync",
            ],
        )
        with (data / "postgresql.conf").open("a", encoding="utf-8") as config:
            config.write(
                "listen_addresses = '127.0.0.1'\n"
                f"unix_socket_directories = '{home}'\n"
                # The files are thrown away at the end: nothing needs to survive a power cut.
                "fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n"
                # Not UTC on purpose: stored times must not depend on the server's zone.
                "timezone = 'Europe/Prague'\n"
            )
        pg_ctl = postgres_program("pg_ctl")
        log = home / "postgres.log"
        port = _start_postgres(account, pg_ctl, data, log)
        try:
            yield f"postgresql+psycopg://{POSTGRES_ROLE}@127.0.0.1:{port}/postgres"
        finally:
            _run_as(account, [pg_ctl, "stop", f"--pgdata={data}", "--mode=fast", "--wait"])


def _start_postgres(account: str | None, pg_ctl: str, data: Path, log: Path) -> int:
    """Start the server and wait until it accepts connections (``pg_ctl --wait`` asks it,
    like ``pg_isready``); a port taken since it was probed makes it exit, and it starts again
    on a fresh one."""
    for _attempt in range(3):
        port = free_port()
        started = _run_as(
            account,
            [
                pg_ctl,
                "start",
                f"--pgdata={data}",
                f"--log={log}",
                "--wait",
                f"--timeout={STARTUP_SECONDS}",
                f"--options=-p {port}",
            ],
            check=False,
        )
        if started.returncode == 0:
            return port
    raise RuntimeError(f"PostgreSQL did not start: {log.read_text(errors='replace')[-2000:]}")


@contextmanager
def _postgres_home(folder: Path, account: str | None) -> Iterator[Path]:
    """Where the server keeps its data and its socket. Run as another account, it cannot
    enter a test's folder (pytest makes them for root alone), so it gets one of its own in
    the system's temporary directory, removed at the end."""
    if account is None:
        home = folder / "postgres"
        home.mkdir()
        yield home
        return
    home = Path(tempfile.mkdtemp(prefix="pecet-postgres-"))
    try:
        try:
            entry = pwd.getpwnam(account)
        except KeyError:
            raise RuntimeError(
                f"PostgreSQL refuses to run as root and there is no {account!r} account "
                f"to run it as: {INSTALL_HINT}"
            ) from None
        os.chown(home, entry.pw_uid, entry.pw_gid)
        yield home
    finally:
        shutil.rmtree(home, ignore_errors=True)


def _run_as(
    account: str | None, command: list[str], check: bool = True
) -> subprocess.CompletedProcess[str]:
    if account is not None:
        command = ["runuser", "-u", account, "--", *command]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if check and result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{result.stdout}{result.stderr}")
    return result


class PostgresDatabases:
    """Fresh databases on one PostgreSQL server, so that tests sharing the server never see
    each other's rows. ``server_url`` names a role that may create databases."""

    def __init__(self, server_url: str) -> None:
        self.server_url = make_url(server_url)
        self._admin: Engine = create_engine(server_url, isolation_level="AUTOCOMMIT")

    def create(self, name: str | None = None, template: str | None = None) -> str:
        """A new empty database (a copy of ``template`` when given); answers its URL."""
        name = name or f"pecet_test_{uuid4().hex[:16]}"
        copied = f' TEMPLATE "{template}"' if template else ""
        with self._admin.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}"{copied}'))
        return self.server_url.set(database=name).render_as_string(hide_password=False)

    def drop(self, url: str) -> None:
        """Drop the database of ``url``, ending whatever connections a test left open to it."""
        name = make_url(url).database
        with self._admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))

    @contextmanager
    def database(self, template: str | None = None) -> Iterator[str]:
        url = self.create(template=template)
        try:
            yield url
        finally:
            self.drop(url)

    def close(self) -> None:
        self._admin.dispose()


@contextmanager
def redis_server(folder: Path) -> Iterator[str]:
    """A Redis server of its own, keeping nothing on disk; yields ``redis://127.0.0.1:PORT/0``."""
    server = RedisProcess(folder)
    try:
        yield server.start()
    finally:
        server.stop()


class RedisProcess:
    """A Redis server of its own, keeping nothing on disk, that a test may stop and start
    again on the same port (a Redis that went away and came back empty)."""

    def __init__(self, folder: Path) -> None:
        program = shutil.which("redis-server")
        if program is None:
            raise RuntimeError(f"redis-server is missing: {INSTALL_HINT}")
        self.program, self.folder = program, folder
        self.port: int | None = None
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> str:
        """Start the server (on its former port, if it ran before) and wait until it answers
        PING; a fresh port taken since it was probed makes it exit, and it starts again on
        another one."""
        log = self.folder / "redis.log"
        for _attempt in range(3):
            port = self.port or free_port()
            process = subprocess.Popen(
                [
                    self.program,
                    "--port", str(port),
                    "--bind", "127.0.0.1",
                    "--save", "",
                    "--appendonly", "no",
                    "--dir", str(self.folder),
                    "--logfile", str(log),
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )  # fmt: skip
            url = f"redis://127.0.0.1:{port}/0"
            try:
                if _answers_ping(process, url):
                    self.port, self.process = port, process
                    return url
            except BaseException:
                stop_process(process)
                raise
            if self.port is not None:
                break  # its own port is taken: no other will do
        raise RuntimeError(f"redis-server did not start: {log.read_text(errors='replace')[-2000:]}")

    def stop(self) -> None:
        if self.process is not None:
            stop_process(self.process)
            self.process = None


def _answers_ping(process: subprocess.Popen[bytes], url: str) -> bool:
    """Whether the server came up (False when it exited, e.g. because its port was taken)."""
    client = redis.Redis.from_url(url, socket_timeout=1)
    deadline = time.monotonic() + STARTUP_SECONDS
    try:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                return False
            try:
                return bool(client.ping())
            except redis.ConnectionError:
                time.sleep(0.05)
    finally:
        client.close()
    raise RuntimeError(f"redis-server did not answer PING within {STARTUP_SECONDS} s")

"""Fixtures shared by the app tests: an in-process app and a real server process, each on a
fresh database, SQLite or PostgreSQL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy.engine import make_url

from app.config import PROJECT_DIR, Settings
from app.db import upgrade
from app.main import create_app
from tests.clock import ManualClock
from tests.services import LocalAddress, PostgresDatabases, free_port, postgres_server, stop_process

ARTIFACTS = PROJECT_DIR / "test-artifacts"

# Every test comes from 127.0.0.1: the per-address rate limits (issue 13.7) would throttle the
# suite itself. tests/test_rate_limits.py installs its own; server processes inherit this.
os.environ.setdefault("PECET_RATE_LIMITS", "off")


SQLITE_ONLY_MODULES = frozenset(
    {
        "test_api_limits",
        "test_heirs_phone_sheet",
        "test_heirs_table",
        "test_howto",
        "test_legions_table",
        "test_log_secrets",
        "test_page_seals",
        "test_pages",
        "test_refusal_texts",
        "test_seat_labels",
        "test_security_headers",
        "test_ws_hardening",
    }
)
"""Modules whose tests use a database without being about it (screens, leaks of secrets,
limits of requests): they run on SQLite alone, which keeps the suite's time in bounds. So do
the browser tests, for the same reason."""


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "postgresql: runs on PostgreSQL (`-m 'not postgresql'` runs the suite on SQLite alone)",
    )
    config.addinivalue_line("markers", "sqlite_only: uses the database on SQLite alone")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A test that uses a database runs on SQLite and again on PostgreSQL, except the browser
    tests (slow, and about the screens) and those marked or listed as SQLite-only."""
    if "database_backend" not in metafunc.fixturenames:
        return
    package, _, module = metafunc.module.__name__.rpartition(".")
    test = metafunc.definition
    if (
        package != "tests.browser"
        and module not in SQLITE_ONLY_MODULES
        and test.get_closest_marker("browser") is None
        and test.get_closest_marker("sqlite_only") is None
    ):
        backends = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgresql)]
        metafunc.parametrize("database_backend", backends, indirect=True)


@pytest.fixture
def database_backend(request: pytest.FixtureRequest) -> str:
    """``sqlite`` or ``postgresql``, as the test is parametrised (SQLite when it is not)."""
    backend: str = getattr(request, "param", "sqlite")
    return backend


@pytest.fixture(scope="session")
def postgres(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PostgresDatabases]:
    """The PostgreSQL server of the run: ``TEST_DATABASE_URL`` (a role that may create
    databases) or a throwaway server of its own."""
    with ExitStack() as stack:
        server_url = os.environ.get("TEST_DATABASE_URL") or stack.enter_context(
            postgres_server(tmp_path_factory.mktemp("postgres"))
        )
        databases = PostgresDatabases(server_url)
        stack.callback(databases.close)
        yield databases


@pytest.fixture(scope="session")
def postgres_template(postgres: PostgresDatabases) -> Iterator[str]:
    """A database at the newest schema, copied for each test: built once a run."""
    url = postgres.create()
    upgrade(url)
    try:
        yield str(make_url(url).database)
    finally:
        postgres.drop(url)


@pytest.fixture
def database_url(
    database_backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[str]:
    """The database of one test, at the newest migration: a new SQLite file (the server
    migrates it as it starts), or a new PostgreSQL database on the run's server."""
    if database_backend == "sqlite":
        yield f"sqlite:///{tmp_path / 'pecet.sqlite3'}"
        return
    postgres: PostgresDatabases = request.getfixturevalue("postgres")
    with postgres.database(template=request.getfixturevalue("postgres_template")) as url:
        yield url


@pytest.fixture
def empty_database_url(
    database_backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[str]:
    """A database without a table, for tests of the migrations."""
    if database_backend == "sqlite":
        yield f"sqlite:///{tmp_path / 'empty.sqlite3'}"
        return
    postgres: PostgresDatabases = request.getfixturevalue("postgres")
    with postgres.database() as url:
        yield url


@pytest.fixture
def settings(database_url: str) -> Settings:
    # Bots at full speed: no pause between moves, nor for the watchers' predictions.
    return Settings(
        database_url=database_url, bot_delay=0.0, step_seconds=0.02, prediction_seconds=0.0
    )


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as test_client:
        yield test_client


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def timed(settings: Settings, clock: ManualClock) -> Iterator[TestClient]:
    """A client whose rooms' timers run on ``clock``, moved by the test."""
    with TestClient(create_app(settings, clock=clock)) as test_client:
        yield test_client


@dataclass
class ServerProcess(LocalAddress):
    """``pecet serve`` in its own process, on a database that outlives it."""

    database_url: str
    bot_delay: float = 0.0
    prediction_seconds: float = 0.0
    step_seconds: float = 0.02
    """How long the board shows each step of a resolution (tests of the show slow it)."""
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None
    log_path: Path | None = None
    env: dict[str, str] = field(default_factory=dict)
    """More of the server's environment (e.g. ``PECET_REDIS_URL``)."""

    def start(self) -> None:
        """Start the server; if its port was taken meanwhile (free_port only probed it), it
        exits at once, and it starts again on a fresh port."""
        for _attempt in range(3):
            if self._launch():
                return
            self.port = free_port()
        raise RuntimeError(f"server exited with {self.process and self.process.returncode}")

    def _launch(self) -> bool:
        env = {
            **os.environ,
            "DATABASE_URL": self.database_url,
            "PECET_BOT_DELAY": str(self.bot_delay),
            "PECET_PREDICTION_SECONDS": str(self.prediction_seconds),
            "PECET_STEP_SECONDS": str(self.step_seconds),
            "PECET_PUBLIC_URL": self.base_url,
            **self.env,
        }
        log = open(self.log_path, "ab") if self.log_path else subprocess.DEVNULL  # noqa: SIM115
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "app.cli",
                "serve",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--log-level",
                "warning",
            ],
            cwd=PROJECT_DIR,
            env=env,
            stdout=log,
            stderr=log,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return False
            try:
                if httpx.get(f"{self.base_url}/healthz", timeout=1).status_code == 200:
                    return True
            except httpx.HTTPError:
                time.sleep(0.1)
        raise RuntimeError("server did not start within 60 s")

    def kill(self) -> None:
        """SIGKILL: no shutdown handler runs, exactly like a crash."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process is not None:
            stop_process(self.process)


@contextmanager
def running_server(
    folder: Path, step_seconds: float = 0.02, database_url: str | None = None
) -> Iterator[ServerProcess]:
    """A real server process on ``database_url`` (a fresh SQLite file in ``folder`` by
    default), stopped at the end."""
    process = ServerProcess(
        database_url=database_url or f"sqlite:///{folder / 'pecet.sqlite3'}",
        log_path=folder / "server.log",
        step_seconds=step_seconds,
    )
    process.start()
    try:
        yield process
    finally:
        process.stop()


def paced_server(step_seconds: float = 0.02, *, per_module: bool = False) -> Any:
    """A fixture of a real server whose board plays each step of a show for
    ``step_seconds`` (``PECET_STEP_SECONDS``): ``slow = paced_server(2.5)`` in a module.
    ``per_module``: one server for the module's tests (``server = paced_server(per_module=True)``),
    for tests that each play rooms of their own and look at nothing else of the server's
    (its log, its restarts): a server's start costs 1.5 s of CPU."""
    if per_module:

        @pytest.fixture(scope="module")
        def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
            with running_server(tmp_path_factory.mktemp("server"), step_seconds) as process:
                yield process

        return shared

    @pytest.fixture
    def fixture(tmp_path: Path) -> Iterator[ServerProcess]:
        with running_server(tmp_path, step_seconds) as process:
            yield process

    return fixture


@pytest.fixture
def server(tmp_path: Path, database_url: str) -> Iterator[ServerProcess]:
    with running_server(tmp_path, database_url=database_url) as process:
        yield process


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS

"""Fixtures shared by the app tests: an in-process app and a real server process."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from app.config import PROJECT_DIR, Settings
from app.main import create_app

ARTIFACTS = PROJECT_DIR / "test-artifacts"

# Every test comes from 127.0.0.1: the per-address rate limits (issue 13.7) would throttle the
# suite itself. tests/test_rate_limits.py installs its own; server processes inherit this.
os.environ.setdefault("PECET_RATE_LIMITS", "off")


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(
        database_url=f"sqlite:///{tmp_path / 'pecet.sqlite3'}", bot_delay=0.0, step_seconds=0.02
    )


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class ServerProcess:
    """``pecet serve`` in its own process, on a SQLite file that outlives it."""

    database_url: str
    bot_delay: float = 0.0
    step_seconds: float = 0.02
    """How long the board shows each step of a resolution (tests of the show slow it)."""
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None
    log_path: Path | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

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
            "PECET_STEP_SECONDS": str(self.step_seconds),
            "PECET_PUBLIC_URL": self.base_url,
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
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()


@contextmanager
def running_server(folder: Path, step_seconds: float = 0.02) -> Iterator[ServerProcess]:
    """A real server process on a fresh SQLite file in ``folder``, stopped at the end."""
    process = ServerProcess(
        database_url=f"sqlite:///{folder / 'pecet.sqlite3'}",
        log_path=folder / "server.log",
        step_seconds=step_seconds,
    )
    process.start()
    try:
        yield process
    finally:
        process.stop()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    with running_server(tmp_path) as process:
        yield process


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS

"""Settings, read once from the environment."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parent.parent
DEFAULT_DATA_DIR = PROJECT_DIR / "data"


@dataclass(frozen=True, slots=True)
class Settings:
    database_url: str
    host: str = "0.0.0.0"
    port: int = 8000
    public_url: str | None = None
    """Base URL printed in QR codes; by default built from the machine's LAN address."""
    bot_delay: float = 1.0
    """Seconds a bot waits before it plays, so a room can follow its moves."""
    step_seconds: float = 1.6
    """Seconds the board shows each step of a resolution (the pace of the reveal)."""
    prediction_seconds: float = 10.0
    """Seconds the bots hold a night's match at its first move while a player who watches it
    has yet to predict it (a bot would play within ``bot_delay``, before anyone could)."""
    away_seconds: float = 10.0
    """Seconds without a phone socket before the board shows a seat as away."""
    idle_hours: float = 12.0
    """A room nobody has touched for this long is closed; its code goes back to the pool."""
    keep_days: float = 30.0
    """Closed rooms' rows (seats, matches, order logs) are deleted after this many days."""
    redis_url: str | None = None
    """With it, several processes share the rooms through this Redis (app/cluster.py)."""
    ws_compression: bool = False
    """Whether websocket frames may be compressed (permessage-deflate). Off by default: a
    frame is a few KiB and compressing it cost a fifth of the server's time per seal."""
    keepalive_seconds: float = 10.0
    """Seconds between the server's pings of each websocket, and how long it waits for the
    answer: a connection gone without closing (a phone's Wi-Fi lost) is dropped within
    twice this, and the board shows the seat away ``away_seconds`` later."""
    send_timeout: float = 10.0
    """Seconds a frame may take to leave; a socket that takes longer is dropped (its page
    reconnects and is sent the present)."""

    @classmethod
    def from_env(cls) -> Settings:
        data_dir = Path(os.environ.get("PECET_DATA_DIR", DEFAULT_DATA_DIR))
        database_url = os.environ.get("DATABASE_URL") or f"sqlite:///{data_dir / 'pecet.sqlite3'}"
        return cls(
            database_url=database_url,
            host=os.environ.get("PECET_HOST", "0.0.0.0"),
            port=int(os.environ.get("PECET_PORT", "8000")),
            public_url=os.environ.get("PECET_PUBLIC_URL") or None,
            bot_delay=float(os.environ.get("PECET_BOT_DELAY", "1.0")),
            step_seconds=float(os.environ.get("PECET_STEP_SECONDS", "1.6")),
            prediction_seconds=float(os.environ.get("PECET_PREDICTION_SECONDS", "10")),
            idle_hours=float(os.environ.get("PECET_IDLE_HOURS", "12")),
            keep_days=float(os.environ.get("PECET_KEEP_DAYS", "30")),
            redis_url=os.environ.get("PECET_REDIS_URL") or None,
            ws_compression=os.environ.get("PECET_WS_COMPRESSION", "off").lower() in ("on", "1"),
            send_timeout=float(os.environ.get("PECET_SEND_TIMEOUT", "10")),
            keepalive_seconds=float(os.environ.get("PECET_KEEPALIVE_SECONDS", "10")),
            away_seconds=float(os.environ.get("PECET_AWAY_SECONDS", "10")),
        )

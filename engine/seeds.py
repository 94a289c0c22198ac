"""Game content from ``seeds/``: read once, when a game is built, never during play.

This is the one place in ``engine/`` that reads a file. Content is static data shipped with
the code, so reading it does not make a game depend on anything but its seed and orders.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

SEEDS_DIR = Path(__file__).resolve().parent.parent / "seeds"


@cache
def load_seed(relative_path: str) -> Any:
    """The parsed JSON file ``seeds/<relative_path>``; raises ``FileNotFoundError`` loudly."""
    path = SEEDS_DIR / relative_path
    with path.open(encoding="utf-8") as handle:
        return json.load(handle)

"""The true states behind a room's frames, rebuilt from its order log (the secrecy oracles
compare every frame with them)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session, col, select

from app.live import game_options
from app.models import Match, OrderLog
from engine.core import GameRules, Step, replay_resolutions
from engine.registry import get_rules


@dataclass
class Truth:
    """For every version of a match: the state after that many orders and the steps the
    last of them set off (a frame sent during the board's show shows one of those)."""

    rules: GameRules
    after: dict[int, tuple[Any, list[Step]]]

    def state(self, version: int) -> Any:
        return self.after[version][0]

    def shown(self, frame: Mapping[str, Any]) -> Any:
        """The state a frame was built from: the step on show, or the newest state."""
        state, steps = self.after[frame["version"]]
        show = frame.get("show")
        return steps[show["step"]].state if show else state

    def states(self) -> list[Any]:
        return [self.after[v][0] for v in sorted(self.after)]


def rebuild(match: Match, orders: list[tuple[int, dict[str, Any]]]) -> Truth:
    rules = get_rules(match.game)
    after: dict[int, tuple[Any, list[Step]]] = {}
    options = game_options(match.options)
    for index, state, steps in replay_resolutions(rules, match.seats, match.seed, options, orders):
        after[index + 1] = (state, steps)
    return Truth(rules, after)


def stored_match(db: Any, match_id: int) -> tuple[Match, list[tuple[int, dict[str, Any]]]]:
    with Session(db) as session:
        match = session.get(Match, match_id)
        assert match is not None
        rows = session.exec(
            select(OrderLog).where(OrderLog.match_id == match.id).order_by(col(OrderLog.seq))
        ).all()
        return match, [(row.seat, row.order) for row in rows]

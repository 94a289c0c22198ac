"""Scoring (L6): the reference procedure of L6.10, used by the game and by the worked examples."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.hidden_leaders.cards import FACTIONS, ROWS, SLOTS_PER_ROW, Cards, default_cards
from engine.hidden_leaders.state import Slot

MAJORITY = "MAJORITY"
TIE_INFLUENCE = "TIE_INFLUENCE"
TIE_COUNT = "TIE_COUNT"
TIE_BOTH = "TIE_BOTH"
OUTCOME_CODES = (MAJORITY, TIE_INFLUENCE, TIE_COUNT, TIE_BOTH)

RESULT_A = "A"
RESULT_B = "B"
RESULT_REMATCH = "REMATCH"


@dataclass(frozen=True, slots=True)
class FactionScore:
    """One faction's resolution (L6.3–L6.7): one ``score_faction`` event."""

    faction: str
    council_strength: tuple[int, int]
    leader_value: tuple[int, int]
    presence: tuple[bool, bool]
    rows: tuple[tuple[str, ...], tuple[str, ...]]
    outcome: str
    influence_winner: int | None
    big_row: int | None
    to_a: tuple[str, ...]
    to_b: tuple[str, ...]
    discarded: tuple[str, ...]

    @property
    def influence(self) -> tuple[int, int]:
        return (
            self.council_strength[0] + self.leader_value[0],
            self.council_strength[1] + self.leader_value[1],
        )

    @property
    def counts(self) -> tuple[int, int]:
        return (len(self.rows[0]), len(self.rows[1]))

    def to_json(self) -> dict[str, Any]:
        """The step as data: ``outcome`` (a code of ``OUTCOME_CODES``), ``influence_winner``,
        ``big_row`` and ``presence`` say what happened; the screens word it in the viewer's
        language (L10.4, issue 16.3), so there is no English label here."""
        inf = self.influence
        return {
            "faction": self.faction,
            "influence": {"A": inf[0], "B": inf[1]},
            "council_strength": {"A": self.council_strength[0], "B": self.council_strength[1]},
            "leader_value": {"A": self.leader_value[0], "B": self.leader_value[1]},
            "presence": {"A": self.presence[0], "B": self.presence[1]},
            "counts": {"A": len(self.rows[0]), "B": len(self.rows[1])},
            "rows": {"A": list(self.rows[0]), "B": list(self.rows[1])},
            "outcome": self.outcome,
            "influence_winner": None
            if self.influence_winner is None
            else ROWS[self.influence_winner],
            "big_row": None if self.big_row is None else ROWS[self.big_row],
            "to_a": list(self.to_a),
            "to_b": list(self.to_b),
            "discarded": list(self.discarded),
        }


@dataclass(frozen=True, slots=True)
class Score:
    """The whole scoring (L6): the 4 faction steps, the armies and the result (L6.9, L7.1)."""

    steps: tuple[FactionScore, ...]
    armies: tuple[tuple[str, ...], tuple[str, ...]]
    discarded: tuple[str, ...]
    strength: tuple[int, int]
    heroes: tuple[int, int]
    result: str

    @property
    def winner(self) -> int | None:
        if self.result == RESULT_A:
            return 0
        if self.result == RESULT_B:
            return 1
        return None

    def step(self, faction: str) -> FactionScore:
        return next(s for s in self.steps if s.faction == faction)

    def end(self) -> str:
        """How the game was decided (L6.9): ``strength``, ``hero_count`` or ``rematch``."""
        if self.result == RESULT_REMATCH:
            return "rematch"
        return "strength" if self.strength[0] != self.strength[1] else "hero_count"

    def reason(self) -> str:
        a, b = self.strength
        ha, hb = self.heroes
        if self.result == RESULT_REMATCH:
            return f"Armies tied at strength {a} and {ha} heroes each: rematch."
        win = self.result
        if a != b:
            hi, lo = max(a, b), min(a, b)
            return f"{win} wins on army strength, {hi} to {lo}."
        hi, lo = max(ha, hb), min(ha, hb)
        return f"{win} wins on hero count, {hi} to {lo} (strength tied at {a})."


def score_position(
    leaders: Sequence[str],
    councils: Sequence[Sequence[str]],
    rows: Sequence[Slot],
    cards: Cards | None = None,
) -> Score:
    """Score a final position by the L6.10 reference procedure.

    ``leaders`` and ``councils`` are per seat (A, B); councils hold heroes only.
    ``rows`` is the 14 slots A1..A7, B1..B7. Face states do not matter (L6.1 reveals all).
    """
    cat = cards or default_cards()
    if len(rows) != 2 * SLOTS_PER_ROW:
        raise ValueError("score_position needs the 14 slots A1..A7, B1..B7")
    row_cards: list[list[str]] = []
    for r in range(2):
        part = rows[r * SLOTS_PER_ROW : (r + 1) * SLOTS_PER_ROW]
        slot_heroes = [s.hero for s in part if s.hero is not None]
        blocking = [s.blocker for s in part if s.blocker is not None]
        row_cards.append(slot_heroes + blocking)

    armies: tuple[list[str], list[str]] = ([], [])
    discard: list[str] = []
    steps: list[FactionScore] = []
    faction = cat.card_factions  # what cat.faction answers, for heroes and leaders alike
    strength_of = cat.strengths
    # Each row's and each council's heroes by faction, in their order: one look at each card.
    row_heroes = _by_faction(row_cards, faction)
    council_heroes = _by_faction(councils, faction)
    for fac in FACTIONS:
        council_strength = tuple(
            sum(strength_of[h] for h in council_heroes[p][fac]) for p in (0, 1)
        )
        leader_value = tuple(
            cat.leader(leaders[p]).value if faction[leaders[p]] == fac else 0 for p in (0, 1)
        )
        presence = tuple(faction[leaders[p]] == fac or bool(council_heroes[p][fac]) for p in (0, 1))
        inf = (
            council_strength[0] + leader_value[0],
            council_strength[1] + leader_value[1],
        )
        in_row = (tuple(row_heroes[0][fac]), tuple(row_heroes[1][fac]))
        get: list[tuple[str, ...]] = [in_row[0], in_row[1]]
        winner: int | None = None
        big: int | None = None
        if inf[0] != inf[1] and len(in_row[0]) != len(in_row[1]):
            outcome = MAJORITY
            big = 0 if len(in_row[0]) > len(in_row[1]) else 1
            winner = 0 if inf[0] > inf[1] else 1
            get[winner] = in_row[big]
            get[1 - winner] = in_row[1 - big]
        elif inf[0] == inf[1] and len(in_row[0]) == len(in_row[1]):
            outcome = TIE_BOTH
        elif inf[0] == inf[1]:
            outcome = TIE_INFLUENCE
        else:
            outcome = TIE_COUNT
        to: list[tuple[str, ...]] = [(), ()]
        dropped: list[str] = []
        for p in (0, 1):
            if presence[p]:
                armies[p].extend(get[p])
                to[p] = get[p]
            else:
                dropped.extend(get[p])
        discard.extend(dropped)
        steps.append(
            FactionScore(
                faction=fac,
                council_strength=(council_strength[0], council_strength[1]),
                leader_value=(leader_value[0], leader_value[1]),
                presence=(presence[0], presence[1]),
                rows=in_row,
                outcome=outcome,
                influence_winner=winner,
                big_row=big,
                to_a=to[0],
                to_b=to[1],
                discarded=tuple(dropped),
            )
        )
    strength = (sum(strength_of[c] for c in armies[0]), sum(strength_of[c] for c in armies[1]))
    heroes = (len(armies[0]), len(armies[1]))
    if (strength[0], heroes[0]) > (strength[1], heroes[1]):
        result = RESULT_A
    elif (strength[0], heroes[0]) < (strength[1], heroes[1]):
        result = RESULT_B
    else:
        result = RESULT_REMATCH
    return Score(
        steps=tuple(steps),
        armies=(tuple(armies[0]), tuple(armies[1])),
        discarded=tuple(discard),
        strength=strength,
        heroes=heroes,
        result=result,
    )


def _by_faction(
    cards_of_seat: Sequence[Sequence[str]], faction: Mapping[str, str]
) -> list[dict[str, list[str]]]:
    """Per seat, its cards by faction (every faction present, possibly empty), in order."""
    grouped: list[dict[str, list[str]]] = []
    for cards in cards_of_seat:
        by_faction: dict[str, list[str]] = {fac: [] for fac in FACTIONS}
        for card in cards:
            by_faction[faction[card]].append(card)
        grouped.append(by_faction)
    return grouped


_SLOT_PREFIX = re.compile(r"^[AB][1-7]\s+")


def parse_row(text: str) -> tuple[Slot, ...]:
    """Seven slots from the L8 notation, e.g. ``"A1 IA4 · A2 HT3a · A3 UD5+IA3a · …"``.

    Slot prefixes are optional; separators may be ``·`` or ``,``. ``X+Y`` is hero X with
    blocking hero Y. All cards come out face up (a final position is revealed anyway).
    """
    parts = [p.strip() for p in re.split(r"[·,]", text) if p.strip()]
    if len(parts) != SLOTS_PER_ROW:
        raise ValueError(f"a row needs 7 slots, got {len(parts)}: {text!r}")
    slots: list[Slot] = []
    for part in parts:
        body = _SLOT_PREFIX.sub("", part)
        hero, _, blocker = body.partition("+")
        slots.append(Slot(hero=hero.strip(), face_up=True, blocker=blocker.strip() or None))
    return tuple(slots)

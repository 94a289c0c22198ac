"""Hidden Leaders Duel: the :class:`engine.core.GameRules` implementation (L2–L7, L10)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from engine.core import (
    JSON,
    Event,
    GameDefaults,
    GameInfo,
    NextMatch,
    NotYourTurn,
    Rng,
    Step,
    check_options,
)
from engine.hidden_leaders.bot import choose_place, choose_take
from engine.hidden_leaders.cards import (
    FACTIONS,
    HAND_DEAL,
    ROWS,
    SLOT_INDEX,
    SLOTS,
    SLOTS_PER_ROW,
    TURNS_PER_PLAYER,
    TURNS_TOTAL,
    Cards,
    default_cards,
    seat_row,
)
from engine.hidden_leaders.orders import parse_order
from engine.hidden_leaders.scoring import Score, parse_row, score_position
from engine.hidden_leaders.state import (
    STEP_OVER,
    STEP_PLACE,
    STEP_SCORING,
    STEP_TAKE,
    HLState,
    LastAction,
    PlaceOrder,
    Slot,
    TakenSlot,
    TakeOrder,
)
from engine.tournament import alternate_first_player

_SLOT_PLACES: dict[str, tuple[str, int]] = {
    slot_id: (ROWS[i // SLOTS_PER_ROW], i % SLOTS_PER_ROW + 1) for i, slot_id in enumerate(SLOTS)
}
"""Each slot's row and its number in the row (A1..A7, B1..B7)."""

OPEN_SLOT = Slot(hero=None, face_up=False)
"""A slot whose hero was just taken (L3.1); slots are frozen, so one instance serves all."""

StepCut = Callable[[HLState, int], None]
"""Told a board step's state and the index of the next step's first event."""

_OPTION_KEYS = frozenset({"first_player"})


class HiddenLeadersRules(GameDefaults):
    """The rules object (``RULES``). Holds only the static card catalogue."""

    info = GameInfo(
        id="hidden_leaders",
        name="Hidden Leaders Duel",
        min_players=2,
        max_players=2,
        simultaneous=False,
        tiebreak="army_strength",
        rematch_on_draw=True,  # L7.3
    )

    # -- a series of matches (L2.4, L7.3) ----------------------------------------------------
    def tiebreak_score(self, outcome: Mapping[str, Any], seat: int) -> int:
        """L7.3: a series tied on points goes to the greater army strength summed."""
        return int(outcome["strength"][seat])

    def next_match_options(self, coming: NextMatch) -> JSON:
        """L2.4: who went second in the last game goes first in the next."""
        return alternate_first_player(coming)

    def __init__(self, cards: Cards | None = None) -> None:
        self.cards = cards or default_cards()
        self._latest_score: tuple[HLState, Score] | None = None
        # A slot holding a hero returned face up (L3.2), one per hero: slots are frozen.
        self._returned_slots = {h.id: Slot(hero=h.id, face_up=True) for h in self.cards.heroes}
        # Each hero's two faces as a view shows them (L1.4), built once: views copy them.
        self._faces: dict[tuple[str, bool], JSON] = {}
        for hero in self.cards.heroes:
            self._faces[hero.id, False] = {"faction": hero.faction, "face_up": False}
            self._faces[hero.id, True] = {
                "faction": hero.faction,
                "face_up": True,
                "card": hero.id,
                "strength": hero.strength,
            }

    # -- setup (L2) ------------------------------------------------------------------------
    def setup(self, seats: int, seed: int, options: Mapping[str, Any]) -> HLState:
        if isinstance(seats, bool) or seats != 2:
            raise ValueError("Hidden Leaders Duel is for exactly 2 players.")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError("The seed must be an integer.")
        options = check_options(self.info.name, options, _OPTION_KEYS)
        first = options.get("first_player")
        if first is not None and (type(first) is not int or first not in (0, 1)):
            raise ValueError('"first_player" must be 0 (player A) or 1 (player B).')

        rng = Rng.from_seed(seed)
        heroes = rng.shuffled(h.id for h in self.cards.heroes)  # L2.2
        leaders = rng.shuffled(ld.id for ld in self.cards.leaders)
        if first is None:
            first = rng.below(2)  # L2.4, first game in a room
        # L2.3: 3 + 3 hands, 7 into Row A, 7 into Row B, the last 8 are the pile (top first).
        hand_a = tuple(heroes[0:HAND_DEAL])
        hand_b = tuple(heroes[HAND_DEAL : 2 * HAND_DEAL])
        row_start = 2 * HAND_DEAL
        row_cards = heroes[row_start : row_start + 2 * SLOTS_PER_ROW]
        pile = tuple(heroes[row_start + 2 * SLOTS_PER_ROW :])
        return HLState(
            rows=tuple(Slot(hero=c, face_up=False) for c in row_cards),
            hands=(hand_a, hand_b),
            councils=((), ()),
            leaders=(leaders[0], leaders[1]),
            set_aside=tuple(leaders[2:]),
            pile=pile,
            first_player=int(first),
            rng=rng.state,
        )

    # -- whose decision --------------------------------------------------------------------
    @staticmethod
    def _decides(state: HLState, seat: int) -> bool:
        """Whether ``seat`` has a decision to send now (its prompt is not ``None``)."""
        return state.playing and state.pending is None and seat == state.active

    def prompt(self, state: HLState, seat: int) -> JSON | None:
        if not self._decides(state, seat):
            return None
        if state.step == STEP_TAKE:
            takeable = state.takeable_slots()
            return {
                "kind": "take",
                "count": min(2, len(takeable)),
                "takeable": takeable,
                "turn": state.turn,
                "own_turn": state.own_turn,
            }
        return {
            "kind": "place",
            "open_slots": list(state.open_slots),
            "hand": list(state.hands[seat]),
            "block_targets": state.block_targets(),
            "turn": state.turn,
            "own_turn": state.own_turn,
        }

    def submit(self, state: HLState, seat: int, order: Mapping[str, Any]) -> HLState:
        if not state.playing:
            raise NotYourTurn("The game is over.")
        if seat != state.active:
            raise NotYourTurn()
        if state.pending is not None:
            raise NotYourTurn("Your order is already in; wait for it to be played.")
        parsed = parse_order(state, order, self.cards)
        return state.evolve(pending=parsed)

    def ready(self, state: HLState) -> bool:
        return not state.over and state.pending is not None

    # -- resolution ------------------------------------------------------------------------
    def resolve(self, state: HLState) -> tuple[HLState, list[Event]]:
        return self._resolve(state, None)

    def resolve_steps(self, state: HLState) -> list[Step]:
        """The same resolution as :meth:`resolve`, cut for the board. A TAKE (L3.1) and a
        RETURN+PLACE with its draw (L3.2-L3.4) are one step each. The last placement
        (L5.3) is followed by the scoring of L10.4, one step each: the reveal of rows,
        leaders and councils (L6.1), each faction in the order IA, HT, WF, UD (L6.2-L6.7),
        then the armies and the result (L6.8, L6.9). ``Step.round`` is the global turn.

        The states between the last placement and the result have ``step == "scoring"``:
        nobody decides, and the board shows ``scoring_shown`` parts of the scoring."""
        cuts: list[tuple[int, HLState]] = []
        final, events = self._resolve(state, lambda st, end: cuts.append((end, st)))
        steps: list[Step] = []
        start = 0
        for end, snapshot in cuts:
            steps.append(Step(state.turn, events[start:end], snapshot))
            start = end
        steps.append(Step(state.turn, events[start:], final))
        return steps

    def order_is_public(self, order: Mapping[str, Any]) -> bool:
        """A TAKE (L3.1) names slots whose taking the board shows (L10.2 "last action"):
        public. A RETURN+PLACE puts a card face down into a council or as a blocking hero
        (L3.3), whose identity stays hidden until scoring (L10.3): never public, not even
        on the last turn (this order alone does not tell which turn it was)."""
        return order.get("type") == "take"

    def _resolve(self, state: HLState, cut: StepCut | None) -> tuple[HLState, list[Event]]:
        """The resolution :meth:`resolve` and :meth:`resolve_steps` share; ``cut`` (only
        for steps) is told each board step's state as the resolution passes it."""
        pending = state.pending
        if not state.playing or pending is None:
            raise RuntimeError("Nothing to resolve: no order is pending.")
        if isinstance(pending, TakeOrder):
            return self._resolve_take(state, pending)
        return self._resolve_place(state, pending, cut)

    def _resolve_take(self, state: HLState, order: TakeOrder) -> tuple[HLState, list[Event]]:
        """L3.1: the taken heroes go to the hand; their slots become open slots."""
        seat = state.active
        taken_public: list[TakenSlot] = []
        cards: list[str] = []
        rows = list(state.rows)  # one new tuple of rows per resolution, not one per slot
        for slot_id in order.slots:
            slot = rows[SLOT_INDEX[slot_id]]
            assert slot.hero is not None and slot.blocker is None
            cards.append(slot.hero)
            taken_public.append(
                TakenSlot(
                    slot=slot_id,
                    faction=self.cards.hero_factions[slot.hero],
                    card=slot.hero if slot.face_up else None,
                )
            )
            rows[SLOT_INDEX[slot_id]] = OPEN_SLOT
        hands = list(state.hands)
        hands[seat] = (*hands[seat], *cards)
        new = state.evolve(
            rows=tuple(rows),
            hands=(hands[0], hands[1]),
            step=STEP_PLACE,
            open_slots=order.slots,
            taken=tuple(cards),
            pending=None,
            last=LastAction(seat=seat, turn=state.turn, taken=tuple(taken_public)),
        )
        events = [
            Event(
                "take",
                {
                    "seat": seat,
                    "turn": state.turn,
                    "slots": [self._taken_slot_json(t) for t in taken_public],
                },
            ),
            Event(
                "took",
                {
                    "seat": seat,
                    "cards": cards,
                    "slots": dict(zip(order.slots, cards, strict=True)),
                },
                audience=(seat,),
            ),
        ]
        return new, events

    def _taken_slot_json(self, taken: TakenSlot) -> JSON:
        out: JSON = {
            "slot": taken.slot,
            "faction": taken.faction,
            "face_up": taken.card is not None,
        }
        if taken.card is not None:
            out["card"] = taken.card
            out["strength"] = self.cards.strength(taken.card)
        return out

    def _resolve_place(
        self, state: HLState, order: PlaceOrder, cut: StepCut | None = None
    ) -> tuple[HLState, list[Event]]:
        """L3.2 return face up, L3.3 place, L3.4 draw; then the next turn or scoring."""
        seat = state.active
        hand = list(state.hands[seat])
        rows = list(state.rows)  # one new tuple of rows per resolution, not one per slot
        for slot_id, card in order.returns:
            hand.remove(card)
            rows[SLOT_INDEX[slot_id]] = self._returned_slots[card]
        hand.remove(order.card)
        councils = list(state.councils)
        block_faction: str | None = None
        if order.to == "council":
            councils[seat] = (*councils[seat], order.card)
        else:
            assert order.slot is not None
            target = rows[SLOT_INDEX[order.slot]]
            rows[SLOT_INDEX[order.slot]] = replace(target, blocker=order.card, blocker_owner=seat)
            block_faction = self.cards.faction(order.card)
        pile = state.pile
        drawn: str | None = None
        if pile:
            drawn = pile[0]
            pile = pile[1:]
            hand.append(drawn)
        hands = list(state.hands)
        hands[seat] = tuple(hand)
        took = state.last or LastAction(seat=seat, turn=state.turn, taken=())
        last = LastAction(  # the turn's TAKE, completed by this RETURN+PLACE
            seat=took.seat,
            turn=took.turn,
            taken=took.taken,
            returns=order.returns,
            placement=order.to,
            block_slot=order.slot,
            block_faction=block_faction,
            drew=drawn is not None,
        )
        finished = state.turn >= TURNS_TOTAL
        new = state.evolve(
            rows=tuple(rows),
            hands=(hands[0], hands[1]),
            councils=(councils[0], councils[1]),
            pile=pile,
            pending=None,
            open_slots=(),
            taken=(),
            last=last,
            step=STEP_OVER if finished else STEP_TAKE,
            turn=state.turn if finished else state.turn + 1,
        )
        placement: JSON = {"to": order.to}
        if order.to == "block":
            placement.update({"slot": order.slot, "faction": block_faction})
        events = [
            Event(
                "place",
                {
                    "seat": seat,
                    "turn": state.turn,
                    "returns": dict(order.returns),
                    "placement": placement,
                },
            ),
            Event(
                "placed",
                {"seat": seat, "card": order.card, **placement},
                audience=(seat,),
            ),
        ]
        # L3.4: whether a card was drawn, as data; the screens word it (issue 16.3).
        if drawn is not None:
            events.append(Event("draw", {"seat": seat, "drew": True, "pile": len(pile)}))
            events.append(Event("drew", {"seat": seat, "card": drawn}, audience=(seat,)))
        else:
            events.append(Event("draw", {"seat": seat, "drew": False, "pile": 0}))
        if finished:
            self._scoring_events(new, events, cut)
        return new, events

    def _scoring_events(self, state: HLState, events: list[Event], cut: StepCut | None) -> None:
        """L6 after the last turn, as the board plays it (L10.4): the reveal, each faction
        in the order of L6.2, then the result. ``cut`` gets the state shown before each."""
        score = self.score(state)
        if cut is not None:
            cut(replace(state, step=STEP_SCORING, scoring_shown=0), len(events))
        events.append(Event("reveal", self._reveal_json(state)))
        for shown, step in enumerate(score.steps, start=1):
            if cut is not None:
                cut(replace(state, step=STEP_SCORING, scoring_shown=shown), len(events))
            events.append(Event("score_faction", step.to_json()))
        if cut is not None:
            shown = 1 + len(score.steps)
            cut(replace(state, step=STEP_SCORING, scoring_shown=shown), len(events))
        events.append(Event("result", self._outcome_json(state, score)))

    # -- scoring and outcome (L6, L7) ------------------------------------------------------
    def score(self, state: HLState) -> Score:
        """The L6.10 scoring of the state's rows and councils (meaningful once it is over)."""
        # The last resolution, the outcome and the final views all score the same final
        # state in a row: the latest state's score is kept (states and scores are frozen).
        latest = self._latest_score
        if latest is not None and latest[0] is state:
            return latest[1]
        score = score_position(state.leaders, state.councils, state.rows, self.cards)
        self._latest_score = (state, score)
        return score

    def outcome(self, state: HLState) -> JSON | None:
        if not state.over:
            return None
        return self._outcome_json(state, self.score(state))

    def _outcome_json(self, state: HLState, score: Score) -> JSON:
        return {
            "result": score.result,
            "winner": score.winner,
            "strength": list(score.strength),
            "heroes": list(score.heroes),
            "first_player": state.first_player,
            "turns": min(state.turn, TURNS_TOTAL),
            "end": score.end(),
            "reason": score.reason(),
        }

    def _reveal_json(self, state: HLState) -> JSON:
        return {
            "leaders": {ROWS[p]: self.cards.leader_json(state.leaders[p]) for p in (0, 1)},
            "councils": {
                ROWS[p]: [self.cards.hero_json(c) for c in state.councils[p]] for p in (0, 1)
            },
            "rows": self._rows_json(state, None, reveal=True),
        }

    # -- views (L10) -----------------------------------------------------------------------
    def _card_face(self, card: str, face_up: bool) -> JSON:
        return dict(self._faces[card, face_up])

    def _slot_view(
        self, slot_id: str, slot: Slot, seat: int | None, reveal: bool, taking: bool
    ) -> JSON:
        hero = None if slot.hero is None else self._card_face(slot.hero, reveal or slot.face_up)
        blocker: JSON | None = None
        if slot.blocker is not None:
            own = seat is not None and slot.blocker_owner == seat
            blocker = self._card_face(slot.blocker, reveal)
            blocker["owner"] = slot.blocker_owner
            if own and not reveal:
                blocker["card"] = slot.blocker
                blocker["strength"] = self.cards.strength(slot.blocker)
            if own:
                blocker["own"] = True
        row, index = _SLOT_PLACES[slot_id]
        return {
            "slot": slot_id,
            "row": row,
            "index": index,
            "hero": hero,
            "blocker": blocker,
            "open": slot.hero is None,
            "takeable": taking and slot.takeable,
        }

    def _last_action_json(self, state: HLState) -> JSON | None:
        last = state.last
        if last is None:
            return None
        placement: JSON | None = None
        if last.placement == "council":
            placement = {"to": "council"}
        elif last.placement == "block":
            placement = {"to": "block", "slot": last.block_slot, "faction": last.block_faction}
        return {
            "seat": last.seat,
            "turn": last.turn,
            "taken": [self._taken_slot_json(t) for t in last.taken],
            "returns": None if last.returns is None else dict(last.returns),
            "placement": placement,
            "drew": last.drew,
        }

    def view(self, state: HLState, seat: int | None) -> JSON:
        if seat is not None and seat not in (0, 1):
            raise ValueError(f"Hidden Leaders Duel has seats 0 and 1, not {seat!r}.")
        # L10.4: the scoring reveals every card first (L6.1), then the factions one by one.
        reveal = self._revealed(state)
        out: JSON = {
            "game": self.info.id,
            "seat": seat,
            "factions": self.cards.factions_json(),
            "rows": self._rows_json(state, seat, reveal),
            "pile": len(state.pile),
            "hand_sizes": [len(h) for h in state.hands],
            "council_sizes": [len(c) for c in state.councils],
            "first_player": state.first_player,
            "active": state.active if state.playing else None,
            "turn": state.turn,
            "turns_total": TURNS_TOTAL,
            "own_turn": state.own_turn,
            "own_turns_total": TURNS_PER_PLAYER,
            "step": state.step,
            "open_slots": list(state.open_slots),
            "faction_counts": self._faction_counts(state),
            "last_action": self._last_action_json(state),
            "over": state.over,
        }
        if seat is not None:
            out["me"] = self._me_json(state, seat)
        if state.over:
            out["scoring"] = self._scoring_json(state)
        elif reveal:
            out["scoring"] = self._scoring_so_far_json(state)
        return out

    @staticmethod
    def _revealed(state: HLState) -> bool:
        """L10.4: the scoring reveals every card first (L6.1), then the factions one by one."""
        return state.over or (state.scoring and state.scoring_shown >= 1)

    def _rows_json(self, state: HLState, seat: int | None, reveal: bool) -> JSON:
        taking = state.step == STEP_TAKE
        slots = [
            self._slot_view(slot_id, slot, seat, reveal, taking)
            for slot_id, slot in zip(SLOTS, state.rows, strict=True)
        ]
        return {
            row: slots[r * SLOTS_PER_ROW : (r + 1) * SLOTS_PER_ROW] for r, row in enumerate(ROWS)
        }

    def _faction_counts(self, state: HLState) -> JSON:
        """Per row, how many slot and blocking heroes of each faction lie there (public:
        every card shows its faction on its back, L1.4)."""
        counts: JSON = {row: dict.fromkeys(FACTIONS, 0) for row in ROWS}
        faction = self.cards.faction
        for index, slot in enumerate(state.rows):
            row_counts = counts[ROWS[index // SLOTS_PER_ROW]]
            if slot.hero is not None:
                row_counts[faction(slot.hero)] += 1
            if slot.blocker is not None:
                row_counts[faction(slot.blocker)] += 1
        return counts

    def _me_json(self, state: HLState, seat: int) -> JSON:
        leader = self.cards.leader(state.leaders[seat])
        council = state.councils[seat]
        influence = dict.fromkeys(FACTIONS, 0)
        presence = dict.fromkeys(FACTIONS, False)
        influence[leader.faction] += leader.value
        presence[leader.faction] = True
        for card in council:
            hero = self.cards.hero(card)
            influence[hero.faction] += hero.strength
            presence[hero.faction] = True
        own_blocks = state.blocks_of(seat)
        blocks = [
            {"slot": sid, **self.cards.hero_json(state.slot(sid).blocker or "")}
            for sid in own_blocks
        ]
        is_active = state.playing and state.active == seat
        return {
            "seat": seat,
            "row": seat_row(seat),
            "leader": self.cards.leader_json(state.leaders[seat]),
            "hand": [self.cards.hero_json(c) for c in state.hands[seat]],
            "council": [self.cards.hero_json(c) for c in council],
            "influence": influence,
            "presence": presence,
            "blocks": blocks,
            "taken": list(state.taken) if is_active else [],
            "placements": len(council) + len(own_blocks),  # what HLState.placements counts
            "active": is_active,
            "submitted": is_active and state.pending is not None,
        }

    def _scoring_json(self, state: HLState) -> JSON:
        score = self.score(state)
        reveal = self._reveal_json(state)
        return {
            "leaders": reveal["leaders"],
            "councils": reveal["councils"],
            "steps": [s.to_json() for s in score.steps],
            "armies": {ROWS[p]: [self.cards.hero_json(c) for c in score.armies[p]] for p in (0, 1)},
            "discarded": list(score.discarded),
            **self._outcome_json(state, score),
        }

    def _scoring_so_far_json(self, state: HLState) -> JSON:
        """The part of the scoring a board step shows (L10.4): the reveal, then the
        factions resolved so far; no armies and no result yet."""
        score = self.score(state)
        reveal = self._reveal_json(state)
        return {
            "leaders": reveal["leaders"],
            "councils": reveal["councils"],
            "steps": [s.to_json() for s in score.steps[: state.scoring_shown - 1]],
        }

    # -- bots ------------------------------------------------------------------------------
    def bot_order(self, state: HLState, seat: int, style: str = "default") -> JSON:
        """The L11 bot's order, from the facts of ``view(state, seat)`` it reads: during a
        TAKE the takeable slots and their face-up heroes, during a RETURN+PLACE the hand,
        the factions of the leader and council, and the open slots."""
        if style not in self.info.bot_styles:
            raise ValueError(f"Unknown bot style {style!r}.")
        if not self._decides(state, seat):
            raise NotYourTurn()
        if state.step == STEP_TAKE:
            takeable = [
                (slot_id, slot.hero if slot.face_up else None)
                for slot_id, slot in zip(SLOTS, state.rows, strict=True)
                if slot.hero is not None and slot.blocker is None
            ]
            return choose_take(seat, takeable, self.cards)
        factions = self.cards.hero_factions
        present = {self.cards.leader(state.leaders[seat]).faction}
        present.update(factions[card] for card in state.councils[seat])
        return choose_place(
            seat, list(state.hands[seat]), present, list(state.open_slots), self.cards
        )

    def random_order(self, state: HLState, seat: int, rng: Rng) -> JSON:
        prompt = self.prompt(state, seat)
        if prompt is None:
            raise NotYourTurn()
        if prompt["kind"] == "take":
            return {"type": "take", "slots": rng.sample(prompt["takeable"], prompt["count"])}
        hand: list[str] = rng.shuffled(prompt["hand"])
        open_slots: list[str] = prompt["open_slots"]
        returns = dict(zip(open_slots, hand, strict=False))
        card = hand[len(open_slots)]
        targets: list[str] = prompt["block_targets"]
        if targets and rng.chance(1, 3):
            return {
                "type": "place",
                "returns": returns,
                "placement": {"to": "block", "card": card, "slot": rng.choice(targets)},
            }
        return {"type": "place", "returns": returns, "placement": {"to": "council", "card": card}}

    # -- persistence -----------------------------------------------------------------------
    def to_json(self, state: HLState) -> JSON:
        return state.to_json()

    def from_json(self, raw: Mapping[str, Any]) -> HLState:
        return HLState.from_json(raw)


def final_state(
    leaders: Sequence[str],
    councils: Sequence[Sequence[str]],
    row_a: str | Sequence[Slot],
    row_b: str | Sequence[Slot],
    block_owners: Mapping[str, int] | None = None,
    first_player: int = 0,
    cards: Cards | None = None,
) -> HLState:
    """A finished game in a given final position (L8 worked examples).

    Rows may be given in the L8 notation (see :func:`parse_row`). ``block_owners`` maps a
    slot id with a blocking hero to the seat that placed it. Raises ``ValueError`` unless the
    position uses every hero exactly once.
    """
    cat = cards or default_cards()
    slots_a = parse_row(row_a) if isinstance(row_a, str) else tuple(row_a)
    slots_b = parse_row(row_b) if isinstance(row_b, str) else tuple(row_b)
    owners = dict(block_owners or {})
    rows: list[Slot] = []
    for sid, slot in zip(SLOTS, (*slots_a, *slots_b), strict=True):
        owner = owners.get(sid) if slot.blocker is not None else None
        rows.append(replace(slot, face_up=True, blocker_owner=owner))
    used = [c for s in rows for c in (s.hero, s.blocker) if c is not None]
    used += [c for council in councils for c in council]
    if sorted(used) != sorted(h.id for h in cat.heroes):
        raise ValueError("a final position must use each of the 28 heroes exactly once")
    lead = (str(leaders[0]), str(leaders[1]))
    if not all(cat.is_leader(x) for x in lead) or lead[0] == lead[1]:
        raise ValueError("need two different leaders")
    return HLState(
        rows=tuple(rows),
        hands=((), ()),
        councils=(tuple(councils[0]), tuple(councils[1])),
        leaders=lead,
        set_aside=tuple(ld.id for ld in cat.leaders if ld.id not in lead),
        pile=(),
        first_player=first_player,
        turn=TURNS_TOTAL,
        step=STEP_OVER,
    )

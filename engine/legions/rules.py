"""Legions — Necro-camp vs King (``rules/legions.md``, rules G1–G17).

How a turn maps onto the protocol of ``engine.core``:

* **Leadership (G4)** is the simultaneous part: both seats get a ``seal`` prompt, ``submit``
  stores each sealed legion, ``ready`` turns true once both are sealed, and ``resolve``
  reveals both at once and names the first player.
* **The steps (G5, G6)** are sequential: ``state.stage`` names the one seat that decides and
  what it decides (place, collect, recruit, ...). ``submit`` validates that seat's order
  against its prompt and stores it; ``resolve`` plays it out and then runs every automatic
  part (attack with a coloured leftover, end of turn, refill) until the next decision.

Every prompt lists its legal options, and each option carries the exact ``order`` to send
back, so a phone renders one big button per option and a bot picks one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from itertools import combinations, permutations
from typing import Any

from engine.core import (
    JSON,
    Event,
    GameDefaults,
    GameInfo,
    IllegalOrder,
    NextMatch,
    NotYourTurn,
    Rng,
    Step,
    check_flat_order,
    check_options,
)
from engine.legions.bot import Board, choose_on_board
from engine.legions.content import KING, NECRO, Content, load_content
from engine.legions.state import (
    LEADERSHIP,
    OVER,
    STEPS,
    LegionsState,
    PlayerState,
    RecruitedHero,
    RowSlot,
    Stage,
    TurnFlags,
    clone,
    copy_flags,
    copy_player,
    state_from_json,
    state_to_json,
    with_pending,
    with_sealed,
    working_copy,
)
from engine.tournament import alternate_first_player

HAND_SIZE = 3  # G2.2
HERO_ROW_SIZE = 5  # G1.5
BANNERS_TO_WIN = 5  # G12.1
UNUSED_STRATAGEM_VP = 2  # G10.2
ONE_LOCATION_ROUTE_MIN = 3  # G8.1: "at least 3"
ROYAL_SUMMONS_MIN = 2  # G1.6 K2
PEEK_COUNT = 2  # G8.2
BROKER_COUNT = 3  # G1.4 H04
HIDDEN = "hidden"  # the face-down row card in a take order (its id is secret)

# Route names of a recruit order.
ROUTE_LOCATION = "location"  # G8.1 one-location route
ROUTE_FIVE = "five"  # G8.1 five-location route
ROUTE_SUMMONS = "summons"  # G1.6 K2 Royal Summons, 2 legions at one location

# The moments of a player's own steps at which the stratagem may be used (G10.1).
BEFORE_STEP_1 = "place"
AT_STEP_2 = "recruit"
AT_STEP_3 = "take"

# The order kinds a stage can ever take, for explaining why an order is refused.
STAGE_ORDER_KINDS: dict[str, tuple[str, ...]] = {
    "seal": ("seal",),
    "place": ("place",),
    "collect": ("collect", "collect_all", "skip"),
    "recruit": ("recruit", "peek", "skip"),
    "peek": ("choose_hero",),
    "under": ("under",),
    "power": ("power", "skip"),
    "arrange": ("arrange",),
    "take": ("take",),
    "attack": ("attack",),
    "shield": ("shield",),
}

KNOWN_OPTIONS = frozenset({"sides", "first_player"})

_LIST_ORDER_FIELDS = frozenset({"legions", "order"})
"""The order keys holding a list of names (G8.3 the legions under a hero, H04 the deck)."""


# Order kinds whose content stays secret after they resolve (G15 "Secret"), and power
# orders by the targets they name: H16 Hexer names one face-up legion, which it routs, and
# the board learns only the location and the count (the identities of routed legions are
# the owner's, G15; README "Secrecy of routs").
_SECRET_ORDER_KINDS = frozenset({"arrange"})  # H04 Broker: the order of the deck (G15)
_PUBLIC_ORDER_KINDS = frozenset(
    {
        "seal",  # revealed at G4.2
        "place",  # G5.1 / G6.1, face up
        "collect",  # G7.3: the collected legion is turned face up (public event)
        "collect_all",
        "skip",
        "recruit",  # G8.1: hero, route and location are public
        "peek",  # G8.2: names only the location (the board sees the peek, not the heroes)
        "choose_hero",  # the recruited hero and top/bottom are public (event "recruit")
        "under",  # G8.3: the legions under a hero are face up
        "take",  # G5.3 / G6.3: a face-up card by id, the face-down one only as "hidden"
        "attack",  # G6.4a
        "shield",  # G1.1 Shield: the kept legion stays face up
        "stratagem",  # G10.1: a used stratagem shows its face
    }
)


class _StepEvents(list[Event]):
    """The events of one resolution that :meth:`LegionsRules.resolve_steps` cuts into board
    steps. The resolution code is the one :meth:`LegionsRules.resolve` runs: it calls
    :func:`_cut` where the board should show what happened so far before what comes next,
    and this list keeps a copy of the working state there (a plain list ignores the cut)."""

    def __init__(self) -> None:
        super().__init__()
        self.cuts: list[tuple[int, LegionsState]] = []
        """(index of the first event of the next step, the state after the step so far)."""

    def cut(self, state: LegionsState) -> None:
        end = len(self)
        if end == (self.cuts[-1][0] if self.cuts else 0):
            return  # nothing happened since the last cut: no empty step
        snapshot = clone(state)
        # Nobody decides while the board plays the resolution out: the decision just
        # resolved is over and the next one exists only in the last step's state.
        snapshot.stage = None
        self.cuts.append((end, snapshot))


def _add_to_pile(piles: dict[str, list[str]], loc: str, cards: list[str]) -> None:
    """Put ``cards`` on the pile at ``loc``: a new list, as states share their piles (see
    ``PlayerState.face_up``); ``piles`` is the resolving state's own dict."""
    piles[loc] = piles[loc] + cards


def _take_from_pile(piles: dict[str, list[str]], loc: str, cards: list[str]) -> None:
    """Take ``cards`` off the pile at ``loc``: a new list, as :func:`_add_to_pile`."""
    pile = piles[loc][:]
    for card in cards:
        pile.remove(card)
    piles[loc] = pile


def _cut(state: LegionsState, events: list[Event]) -> None:
    """A board step ends here (G15 "Turn banner ... played in order")."""
    if isinstance(events, _StepEvents):
        events.cut(state)


_UNBUILT: JSON = {}
"""In place of a prompt not built yet (``None`` is a prompt: the seat has nothing to do)."""


class LegionsRules(GameDefaults):
    """The Legions rules object (``engine.legions.RULES``)."""

    info = GameInfo(
        id="legions",
        name="Legions",
        min_players=2,
        max_players=2,
        simultaneous=True,
        tiebreak="victory_points",
    )

    # ------------------------------------------------------------------ a series of matches

    def tiebreak_score(self, outcome: Mapping[str, Any], seat: int) -> int:
        """A series tied on points goes to the greater VP summed (G13)."""
        return int(outcome["score"][seat])

    def next_match_options(self, coming: NextMatch) -> JSON:
        """A series alternates the seat dealt first, as Hidden Leaders does (L2.4)."""
        return alternate_first_player(coming)

    def __init__(self, content: Content | None = None) -> None:
        self.content = content or load_content()
        self.order = self.content.location_order
        self._prompts_of: LegionsState | None = None
        self._prompts: list[JSON | None] = [_UNBUILT, _UNBUILT]
        """The prompts of each seat of the state ``_prompts_of``, as built so far."""
        # The JSON of every card and hero, built once: views, prompts and events copy them.
        self._card_jsons: dict[str, JSON] = {
            card_id: self._build_card_json(card_id) for card_id in self.content.legions
        }
        self._hero_jsons: dict[str, JSON] = {
            hero_id: self._build_hero_json(hero_id) for hero_id in self.content.heroes
        }
        self._location_jsons: dict[str, JSON] = {
            loc: self._build_location_json(loc) for loc in self.order
        }
        # What the banner count (G11.2) looks up, many times a turn.
        self._banner_heroes = frozenset(h.id for h in self.content.heroes.values() if h.banner)
        self._banner_legions = frozenset(c.id for c in self.content.legions.values() if c.banner)
        self._banner_token_locations = tuple(
            loc for loc in self.order if self.content.locations[loc].token_banner
        )
        self._token_vps = {loc: self.content.locations[loc].token_vp for loc in self.order}
        self._order_list = list(self.order)
        self._number = {card.id: card.number for card in self.content.legions.values()}
        self._effect_locations: dict[str, str] = {}
        for location in self.content.locations.values():
            self._effect_locations.setdefault(location.effect, location.id)
        self._stage_handlers: dict[str, Callable[[LegionsState, int, JSON, list[Event]], None]] = {
            "place": self._do_place,
            "collect": self._do_collect,
            "recruit": self._do_recruit,
            "peek": self._do_choose_peeked,
            "under": self._do_under,
            "power": self._do_power,
            "arrange": self._do_arrange,
            "take": self._do_take,
            "attack": self._do_attack_choice,
            "shield": self._do_shield,
        }

    # ------------------------------------------------------------------ protocol: setup

    def setup(self, seats: int, seed: int, options: Mapping[str, Any]) -> LegionsState:
        """G2. Options: ``sides`` — ``"random"`` (default, G2.3: the server assigns them) or
        a list giving the side of seat 0 and seat 1, e.g. ``["necro", "king"]``;
        ``first_player`` — the seat dealt first (G2.2 "the seat that joined first"),
        default 0; a series alternates it so neither seat always gets the first deal."""
        if seats != 2:
            raise ValueError("Legions is a game for exactly 2 players.")
        options = check_options(self.info.name, options, KNOWN_OPTIONS)
        deal_first = options.get("first_player", 0)
        if type(deal_first) is not int or deal_first not in (0, 1):
            raise ValueError("first_player must be 0 or 1.")
        sides_option = options.get("sides", "random")
        rng = Rng.from_seed(seed)

        # G2.2: shuffle, then 3 to the first seat, 3 to the other, then the row (G2.5).
        deck = rng.shuffled(sorted(self.content.legions))
        hands: list[list[str]] = [[], []]
        hands[deal_first] = deck[0:HAND_SIZE]
        hands[1 - deal_first] = deck[HAND_SIZE : 2 * HAND_SIZE]
        row_cards = deck[2 * HAND_SIZE : 3 * HAND_SIZE]
        deck = deck[3 * HAND_SIZE :]
        legion_row = [
            RowSlot(row_cards[0], True),
            RowSlot(row_cards[1], True),
            RowSlot(row_cards[2], False),
        ]
        heroes = rng.shuffled(sorted(self.content.heroes))  # G2.6

        if sides_option == "random":
            necro_seat = rng.below(2)
            sides = [NECRO, KING] if necro_seat == 0 else [KING, NECRO]
        elif (
            isinstance(sides_option, list | tuple)
            and len(sides_option) == 2
            and all(isinstance(side, str) for side in sides_option)
            and set(sides_option) == {NECRO, KING}
        ):
            sides = list(sides_option)
        else:
            raise ValueError('sides must be "random", ["necro", "king"] or ["king", "necro"].')

        players: list[PlayerState] = []
        for seat in (0, 1):
            pool = self.content.stratagems_of(sides[seat])
            players.append(
                PlayerState(
                    side=sides[seat],
                    hand=hands[seat],
                    stratagem=rng.choice(pool),  # G2.4: 1 of 3 at random
                    stratagem_used=False,
                    face_up={loc: [] for loc in self.order},
                    routed={loc: [] for loc in self.order},
                )
            )
        return LegionsState(
            rng=rng.state,
            turn=1,
            phase=LEADERSHIP,
            players=players,
            tokens=dict.fromkeys(self.order),
            legion_row=legion_row,
            legion_deck=deck,
            hero_row=heroes[:HERO_ROW_SIZE],
            hero_deck=heroes[HERO_ROW_SIZE:],
            flags=TurnFlags(deck_at_start=len(deck)),
            deal_first=deal_first,
        )

    # ------------------------------------------------------------------ protocol: orders

    def prompt(self, state: LegionsState, seat: int) -> JSON | None:
        prompt = self._kept_prompt(state, seat)
        return None if prompt is None else dict(prompt)

    def _kept_prompt(self, state: LegionsState, seat: int) -> JSON | None:
        """The seat's prompt, shared: only for the rules' own reading (``submit``, the bot).

        The seat's driver, its bot and the sealing check all ask for the same prompt of
        the same state in a row: the latest state's prompts are kept (states are never
        changed once returned, see ``working_copy``) and each caller of :meth:`prompt` gets its
        own shallow copy."""
        if seat not in (0, 1):
            return None  # no such seat
        if self._prompts_of is not state:
            self._prompts_of = state
            self._prompts = [_UNBUILT, _UNBUILT]
        prompt = self._prompts[seat]
        if prompt is _UNBUILT:
            prompt = self._prompts[seat] = self._build_prompt(state, seat)
        return prompt

    def _build_prompt(self, state: LegionsState, seat: int) -> JSON | None:
        if state.phase == OVER:
            return None
        if state.phase == LEADERSHIP:
            player = state.players[seat]
            if player.sealed is not None:
                return None  # G4.1: a sealed choice is final
            return {
                "kind": "seal",
                "seat": seat,
                "options": [
                    {"order": {"kind": "seal", "legion": card}, "card": self._card_json(card)}
                    for card in self._by_number(player.hand)
                ],
            }
        stage = state.stage
        if stage is None or stage.seat != seat or state.pending is not None:
            return None
        return self._stage_prompt(state, stage)

    def submit(self, state: LegionsState, seat: int, order: Mapping[str, Any]) -> LegionsState:
        prompt = self._kept_prompt(state, seat)
        if prompt is None:
            raise NotYourTurn(self._not_your_turn_message(state, seat))
        matched = self._offered(prompt, order)
        if matched is None:
            # Issue 13.2: past this line every value is a short name, a number, null or a
            # list of names, so matching, sorting and explaining cannot meet anything stranger.
            order = check_flat_order(order, "kind", _LIST_ORDER_FIELDS, code="bad_order")
            matched = self._match(prompt, order)
            if matched is None:
                raise self._explain(state, seat, prompt, order)
        if state.phase != LEADERSHIP:
            # Only the pending order changes: the new state shares the rest with the old one,
            # which is safe because every change the rules make starts from a copy
            # (``working_copy``, which copies a player or the flags before it changes them).
            return with_pending(state, matched)
        return with_sealed(state, seat, matched["legion"])

    def ready(self, state: LegionsState) -> bool:
        if state.phase == LEADERSHIP:
            return all(p.sealed is not None for p in state.players)
        return state.phase == STEPS and state.pending is not None

    def resolve(self, state: LegionsState) -> tuple[LegionsState, list[Event]]:
        events: list[Event] = []
        return self._resolve(state, events), events

    def resolve_steps(self, state: LegionsState) -> list[Step]:
        """The same resolution as :meth:`resolve`, cut for the board (G15 "Turn banner":
        the reveal, the step, the attack and the end-of-turn majority changes, played in
        order). A new step starts at the leftover turned up for the attack (G6.4, G6.4a),
        at the attack itself (G6.4), at each majority token that moves (G11.1, yellow to
        green), at the banner check (G11.2, with the refill G11.3) and at the game's end
        (G12, G13). Everything else a decision sets off is one step with it: the reveal
        and the first player's turn (G4), a recruit and its legions (G8.3), a power or a
        stratagem and the legions it routs (G9, G10). ``Step.round`` is the turn resolved.

        States between the first and the last step have no open decision (``stage`` is
        ``None``): the next decision belongs to the last step's state."""
        events = _StepEvents()
        final = self._resolve(state, events)
        steps: list[Step] = []
        start = 0
        for end, snapshot in events.cuts:
            steps.append(Step(state.turn, events[start:end], snapshot))
            start = end
        if start < len(events) or not steps:
            steps.append(Step(state.turn, events[start:], final))
        else:  # pragma: no cover - every cut is followed by an event
            steps[-1] = Step(state.turn, steps[-1].events, final)
        return steps

    def order_is_public(self, order: Mapping[str, Any]) -> bool:
        """Whether ``order`` names nothing the rules keep secret once it has resolved.

        Public: the sealed legion (revealed at G4.2), placing and collecting (face up,
        G7), recruiting, peeking at a location and choosing the peeked hero (G8: the
        recruited hero and top/bottom are announced; the order never names the other
        hero), the legions under a hero (G8.3), taking a row card (a face-down one is
        named only as "hidden", G5.3), the attack and Shield choices (G6.4a, G1.1), a
        stratagem (its face is shown once used, G10.1) and every power but one.
        Secret (G15): H04's arrangement of the legion deck, and H16 Hexer's target, a
        legion that is routed, whose identity the board never learns (G9.1, G15)."""
        kind = order.get("kind")
        if kind in _SECRET_ORDER_KINDS:
            return False
        if kind == "power":
            # H16 (rout_one) is the only power naming a legion without a location.
            return not ("legion" in order and "location" not in order)
        return kind in _PUBLIC_ORDER_KINDS

    def _resolve(self, state: LegionsState, events: list[Event]) -> LegionsState:
        """The resolution both :meth:`resolve` and :meth:`resolve_steps` run."""
        if not self.ready(state):
            raise IllegalOrder("Nothing to resolve yet.", code="not_ready")
        new = working_copy(state)
        if new.phase == LEADERSHIP:
            self._reveal(new, events)
        else:
            # The order is only read while it is played out, never changed: no copy.
            order = state.pending
            assert order is not None
            self._apply(new, order, events)
        new.shares_with = None  # done: it keeps no hold on the state it came from
        return new

    def _changing_player(self, state: LegionsState, seat: int) -> PlayerState:
        """The seat's player in the state a resolution works on, to be changed: copied
        first if it is still the resolved state's own. Most resolutions change one player
        or none (a step's order changes its own seat's, the end of a turn both only when
        they hold notes), so the other is shared, not copied. Every change of a player
        in a resolution takes it from here."""
        player = state.players[seat]
        resolved = state.shares_with
        assert resolved is not None, "players change only in a resolution"
        if player is resolved.players[seat]:
            player = state.players[seat] = copy_player(player)
        return player

    def _changing_flags(self, state: LegionsState) -> TurnFlags:
        """The turn's flags in the state a resolution works on, to be changed: copied first
        if they are still the resolved state's own (most resolutions only read them).
        Every change of a flag in a resolution takes them from here; the end of a turn
        puts new flags in their place."""
        resolved = state.shares_with
        assert resolved is not None, "flags change only in a resolution"
        if state.flags is resolved.flags:
            state.flags = copy_flags(state.flags)
        return state.flags

    def outcome(self, state: LegionsState) -> JSON | None:
        if state.phase != OVER or state.result is None:
            return None
        result = dict(state.result)
        result["winners"] = [result["winner"]]
        result["side_of_seat"] = [p.side for p in state.players]
        return result

    def to_json(self, state: LegionsState) -> JSON:
        return state_to_json(state)

    def from_json(self, raw: Mapping[str, Any]) -> LegionsState:
        return state_from_json(dict(raw))

    def bot_order(self, state: LegionsState, seat: int, style: str = "default") -> JSON:
        prompt = self._kept_prompt(state, seat)
        if prompt is None:
            raise NotYourTurn(self._not_your_turn_message(state, seat))
        return choose_on_board(self._bot_board(state, seat), prompt)

    def random_order(self, state: LegionsState, seat: int, rng: Rng) -> JSON:
        prompt = self.prompt(state, seat)
        if prompt is None:
            raise NotYourTurn(self._not_your_turn_message(state, seat))
        return dict(rng.choice(prompt["options"])["order"])

    # ------------------------------------------------------------------ scoring helpers

    def banners(self, state: LegionsState, seat: int) -> int:
        """G11.2: banner legions under heroes, banner heroes, the blue token."""
        banner_heroes = self._banner_heroes
        banner_legions = self._banner_legions
        count = 0
        for recruited in state.players[seat].heroes:
            if recruited.hero in banner_heroes:
                count += 1
            for card in recruited.legions:
                if card in banner_legions:
                    count += 1
        tokens = state.tokens
        for loc in self._banner_token_locations:
            if tokens[loc] == seat:
                count += 1
        return count

    def score_breakdown(self, state: LegionsState, seat: int) -> JSON:
        """G13.1, public at any time (G13.4)."""
        player = state.players[seat]
        heroes: list[JSON] = []
        for recruited in player.heroes:
            hero = self.content.heroes[recruited.hero]
            legions_vp = sum(self.content.legions[c].vp for c in recruited.legions)
            heroes.append(
                {
                    "hero": hero.id,
                    "hero_vp": hero.vp,
                    "legions": list(recruited.legions),
                    "legions_vp": legions_vp,
                    "total": hero.vp + legions_vp,
                }
            )
        majorities: list[JSON] = [
            {"location": loc, "vp": self.content.locations[loc].token_vp}
            for loc in self.order
            if state.tokens[loc] == seat
        ]
        stratagem_vp = 0 if player.stratagem_used else UNUSED_STRATAGEM_VP
        total = stratagem_vp + sum(h["total"] for h in heroes) + sum(m["vp"] for m in majorities)
        return {
            "stratagem": stratagem_vp,
            "heroes": heroes,
            "majorities": majorities,
            "total": total,
        }

    def score(self, state: LegionsState, seat: int) -> int:
        return int(self.score_breakdown(state, seat)["total"])

    # ------------------------------------------------------------------ views (G15)

    def view(self, state: LegionsState, seat: int | None) -> JSON:
        stage = state.stage
        # Each player's part holds its banners and score breakdown: the totals below are
        # read off it, not counted again.
        players = [self._player_view(state, s) for s in (0, 1)]
        public: JSON = {
            "game": "legions",
            "viewer": seat,
            "turn": state.turn,
            "phase": state.phase,
            "last_turn": state.flags.deck_at_start < 2,
            "leader": state.leader,
            "step": None
            if stage is None
            else {"seat": stage.seat, "kind": stage.kind, "submitted": state.pending is not None},
            "locations": [self._location_view(state, loc) for loc in self.order],
            "legion_row": [
                {"face_up": True, "card": self._card_json(slot.card)}
                if slot.face_up
                else {"face_up": False}
                for slot in state.legion_row
            ],
            "legion_deck_count": len(state.legion_deck),
            "hero_row": [self._hero_json(h) for h in state.hero_row],
            "hero_deck_count": len(state.hero_deck),
            "players": players,
            "turn_effects": self._turn_effects_json(state),
            "banners": [player["banners"] for player in players],
            "score": [int(player["score"]["total"]) for player in players],
            "final": None if state.result is None else dict(state.result),
        }
        if seat is not None and seat in (0, 1):
            public["me"] = self._private_view(state, seat)
        return public

    def _turn_effects_json(self, state: LegionsState) -> JSON:
        return {
            "shield_wall": state.flags.shield_wall,
            "royal_summons": state.flags.royal_summons,
            "royal_decree": state.flags.royal_decree,
            "placed_at": list(state.flags.placed_at),
            "recruited": list(state.flags.recruited),
        }

    def _bot_board(self, state: LegionsState, seat: int) -> Board:
        """What :meth:`Board.from_view` reads of ``view(state, seat)``, taken straight from
        the state: the same public facts and the seat's own routed legions. The bot only
        reads a board, so it shares the state's lists and the JSON built once. Built at
        every decision: positionally, in the order of ``Board``'s fields (a test compares
        it with the board read off the view)."""
        mine = state.players[seat]
        flags = state.flags
        return Board(
            seat,
            1 - seat,
            self._order_list,
            mine.face_up,
            state.players[1 - seat].face_up,
            mine.routed,
            self._card_jsons,
            state.tokens,
            self._token_vps,
            list(map(self._hero_jsons.__getitem__, state.hero_row)),
            len(state.hero_deck),
            self.banners(state, seat),
            self.banners(state, 1 - seat),
            state.leader,
            flags.deck_at_start < 2,
            flags.placed_at[seat],
            flags.shield_wall,
        )

    def _hand_json(self, player: PlayerState) -> list[JSON]:
        return [self._card_json(c) for c in self._by_number(player.hand)]

    def _routed_json(self, player: PlayerState) -> JSON:
        return {loc: [self._card_json(c) for c in player.routed[loc]] for loc in self.order}

    def _location_view(self, state: LegionsState, loc: str) -> JSON:
        holder = state.tokens[loc]
        return {
            **self._location_jsons[loc],
            "token": holder,
            "token_side": None if holder is None else state.players[holder].side,
            "sides": [
                {
                    "seat": s,
                    "face_up": [self._card_json(c) for c in state.players[s].face_up[loc]],
                    "routed_count": len(state.players[s].routed[loc]),
                }
                for s in (0, 1)
            ],
        }

    def _build_location_json(self, loc: str) -> JSON:
        """The printed part of a location (G1.1), the same all game: ids and numbers only,
        a screen names them in its own language (issue 16.3)."""
        location = self.content.locations[loc]
        return {
            "id": loc,
            "guild": location.guild,
            "effect": location.effect,
            "token_vp": location.token_vp,
        }

    def seal_marks(self, state: LegionsState, seat: int) -> list[tuple[list[str | int], Any]]:
        """What a seal shows the others (G15): that the seat sealed, its hand one card
        smaller, and that the step's order is in."""
        player = state.players[seat]
        marks: list[tuple[list[str | int], Any]] = [
            (["players", seat, "sealed"], player.sealed is not None),
            (["players", seat, "hand_count"], len(player.hand)),
        ]
        if state.stage is not None:
            marks.append((["step", "submitted"], state.pending is not None))
        return marks

    def _player_view(self, state: LegionsState, seat: int) -> JSON:
        player = state.players[seat]
        stratagem: JSON = {"used": player.stratagem_used}
        if player.stratagem_used:  # G10.1: once used, its face is public
            stratagem.update(self._stratagem_json(player.stratagem))
        return {
            "seat": seat,
            "side": player.side,
            "leads": state.leader == seat,
            "sealed": player.sealed is not None,
            "revealed": None if player.revealed is None else self._card_json(player.revealed),
            "hand_count": len(player.hand),
            "routed_count": sum(len(v) for v in player.routed.values()),
            "heroes": [
                {
                    "hero": self._hero_json(h.hero),
                    "legions": [self._card_json(c) for c in h.legions],
                }
                for h in player.heroes
            ],
            "stratagem": stratagem,
            "banners": self.banners(state, seat),
            "score": self.score_breakdown(state, seat),
        }

    def _private_view(self, state: LegionsState, seat: int) -> JSON:
        player = state.players[seat]
        face_down = next((s.card for s in state.legion_row if not s.face_up), None)
        # G1.1 Foresight: the purple holder may look at the face-down row card at any time.
        foresight = state.tokens[self._location_of_effect("foresight")] == seat
        stratagem = self._stratagem_json(player.stratagem)
        stratagem["used"] = player.stratagem_used
        stratagem["worth"] = 0 if player.stratagem_used else UNUSED_STRATAGEM_VP
        return {
            "seat": seat,
            "side": player.side,
            "hand": self._hand_json(player),
            "sealed": None if player.sealed is None else self._card_json(player.sealed),
            "stratagem": stratagem,
            "routed": self._routed_json(player),
            "row_face_down": self._card_json(face_down) if foresight and face_down else None,
            "notes": [dict(n) for n in player.notes],
        }

    # ------------------------------------------------------------------ JSON helpers

    def _card_json(self, card_id: str) -> JSON:
        return dict(self._card_jsons[card_id])

    def _hero_json(self, hero_id: str) -> JSON:
        return dict(self._hero_jsons[hero_id])

    # Cards, heroes and stratagems are ids and numbers, never names or sentences: a screen
    # looks an id up in its own language (issue 16.3; app/games/legions.py).

    def _build_card_json(self, card_id: str) -> JSON:
        card = self.content.legions[card_id]
        return {
            "id": card.id,
            "number": card.number,
            "guild": card.guild,
            "vp": card.vp,
            "banner": card.banner,
            "location": card.location,
        }

    def _build_hero_json(self, hero_id: str) -> JSON:
        hero = self.content.heroes[hero_id]
        return {
            "id": hero.id,
            "guild": hero.guild,
            "location": hero.location,
            "power": hero.power,
            "token": hero.token,
            "vp": hero.vp,
            "banner": hero.banner,
        }

    def _stratagem_json(self, stratagem_id: str) -> JSON:
        s = self.content.stratagems[stratagem_id]
        return {"id": s.id}

    def _loc_name(self, loc: str) -> str:
        return self.content.locations[loc].name

    def _location_of_effect(self, effect: str) -> str:
        return self._effect_locations[effect]

    def _by_number(self, cards: list[str]) -> list[str]:
        if len(cards) < 2:  # most piles hold one legion or none: nothing to sort
            return list(cards)
        return sorted(cards, key=self._number.__getitem__)

    # ------------------------------------------------------------------ prompts

    # An option is a dict literal: {"order": the order to send back, then the card(s) or hero
    # it names, e.g. "card"}, ids and numbers a screen draws, never text (issue 16.3).

    def _stage_prompt(self, state: LegionsState, stage: Stage) -> JSON:
        """The prompt of the seat deciding ``stage``: its kind, what it is about (a legion,
        a location id, a hero) and its options — orders with the ids a screen needs to draw
        them, never text (issue 16.3: the screen words a prompt by its kind, in its own
        language)."""
        seat = stage.seat
        player = state.players[seat]
        kind = stage.kind
        prompt: JSON = {"kind": kind, "seat": seat}
        options: list[JSON]
        if kind == "place":
            card = player.revealed
            assert card is not None
            prompt["legion"] = self._card_json(card)
            options = [
                {"order": {"kind": "place", "location": loc}} for loc in self._legal_locations(card)
            ]
            options += self._stratagem_options(state, seat, BEFORE_STEP_1)
        elif kind == "collect":
            loc = stage.data["location"]
            prompt["location"] = loc
            options = self._collect_options(state, seat, loc)
        elif kind == "recruit":
            options = self._recruit_options(state, seat)
            options.append({"order": {"kind": "skip"}})
            options += self._stratagem_options(state, seat, AT_STEP_2)
        elif kind == "peek":
            prompt["seen"] = [self._hero_json(h) for h in stage.data["seen"]]
            options = self._peek_options(stage.data["seen"])
        elif kind == "under":
            prompt["hero"] = self._hero_json(stage.data["hero"])
            options = [
                {"order": {"kind": "under", "legions": list(pair)}}
                for pair in self._under_pairs(
                    state, seat, stage.data["route"], stage.data["location"]
                )
            ]
        elif kind == "power":
            hero = stage.data["hero"]
            prompt["hero"] = self._hero_json(hero)
            options = self._power_options(state, seat, hero)
            options.append({"order": {"kind": "skip"}})
        elif kind == "arrange":
            cards = stage.data["cards"]
            prompt["cards"] = [self._card_json(c) for c in cards]
            options = [
                {"order": {"kind": "arrange", "order": list(perm)}} for perm in permutations(cards)
            ]
        elif kind == "take":
            options = self._take_options(state, seat)
            options += self._stratagem_options(state, seat, AT_STEP_3)
        elif kind == "attack":
            prompt["legion"] = self._card_json(state.legion_row[0].card)
            options = [{"order": {"kind": "attack", "location": loc}} for loc in self.order]
        elif kind == "shield":
            loc = stage.data["location"]
            prompt["location"] = loc
            options = [
                {"order": {"kind": "shield", "keep": c}, "card": self._card_json(c)}
                for c in self._by_number(player.face_up[loc])
            ]
        else:  # pragma: no cover - every stage kind is listed above
            raise AssertionError(f"unknown stage {kind}")
        prompt["options"] = options
        return prompt

    def _legal_locations(self, card_id: str) -> list[str]:
        """G7.1: a coloured legion goes to its colour; a white one anywhere."""
        location = self.content.legions[card_id].location
        return list(self.order) if location is None else [location]

    def _rally(self, state: LegionsState, seat: int) -> bool:
        return state.tokens[self._location_of_effect("rally")] == seat

    def _collect_options(self, state: LegionsState, seat: int, loc: str) -> list[JSON]:
        routed = state.players[seat].routed[loc]
        if self._rally(state, seat):
            # G7.3 [DECIDED]: with Rally the choice is all or none.
            return [{"order": {"kind": "collect_all"}}, {"order": {"kind": "skip"}}]
        options = [
            {"order": {"kind": "collect", "legion": c}, "card": self._card_json(c)}
            for c in self._by_number(routed)
        ]
        options.append({"order": {"kind": "skip"}})
        return options

    def _recruit_options(self, state: LegionsState, seat: int) -> list[JSON]:
        """G8.1 routes, G8.2 fallback and K2 (G10.6); nothing once recruited (G8.5)."""
        if state.flags.recruited[seat]:
            return []
        player = state.players[seat]
        options: list[JSON] = []
        summons = state.flags.royal_summons == seat
        for loc in self.order:
            count = len(player.face_up[loc])
            if count >= ONE_LOCATION_ROUTE_MIN:
                route = ROUTE_LOCATION
            elif summons and count >= ROYAL_SUMMONS_MIN:
                route = ROUTE_SUMMONS
            else:
                continue
            matching = [h for h in state.hero_row if self.content.heroes[h].location == loc]
            for hero in matching:
                options.append(
                    {
                        "order": {"kind": "recruit", "hero": hero, "route": route, "location": loc},
                        "hero": self._hero_json(hero),
                    }
                )
            if not matching and state.hero_deck:
                options.append({"order": {"kind": "peek", "location": loc}})
        if all(player.face_up[loc] for loc in self.order):
            for hero in state.hero_row:
                options.append(
                    {
                        "order": {
                            "kind": "recruit",
                            "hero": hero,
                            "route": ROUTE_FIVE,
                            "location": None,
                        },
                        "hero": self._hero_json(hero),
                    }
                )
        return options

    def _peek_options(self, seen: list[str]) -> list[JSON]:
        if len(seen) == 1:
            return [
                {
                    "order": {"kind": "choose_hero", "hero": seen[0], "other": None},
                    "hero": self._hero_json(seen[0]),
                }
            ]
        options = []
        for hero in (seen[0], seen[1]):
            for where in ("top", "bottom"):
                options.append(
                    {
                        "order": {"kind": "choose_hero", "hero": hero, "other": where},
                        "hero": self._hero_json(hero),
                    }
                )
        return options

    def _under_pairs(
        self, state: LegionsState, seat: int, route: str, loc: str | None
    ) -> list[tuple[str, str]]:
        """G8.3: which 2 legions may go under the hero."""
        face_up = state.players[seat].face_up
        if route == ROUTE_FIVE:
            pairs = []
            for loc_a, loc_b in combinations(self.order, 2):
                for a in self._by_number(face_up[loc_a]):
                    for b in self._by_number(face_up[loc_b]):
                        pairs.append(tuple(self._by_number([a, b])))
            return [(p[0], p[1]) for p in pairs]
        assert loc is not None
        return list(combinations(self._by_number(face_up[loc]), 2))

    def _power_options(self, state: LegionsState, seat: int, hero_id: str) -> list[JSON]:
        """G1.4/G9: the legal uses of a hero's power (empty when it could do nothing)."""
        hero = self.content.heroes[hero_id]
        me = state.players[seat]
        opponent = state.players[1 - seat]
        power = hero.power
        if power == "take_token":
            assert hero.token is not None
            if state.tokens[hero.token] == seat:
                return []
            return [{"order": {"kind": "power"}}]
        if power == "swap_row":
            return [
                {
                    "order": {"kind": "power", "hand": mine, "row": slot.card},
                    "hand_card": self._card_json(mine),
                    "row_card": self._card_json(slot.card),
                }
                for mine in self._by_number(me.hand)
                for slot in state.legion_row
                if slot.face_up
            ]
        if power == "arrange_deck":
            if not state.legion_deck:
                return []
            return [{"order": {"kind": "power"}}]
        if power == "rout_location":
            return [
                {"order": {"kind": "power", "location": loc}}
                for loc in self.order
                if opponent.face_up[loc]
            ]
        if power == "flip_location":
            return [
                {"order": {"kind": "power", "location": loc}}
                for loc in self.order
                if me.routed[loc]
            ]
        if power == "move_legion":
            return [
                {"order": {"kind": "power", "legion": card, "location": target}}
                for source in self.order
                for card in self._by_number(me.face_up[source])
                for target in self.order
                if target != source
            ]
        if power == "oracle":
            return [{"order": {"kind": "power"}}]
        if power == "rout_one":
            return [
                {"order": {"kind": "power", "legion": card}}
                for loc in self.order
                for card in self._by_number(opponent.face_up[loc])
            ]
        if power == "flip_all":
            if not any(me.routed.values()):
                return []
            return [{"order": {"kind": "power"}}]
        if power == "sow":
            if not state.legion_deck:  # G1.4 H20: not usable when the legion deck is empty
                return []
            return [
                {"order": {"kind": "power", "legion": card, "location": loc}}
                for card in self._by_number(me.hand)
                for loc in self._legal_locations(card)
            ]
        return []

    def _take_options(self, state: LegionsState, seat: int) -> list[JSON]:
        options = []
        for slot in state.legion_row:
            if slot.face_up:
                options.append(
                    {
                        "order": {"kind": "take", "card": slot.card},
                        "card": self._card_json(slot.card),
                    }
                )
            else:
                options.append({"order": {"kind": "take", "card": HIDDEN}})
        return options

    def _stratagem_options(self, state: LegionsState, seat: int, moment: str) -> list[JSON]:
        """G10.1: the stratagem, once, during the owner's own steps, when it has a target."""
        player = state.players[seat]
        if player.stratagem_used:
            return []
        sid = player.stratagem
        opponent = 1 - seat
        flags = state.flags

        def use(**target: Any) -> JSON:
            return {"order": {"kind": "stratagem", "stratagem": sid, **target}, "stratagem": True}

        if sid == "N1":
            return [use(location=loc) for loc in self.order if player.routed[loc]]
        if sid == "N2":
            placed = flags.placed_at[seat]
            if moment == BEFORE_STEP_1 or placed is None:
                return []  # G1.6 N2: only after your step 1
            return [use()]
        if sid == "N3":
            return [use(token=loc) for loc in self.order if state.tokens[loc] == opponent]
        if sid == "K1":
            return [use()]
        if sid == "K2":
            if moment != AT_STEP_2 or flags.recruited[seat]:
                return []  # G1.6 K2: your step 2
            if not any(len(v) >= ROYAL_SUMMONS_MIN for v in player.face_up.values()):
                return []
            return [use()]
        if sid == "K3":
            return [use()]
        return []

    # ------------------------------------------------------------------ order validation

    @staticmethod
    def _canonical(order: Mapping[str, Any]) -> JSON:
        canonical = dict(order)
        if isinstance(canonical.get("legions"), list):
            canonical["legions"] = sorted(canonical["legions"])
        return canonical

    @staticmethod
    def _offered(prompt: JSON, order: Mapping[str, Any]) -> JSON | None:
        """The prompt's own order when ``order`` is exactly one of them, as bots and most
        clients send it; else ``None`` and :meth:`_match` decides. An offered order is flat
        (names, null, lists of names: a test checks every prompt's options), so an order
        equal to one needs no shape check. Equality of plain dicts compares each key's
        values once, never walking deeper than the offered value: a strange value just
        differs."""
        if type(order) is not dict:
            return None
        for option in prompt["options"]:
            if option["order"] == order:
                return dict(option["order"])
        return None

    def _match(self, prompt: JSON, order: Mapping[str, Any]) -> JSON | None:
        if "legions" not in order:
            # Only a list of legions has an order that does not matter (G8.3).
            for option in prompt["options"]:
                if option["order"] == order:
                    return dict(option["order"])
            return None
        wanted = self._canonical(order)
        for option in prompt["options"]:
            if self._canonical(option["order"]) == wanted:
                return dict(option["order"])
        return None

    def _not_your_turn_message(self, state: LegionsState, seat: int) -> str:
        if state.phase == OVER:
            return "The game is over."
        if state.phase == LEADERSHIP:
            return "You have sealed your legion; waiting for the other player."
        if state.stage is not None:
            other = state.players[state.stage.seat].side
            return f"Waiting for {self.content.sides[other].name}."
        return "It is not your turn."

    def _explain(
        self, state: LegionsState, seat: int, prompt: JSON, order: Mapping[str, Any]
    ) -> IllegalOrder:
        """A message a player understands for an order that matches no option."""
        kind = order.get("kind")
        allowed = {o["order"]["kind"] for o in prompt["options"]}
        player = state.players[seat]
        if kind == "stratagem":
            if player.stratagem_used:
                return IllegalOrder("Your stratagem is already used.", code="used")
            if order.get("stratagem") != player.stratagem:
                return IllegalOrder("That is not your stratagem.", code="not_yours")
            if "stratagem" not in allowed:
                return IllegalOrder(
                    "Your stratagem cannot be used at this moment (G1.6, G10.1).",
                    code="stratagem_timing",
                )
            return IllegalOrder("Your stratagem has no such target now.", code="stratagem_target")
        if kind not in allowed and kind not in STAGE_ORDER_KINDS.get(prompt["kind"], ()):
            # The prompt has no title to quote (issue 16.3): name the order kinds it takes.
            expected = sorted(allowed)
            takes = " or ".join(filter(None, (", ".join(expected[:-1]), "".join(expected[-1:]))))
            return IllegalOrder(
                f"Not now: this decision ({prompt['kind']}) takes a {takes} order; choose one "
                "of the offered options.",
                code="wrong_step",
                step=prompt["kind"],
                expected=expected,
            )
        legion = order.get("legion")
        if kind == "seal" and legion not in player.hand:
            return IllegalOrder(f"{legion} is not in your hand.", code="not_in_hand")
        if kind == "place":
            card = self.content.legions[player.revealed or ""]
            if card.location is not None and order.get("location") != card.location:
                return IllegalOrder(
                    f"Legion {card.number} is {card.guild}: it must go to the "
                    f"{self._loc_name(card.location)} (G7.1).",
                    code="wrong_location",
                )
        if kind == "recruit":
            hero = order.get("hero")
            if hero not in state.hero_row:
                return IllegalOrder(f"{hero} is not in the hero row.", code="not_in_row")
            return IllegalOrder(
                "You cannot recruit that hero that way: a hero of a location's colour needs "
                "3 face-up legions there, any hero needs a legion at all 5 locations (G8.1).",
                code="not_qualified",
            )
        if kind == "peek":
            loc = order.get("location")
            if loc in self.content.locations and any(
                self.content.heroes[h].location == loc for h in state.hero_row
            ):
                return IllegalOrder(
                    "The row has a hero of that colour, so you cannot look at the hero deck "
                    "(G8.2).",
                    code="fallback_not_allowed",
                )
        if kind == "under" and state.stage is not None:
            cards = order.get("legions")
            if state.stage.data["route"] == ROUTE_FIVE and isinstance(cards, list):
                locations = {self._location_of(player, c) for c in cards}
                if len(cards) == 2 and len(locations) == 1 and None not in locations:
                    return IllegalOrder(
                        "With the five-location route the 2 legions must come from 2 "
                        "different locations (G8.3).",
                        code="same_location",
                    )
            return IllegalOrder(
                "Choose exactly 2 of the face-up legions used to recruit this hero (G8.3).",
                code="illegal_pair",
            )
        if kind == "take":
            return IllegalOrder("That legion is not in the row.", code="not_in_row")
        return IllegalOrder(
            "That choice is not available now; pick one of the offered options.",
            code="not_available",
        )

    @staticmethod
    def _location_of(player: PlayerState, card: str) -> str | None:
        for loc, cards in player.face_up.items():
            if card in cards:
                return loc
        return None

    # ------------------------------------------------------------------ resolution

    def _reveal(self, state: LegionsState, events: list[Event]) -> None:
        """G4.2–G4.4."""
        first, second = state.players[0].sealed, state.players[1].sealed
        assert first is not None and second is not None
        sealed = [first, second]
        numbers = [self.content.legions[c].number for c in sealed]
        assert numbers[0] != numbers[1], "G4.3: numbers are unique, leadership never ties"
        leader = 0 if numbers[0] < numbers[1] else 1
        for seat in (0, 1):
            player = self._changing_player(state, seat)
            player.revealed, player.sealed = player.sealed, None
        state.leader = leader
        if state.first_leader is None:
            state.first_leader = leader
        state.phase = STEPS
        events.append(
            Event(
                "reveal",
                {
                    "turn": state.turn,
                    "legions": [self._card_json(c) for c in sealed],
                    "leader": leader,
                },
            )
        )
        self._begin_steps(state, leader, events)

    def _begin_steps(self, state: LegionsState, seat: int, events: list[Event]) -> None:
        role = "first" if seat == state.leader else "second"
        events.append(Event("steps", {"seat": seat, "role": role}))
        state.stage = Stage(seat, "place")

    def _apply(self, state: LegionsState, order: JSON, events: list[Event]) -> None:
        stage = state.stage
        assert stage is not None
        seat = stage.seat
        kind = order["kind"]
        if kind == "stratagem":
            self._use_stratagem(state, seat, order, events)
            if stage.kind == "recruit":
                self._enter_recruit(state, seat)  # K2 or N1 may open (or close) routes
            return
        self._stage_handlers[stage.kind](state, seat, order, events)

    # G5.1 / G6.1 -----------------------------------------------------------------------

    def _do_place(self, state: LegionsState, seat: int, order: JSON, events: list[Event]) -> None:
        player = self._changing_player(state, seat)
        card = player.revealed
        assert card is not None
        loc = order["location"]
        player.revealed = None
        _add_to_pile(player.face_up, loc, [card])
        self._changing_flags(state).placed_at[seat] = loc
        events.append(Event("place", {"seat": seat, "legion": card, "location": loc}))
        self._after_placing(state, seat, loc, then="recruit", events=events)

    def _after_placing(
        self, state: LegionsState, seat: int, loc: str, then: str, events: list[Event]
    ) -> None:
        """G7.3: a placed legion may collect routed legions at its location."""
        if state.players[seat].routed[loc]:
            state.stage = Stage(seat, "collect", {"location": loc, "then": then})
        else:
            self._continue(state, seat, then, events)

    def _continue(self, state: LegionsState, seat: int, then: str, events: list[Event]) -> None:
        if then == "recruit":
            self._enter_recruit(state, seat)
        else:  # "sower_draw": H20's placement is done, now its draw
            self._sower_draw(state, seat, events)
            self._enter_take(state, seat)

    def _do_collect(self, state: LegionsState, seat: int, order: JSON, events: list[Event]) -> None:
        stage = state.stage
        assert stage is not None
        loc = stage.data["location"]
        player = self._changing_player(state, seat)
        if order["kind"] == "collect_all":
            collected = list(player.routed[loc])
        elif order["kind"] == "collect":
            collected = [order["legion"]]
        else:
            collected = []
        if collected:
            _take_from_pile(player.routed, loc, collected)
            _add_to_pile(player.face_up, loc, collected)
            events.append(Event("collect", {"seat": seat, "location": loc, "legions": collected}))
        self._continue(state, seat, stage.data["then"], events)

    # G5.2 / G6.2 / G8 ------------------------------------------------------------------

    def _enter_recruit(self, state: LegionsState, seat: int) -> None:
        """Step 2 is a decision when the player qualifies or still holds a stratagem.

        Only public facts decide whether this step is shown (the board sees the current
        step): never which stratagem it is or whether it has a target, which would leak
        the stratagem's identity. So an unused stratagem always opens this window."""
        if not state.players[seat].stratagem_used or self._recruit_options(state, seat):
            state.stage = Stage(seat, "recruit")
        else:
            self._enter_take(state, seat)

    def _do_recruit(self, state: LegionsState, seat: int, order: JSON, events: list[Event]) -> None:
        if order["kind"] == "skip":
            self._enter_take(state, seat)
            return
        loc = order["location"]
        if order["kind"] == "peek":
            seen = state.hero_deck[:PEEK_COUNT]
            route = (
                ROUTE_LOCATION
                if len(state.players[seat].face_up[loc]) >= ONE_LOCATION_ROUTE_MIN
                else ROUTE_SUMMONS
            )
            state.stage = Stage(seat, "peek", {"location": loc, "route": route, "seen": seen})
            self._changing_player(state, seat).notes.append(
                {"kind": "heroes_seen", "heroes": list(seen)}
            )
            events.append(Event("peek_heroes", {"seat": seat, "location": loc, "count": len(seen)}))
            events.append(
                Event("peek_heroes_seen", {"seat": seat, "heroes": list(seen)}, audience=(seat,))
            )
            return
        hero = order["hero"]
        hero_row = [h for h in state.hero_row if h != hero]
        if state.hero_deck:  # G8.4: the gap is refilled at once
            hero_row.append(state.hero_deck[0])
            state.hero_deck = state.hero_deck[1:]
        state.hero_row = hero_row
        self._changing_flags(state).recruited[seat] = True
        events.append(
            Event(
                "recruit",
                {"seat": seat, "hero": hero, "route": order["route"], "location": loc},
            )
        )
        self._enter_under(state, seat, hero, order["route"], loc, events)

    def _do_choose_peeked(
        self, state: LegionsState, seat: int, order: JSON, events: list[Event]
    ) -> None:
        stage = state.stage
        assert stage is not None
        seen: list[str] = stage.data["seen"]
        hero = order["hero"]
        deck = state.hero_deck[len(seen) :]
        others = [h for h in seen if h != hero]
        if others:
            if order["other"] == "top":
                deck.insert(0, others[0])
            else:
                deck.append(others[0])
        state.hero_deck = deck
        self._changing_flags(state).recruited[seat] = True
        events.append(
            Event(
                "recruit",
                {
                    "seat": seat,
                    "hero": hero,
                    "route": stage.data["route"],
                    "location": stage.data["location"],
                    "from_deck": True,
                    "other_to": order["other"],
                },
            )
        )
        self._enter_under(state, seat, hero, stage.data["route"], stage.data["location"], events)

    def _enter_under(
        self,
        state: LegionsState,
        seat: int,
        hero: str,
        route: str,
        loc: str | None,
        events: list[Event],
    ) -> None:
        pairs = self._under_pairs(state, seat, route, loc)
        if len(pairs) == 1:  # no real choice (K2 or exactly 2 candidates): do it at once
            self._slide_under(state, seat, hero, list(pairs[0]), events)
        else:
            state.stage = Stage(seat, "under", {"hero": hero, "route": route, "location": loc})

    def _do_under(self, state: LegionsState, seat: int, order: JSON, events: list[Event]) -> None:
        stage = state.stage
        assert stage is not None
        self._slide_under(state, seat, stage.data["hero"], list(order["legions"]), events)

    def _slide_under(
        self, state: LegionsState, seat: int, hero: str, cards: list[str], events: list[Event]
    ) -> None:
        """G8.3: the 2 legions leave the battlefield, face up under the hero, for good."""
        player = self._changing_player(state, seat)
        for card in cards:
            loc = self._location_of(player, card)
            assert loc is not None
            _take_from_pile(player.face_up, loc, [card])
        player.heroes.append(RecruitedHero(hero, self._by_number(cards)))
        events.append(Event("under", {"seat": seat, "hero": hero, "legions": cards}))
        self._enter_power(state, seat, hero)

    def _enter_power(self, state: LegionsState, seat: int, hero: str) -> None:
        if self._power_options(state, seat, hero):
            state.stage = Stage(seat, "power", {"hero": hero})
        else:
            self._enter_take(state, seat)

    # G8.6 / G9 -------------------------------------------------------------------------

    def _do_power(self, state: LegionsState, seat: int, order: JSON, events: list[Event]) -> None:
        stage = state.stage
        assert stage is not None
        hero_id = stage.data["hero"]
        if order["kind"] == "skip":
            events.append(Event("power", {"seat": seat, "hero": hero_id, "used": False}))
            self._enter_take(state, seat)
            return
        hero = self.content.heroes[hero_id]
        me = self._changing_player(state, seat)
        opponent_seat = 1 - seat
        opponent = state.players[opponent_seat]
        public: JSON = {"seat": seat, "hero": hero_id, "used": True}
        power = hero.power
        if power == "take_token":
            assert hero.token is not None
            public.update({"location": hero.token, "from": state.tokens[hero.token]})
            state.tokens = {**state.tokens, hero.token: seat}
            events.append(Event("power", public))
        elif power == "swap_row":
            mine, theirs = order["hand"], order["row"]
            row = state.legion_row[:]
            place = next(i for i, s in enumerate(row) if s.card == theirs)
            row[place] = RowSlot(mine, row[place].face_up)  # the hand card, in that place
            state.legion_row = row
            me.hand.remove(mine)
            me.hand.append(theirs)
            public.update({"to_row": mine, "to_hand": theirs})
            events.append(Event("power", public))
        elif power == "arrange_deck":
            cards = state.legion_deck[:BROKER_COUNT]
            me.notes.append({"kind": "broker", "cards": list(cards)})
            public["count"] = len(cards)
            events.append(Event("power", public))
            events.append(Event("broker_seen", {"seat": seat, "cards": cards}, audience=(seat,)))
            state.stage = Stage(seat, "arrange", {"cards": cards})
            return
        elif power == "rout_location":
            loc = order["location"]
            public["location"] = loc
            events.append(Event("power", public))
            self._rout(state, opponent_seat, loc, list(opponent.face_up[loc]), hero_id, events)
        elif power == "flip_location":
            loc = order["location"]
            public["location"] = loc
            public["legions"] = self._flip_up(state, seat, [loc])
            events.append(Event("power", public))
        elif power == "move_legion":
            card, target = order["legion"], order["location"]
            source = self._location_of(me, card)
            assert source is not None
            _take_from_pile(me.face_up, source, [card])
            _add_to_pile(me.face_up, target, [card])  # G7.3: a move is not a placement, no collect
            public.update({"legion": card, "from": source, "to": target})
            events.append(Event("power", public))
        elif power == "oracle":
            face_down = next((s.card for s in state.legion_row if not s.face_up), None)
            seen = {"kind": "oracle", "hand": list(opponent.hand), "row_face_down": face_down}
            me.notes.append(seen)
            events.append(Event("power", public))
            events.append(Event("oracle_seen", dict(seen), audience=(seat,)))
        elif power == "rout_one":
            card = order["legion"]
            loc = self._location_of(opponent, card)
            assert loc is not None
            public["location"] = loc
            events.append(Event("power", public))
            self._rout(state, opponent_seat, loc, [card], hero_id, events)
        elif power == "flip_all":
            public["legions"] = self._flip_up(state, seat, list(self.order))
            events.append(Event("power", public))
        elif power == "sow":
            card, loc = order["legion"], order["location"]
            me.hand.remove(card)
            _add_to_pile(me.face_up, loc, [card])
            state.extra_placements += 1
            public.update({"legion": card, "location": loc})
            events.append(Event("power", public))
            # G9.5: may collect; then the draw, then step 3 (G8.6).
            self._after_placing(state, seat, loc, then="sower_draw", events=events)
            return
        self._enter_take(state, seat)

    def _sower_draw(self, state: LegionsState, seat: int, events: list[Event]) -> None:
        if not state.legion_deck:
            return
        card = state.legion_deck[0]
        state.legion_deck = state.legion_deck[1:]
        self._changing_player(state, seat).hand.append(card)
        events.append(Event("draw", {"seat": seat}))
        events.append(Event("draw_seen", {"seat": seat, "legion": card}, audience=(seat,)))

    def _do_arrange(self, state: LegionsState, seat: int, order: JSON, events: list[Event]) -> None:
        cards = list(order["order"])
        state.legion_deck = cards + state.legion_deck[len(cards) :]
        self._changing_player(state, seat).notes.append({"kind": "broker_order", "cards": cards})
        events.append(Event("arranged", {"seat": seat, "count": len(cards)}))
        self._enter_take(state, seat)

    def _flip_up(self, state: LegionsState, seat: int, locations: list[str]) -> list[str]:
        """G9.1: turn routed legions face up where they stand."""
        player = self._changing_player(state, seat)
        flipped: list[str] = []
        for loc in locations:
            flipped += player.routed[loc]
            _add_to_pile(player.face_up, loc, player.routed[loc])
            player.routed[loc] = []
        return flipped

    def _rout(
        self,
        state: LegionsState,
        victim: int,
        loc: str,
        cards: list[str],
        cause: str,
        events: list[Event],
    ) -> None:
        """G9.1: turn face down where they stand — unless K1 protects the victim (G10.3)."""
        if not cards:
            return
        if state.flags.shield_wall == victim:
            events.append(Event("rout_blocked", {"seat": victim, "location": loc, "by": cause}))
            return
        player = self._changing_player(state, victim)
        _take_from_pile(player.face_up, loc, cards)
        _add_to_pile(player.routed, loc, cards)
        # G15: routed identities are the owner's secret; the public event gives the count.
        events.append(
            Event("rout", {"seat": victim, "location": loc, "count": len(cards), "by": cause})
        )
        events.append(
            Event(
                "rout_seen",
                {"seat": victim, "location": loc, "legions": list(cards)},
                audience=(victim,),
            )
        )

    # G10 -------------------------------------------------------------------------------

    def _use_stratagem(
        self, state: LegionsState, seat: int, order: JSON, events: list[Event]
    ) -> None:
        player = self._changing_player(state, seat)
        sid = player.stratagem
        player.stratagem_used = True
        opponent = 1 - seat
        public: JSON = {"seat": seat, "stratagem": self._stratagem_json(sid)}
        if sid == "N1":
            public["location"] = order["location"]
            public["legions"] = self._flip_up(state, seat, [order["location"]])
            events.append(Event("stratagem", public))
        elif sid == "N2":
            loc = state.flags.placed_at[seat]
            assert loc is not None
            public["location"] = loc
            events.append(Event("stratagem", public))
            cards = list(state.players[opponent].face_up[loc])
            self._rout(state, opponent, loc, cards, sid, events)
        elif sid == "N3":
            state.tokens = {**state.tokens, order["token"]: None}  # G10.4
            public["token"] = order["token"]
            events.append(Event("stratagem", public))
        elif sid == "K1":
            self._changing_flags(state).shield_wall = seat
            events.append(Event("stratagem", public))
        elif sid == "K2":
            self._changing_flags(state).royal_summons = seat
            events.append(Event("stratagem", public))
        elif sid == "K3":
            self._changing_flags(state).royal_decree = seat
            events.append(Event("stratagem", public))

    # G5.3 / G6.3 / G6.4 ----------------------------------------------------------------

    def _enter_take(self, state: LegionsState, seat: int) -> None:
        state.stage = Stage(seat, "take")

    def _do_take(self, state: LegionsState, seat: int, order: JSON, events: list[Event]) -> None:
        player = self._changing_player(state, seat)
        wanted = order["card"]
        slot = next(
            s
            for s in state.legion_row
            if (not s.face_up if wanted == HIDDEN else s.face_up and s.card == wanted)
        )
        state.legion_row = [s for s in state.legion_row if s is not slot]
        player.hand.append(slot.card)
        if slot.face_up:
            events.append(Event("take", {"seat": seat, "legion": slot.card, "face_down": False}))
        else:
            player.notes.append({"kind": "took_face_down", "legion": slot.card})
            events.append(Event("take", {"seat": seat, "legion": None, "face_down": True}))
            events.append(Event("take_seen", {"seat": seat, "legion": slot.card}, audience=(seat,)))
        if seat == state.leader:
            self._begin_steps(state, 1 - seat, events)
        else:
            self._enter_attack(state, seat, events)

    def _enter_attack(self, state: LegionsState, seat: int, events: list[Event]) -> None:
        """G6.4 / G6.4a: the leftover is turned up first, then names the location."""
        _cut(state, events)  # the board shows the take before the leftover turns up
        assert len(state.legion_row) == 1
        slot = state.legion_row[0]
        was_face_down = not slot.face_up
        slot = RowSlot(slot.card, True)
        state.legion_row = [slot]
        events.append(
            Event(
                "attack_card",
                {
                    "seat": seat,
                    "legion": self._card_json(slot.card),
                    "was_face_down": was_face_down,
                },
            )
        )
        loc = self.content.legions[slot.card].location
        if loc is None:
            state.stage = Stage(seat, "attack")
        else:
            self._attack(state, seat, loc, events)

    def _do_attack_choice(
        self, state: LegionsState, seat: int, order: JSON, events: list[Event]
    ) -> None:
        self._attack(state, seat, order["location"], events)

    def _attack(self, state: LegionsState, attacker: int, loc: str, events: list[Event]) -> None:
        _cut(state, events)  # G6.4: the attack card first, then the attack
        victim = 1 - attacker
        targets = list(state.players[victim].face_up[loc])
        events.append(Event("attack", {"seat": attacker, "location": loc, "targets": len(targets)}))
        shielded = (
            state.tokens[self._location_of_effect("shield")] == victim
            and state.flags.shield_wall != victim
        )
        if shielded and len(targets) >= 2:
            # G1.1 Shield: the holder chooses which legion stays face up.
            state.stage = Stage(victim, "shield", {"location": loc})
            return
        if shielded and len(targets) == 1:
            events.append(Event("shield", {"seat": victim, "location": loc, "kept": targets[0]}))
            targets = []
        self._rout(state, victim, loc, targets, "attack", events)
        self._end_turn(state, events)

    def _do_shield(self, state: LegionsState, seat: int, order: JSON, events: list[Event]) -> None:
        stage = state.stage
        assert stage is not None
        loc = stage.data["location"]
        kept = order["keep"]
        events.append(Event("shield", {"seat": seat, "location": loc, "kept": kept}))
        targets = [c for c in state.players[seat].face_up[loc] if c != kept]
        self._rout(state, seat, loc, targets, "attack", events)
        self._end_turn(state, events)

    # G11 / G12 / G13 -------------------------------------------------------------------

    def _end_turn(self, state: LegionsState, events: list[Event]) -> None:
        state.stage = None
        self._assign_majorities(state, events)
        _cut(state, events)  # G11.2 after G11.1
        banners = [self.banners(state, s) for s in (0, 1)]
        events.append(Event("banners", {"banners": banners}))
        winners = [s for s in (0, 1) if banners[s] >= BANNERS_TO_WIN]
        assert len(winners) <= 1, "G11.2: 5 + 5 > 8, both cannot reach 5"
        if winners:
            self._finish(state, events, winner=winners[0], reason="banners", tiebreak=None)
            return
        if len(state.legion_deck) < 2:  # G11.3 / G12.2
            self._finish_by_score(state, events)
            return
        first, second = state.legion_deck[0], state.legion_deck[1]
        state.legion_deck = state.legion_deck[2:]
        state.legion_row = [*state.legion_row, RowSlot(first, True), RowSlot(second, False)]
        events.append(Event("refill", {"face_up": self._card_json(first)}))
        state.turn += 1
        state.phase = LEADERSHIP
        state.leader = None
        state.flags = TurnFlags(deck_at_start=len(state.legion_deck))
        self._clear_notes(state)

    def _clear_notes(self, state: LegionsState) -> None:
        """What the players saw this turn is forgotten (a player without notes is left as
        it is)."""
        for seat in (0, 1):
            if state.players[seat].notes:
                self._changing_player(state, seat).notes = []

    def _assign_majorities(self, state: LegionsState, events: list[Event]) -> None:
        """G11.1, in order yellow → green; K3 (G10.5) settles ties."""
        decree = state.flags.royal_decree
        for loc in self.order:
            counts = [len(state.players[s].face_up[loc]) for s in (0, 1)]
            if counts[0] > counts[1]:
                winner: int | None = 0
            elif counts[1] > counts[0]:
                winner = 1
            elif decree is not None and counts[decree] >= 1:
                winner = decree
            else:
                winner = state.tokens[loc]  # a tie leaves the token where it is
            if winner != state.tokens[loc]:
                _cut(state, events)  # one token at a time, yellow to green
                events.append(
                    Event(
                        "majority",
                        {
                            "location": loc,
                            "seat": winner,
                            "from": state.tokens[loc],
                            "counts": counts,
                        },
                    )
                )
                state.tokens = {**state.tokens, loc: winner}

    def _finish_by_score(self, state: LegionsState, events: list[Event]) -> None:
        scores = [self.score(state, s) for s in (0, 1)]
        if scores[0] != scores[1]:
            winner = 0 if scores[0] > scores[1] else 1
            self._finish(state, events, winner=winner, reason="score", tiebreak=None)
            return
        # G13.3: the lowest legion in hand decides.
        lowest = min(
            (self.content.legions[c].number, s, c) for s in (0, 1) for c in state.players[s].hand
        )
        tiebreak = {
            "hands": [self._by_number(p.hand) for p in state.players],
            "lowest": lowest[2],
        }
        self._finish(state, events, winner=lowest[1], reason="tiebreak", tiebreak=tiebreak)

    def _finish(
        self,
        state: LegionsState,
        events: list[Event],
        winner: int,
        reason: str,
        tiebreak: JSON | None,
    ) -> None:
        _cut(state, events)  # G12: the end and the score table (G13) come last
        state.phase = OVER
        state.stage = None
        self._clear_notes(state)
        state.result = {
            "winner": winner,
            "reason": reason,
            "score": [self.score(state, s) for s in (0, 1)],
            "banners": [self.banners(state, s) for s in (0, 1)],
            "breakdown": [self.score_breakdown(state, s) for s in (0, 1)],
            "tiebreak": tiebreak,
            "turns": state.turn,
            "first_leader": state.first_leader,
        }
        events.append(Event("game_end", dict(state.result)))

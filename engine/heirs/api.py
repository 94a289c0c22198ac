"""The :class:`engine.core.GameRules` face of Heirs of the Axis: prompts, sealing, views."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Concatenate, ParamSpec, TypeGuard, TypeVar

from engine.core import (
    JSON,
    Event,
    GameInfo,
    IllegalOrder,
    NextMatch,
    NotYourTurn,
    Rng,
    Step,
    check_options,
    quoted,
    single_step,
)
from engine.heirs import bots
from engine.heirs.content import (
    ABILITIES,
    AXIS,
    BUILDINGS,
    LEADERSHIP,
    MARKET,
    RESOURCES,
    check_variants,
    load_content,
    variant_table,
)
from engine.heirs.rules import EXPEDITIONS, HeirsEngine, PassContext, StepCallback
from engine.heirs.state import (
    PHASE_ORDERS,
    PHASE_OVER,
    PHASE_SETUP,
    Heir,
    HeirsState,
    clone_heir,
    clone_state,
    state_from_json,
    state_to_json,
)
from engine.tournament import kept_colours

ORDER_KEYS = frozenset(
    ("expedition", "settle", "recruit", "build", "learn", "trick", "exchanges", "retreat")
)
MAX_EXCHANGE_LINES = 12
OPTION_KEYS = frozenset(("rounds", "timer", "start_player", "auto_setup", "colours", "variants"))
"""The options a game of Heirs is set up with (H3, H5.4, H13.1, H20.1); see ``new_game``."""
MAPPINGS = (dict, Mapping)
"""What an order or its part may be. Orders are nearly always plain dicts, and ``dict`` first
spares them the abstract ``Mapping`` check, which costs several times more."""
BOT_ME_KEYS = frozenset(
    (
        "seat",
        "character",
        "start_artifact",
        "soldiers",
        "people",
        "gold",
        "knowledge",
        "signs",
        "signs_required",
    )
)
"""The entries of ``view(state, seat)["me"]`` that :meth:`HeirsRules.bot_view` fills in."""

DEFAULT_ORDER: JSON = {
    "expedition": {"kind": "stay", "field": None},
    "settle": True,
    "recruit": 0,
    "build": None,
    "learn": None,
    "trick": None,
    "exchanges": [],
    "retreat": False,
}
"""H5.1 defaults; also what a phone gets when the sealing timer runs out (H5.4)."""


def copy_order(order: JSON) -> JSON:
    """A copy deep enough to notice any later change to an order (orders nest two levels)."""
    copy = dict(order)
    for key, value in order.items():
        if isinstance(value, dict):
            copy[key] = dict(value)
        elif isinstance(value, list):
            copy[key] = [dict(x) if isinstance(x, dict) else x for x in value]
    return copy


def _bad(message: str, code: str = "BAD_ORDER") -> IllegalOrder:
    return IllegalOrder(message, code=code)


def _check_parts(raw: Mapping[Any, Any], allowed: frozenset[str], where: str) -> None:
    """Issue 13.2: a part the order does not have is refused rather than ignored, since the
    app stores, seals and replays the order as it was sent."""
    unknown = [key for key in raw if key not in allowed]
    if unknown:
        names = ", ".join(sorted(quoted(key) for key in unknown))
        raise _bad(f"Unknown part(s) of {where}: {names}.")


_EXPEDITION_KEYS = frozenset(("kind", "field"))
_EXCHANGE_KEYS = frozenset(("give", "get", "trades"))
_TRICK_KEYS = frozenset(("card", "target", "field"))


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


_P = ParamSpec("_P")
_R = TypeVar("_R")
_NO_VARIANTS: list[str] = []


def _follows_variants(
    method: Callable[Concatenate[HeirsRules, HeirsState, _P], _R],
) -> Callable[Concatenate[HeirsRules, HeirsState, _P], _R]:
    """H13.1: a game plays with the content of the variants it was set up with
    (``state.options["variants"]``): the call goes to the rules object built from that
    content, whichever object of the family it was made on."""

    @functools.wraps(method)
    def dispatch(self: HeirsRules, state: HeirsState, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        wanted = state.options.get("variants") or _NO_VARIANTS
        if wanted != self.variant_list:
            return method(self.for_variants(wanted), state, *args, **kwargs)
        return method(self, state, *args, **kwargs)

    return dispatch


class HeirsRules(HeirsEngine):
    """Heirs of the Axis, as the app drives it (see ``engine/core.py``)."""

    info = GameInfo(
        id="heirs",
        name="Heirs of the Axis",
        min_players=2,
        max_players=6,
        simultaneous=True,
        bot_styles=bots.STYLES,
        endings=("throne", "last_survivor", "council"),
        scoring="placement",  # H20.2: the outcome's game_points, the Axis +1 included
        tiebreak="council",  # H20.5
    )

    # -- a night of games (H20) --------------------------------------------------------------
    def tiebreak_score(self, outcome: Mapping[str, Any], seat: int) -> int:
        """H20.5: players level on points and games won are split by Council points."""
        return int(outcome["council"][str(seat)]["points"])

    def next_match_options(self, coming: NextMatch) -> JSON:
        """H20.1: every heir keeps its colour from the night's last Heirs game; H20.4: with
        Catch-up the seat after the leader starts round 1."""
        options: JSON = {}
        own_games = [result for result in coming.night if result["game"] == self.info.id]
        colours = kept_colours(own_games, coming.players)
        if colours is not None:
            options["colours"] = colours
        if coming.start_player is not None:
            options["start_player"] = coming.start_player
        return options

    def __init__(
        self, variants: Iterable[str] = (), _family: dict[tuple[str, ...], HeirsRules] | None = None
    ) -> None:
        super().__init__(load_content(variants))
        self.variants: tuple[str, ...] = self.content.variants
        self.variant_list: list[str] = list(self.variants)
        # Every rules object of one family (the sheet and each set of variants in use) is
        # built once and shared: a state names its variants, any member plays it.
        self._family: dict[tuple[str, ...], HeirsRules] = {} if _family is None else _family
        self._family[self.variants] = self
        self._static_map: JSON = {
            "fields": [
                {"id": name, "q": q, "r": r, "ring": ring}
                for name, (q, r), ring in zip(
                    self.map.ids, self.map.coords, self.map.ring, strict=True
                )
            ],
            "axis": self.map.ids[AXIS],
        }
        self._static_by_players: dict[int, JSON] = {}
        self._neighbour_ids: tuple[tuple[str, ...], ...] = tuple(
            tuple(self.map.ids[f] for f in around) for around in self.map.neighbours
        )

    # -- variants (H13.1) --------------------------------------------------------------------

    def available_variants(self) -> list[JSON]:
        """H13.1: the variants a host may turn on, in the lobby's order: each with its id, its
        English ``name`` and ``text`` (what it changes); screens translate them by id."""
        return [
            {"id": v["id"], "name": v["name"], "text": v["text"]} for v in variant_table().values()
        ]

    def for_variants(self, variants: object) -> HeirsRules:
        """The rules with these variants on (``()``: the sheet's game). Raises ``ValueError``
        for an unknown id. Its ``content`` holds the game's effective numbers, e.g.
        ``RULES.for_variants(view["variants"]).content.characters["elf"]``."""
        key = check_variants(variants)
        rules = self._family.get(key)
        if rules is None:
            rules = HeirsRules(key, self._family)
        return rules

    def rules_of(self, state: HeirsState) -> HeirsRules:
        """The rules the game ``state`` is played by (its variants, H13.1)."""
        return self.for_variants(state.options.get("variants"))

    # -- protocol --------------------------------------------------------------------------

    def setup(self, seats: int, seed: int, options: Mapping[str, Any]) -> HeirsState:
        """H3; ``options["variants"]`` (H13.1) picks the content the game is played with."""
        options = check_options(self.info.name, options, OPTION_KEYS)  # issue 13.4
        return self.for_variants(options.get("variants")).new_game(seats, seed, options)

    # The engine's own entry points that tests and tools call directly follow the state's
    # variants too; inside the rules object, calls go to the engine's methods at once.
    # (Helpers such as attack_value or orders_prompt use this object's content: call them
    # on ``rules_of(state)``.)

    @_follows_variants
    def resolve_round(
        self, state: HeirsState, until: str = "dawn", on_step: StepCallback | None = None
    ) -> tuple[HeirsState, list[Event]]:
        return super().resolve_round(state, until, on_step)

    @_follows_variants
    def dry_run(self, state: HeirsState, seat: int, order: JSON) -> None:
        super().dry_run(state, seat, order)

    def ready(self, state: HeirsState) -> bool:
        if state.phase == PHASE_SETUP:
            return all(h.setup_choice is not None for h in state.heirs)
        if state.phase == PHASE_ORDERS:
            return all(h.order is not None for h in state.heirs if not h.fallen)
        return False

    @_follows_variants
    def resolve(self, state: HeirsState) -> tuple[HeirsState, list[Event]]:
        if not self.ready(state):
            raise ValueError("not every living seat has sealed yet")
        if state.phase == PHASE_SETUP:
            return self.finish_setup(state)
        return HeirsEngine.resolve_round(self, state)

    @_follows_variants
    def resolve_steps(self, state: HeirsState) -> list[Step]:
        """H23 on the board: the round plays out one pedestal at a time, then Dusk, then the
        next Dawn, each step with the whole state as it stands after it."""
        if not self.ready(state):
            raise ValueError("not every living seat has sealed yet")
        if state.phase == PHASE_SETUP:
            return single_step(self, state, 0)
        steps: list[Step] = []
        cuts: list[tuple[int, HeirsState]] = []

        def keep(working: HeirsState, first: int, untold: Sequence[Event]) -> None:
            cuts.append((first, _as_told(clone_state(working), untold)))

        _final, events = HeirsEngine.resolve_round(self, state, on_step=keep)
        ends = [first for first, _ in cuts[1:]] + [len(events)]
        for (first, snapshot), end in zip(cuts, ends, strict=True):
            steps.append(Step(state.round, events[first:end], snapshot))
        return steps

    def order_is_public(self, order: Mapping[str, Any]) -> bool:
        """Never during the game: a sealed round names what H23 keeps secret until the end
        (recruits and so strength, H11.8; tricks whose caster stays unknown, H11.7; market
        trades), and a setup choice names the secret character and artifact (H3.3, H3.4)."""
        return False

    def outcome(self, state: HeirsState) -> JSON | None:
        return state.outcome

    def to_json(self, state: HeirsState) -> JSON:
        return state_to_json(state)

    def from_json(self, raw: Mapping[str, Any]) -> HeirsState:
        return state_from_json(dict(raw))

    # -- prompts ---------------------------------------------------------------------------

    @_follows_variants
    def prompt(self, state: HeirsState, seat: int) -> JSON | None:
        return self._memo_prompt(state, seat)

    def _memo_prompt(self, state: HeirsState, seat: int) -> JSON | None:
        key = ("prompt", seat)
        if key in state.memo:
            cached = state.memo[key]
        else:
            cached = state.memo[key] = self._prompt(state, seat)
        # A shallow copy: callers may annotate the prompt without touching the memo.
        return None if cached is None else dict(cached)

    def _prompt(self, state: HeirsState, seat: int) -> JSON | None:
        heir = state.heirs[seat]
        if state.phase == PHASE_SETUP:
            if heir.setup_choice is not None:
                return None
            fixed = self.fixed_colour(state, seat)
            return {
                "kind": "setup",
                "colours": [fixed] if fixed else self.free_colours(state),
                # H20.1: the one colour is the seat's own for the night, not the last left.
                "colour_kept": fixed is not None,
                "characters": list(heir.offered),
            }
        if state.phase != PHASE_ORDERS or heir.fallen or heir.order is not None:
            return None
        return self.orders_prompt(state, seat)

    @staticmethod
    def fixed_colour(state: HeirsState, seat: int) -> str | None:
        """H20.1: the colour a tournament keeps for this seat, if the game was given one."""
        colours = state.options.get("colours")
        return str(colours[seat]) if colours else None

    def free_colours(self, state: HeirsState) -> list[str]:
        taken = {h.setup_choice["colour"] for h in state.heirs if h.setup_choice is not None}
        return [c for c in self.content.setup["colours"] if c not in taken]

    def orders_prompt(self, state: HeirsState, seat: int) -> JSON:
        """Everything the phone needs to fill in the whole round (H5.1, H23)."""
        heir = state.heirs[seat]
        hexmap = self.map
        ids = hexmap.ids
        here = heir.position
        neighbours = hexmap.neighbours[here]
        owner = state.owner
        living_siblings: list[int] = []
        sibling_heirs: set[int] = set()
        for h in state.heirs:
            if h.seat != seat and not h.fallen:
                living_siblings.append(h.seat)
                sibling_heirs.add(h.position)
        required = self.signs_required(state, heir, len(living_siblings))
        move: list[str] = []
        attack: list[str] = []
        for f in neighbours:
            if f == AXIS:
                if len(heir.signs) >= required:
                    move.append(ids[f])
                continue
            holder = owner[f]
            if holder == -1:
                move.append(ids[f])
                if f in sibling_heirs:
                    attack.append(ids[f])
            elif holder == seat:
                move.append(ids[f])
            else:
                attack.append(ids[f])
        if owner[here] == -1 and here != AXIS and here in sibling_heirs:
            attack.append(ids[here])
        scout = [ids[here], *self._neighbour_ids[here]]
        # Costs inline (H8.3, H9.3, H9.4): one effects and one omen lookup for the prompt.
        effects = self.effects_of(heir)
        omen = self.omen(state)
        omen_effects = self.content.omens[omen] if omen else {}
        ring = hexmap.ring
        ring_settle = self.content.ring_settle
        settle_discount = effects.get("settle_discount", 0)
        settle_halved = bool(omen_effects.get("settle_halved"))

        def settle_cost(f: int) -> int:
            cost = ring_settle[ring[f]] - settle_discount
            if cost < 0:
                cost = 0
            return -(-cost // 2) if settle_halved else cost

        settle_costs: dict[str, int] = {}
        for f in (here, *neighbours):
            if f != AXIS and owner[f] == -1:
                settle_costs[ids[f]] = settle_cost(f)
        discount = effects.get("building_discount", 0)
        halved = bool(omen_effects.get("building_halved"))
        building_costs = self.content.building_costs
        top_building = len(building_costs)
        gold = heir.gold
        buildings = []
        building_cost: int | None
        for name, level in zip(BUILDINGS, heir.buildings, strict=True):
            if level < top_building:
                building_cost = building_costs[level] - discount
                if building_cost < 0:
                    building_cost = 0
                if halved:
                    building_cost = -(-building_cost // 2)
                affordable = building_cost <= gold
            else:
                building_cost, affordable = None, False
            buildings.append(
                {"id": name, "level": level, "cost": building_cost, "affordable": affordable}
            )
        ability_costs = self.content.ability_costs
        top_ability = len(ability_costs)
        knowledge = heir.knowledge
        abilities = []
        ability_cost: int | None
        for name, level in zip(ABILITIES, heir.abilities, strict=True):
            if level < top_ability:
                ability_cost = ability_costs[level]
                can_learn = ability_cost <= knowledge
            else:
                ability_cost, can_learn = None, False
            abilities.append(
                {"id": name, "level": level, "cost": ability_cost, "affordable": can_learn}
            )
        tricks = []
        card_group = self.content.card_group
        trick_costs = self.trick_costs(effects.get("trick_discount", 0))
        for card_id in heir.hand:
            group = card_group[card_id]
            card_cost = trick_costs[card_id]
            affordable = True
            for resource, amount in card_cost.items():  # most cards cost nothing
                if getattr(heir, resource) < amount:
                    affordable = False
            entry: JSON = {
                "card": card_id,
                "group": group,
                "cost": dict(card_cost),
                "affordable": affordable,
            }
            if card_id == self.content.new_portrait:
                entry["targets"] = living_siblings
            elif group == 0:
                entry["targets"] = sorted({p for p in heir.portraits if p in living_siblings})
            elif card_id == "shadow_path":
                after = self.shadow_path_fields(state, seat, move, attack, required)
                entry["fields_after"] = after
                offered = set(after["stay"])
                for by_field in (after["move"], after["attack"]):
                    for fields in by_field.values():
                        offered.update(fields)
                index_of = hexmap.index_of
                entry["fields"] = sorted(offered, key=index_of.__getitem__)
                # The heir settles where the extra step ends (H6 part 7): the sheet needs
                # those fields' costs as well as the expedition's.
                entry["settle_costs"] = {
                    name: settle_cost(index_of[name])
                    for name in entry["fields"]
                    if owner[index_of[name]] == -1 and index_of[name] != AXIS
                }
            tricks.append(entry)
        market_level = heir.buildings[MARKET]
        market = None
        if market_level:
            give, get = self.content.buildings["market"]["rates"][market_level - 1]
            market = {"level": market_level, "give": give, "get": get}
        return {
            "kind": "orders",
            "round": state.round,
            "rounds": state.rounds,
            "omen": omen,
            "pedestal": state.pedestals.index(seat) + 1,
            "position": ids[here],
            "expedition": {"move": move, "attack": attack, "scout": scout, "stay": True},
            "settle": {"default": True, "costs": settle_costs},
            "recruit": {
                "cap": self.base_cap
                + effects.get("recruit_cap", 0)
                + self.cap_per_leadership * heir.abilities[LEADERSHIP]
                + omen_effects.get("recruit_cap", 0),
                "people_per_soldier": self.people_per_soldier,
                "affordable": heir.people // self.people_per_soldier,
            },
            "buildings": buildings,
            "abilities": abilities,
            "tricks": tricks,
            "market": market,
            "retreat": {"default": False},
            "signs": {"held": list(heir.signs), "required": required},
            "default": {
                "expedition": {"kind": "stay", "field": None},
                "settle": True,
                "recruit": 0,
                "build": None,
                "learn": None,
                "trick": None,
                "exchanges": [],
                "retreat": False,
            },
        }

    def shadow_path_fields(
        self, state: HeirsState, seat: int, move: list[str], attack: list[str], required: int
    ) -> JSON:
        """H7.7 in the prompt: the extra step starts where the sealed expedition ends, so its
        fields are given per expedition — ``{"stay": [...], "scout": [...], "move": {F: [...]},
        "attack": {F: [...]}}`` — each list the fields one ring inwards next to that end that
        a Move may enter (H7.2). The end is the move's target; for an Invasion/Attack the
        field as if won, or where the heir stands for a capital assault (H5.2a); for Stay and
        Scout where the heir stands. Entering the Axis leaves no extra step."""
        heir = state.heirs[seat]
        hexmap = self.map
        ids, ring, index_of = hexmap.ids, hexmap.ring, hexmap.index_of
        owner = state.owner
        held = len(heir.signs)

        def inwards(end: int, signs: int) -> list[str]:
            if end == AXIS:
                return []
            inner = ring[end] - 1
            fields: list[str] = []
            for f in hexmap.neighbours[end]:
                if ring[f] != inner:
                    continue
                if f == AXIS:
                    if signs >= required:
                        fields.append(ids[f])
                elif owner[f] in (-1, seat):
                    fields.append(ids[f])
            return fields

        here = heir.position
        staying = inwards(here, held)
        attack_after: dict[str, list[str]] = {}
        pedestal = {s: i for i, s in enumerate(state.pedestals)}
        for name in attack:
            f = index_of[name]
            holder = owner[f]
            if holder not in (-1, seat):
                assault = state.capitals[holder] == f
                brings = assault or state.heirs[holder].position == f
                defender = holder
                end = here if assault else f
            else:
                on_field = [
                    h.seat
                    for h in state.heirs
                    if h.seat != seat and not h.fallen and h.position == f
                ]
                defender = min(on_field, key=lambda s: pedestal.get(s, s))
                brings, end = True, f
            gained = 1 if brings and defender not in heir.signs else 0
            attack_after[name] = inwards(end, held + gained)
        return {
            "stay": staying,
            "scout": staying,
            "move": {name: inwards(index_of[name], held) for name in move},
            "attack": attack_after,
        }

    # -- sealing ---------------------------------------------------------------------------

    @_follows_variants
    def submit(self, state: HeirsState, seat: int, order: Mapping[str, Any]) -> HeirsState:
        if not 0 <= seat < state.players:
            raise NotYourTurn("There is no such seat.")
        heir = state.heirs[seat]
        if state.phase == PHASE_SETUP:
            if heir.setup_choice is not None:
                raise NotYourTurn("You have already made your choice.")
            choice = self.normalize_setup(state, seat, order)
            st = clone_state(state, heirs=False, board=False)
            st.heirs[seat] = heir_copy = self._copy_heir(state, seat)
            heir_copy.setup_choice = choice
            # Other seats' prompts change (a colour is taken), the board only by "sealed".
            self._carry_board(state, st, seat)
            return st
        if state.phase == PHASE_OVER:
            raise NotYourTurn("The game is over.")
        if heir.fallen:
            raise NotYourTurn("Your dynasty has fallen.")
        if heir.order is not None:
            raise NotYourTurn("You have already sealed this round.")
        checked = state.memo.get(("checked", seat))
        if checked is not None and checked[0] is order and checked[1] == order:
            normalized = checked[2]  # this very order passed the sealing check on this state
        else:
            normalized = self.normalize_order(state, seat, order)
            HeirsEngine.dry_run(self, state, seat, normalized)
        st = clone_state(state, heirs=False, board=False)
        st.heirs[seat] = heir_copy = self._copy_heir(state, seat)
        heir_copy.order = normalized
        self._carry_memo(state, st, seat)
        return st

    @classmethod
    def _carry_memo(cls, old: HeirsState, new: HeirsState, seat: int) -> None:
        """Sealing changes only the seat's own order: every other seat's prompt, checked
        order and private view stay valid, the pedestals of the dry runs' context are the
        same, and the board differs only in that seat's "sealed" flag."""
        for key, value in old.memo.items():
            if isinstance(key, tuple) and key[1] != seat:
                new.memo[key] = value
        context = old.memo.get("dry_run_context")
        if context is not None:
            new.memo["dry_run_context"] = context
        cls._carry_board(old, new, seat)

    def seal_marks(self, state: HeirsState, seat: int) -> list[tuple[list[str | int], Any]]:
        """Every view shows which heirs have sealed, and nothing of what (H5)."""
        return [(["heirs", seat, "sealed"], True)]

    @staticmethod
    def _carry_board(old: HeirsState, new: HeirsState, seat: int) -> None:
        board = old.memo.get("board")
        if board is not None:
            heirs = list(board["heirs"])
            heirs[seat] = {**heirs[seat], "sealed": True}
            new.memo["board"] = {**board, "heirs": heirs}

    @staticmethod
    def _copy_heir(state: HeirsState, seat: int) -> Heir:
        return clone_heir(state.heirs[seat])

    def normalize_setup(self, state: HeirsState, seat: int, order: Mapping[str, Any]) -> JSON:
        if not isinstance(order, Mapping):
            raise _bad("Choose a colour and a character.")
        fixed = self.fixed_colour(state, seat)
        colour = order.get("colour", fixed)
        character = order.get("character")
        if set(order) - {"colour", "character"}:
            raise _bad("Only a colour and a character are chosen at setup.")
        if fixed is not None and colour != fixed:
            raise IllegalOrder(
                "Your colour stays the same all tournament long.", code="COLOUR_KEPT"
            )
        if colour not in self.content.setup["colours"]:
            raise _bad("Pick one of the six colours.", "BAD_COLOUR")
        if colour not in self.free_colours(state):
            raise IllegalOrder("Another player already took that colour.", code="COLOUR_TAKEN")
        if character not in state.heirs[seat].offered:
            raise IllegalOrder(
                "Keep one of the two characters you were offered.", code="NOT_OFFERED"
            )
        return {"colour": colour, "character": character}

    def normalize_order(self, state: HeirsState, seat: int, raw: Mapping[str, Any]) -> JSON:
        """Shape checks and sealing-only checks; the rest is the dry run (H5.2)."""
        if not isinstance(raw, MAPPINGS):
            raise _bad("An order is a set of parts (expedition, recruit, …).")
        _check_parts(raw, ORDER_KEYS, "the order")
        order: JSON = dict(DEFAULT_ORDER)
        index_of = self.map.index_of
        expedition = raw.get("expedition")
        if expedition is not None:
            if not isinstance(expedition, MAPPINGS) or expedition.get("kind") not in EXPEDITIONS:
                raise _bad("The expedition is one of move, attack, scout or stay.")
            _check_parts(expedition, _EXPEDITION_KEYS, "the expedition")
            kind = expedition["kind"]
            target = expedition.get("field")
            if kind == "stay":
                order["expedition"] = {"kind": "stay", "field": None}
            else:
                if not isinstance(target, str) or target not in index_of:
                    raise _bad("Choose the expedition's field.", "UNKNOWN_FIELD")
                order["expedition"] = {"kind": kind, "field": target}
        for key in ("settle", "retreat"):
            if key in raw:
                if not isinstance(raw[key], bool):
                    raise _bad(f"'{key}' is yes or no.")
                order[key] = raw[key]
        if "recruit" in raw:
            if not _is_int(raw["recruit"]) or raw["recruit"] < 0:
                raise _bad("Recruit a whole number of soldiers (0 or more).")
            order["recruit"] = raw["recruit"]
        if raw.get("build") is not None:
            if raw["build"] not in BUILDINGS:
                raise _bad("Unknown building.")
            order["build"] = raw["build"]
        if raw.get("learn") is not None:
            if raw["learn"] not in ABILITIES:
                raise _bad("Unknown ability.")
            order["learn"] = raw["learn"]
        order["exchanges"] = self._normalize_exchanges(raw.get("exchanges"))
        order["trick"] = self._normalize_trick(state, seat, raw.get("trick"))
        return order

    @staticmethod
    def _normalize_exchanges(raw: Any) -> list[JSON]:
        if raw is None:
            return []
        if not isinstance(raw, list) or len(raw) > MAX_EXCHANGE_LINES:
            raise _bad(f"Exchanges are a list of at most {MAX_EXCHANGE_LINES} trades.")
        lines: list[JSON] = []
        for line in raw:
            if not isinstance(line, MAPPINGS):
                raise _bad("Each exchange names give, get and trades.")
            _check_parts(line, _EXCHANGE_KEYS, "an exchange")
            give, get, trades = line.get("give"), line.get("get"), line.get("trades", 1)
            if give not in RESOURCES or get not in RESOURCES:
                raise _bad("Exchange one resource for a different one (people, gold, knowledge).")
            if give == get:
                raise _bad("Exchange one resource for a different one.", "SAME_RESOURCE")
            if not _is_int(trades) or trades < 1:
                raise _bad("The number of trades is a whole number, at least 1.")
            lines.append({"give": give, "get": get, "trades": trades})
        return lines

    def _normalize_trick(self, state: HeirsState, seat: int, raw: Any) -> JSON | None:
        if raw is None:
            return None
        if not isinstance(raw, MAPPINGS) or not isinstance(raw.get("card"), str):
            raise _bad("Name the trick card you play.")
        _check_parts(raw, _TRICK_KEYS, "the trick")
        card = raw["card"]
        heir = state.heirs[seat]
        if card not in heir.hand:
            raise IllegalOrder("That card is not in your hand this round.", code="NOT_IN_HAND")
        group = self.content.card_group[card]
        trick: JSON = {"card": card, "target": None, "field": None}
        if group == 0:
            target = raw.get("target")
            if not _is_int(target) or not 0 <= target < state.players or target == seat:
                raise IllegalOrder("Choose a sibling as the target.", code="BAD_TARGET")
            if state.heirs[target].fallen:
                raise IllegalOrder("That sibling has fallen.", code="TARGET_FALLEN")
            trick["target"] = target
        elif card == "shadow_path":
            target_field = raw.get("field")
            if not isinstance(target_field, str) or target_field not in self.map.index_of:
                raise IllegalOrder("Choose the field of the extra step.", code="BAD_TARGET")
            trick["field"] = target_field
        return trick

    # -- views (H23) -----------------------------------------------------------------------

    def static_map(self, state: HeirsState) -> JSON:
        """The unchanging part of the board for this player count (shared, never mutated)."""
        cached = self._static_by_players.get(state.players)
        if cached is None:
            ids = self.map.ids
            capitals = set(state.capitals)
            cached = {
                **self._static_map,
                "forests": [ids[f] for f in sorted(self.map.forest_pattern - capitals)],
                "capitals": [ids[f] for f in state.capitals],
            }
            self._static_by_players[state.players] = cached
        return cached

    @_follows_variants
    def view(self, state: HeirsState, seat: int | None) -> JSON:
        board = state.memo.get("board")
        if board is None:
            board = state.memo["board"] = self._board(state)
        if seat is None:
            return dict(board)
        # Kept with the state, as the board is: the board shows a round's last step, then the
        # phones' views of the state it leaves (the same state), and a seal's notice to its
        # sealer compares the view before with the view after. A seal carries the others'.
        me = state.memo.get(("me", seat))
        if me is None:
            me = state.memo["me", seat] = self.private_view(state, seat)
        return {**board, "me": me}

    def _board(self, state: HeirsState) -> JSON:
        ids = self.map.ids
        pedestal = {s: i + 1 for i, s in enumerate(state.pedestals)}
        heirs_public = [
            {
                "seat": h.seat,
                "colour": h.colour or None,
                "position": None if h.fallen else ids[h.position],
                "pedestal": pedestal.get(h.seat),
                "signs": list(h.signs),
                "fallen": h.fallen,
                "in_axis": bool(h.entered_axis) and not h.fallen,
                "sealed": (h.setup_choice is not None)
                if state.phase == PHASE_SETUP
                else (h.order is not None),
            }
            for h in state.heirs
        ]
        board: JSON = {
            "game": "heirs",
            "phase": state.phase,
            "round": state.round,
            "rounds": state.rounds,
            "omen": self.omen(state) or None,
            "start_player": state.start_player if state.round else None,
            "timer": state.options.get("timer"),
            "variants": list(state.options.get("variants") or ()),  # H13.1, ids
            "map": self.static_map(state),
            "owners": [None if o < 0 else o for o in state.owner],
            "living_capitals": {
                str(h.seat): ids[state.capitals[h.seat]] for h in state.heirs if not h.fallen
            },
            "finds": [ids[f] for f, find in enumerate(state.finds) if find],
            "shards": [ids[f] for f, shard in enumerate(state.shards) if shard],
            "heirs": heirs_public,
            "outcome": state.outcome,
        }
        return board

    def private_view(self, state: HeirsState, seat: int) -> JSON:
        heir = state.heirs[seat]
        me: JSON = {
            "seat": seat,
            "colour": heir.colour or None,
            "offered": list(heir.offered),
            "character": heir.character or None,
            "start_artifact": heir.start_artifact,
            "backpack": list(heir.backpack),
            "soldiers": heir.soldiers,
            "people": heir.people,
            "gold": heir.gold,
            "knowledge": heir.knowledge,
            "buildings": dict(zip(BUILDINGS, heir.buildings, strict=True)),
            "abilities": dict(zip(ABILITIES, heir.abilities, strict=True)),
            "portraits": list(heir.portraits),
            "signs": list(heir.signs),
            "won_battles": heir.won_battles,
            "hand": list(heir.hand),
            "sealed_order": heir.order,
            # The seat's own sealed colour and character while the others still choose
            # (H3.1, H3.3); the character stays its secret.
            "sealed_setup": dict(heir.setup_choice)
            if state.phase == PHASE_SETUP and heir.setup_choice is not None
            else None,
            "intel": list(heir.intel),
            # From the snapshots in the seat's own intel, never from the sibling's live state.
            "known_start_artifacts": {
                str(entry["of"]): entry["start_artifact"]
                for entry in heir.intel
                if entry["kind"] == "comets_sight"
            },
            "fallen": heir.fallen,
        }
        if state.phase != PHASE_SETUP and not heir.fallen:
            me["signs_required"] = self.signs_required(state, heir)
            me["recruit_cap"] = self.recruit_cap(state, heir)
            ctx = _NO_TRICK
            trick = heir.order["trick"] if heir.order is not None else None
            if trick is not None and trick["card"] in ("war_cry", "shield_of_the_seal"):
                ctx = PassContext()
                if trick["card"] == "war_cry":
                    ctx.war_cry.add(seat)
                else:
                    ctx.shield.add(seat)
            me["attack_value"] = self.attack_value(state, ctx, heir)
            here = heir.position
            defence = self.heir_defence(ctx, heir)
            if state.owner[here] == seat:
                defence += self.field_defence(state, seat, here)
            me["defence_value"] = defence * (100 + self.effect(heir, "defence_pct")) // 100
            me["militia"] = self.militia(heir)
            me["pedestal"] = state.pedestals.index(seat) + 1 if seat in state.pedestals else None
        return me

    # -- bots ------------------------------------------------------------------------------

    @_follows_variants
    def bot_order(self, state: HeirsState, seat: int, style: str = "default") -> JSON:
        prompt = self._memo_prompt(state, seat)
        if prompt is None:
            raise NotYourTurn()
        candidates = bots.decide(self._bot_view(state, seat, prompt), prompt, style)
        return self._first_legal(state, seat, candidates)

    @_follows_variants
    def bot_view(self, state: HeirsState, seat: int, prompt: JSON | None = None) -> JSON:
        """What a bot reads: ``view(state, seat)`` with only the ``me`` entries the bots use
        (``BOT_ME_KEYS``), each equal to the full view's (tested). The full private view
        computes battle values and intel the bots never read, once per seal."""
        return self._bot_view(state, seat, prompt)

    def _bot_view(self, state: HeirsState, seat: int, prompt: JSON | None) -> JSON:
        board = state.memo.get("board")
        if board is None:
            board = state.memo["board"] = self._board(state)
        heir = state.heirs[seat]
        me: JSON = {
            "seat": seat,
            "character": heir.character or None,
            "start_artifact": heir.start_artifact,
            "soldiers": heir.soldiers,
            "people": heir.people,
            "gold": heir.gold,
            "knowledge": heir.knowledge,
            "signs": list(heir.signs),
        }
        if state.phase != PHASE_SETUP and not heir.fallen:
            if prompt is not None and prompt["kind"] == "orders":
                me["signs_required"] = prompt["signs"]["required"]
            else:
                me["signs_required"] = self.signs_required(state, heir)
        return {**board, "me": me}

    @_follows_variants
    def default_order(self, state: HeirsState, seat: int) -> JSON:
        """What the app seals for a seat whose sealing timer ran out: during the rounds the
        empty order (H5.4: stay, settle, nothing else); in setup what the seat's sheet shows
        chosen before anyone touches it, the first colour still free and the first character
        offered. (The bot's pick, as it was, made a player who had looked at the Knight ticked
        on the phone a Paladin.)"""
        if state.phase == PHASE_SETUP:
            prompt = self._memo_prompt(state, seat)
            if prompt is None:
                raise NotYourTurn()
            return {"colour": prompt["colours"][0], "character": prompt["characters"][0]}
        return {}

    @_follows_variants
    def random_order(self, state: HeirsState, seat: int, rng: Rng) -> JSON:
        prompt = self._memo_prompt(state, seat)
        if prompt is None:
            raise NotYourTurn()
        return self._first_legal(state, seat, bots.random_candidates(prompt, rng))

    def _first_legal(self, state: HeirsState, seat: int, candidates: list[JSON]) -> JSON:
        """The first candidate the sealing check accepts (the default order always is)."""
        for candidate in candidates:
            try:
                if state.phase == PHASE_SETUP:
                    self.normalize_setup(state, seat, candidate)
                else:
                    normalized = self.normalize_order(state, seat, candidate)
                    HeirsEngine.dry_run(self, state, seat, normalized)
                    # Remember the check so that submitting this very order skips it.
                    state.memo[("checked", seat)] = (candidate, copy_order(candidate), normalized)
            except IllegalOrder:
                continue
            return candidate
        return {}


_NO_TRICK = PassContext()
"""The battle values of a seat whose sealed order plays no War Cry or Shield (read only)."""


def _as_told(snapshot: HeirsState, untold: Sequence[Event]) -> HeirsState:
    """A step of the pass as its views may show it: the soldiers a Curse or Bribery whose
    caster stays unknown took are still the target's until Dusk tells it (H11.7). Shown at
    once, the target's phone would see its army shrink in the caster's step, under the
    caster's pedestal, and so learn whom the sheet keeps unknown. The pass itself runs on
    the real numbers (the effect is not delayed, H6): only what the steps show waits."""
    for event in untold:
        if event.kind == "trick_on_you" and event.data["soldiers"]:
            snapshot.heirs[event.data["seat"]].soldiers += event.data["soldiers"]
    return snapshot

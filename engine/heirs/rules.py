"""Heirs of the Axis: setup, sealing, resolution, Dusk and the end (rules H3–H22).

Rule numbers in comments refer to ``/work/shared/rules/heirs.md``. Seats are 0-based here;
"seat j (1-based)" in the spec is seat j - 1. Fields are integer indices in field order
(``content.HexMap``); ids like ``"R2-3"`` appear only in orders, prompts, views and events.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.core import JSON, Event, IllegalOrder, Rng
from engine.heirs.content import (
    ABILITIES,
    AXIS,
    BUILDINGS,
    DEFENSE,
    LEADERSHIP,
    MARKET,
    MYSTICISM,
    WALLS,
    Content,
)
from engine.heirs.state import (
    PHASE_ORDERS,
    PHASE_OVER,
    PHASE_SETUP,
    Heir,
    HeirsState,
    clone_heir,
    clone_state,
)

StepCallback = Callable[[HeirsState, int, Sequence[Event]], None]
"""Told the working state, the index of a board step's first event and the pass's tricks
whose casters stay unknown and are not told yet (see resolve_round)."""

EXPEDITIONS = ("move", "attack", "scout", "stay")
CAPITAL_ASSAULT, INVASION, ATTACK_ON_HEIR = "capital_assault", "invasion", "attack"


def draw_index(rng: Rng, count: int) -> int:
    """A uniform index below ``count``; no draw when only one outcome exists (H22)."""
    return rng.below(count) if count > 1 else 0


def draw_between(rng: Rng, low: int, high: int) -> int:
    return low + draw_index(rng, high - low + 1)


def ceil_div(a: int, b: int) -> int:
    """⌈a / b⌉ for non-negative a and positive b (H0.1)."""
    return -(-a // b)


@dataclass(slots=True)
class PassContext:
    """What the resolution pass fixes at its start (H4.5) and collects while it runs."""

    war_cry: set[int] = field(default_factory=set)
    shield: set[int] = field(default_factory=set)
    attackers_on: dict[int, int] = field(default_factory=dict)
    """k_F: number of sealed Invasion/Attack orders per field (H12.6)."""
    attack_target: dict[int, int] = field(default_factory=dict)
    holders: dict[int, set[int]] = field(default_factory=dict)
    """Per targeted field, the dynasties that held it at the start of the pass (H12.6)."""
    spies: dict[int, set[int]] = field(default_factory=dict)
    """Target seat -> seats whose Spy on it worked this round (they see its battles)."""
    pedestal: dict[int, int] = field(default_factory=dict)
    untold: list[Event] = field(default_factory=list)
    """A Curse or Bribery whose caster stays unknown (H11.7), told at Dusk: told in the
    caster's own step, under its pedestal, it would name the caster after all."""


class Step:
    """One heir's resolution step (H6), or its dry run at sealing (H5.2, ``validate=True``).

    In a dry run a failing check raises :class:`IllegalOrder`; in the pass it is skipped with
    a private event naming the part and the reason (H21), and the rest of the step runs.
    """

    __slots__ = ("ctx", "events", "heir", "order", "rng", "rules", "seat", "st", "validate")

    def __init__(
        self,
        rules: HeirsEngine,
        st: HeirsState,
        seat: int,
        order: JSON,
        ctx: PassContext,
        events: list[Event],
        rng: Rng | None,
        validate: bool,
    ) -> None:
        self.rules = rules
        self.st = st
        self.seat = seat
        self.heir = st.heirs[seat]
        self.order = order
        self.ctx = ctx
        self.events = events
        self.rng = rng
        self.validate = validate

    # -- reporting -------------------------------------------------------------------------

    def fail(self, part: str, code: str, message: str) -> None:
        if self.validate:
            raise IllegalOrder(message, code=code, part=part)
        self.private("skipped", {"part": part, "code": code, "reason": message})

    def private(self, kind: str, data: JSON) -> None:
        if not self.validate:
            self.events.append(Event(kind, {"seat": self.seat, **data}, (self.seat,)))

    def public(self, kind: str, data: JSON) -> None:
        if not self.validate:
            self.events.append(Event(kind, data))

    # -- the step --------------------------------------------------------------------------

    def run(self) -> None:
        self.exchanges()
        self.trick()
        self.retinue()
        self.city()
        self.learn()
        self.expedition()
        self.shadow_path()
        self.settle()

    def exchanges(self) -> None:
        """Part 1: Market trades in the sealed order (H10)."""
        if not self.order["exchanges"]:
            return
        heir = self.heir
        rates = self.rules.content.buildings["market"]["rates"]
        for line in self.order["exchanges"]:
            level = heir.buildings[MARKET]
            if level == 0:
                self.fail("exchange", "NO_MARKET", "You need a Market to exchange resources.")
                continue
            give, get, trades = line["give"], line["get"], line["trades"]
            rate_give, rate_get = rates[level - 1]
            have = getattr(heir, give)
            done = min(trades, have // rate_give)
            if done < trades:
                code = f"NOT_ENOUGH_{give.upper()}"
                if self.validate or done == 0:
                    self.fail(
                        "exchange",
                        code,
                        f"Not enough {give} for {trades} trade(s) at {rate_give}:{rate_get}.",
                    )
                    continue
                self.private("exchange_cut", {"give": give, "trades": done, "code": code})
            setattr(heir, give, have - done * rate_give)
            setattr(heir, get, getattr(heir, get) + done * rate_get)
            self.private("exchange", {"give": give, "get": get, "trades": done})

    def trick(self) -> None:
        """Part 2: tricks of the groups "On a sibling" and "Reinforcement" (H11.3–4, H11.6)."""
        trick = self.order["trick"]
        if trick is None:
            return
        rules = self.rules
        card_id: str = trick["card"]
        group = rules.content.card_group[card_id]
        if group == 2:
            # Battle tricks are on since the pass began (H11.5), Shadow path runs in part 6. The
            # caster hears at its step that its War cry or Shield is on, a battle or none: else
            # a card that met no battle left its phone without a word.
            if card_id in ("war_cry", "shield_of_the_seal"):
                self.private("trick", {"card": card_id, "battle": True})
            return
        card = rules.content.cards[card_id]
        heir = self.heir
        st = self.st
        target_seat: int | None = trick.get("target")
        if group == 0:
            assert target_seat is not None
            if st.heirs[target_seat].fallen:
                self.fail("trick", "TARGET_FALLEN", "The target of your trick has fallen.")
                return
            if card_id != rules.content.new_portrait and target_seat not in heir.portraits:
                self.fail("trick", "NO_PORTRAIT", "You no longer hold a portrait of the target.")
                return
        cost = rules.trick_cost(heir, card_id)
        for resource, amount in cost.items():
            if getattr(heir, resource) < amount:
                self.fail(
                    "trick",
                    f"NOT_ENOUGH_{resource.upper()}",
                    f"Not enough {resource} for {card['name']} ({amount} needed).",
                )
                return
        for resource, amount in cost.items():
            setattr(heir, resource, getattr(heir, resource) - amount)
        if group == 1:
            heir.soldiers += card.get("soldiers", 0)
            heir.people += card.get("people", 0)
            self.private("trick", {"card": card_id, "soldiers": card.get("soldiers", 0)})
            return
        assert target_seat is not None
        if card_id == rules.content.new_portrait:
            heir.portraits.append(target_seat)
            heir.portraits.sort()
            self.private("trick", {"card": card_id, "target": target_seat})
            return
        if card.get("consumes_portrait"):
            heir.portraits.remove(target_seat)
        if self.validate:
            return  # a dry run never looks at the target's secret numbers
        self.sibling_trick(card_id, card, target_seat)

    def sibling_trick(self, card_id: str, card: JSON, target_seat: int) -> None:
        """Bribery, Spy or Curse after its cost is paid: Mirror roll, exposure roll, effect."""
        rules = self.rules
        assert self.rng is not None
        target = self.st.heirs[target_seat]
        reflected = rules.effect(target, "reflect") > 0 and self.rng.chance(
            *rules.content.mirror_chance
        )
        exposed = False
        if card.get("exposable") and not rules.effect(self.heir, "never_exposed"):
            exposed = self.rng.chance(*rules.content.exposure_chance)
        if card_id == "spy":
            if reflected:
                self.private("trick", {"card": card_id, "target": target_seat, "reflected": True})
                return
            snapshot = rules.strength(target)
            entry = {"round": self.st.round, "kind": "spy", "of": target_seat, **snapshot}
            self.heir.intel.append(entry)
            self.ctx.spies.setdefault(target_seat, set()).add(self.seat)
            self.private("trick", {"card": card_id, "target": target_seat, "strength": snapshot})
            return
        amount = card["soldiers"] + self.heir.abilities[MYSTICISM] * rules.trick_soldiers_per_level
        moved = 0 if reflected else min(amount, target.soldiers)
        target.soldiers -= moved
        if card_id == "bribery":
            self.heir.soldiers += moved
        caster = self.seat if exposed else None
        # What the target and the board are told: at once if it names the caster, else at
        # Dusk (H11.7 "an unknown sibling"; the effect itself is not delayed).
        telling = self.events if exposed else self.ctx.untold
        self.private(
            "trick",
            {
                "card": card_id,
                "target": target_seat,
                "reflected": reflected,
                "soldiers": moved,
                "exposed": exposed,
            },
        )
        telling.append(
            Event(
                "trick_on_you",
                {
                    "seat": target_seat,
                    "card": card_id,
                    "caster": caster,
                    "reflected": reflected,
                    "soldiers": moved,
                },
                (target_seat,),
            )
        )
        if not reflected:
            telling.append(
                Event("trick_public", {"card": card_id, "target": target_seat, "caster": caster})
            )

    def retinue(self) -> None:
        """Part 3: recruit soldiers for people, up to the cap taken now (H9.2, H21)."""
        wanted: int = self.order["recruit"]
        if wanted <= 0:
            return
        heir = self.heir
        cap = self.rules.recruit_cap(self.st, heir)
        per_soldier = self.rules.people_per_soldier
        affordable = heir.people // per_soldier
        if self.validate:
            if wanted > cap:
                self.fail("retinue", "OVER_CAP", f"You can recruit at most {cap} soldiers.")
            if wanted > affordable:
                self.fail(
                    "retinue",
                    "NOT_ENOUGH_PEOPLE",
                    f"{wanted} soldiers cost {wanted * per_soldier} people; you have "
                    f"{heir.people}.",
                )
        recruited = min(wanted, cap, affordable)
        if recruited < wanted:
            code = "OVER_CAP" if cap < wanted and cap <= affordable else "NOT_ENOUGH_PEOPLE"
            self.private("retinue_cut", {"code": code, "recruited": recruited, "sealed": wanted})
        heir.people -= recruited * per_soldier
        heir.soldiers += recruited
        if recruited:
            self.private("recruit", {"soldiers": recruited})

    def city(self) -> None:
        """Part 4: raise one building by one level (H9.3)."""
        building = self.order["build"]
        if building is None:
            return
        index = BUILDINGS.index(building)
        cost = self.rules.building_cost(self.st, self.heir, index)
        if cost is None:
            self.fail("city", "MAX_LEVEL", f"Your {building} is already at level III.")
            return
        if self.heir.gold < cost:
            self.fail("city", "NOT_ENOUGH_GOLD", f"The {building} costs {cost} gold.")
            return
        self.heir.gold -= cost
        self.heir.buildings[index] += 1
        self.private("build", {"building": building, "level": self.heir.buildings[index]})

    def learn(self) -> None:
        """Part 5: raise one ability by one level (H9.4)."""
        ability = self.order["learn"]
        if ability is None:
            return
        index = ABILITIES.index(ability)
        cost = self.rules.ability_cost(self.heir, index)
        if cost is None:
            self.fail("heir", "MAX_LEVEL", f"Your {ability} is already at level III.")
            return
        if self.heir.knowledge < cost:
            self.fail("heir", "NOT_ENOUGH_KNOWLEDGE", f"{ability} costs {cost} knowledge.")
            return
        self.heir.knowledge -= cost
        self.heir.abilities[index] += 1
        self.private("learn", {"ability": ability, "level": self.heir.abilities[index]})

    # -- part 6 ----------------------------------------------------------------------------

    def expedition(self) -> None:
        expedition = self.order["expedition"]
        kind = expedition["kind"]
        if kind == "stay":
            return
        target = self.rules.field_index(expedition["field"])
        if kind == "move":
            if self.move_check(target, "expedition"):
                self.move_to(target, "move")
        elif kind == "scout":
            self.scout(target)
        else:
            self.attack(target)

    def move_check(self, target: int, part: str) -> bool:
        """H7.2 and the Move line of H21."""
        rules = self.rules
        heir = self.heir
        if rules.map.distance[heir.position][target] != 1:
            self.fail(part, "NOT_ADJACENT", f"{rules.map.ids[target]} is not next to your heir.")
            return False
        if target == AXIS:
            required = rules.signs_required(self.st, heir)
            if len(heir.signs) < required:
                self.fail(part, "AXIS_LOCKED", f"The Axis opens only with {required} Signs.")
                return False
            return True
        owner = self.st.owner[target]
        if owner not in (-1, self.seat):
            self.fail(
                part, "FIELD_TAKEN", f"{rules.map.ids[target]} belongs to a sibling; invade it."
            )
            return False
        return True

    def move_to(self, target: int, how: str) -> None:
        heir = self.heir
        origin = heir.position
        heir.position = target
        self.public(
            how,
            {
                "seat": self.seat,
                "from": self.rules.map.ids[origin],
                "to": self.rules.map.ids[target],
            },
        )
        if target == AXIS:
            heir.entered_axis = self.st.round
            self.public("axis", {"seat": self.seat})
            return
        self.take_find(target)

    def take_find(self, target: int) -> None:
        """H8.6: the first heir that enters or scouts a discovery field takes its token."""
        find = self.st.finds[target]
        if not find or self.validate:
            return
        self.st.finds[target] = ""
        self.public("find_taken", {"seat": self.seat, "field": self.rules.map.ids[target]})
        kind, amount = find.split(":")
        if kind == "portrait":
            sibling = self.rules.nearest_sibling(self.st, self.seat)
            if sibling is not None:
                self.heir.portraits.append(sibling)
                self.heir.portraits.sort()
            self.private("find", {"find": "portrait", "of": sibling})
            return
        setattr(self.heir, kind, getattr(self.heir, kind) + int(amount))
        self.private("find", {"find": kind, "amount": int(amount)})

    def scout(self, target: int) -> None:
        """H7.5: pick up a shard, take a find, learn the field's hidden numbers."""
        rules = self.rules
        heir = self.heir
        if rules.map.distance[heir.position][target] > 1:
            self.fail("expedition", "NOT_ADJACENT", f"{rules.map.ids[target]} is too far to scout.")
            return
        if self.validate:
            return
        st = self.st
        name = rules.map.ids[target]
        self.public("scout", {"seat": self.seat, "field": name})
        report: JSON = {"round": st.round, "kind": "scout", "field": name}
        shard = st.shards[target]
        if shard:
            if len(heir.backpack) < rules.content.backpack:
                st.shards[target] = ""
                heir.backpack.append(shard)
                report["picked_up"] = shard
                self.public("shard_taken", {"seat": self.seat, "field": name})
                if shard == "comets_sight":
                    rules.comets_sight(st, heir, self.events)
            else:
                report["shard"] = shard
        self.take_find(target)
        owner = st.owner[target]
        if owner not in (-1, self.seat):
            report["militia_defence"] = rules.field_defence(st, owner, target)
        report["heirs"] = {
            str(h.seat): h.soldiers
            for h in st.heirs
            if h.seat != self.seat and not h.fallen and h.position == target
        }
        heir.intel.append(report)
        self.private("scout_report", report)

    def attack(self, target: int) -> None:
        """H7.3: classify the target now and fight, or march if the target has gone."""
        rules = self.rules
        st = self.st
        heir = self.heir
        distance = rules.map.distance[heir.position][target]
        if distance > 1:
            self.fail("expedition", "NOT_ADJACENT", f"{rules.map.ids[target]} is not next to you.")
            return
        if heir.soldiers < 1 and not self.validate:
            self.fail("expedition", "NO_SOLDIERS", "An heir without soldiers cannot attack.")
            return
        if target == AXIS:
            self.fail(
                "expedition", "AXIS_NOT_TARGET", "Nobody guards the Axis; it cannot be attacked."
            )
            return
        owner = st.owner[target]
        if owner not in (-1, self.seat):
            kind = CAPITAL_ASSAULT if st.capitals[owner] == target else INVASION
            defender = owner
        else:
            defenders = [
                h.seat
                for h in st.heirs
                if h.seat != self.seat and not h.fallen and h.position == target
            ]
            if owner == -1 and defenders:
                kind = ATTACK_ON_HEIR
                defender = min(defenders, key=self.ctx.pedestal.__getitem__)
            else:
                if self.validate:
                    self.fail(
                        "expedition",
                        "NOT_A_TARGET",
                        f"{rules.map.ids[target]} holds neither a sibling's field nor a sibling.",
                    )
                    return
                # H7.3 d: the target left (or is ours): the march itself still happens.
                if target != heir.position:
                    self.move_to(target, "move")
                return
        if self.validate:
            # H5.2a: never fight at sealing; check the rest as if the battle were won.
            defender_heir = st.heirs[defender]
            brings_sign = kind != INVASION or defender_heir.position == target
            if brings_sign and defender not in heir.signs:
                heir.signs.append(defender)
            if kind != CAPITAL_ASSAULT:
                heir.position = target
            return
        rules.battle(st, self.ctx, self.events, self.rng, self.seat, target, kind, defender)

    def shadow_path(self) -> None:
        """H7.7: one extra Move one ring inwards, never a battle."""
        trick = self.order["trick"]
        if trick is None or trick["card"] != "shadow_path" or self.heir.entered_axis:
            return
        rules = self.rules
        target = rules.field_index(trick["field"])
        here = self.heir.position
        if rules.map.distance[here][target] != 1:
            self.fail("shadow_path", "NOT_ADJACENT", f"{rules.map.ids[target]} is not next to you.")
            return
        if rules.map.ring[target] != rules.map.ring[here] - 1:
            self.fail(
                "shadow_path", "NOT_CLOSER", f"{rules.map.ids[target]} is not one ring inwards."
            )
            return
        if self.move_check(target, "shadow_path"):
            self.move_to(target, "shadow_path")

    def settle(self) -> None:
        """Part 7 (H8.2): settle a free field the heir stands on alone. Never refused at sealing."""
        if self.validate or not self.order["settle"] or self.heir.entered_axis:
            return
        st = self.st
        here = self.heir.position
        if here == AXIS or st.owner[here] != -1:
            return  # H8.2a: at home or in the Axis nothing happens, and nothing is reported
        if any(h.position == here and not h.fallen for h in st.heirs if h.seat != self.seat):
            self.fail("settle", "NOT_ALONE", "A sibling stands on this field; nobody can settle.")
            return
        cost = self.rules.settle_cost(st, self.heir, here)
        if self.heir.people < cost:
            self.fail("settle", "NOT_ENOUGH_PEOPLE", f"Settling here costs {cost} people.")
            return
        self.heir.people -= cost
        st.owner[here] = self.seat
        st.conquered[here] = False
        self.public("settle", {"seat": self.seat, "field": self.rules.map.ids[here]})


class HeirsEngine:
    """The rules as methods over a loaded :class:`Content`."""

    def __init__(self, content: Content) -> None:
        self.content = content
        self.map = content.map
        self.people_per_soldier: int = content.setup["recruit"]["people_per_soldier"]
        self.base_cap: int = content.setup["recruit"]["cap"]
        abilities = content.abilities
        self.cap_per_leadership: int = abilities["leadership"]["recruit_cap"]
        self.loss_pct_per_leadership: int = abilities["leadership"]["loss_pct"]
        self.knowledge_per_mysticism: int = abilities["mysticism"]["knowledge"]
        self.trick_soldiers_per_level: int = abilities["mysticism"]["trick_soldiers"]
        self.attack_per_level: int = abilities["attack"]["attack_per_soldier"]
        self.defence_per_level: int = abilities["defense"]["defence_per_soldier"]
        buildings = content.buildings
        self.walls_capital: list[int] = buildings["walls"]["capital_defence"]
        self.walls_militia: list[int] = buildings["walls"]["militia"]
        self.income_buildings: tuple[tuple[int, str, list[int]], ...] = tuple(
            (BUILDINGS.index(b), resource, buildings[b][resource])
            for b, resource in (
                ("farm", "people"),
                ("mine", "gold"),
                ("academy", "knowledge"),
                ("barracks", "soldiers"),
            )
        )
        self.signs_table = {int(k): v for k, v in content.setup["signs_required"].items()}
        self.pay = content.setup["pay"]
        self.retreat_loss: int = content.setup["retreat_loss"]
        self.effects = {**content.characters, **content.artifact_effects}
        self._effect_cache: dict[tuple[str, ...], dict[str, int]] = {}
        self.field_yield: tuple[tuple[int, int], ...] = tuple(
            content.ring_yield.get(ring, (0, 0)) for ring in self.map.ring
        )
        """(people, gold) that each field yields its owner (H8.5); the Axis is never owned."""
        self._trick_costs: dict[int, dict[str, dict[str, int]]] = {}

    # -- small lookups ---------------------------------------------------------------------

    def field_index(self, field_id: str) -> int:
        return self.map.index_of[field_id]

    def effect(self, heir: Heir, key: str) -> int:
        """Sum of ``key`` over the heir's character, starting artifact and backpack."""
        return self.effects_of(heir).get(key, 0)

    def effects_of(self, heir: Heir) -> dict[str, int]:
        """All numeric effects of the heir's character and artifacts, summed (cached: the
        combinations are few and effects are looked up in every battle and prompt)."""
        # Most heirs carry no comet artifact: a plain pair is the cheapest key to build.
        if heir.backpack:
            key: tuple[str, ...] = (heir.character, heir.start_artifact, *heir.backpack)
        else:
            key = (heir.character, heir.start_artifact)
        cached = self._effect_cache.get(key)
        if cached is None:
            cached = {}
            for source in key:
                if not source:
                    continue
                for name, value in self.effects[source].items():
                    if isinstance(value, int) and not isinstance(value, bool):
                        cached[name] = cached.get(name, 0) + value
            self._effect_cache[key] = cached
        return cached

    def omen(self, st: HeirsState) -> str:
        return st.omens[st.round - 1] if st.round >= 1 else ""

    def omen_effect(self, st: HeirsState, key: str) -> int:
        if st.round < 1:
            return 0
        value: int = self.content.omens[st.omens[st.round - 1]].get(key, 0)
        return value

    def omen_effects(self, st: HeirsState) -> dict[str, Any]:
        return self.content.omens[st.omens[st.round - 1]] if st.round >= 1 else {}

    def recruit_cap(self, st: HeirsState, heir: Heir) -> int:
        """H9.2: 6, +2 Barbarian, +2 per Leadership level, +2 Harvest, +2 Chalice."""
        return (
            self.base_cap
            + self.effects_of(heir).get("recruit_cap", 0)
            + self.cap_per_leadership * heir.abilities[LEADERSHIP]
            + self.omen_effect(st, "recruit_cap")
        )

    def building_cost(self, st: HeirsState, heir: Heir, index: int) -> int | None:
        """H9.3: ⌈max(0, base − 1 if Builder) × ½ on Builders' Day⌉; None at level III."""
        level = heir.buildings[index]
        costs = self.content.building_costs
        if level >= len(costs):
            return None
        cost = max(0, costs[level] - self.effects_of(heir).get("building_discount", 0))
        if self.omen_effects(st).get("building_halved"):
            cost = ceil_div(cost, 2)
        return cost

    def ability_cost(self, heir: Heir, index: int) -> int | None:
        level = heir.abilities[index]
        costs = self.content.ability_costs
        return None if level >= len(costs) else costs[level]

    def settle_cost(self, st: HeirsState, heir: Heir, target: int) -> int:
        """H8.3: flat reductions first, then halving under Settlers."""
        cost = self.content.ring_settle[self.map.ring[target]]
        cost = max(0, cost - self.effects_of(heir).get("settle_discount", 0))
        if self.omen_effects(st).get("settle_halved"):
            cost = ceil_div(cost, 2)
        return cost

    def trick_cost(self, heir: Heir, card_id: str) -> dict[str, int]:
        """H11.6: the Thief pays 1 less of every priced card (shared: do not mutate)."""
        return self.trick_costs(self.effects_of(heir).get("trick_discount", 0))[card_id]

    def trick_costs(self, discount: int) -> dict[str, dict[str, int]]:
        """Every card's cost with this discount, by card (cached, shared: do not mutate)."""
        costs = self._trick_costs.get(discount)
        if costs is None:
            costs = {}
            for card_id, card in self.content.cards.items():
                cost: dict[str, int] = card.get("cost", {})
                if discount:
                    cost = {
                        resource: max(0, amount - discount) for resource, amount in cost.items()
                    }
                costs[card_id] = cost
            self._trick_costs[discount] = costs
        return costs

    def militia(self, heir: Heir) -> int:
        """H12.4: 2 + Walls level, +1 for the Builder."""
        walls = heir.buildings[WALLS]
        return 2 + (self.walls_militia[walls - 1] if walls else 0) + self.effect(heir, "militia")

    def field_defence(self, st: HeirsState, owner: int, target: int) -> int:
        """The field part of DV (H12.3) of ``owner``'s field ``target``."""
        heir = st.heirs[owner]
        value = self.militia(heir) * (1 + self.defence_per_level * heir.abilities[DEFENSE])
        walls = heir.buildings[WALLS]
        if walls and st.capitals[owner] == target:
            value += self.walls_capital[walls - 1]
        return value

    def strength(self, heir: Heir) -> JSON:
        """H11.8: soldiers, the four ability levels and the Walls level."""
        return {
            "soldiers": heir.soldiers,
            "abilities": dict(zip(ABILITIES, heir.abilities, strict=True)),
            "walls": heir.buildings[WALLS],
        }

    def signs_required(self, st: HeirsState, heir: Heir, living_siblings: int | None = None) -> int:
        """H17.3: min(table, A) − 1 with Legacy, A = living siblings + fallen Signs held.
        A caller that has just counted the living siblings passes that count."""
        heirs = st.heirs
        seat = heir.seat
        if living_siblings is None:
            living_siblings = 0
            for h in heirs:
                if not h.fallen and h.seat != seat:
                    living_siblings += 1
        siblings = living_siblings  # and the fallen siblings whose Sign the heir holds:
        for s in heir.signs:
            if heirs[s].fallen:
                siblings += 1
        required = min(self.signs_table[st.players], siblings)
        required -= self.effects_of(heir).get("replaces_signs", 0)
        return required if required > 0 else 0

    def nearest_sibling(self, st: HeirsState, seat: int) -> int | None:
        """Living sibling whose heir is nearest; ties: first seat clockwise (H8.6)."""
        here = st.heirs[seat].position
        row = self.map.distance[here]
        best: tuple[int, int] | None = None
        chosen: int | None = None
        for h in st.heirs:
            if h.seat == seat or h.fallen:
                continue
            key = (row[h.position], (h.seat - seat) % st.players)
            if best is None or key < best:
                best, chosen = key, h.seat
        return chosen

    def living(self, st: HeirsState) -> list[int]:
        return [h.seat for h in st.heirs if not h.fallen]

    # -- setup (H3, H22) -------------------------------------------------------------------

    def new_game(self, players: int, seed: int, options: Mapping[str, Any]) -> HeirsState:
        content = self.content
        limits = content.setup["rounds"]
        rounds = options.get("rounds", limits["default"])
        if not isinstance(rounds, int) or isinstance(rounds, bool):
            raise ValueError("rounds must be a whole number")
        if not limits["min"] <= rounds <= limits["max"]:
            raise ValueError(f"rounds must be between {limits['min']} and {limits['max']}")
        if not 2 <= players <= 6:
            raise ValueError("Heirs of the Axis needs 2 to 6 players")
        start_option = options.get("start_player")
        if start_option is not None and (
            type(start_option) is not int or not 0 <= start_option < players
        ):
            raise ValueError("start_player must be a seat number")
        timer = options.get("timer")
        if timer is not None and (type(timer) is not int or timer <= 0):
            raise ValueError("timer must be a positive number of seconds, or null")
        auto_setup = options.get("auto_setup", False)
        if not isinstance(auto_setup, bool):
            raise ValueError("auto_setup must be true or false")
        fixed_colours = options.get("colours")
        if fixed_colours is not None and (
            not isinstance(fixed_colours, list)
            or not all(isinstance(colour, str) for colour in fixed_colours)
            or len(fixed_colours) != players
            or len(set(fixed_colours)) != players
            or not set(fixed_colours) <= set(content.setup["colours"])
        ):
            raise ValueError("colours must give each seat a different colour of the six")
        stored_options: JSON = {
            "rounds": rounds,
            "timer": timer,
            "start_player": start_option,
            "auto_setup": auto_setup,
            # H13.1: the variants this game is played with (recorded, shown on the board).
            "variants": list(content.variants),
        }
        if fixed_colours is not None:
            # H20.1: in a tournament every heir keeps its colour from game to game.
            stored_options["colours"] = list(fixed_colours)
        rng = Rng.from_seed(seed)
        # 1. Characters, two different per seat from one shuffled deck (H3.3).
        all_characters = list(content.characters)
        deck = rng.shuffled(all_characters)
        heirs: list[Heir] = []
        for seat in range(players):
            offered: list[str] = []
            while len(offered) < content.setup["characters_offered"]:
                if not deck:
                    deck = rng.shuffled([c for c in all_characters if c not in offered])
                card = deck.pop()
                if card in offered:
                    continue
                offered.append(card)
            heirs.append(Heir(seat=seat, offered=offered))
        # 2. Starting artifacts without replacement (H3.4).
        pool = [
            a["id"]
            for a in content.starting_artifacts.values()
            if players >= a.get("min_players", 0)
        ]
        pool = rng.shuffled(pool)
        for seat, heir in enumerate(heirs):
            heir.start_artifact = pool[seat]
        # 3. Discovery finds in field order (H8.6).
        tokens = [
            f"{find['kind']}:{find['amount']}"
            for find in content.setup["finds"]
            for _ in range(find["count"])
        ]
        tokens = rng.shuffled(tokens)
        finds = [""] * len(self.map.ids)
        for field_index, token in zip(self.map.discovery, tokens, strict=True):
            finds[field_index] = token
        # 4. Omen schedule (H15.2). 5. Round-1 start player (H3.7).
        omens = self.omen_schedule(rng, rounds)
        start_player = start_option if start_option is not None else draw_index(rng, players)
        capitals = list(self.map.capitals(players))
        owner = [-1] * len(self.map.ids)
        start = content.setup["start"]
        for seat, heir in enumerate(heirs):
            owner[capitals[seat]] = seat
            heir.position = capitals[seat]
            heir.soldiers = start["soldiers"]
            heir.people = start["people"]
            heir.gold = start["gold"]
            heir.knowledge = start["knowledge"]
        state = HeirsState(
            players=players,
            rounds=rounds,
            options=stored_options,
            phase=PHASE_SETUP,
            round=0,
            rng=rng.state,
            start_player=start_player,
            pedestals=[],
            omens=omens,
            capitals=capitals,
            owner=owner,
            conquered=[False] * len(self.map.ids),
            finds=finds,
            shards=[""] * len(self.map.ids),
            comet_pool=list(content.comet_artifacts),
            heirs=heirs,
        )
        if auto_setup:
            # Colours by seat and the first offered character: for tests and benchmarks.
            colours = fixed_colours or content.setup["colours"]
            for heir in heirs:
                heir.setup_choice = {"colour": colours[heir.seat], "character": heir.offered[0]}
            state, _ = self.finish_setup(state)
        return state

    def omen_schedule(self, rng: Rng, rounds: int) -> list[str]:
        schedule_data = self.content.omen_schedule
        counts = schedule_data["comet_counts"]
        comets = counts[draw_index(rng, len(counts))]
        half = rounds // 2
        comet_rounds = {draw_between(rng, 2, half)}
        if comets == 2:
            comet_rounds.add(draw_between(rng, half + 2, rounds - 1))
        calm = [o for o in self.content.omens if o != "comet"]
        first = schedule_data["first_round"]
        bag = [o for o in calm if o != first]
        schedule = [first]
        previous = first
        for number in range(2, rounds + 1):
            if number in comet_rounds:
                schedule.append("comet")
                previous = "comet"
                continue
            if not bag:
                bag = list(calm)
            choices = [o for o in bag if o != previous]
            pick = choices[draw_index(rng, len(choices))]
            bag.remove(pick)
            schedule.append(pick)
            previous = pick
        return schedule

    def finish_setup(self, state: HeirsState) -> tuple[HeirsState, list[Event]]:
        """Apply every phone's setup choice (H3.1, H3.3, H3.5), then Dawn of round 1."""
        st = clone_state(state)
        events: list[Event] = []
        for heir in st.heirs:
            choice = heir.setup_choice
            assert choice is not None
            heir.colour = choice["colour"]
            heir.character = choice["character"]
            character = self.content.characters[heir.character]
            heir.gold += character.get("start_gold", 0)
            heir.buildings[BUILDINGS.index("mine")] += character.get("start_mine", 0)
            events.append(Event("colour", {"seat": heir.seat, "colour": heir.colour}))
            events.append(
                Event(
                    "identity",
                    {
                        "seat": heir.seat,
                        "character": heir.character,
                        "start_artifact": heir.start_artifact,
                    },
                    (heir.seat,),
                )
            )
        st.phase = PHASE_ORDERS
        rng = Rng(st.rng)
        self.dawn(st, events, rng)
        st.rng = rng.state
        return st, events

    # -- Dawn (H4.3) -----------------------------------------------------------------------

    def dawn(self, st: HeirsState, events: list[Event], rng: Rng) -> None:
        st.round += 1
        living = self.living(st)
        if st.round > 1:
            seat = st.start_player
            for _ in range(st.players):
                seat = (seat + 1) % st.players
                if not st.heirs[seat].fallen:
                    break
            st.start_player = seat
        elif st.heirs[st.start_player].fallen:  # pragma: no cover - nobody falls before round 1
            st.start_player = living[0]
        st.pedestals = [
            (st.start_player + i) % st.players
            for i in range(st.players)
            if not st.heirs[(st.start_player + i) % st.players].fallen
        ]
        omen = st.omens[st.round - 1]
        events.append(
            Event(
                "dawn",
                {
                    "round": st.round,
                    "omen": omen,
                    "start_player": st.start_player,
                    "pedestals": list(st.pedestals),
                },
            )
        )
        if self.content.omens[omen].get("comet"):
            self.place_shards(st, events, rng)
        self.income(st, events)
        self.deal_tricks(st, events, rng)
        self.seers_eye(st, events)

    def place_shards(self, st: HeirsState, events: list[Event], rng: Rng) -> None:
        """H15.3: up to 3 shards on free-of-heirs ring-2/3 fields without capital or shard."""
        occupied = {h.position for h in st.heirs if not h.fallen}
        capitals = set(st.capitals)
        placed: list[str] = []
        for _ in range(self.content.omen_schedule["shards_per_comet"]):
            if not st.comet_pool:
                break
            eligible = [
                f
                for f in self.map.shard_candidates
                if f not in occupied and f not in capitals and not st.shards[f]
            ]
            if not eligible:
                break
            spot = eligible[draw_index(rng, len(eligible))]
            artifact = st.comet_pool.pop(draw_index(rng, len(st.comet_pool)))
            st.shards[spot] = artifact
            placed.append(self.map.ids[spot])
        events.append(Event("comet", {"fields": placed}))

    def income(self, st: HeirsState, events: list[Event]) -> None:
        """H8.5: everybody at once; Storm: conquered fields yield nothing."""
        storm = bool(self.omen_effect(st, "conquered_yield_nothing"))
        players = st.players
        people = [0] * players
        gold = [0] * players
        field_yield = self.field_yield
        capitals = st.capitals
        forests = self.map.forest_pattern.difference(capitals)  # as the board shows them
        conquered = st.conquered
        forest_bonus = [self.effect(h, "forest_people") for h in st.heirs]
        for f, owner in enumerate(st.owner):
            # A dynasty's own capital pays the capital income below, not a field's.
            if owner < 0 or capitals[owner] == f or (storm and conquered[f]):
                continue
            field_people, field_gold = field_yield[f]
            people[owner] += field_people
            gold[owner] += field_gold
            if f in forests:
                people[owner] += forest_bonus[owner]
        cap_people, cap_gold, cap_knowledge = self.content.capital_income
        for heir in st.heirs:
            if heir.fallen:
                continue
            seat = heir.seat
            effects = self.effects_of(heir)
            gained = {
                "people": cap_people + people[seat] + effects.get("people_per_round", 0),
                "gold": cap_gold + gold[seat] + effects.get("gold_per_round", 0),
                "knowledge": cap_knowledge
                + self.knowledge_per_mysticism * heir.abilities[MYSTICISM],
                "soldiers": effects.get("soldiers_per_round", 0),
            }
            for index, resource, per_level in self.income_buildings:
                level = heir.buildings[index]
                if level:
                    gained[resource] += per_level[level - 1]
                    if resource == "gold":
                        gained[resource] += effects.get("mine_bonus", 0)
            seer_every = effects.get("seer_every", 0)
            seer_portrait = None
            if seer_every and st.round % seer_every == 0:
                gained["soldiers"] += effects.get("seer_soldiers", 0)
                seer_portrait = self.nearest_sibling(st, seat)
                if seer_portrait is not None:
                    heir.portraits.append(seer_portrait)
                    heir.portraits.sort()
            heir.people += gained["people"]
            heir.gold += gained["gold"]
            heir.knowledge += gained["knowledge"]
            heir.soldiers += gained["soldiers"]
            data: JSON = {"seat": seat, **gained}
            if seer_portrait is not None:
                data["portrait"] = seer_portrait
            events.append(Event("income", data, (seat,)))
            if st.round > 1 and effects.get("reveals_starting"):
                self.comets_sight(st, heir, events)

    def comets_sight(self, st: HeirsState, heir: Heir, events: list[Event]) -> None:
        """H14.2: reveal the starting artifact of the nearest not-yet-known living sibling."""
        here = heir.position
        candidates = [
            h
            for h in st.heirs
            if h.seat != heir.seat and not h.fallen and h.seat not in heir.revealed
        ]
        if not candidates:
            return
        row = self.map.distance[here]
        chosen = min(candidates, key=lambda h: (row[h.position], (h.seat - heir.seat) % st.players))
        heir.revealed.append(chosen.seat)
        entry = {
            "round": st.round,
            "kind": "comets_sight",
            "of": chosen.seat,
            "start_artifact": chosen.start_artifact,
        }
        heir.intel.append(entry)
        events.append(Event("intel", {"seat": heir.seat, **entry}, (heir.seat,)))

    def deal_tricks(self, st: HeirsState, events: list[Event], rng: Rng) -> None:
        """H11.1: one card per group; New portrait instead of group 1 without a portrait."""
        groups = self.content.trick_groups
        for heir in st.heirs:
            if heir.fallen:
                heir.hand = []
                continue
            hand: list[str] = []
            for number, cards in enumerate(groups):
                if number == 0 and not heir.portraits:
                    hand.append(self.content.new_portrait)
                else:
                    hand.append(cards[rng.below(len(cards))])
            heir.hand = hand
            events.append(Event("hand", {"seat": heir.seat, "cards": list(hand)}, (heir.seat,)))

    def seers_eye(self, st: HeirsState, events: list[Event]) -> None:
        for heir in st.heirs:
            if heir.fallen or not self.effect(heir, "sees_neighbours"):
                continue
            row = self.map.distance[heir.position]
            for other in st.heirs:
                if other.seat != heir.seat and not other.fallen and row[other.position] <= 1:
                    entry = {
                        "round": st.round,
                        "kind": "seers_eye",
                        "of": other.seat,
                        **self.strength(other),
                    }
                    heir.intel.append(entry)
                    events.append(Event("intel", {"seat": heir.seat, **entry}, (heir.seat,)))

    # -- sealing (H5) ----------------------------------------------------------------------

    def dry_run(self, state: HeirsState, seat: int, order: JSON) -> None:
        """H5.2: run the seat's own step on a copy as if nobody else acted; raise if illegal."""
        # A dry run changes only the seat's own heir (H5.2a: no battle, no find, no settling,
        # and every other read of the state is of siblings or the board), so the step works
        # on a copy of that heir alone and reads everything else from ``state`` unchanged.
        # Of the context it reads only the pedestal order (who defends first), which sealing
        # never changes: one context serves every dry run of the round's states.
        ctx = state.memo.get("dry_run_context")
        if ctx is None:
            ctx = PassContext(pedestal={s: i for i, s in enumerate(state.pedestals)})
            state.memo["dry_run_context"] = ctx
        step = Step(self, state, seat, order, ctx, [], None, validate=True)
        step.heir = clone_heir(state.heirs[seat])
        step.run()

    # -- resolution pass (H4.5, H6) --------------------------------------------------------

    def resolve_round(
        self, state: HeirsState, until: str = "dawn", on_step: StepCallback | None = None
    ) -> tuple[HeirsState, list[Event]]:
        """The pass, Dusk and the next Dawn. ``until="pass"`` or ``"dusk"`` stops earlier
        (tests read a round's numbers before pay or income change them).

        ``on_step(st, first, untold)`` is called after each heir's pedestal step, after Dusk
        and after Dawn, with the working state, the index of the step's first event and the
        tricks told only at Dusk (H11.7; empty from Dusk on): the board plays the round out
        in these steps (H23)."""
        st = clone_state(state)
        events: list[Event] = []
        rng = Rng(st.rng)
        ctx = PassContext(pedestal={s: i for i, s in enumerate(st.pedestals)})
        for seat in st.pedestals:
            order = st.heirs[seat].order
            assert order is not None
            trick = order["trick"]
            if trick is not None and trick["card"] == "war_cry":
                ctx.war_cry.add(seat)
            if trick is not None and trick["card"] == "shield_of_the_seal":
                ctx.shield.add(seat)
            expedition = order["expedition"]
            if expedition["kind"] == "attack":
                target = self.field_index(expedition["field"])
                ctx.attack_target[seat] = target
                ctx.attackers_on[target] = ctx.attackers_on.get(target, 0) + 1
        for target in ctx.attackers_on:
            holders = {h.seat for h in st.heirs if not h.fallen and h.position == target}
            if st.owner[target] >= 0:
                holders.add(st.owner[target])
            ctx.holders[target] = holders
        for number, seat in enumerate(st.pedestals, start=1):
            heir = st.heirs[seat]
            first = len(events)
            events.append(Event("step", {"seat": seat, "pedestal": number}))
            order = heir.order
            assert order is not None
            Step(self, st, seat, order, ctx, events, rng, validate=False).run()
            if on_step is not None:
                st.rng = rng.state
                on_step(st, first, ctx.untold)
        if until == "pass":
            events.extend(ctx.untold)
        else:
            first = len(events)
            self.dusk(st, events, rng, next_dawn=False, untold=ctx.untold)
            if on_step is not None:
                st.rng = rng.state
                on_step(st, first, ())
            if until == "dawn" and st.outcome is None:
                first = len(events)
                self.dawn(st, events, rng)
                if on_step is not None:
                    st.rng = rng.state
                    on_step(st, first, ())
        st.rng = rng.state
        return st, events

    # -- battle (H12) ----------------------------------------------------------------------

    def attack_value(self, st: HeirsState, ctx: PassContext, heir: Heir) -> int:
        """H12.2."""
        soldiers = heir.soldiers
        effects = self.effects_of(heir)
        base = soldiers + self.attack_per_level * heir.abilities[0] * soldiers
        per = effects.get("attack_per_soldiers", 0)
        if per:
            base += soldiers // per
        base += effects.get("attack_flat", 0) + self.omen_effect(st, "attack_flat")
        if heir.seat in ctx.war_cry:
            base += self.content.cards["war_cry"]["attack_flat"]
        return base * (100 + effects.get("attack_pct", 0)) // 100

    def heir_defence(self, ctx: PassContext, heir: Heir) -> int:
        """The heir part of DV (H12.3), before percentages."""
        soldiers = heir.soldiers
        effects = self.effects_of(heir)
        base = soldiers + self.defence_per_level * heir.abilities[DEFENSE] * soldiers
        per = effects.get("defence_per_soldiers", 0)
        if per:
            base += soldiers // per
        base += effects.get("defence_flat", 0)
        if heir.seat in ctx.shield:
            base += self.content.cards["shield_of_the_seal"]["defence_flat"]
        return base

    def loss(self, base: int, heir: Heir) -> int:
        """H12.7 step 3: Leadership −15 % per level, rounded down."""
        return base * (100 - self.loss_pct_per_leadership * heir.abilities[LEADERSHIP]) // 100

    def retreat_field(self, st: HeirsState, heir: Heir, origin: int) -> int:
        """H12.10 b: nearest own field other than ``origin``; capital stays put."""
        capital = st.capitals[heir.seat]
        if origin == capital:
            return capital
        distance = self.map.distance
        best = capital
        best_key = (distance[origin][capital], 0, capital)
        for f, owner in enumerate(st.owner):
            if owner == heir.seat and f != origin:
                key = (distance[origin][f], distance[capital][f], f)
                if key < best_key:
                    best, best_key = f, key
        return best

    def battle(
        self,
        st: HeirsState,
        ctx: PassContext,
        events: list[Event],
        rng: Rng | None,
        seat: int,
        target: int,
        kind: str,
        defender_seat: int,
    ) -> None:
        assert rng is not None
        names = self.map.ids
        attacker = st.heirs[seat]
        defender = st.heirs[defender_seat]
        heir_present = defender.position == target
        if heir_present and defender.order is not None and defender.order["retreat"]:
            # H12.10 a: the preset avoids the battle at a price of min(2, S) soldiers.
            lost = min(self.retreat_loss, defender.soldiers)
            defender.soldiers -= lost
            destination = self.retreat_field(st, defender, target)
            defender.position = destination
            events.append(
                Event(
                    "retreat",
                    {
                        "seat": defender_seat,
                        "from": names[target],
                        "to": names[destination],
                        "preset": True,
                    },
                )
            )
            events.append(
                Event("retreat_loss", {"seat": defender_seat, "soldiers": lost}, (defender_seat,))
            )
            heir_present = False
            if kind == ATTACK_ON_HEIR:
                # No battle on a free field: the attacker simply marches in (if not there).
                if attacker.position != target:
                    attacker_position = attacker.position
                    attacker.position = target
                    events.append(
                        Event(
                            "move",
                            {"seat": seat, "from": names[attacker_position], "to": names[target]},
                        )
                    )
                    self._take_find_for(st, events, seat, target)
                return
        attack_value = self.attack_value(st, ctx, attacker)
        defence = self.heir_defence(ctx, defender) if heir_present else 0
        if kind != ATTACK_ON_HEIR:
            defence += self.field_defence(st, defender_seat, target)
        percent = self.effect(defender, "defence_pct") if heir_present else 0
        defence_value = defence * (100 + percent) // 100
        engaged = defender.soldiers if heir_present else 0
        k = ctx.attackers_on.get(target, 1) - (
            1 if ctx.attack_target.get(defender_seat) == target else 0
        )
        split = k >= 2 and defender_seat in ctx.holders.get(target, ())
        if split:
            defence_value //= k
            engaged = ceil_div(engaged, k)
        attacker_wins = attack_value > defence_value
        soldiers_before = attacker.soldiers
        loser_base = ceil_div(engaged, 2) if attacker_wins else ceil_div(soldiers_before, 2)
        winner_base = ceil_div(loser_base, 2)
        attacker_loss = self.loss(winner_base if attacker_wins else loser_base, attacker)
        if kind != ATTACK_ON_HEIR:
            attacker_loss = max(attacker_loss, ceil_div(soldiers_before, 4))
        attacker_loss = min(attacker_loss, attacker.soldiers)
        defender_loss = 0
        if heir_present:
            defender_loss = min(
                self.loss(loser_base if attacker_wins else winner_base, defender),
                defender.soldiers,
            )
        attacker.soldiers -= attacker_loss
        defender.soldiers -= defender_loss
        winner_seat = seat if attacker_wins else defender_seat
        loser_seat = defender_seat if attacker_wins else seat
        events.append(
            Event(
                "battle",
                {
                    "attacker": seat,
                    "defender": defender_seat if heir_present else None,
                    "dynasty": defender_seat,
                    "militia": not heir_present,
                    "field": names[target],
                    "kind": kind,
                    "winner": "attacker" if attacker_wins else "defender",
                },
            )
        )
        result = "won" if attacker_wins else "lost"
        events.append(
            Event(
                "battle_report",
                {
                    "seat": seat,
                    "field": names[target],
                    "role": "attacker",
                    "value": attack_value,
                    "losses": attacker_loss,
                    "result": result,
                },
                (seat,),
            )
        )
        events.append(
            Event(
                "battle_report",
                {
                    "seat": defender_seat,
                    "field": names[target],
                    "role": "defender",
                    "value": defence_value,
                    "losses": defender_loss,
                    "heir_fought": heir_present,
                    "result": "lost" if attacker_wins else "won",
                },
                (defender_seat,),
            )
        )
        spies = ctx.spies.get(seat, set()) | ctx.spies.get(defender_seat, set())
        spies -= {seat, defender_seat}
        if spies:
            events.append(
                Event(
                    "battle_spied",
                    {
                        "field": names[target],
                        "attacker": seat,
                        "defender": defender_seat,
                        "attack_value": attack_value,
                        "defence_value": defence_value,
                        "attacker_losses": attacker_loss,
                        "defender_losses": defender_loss,
                    },
                    tuple(sorted(spies)),
                )
            )
        st.heirs[winner_seat].won_battles += 1
        if heir_present:
            self._gain_sign(st, events, winner_seat, loser_seat)
            self._capture(st, events, rng, winner_seat, loser_seat)
        if not attacker_wins:
            return
        if kind == CAPITAL_ASSAULT:
            plunder = ceil_div(defender.gold, 2)
            defender.gold -= plunder
            attacker.gold += plunder
            events.append(Event("plunder", {"seat": seat, "capital_of": defender_seat}))
            events.append(
                Event(
                    "plunder_gold", {"field": names[target], "gold": plunder}, (seat, defender_seat)
                )
            )
            self._gain_sign(st, events, seat, defender_seat)
            return
        if heir_present:
            destination = self.retreat_field(st, defender, target)
            defender.position = destination
            events.append(
                Event(
                    "retreat",
                    {
                        "seat": defender_seat,
                        "from": names[target],
                        "to": names[destination],
                        "preset": False,
                    },
                )
            )
        if kind == INVASION:
            st.owner[target] = seat
            st.conquered[target] = True
            events.append(Event("conquer", {"seat": seat, "field": names[target]}))
        if attacker.position != target:
            origin = attacker.position
            attacker.position = target
            events.append(Event("move", {"seat": seat, "from": names[origin], "to": names[target]}))
            self._take_find_for(st, events, seat, target)

    def _take_find_for(self, st: HeirsState, events: list[Event], seat: int, target: int) -> None:
        if not st.finds[target]:
            return  # nothing to take: no step needed
        order = st.heirs[seat].order or {}
        step = Step(self, st, seat, order, PassContext(), events, None, validate=False)
        step.take_find(target)

    def _gain_sign(self, st: HeirsState, events: list[Event], winner: int, loser: int) -> None:
        heir = st.heirs[winner]
        if loser not in heir.signs:
            heir.signs.append(loser)
            heir.signs.sort()
            events.append(Event("sign", {"seat": winner, "of": loser}))

    def _capture(
        self, st: HeirsState, events: list[Event], rng: Rng, winner: int, loser: int
    ) -> None:
        """H12.8: one random comet artifact from the loser, if the winner has room."""
        taker = st.heirs[winner]
        victim = st.heirs[loser]
        if not victim.backpack or len(taker.backpack) >= self.content.backpack:
            return
        pick = draw_index(rng, len(victim.backpack))
        artifact = victim.backpack.pop(pick)
        taker.backpack.append(artifact)
        events.append(
            Event(
                "capture", {"winner": winner, "loser": loser, "artifact": artifact}, (winner, loser)
            )
        )
        if artifact == "comets_sight":
            self.comets_sight(st, taker, events)

    # -- Dusk (H4.6, H16, H18, H19) --------------------------------------------------------

    def dusk(
        self,
        st: HeirsState,
        events: list[Event],
        rng: Rng,
        next_dawn: bool = True,
        untold: Sequence[Event] = (),
    ) -> None:
        # Public: the board shows Dusk as a step of its own (H23), seals cleared by it; it
        # opens with the pass's tricks whose casters stay unknown (PassContext.untold).
        events.append(Event("dusk", {"round": st.round}))
        events.extend(untold)
        free, group, deserters = (
            self.pay["free_soldiers"],
            self.pay["group"],
            self.pay["deserters_per_missing_gold"],
        )
        for heir in st.heirs:
            if heir.fallen:
                continue
            owed = max(0, heir.soldiers - free) // group
            if not owed:
                continue
            paid = min(owed, heir.gold)
            heir.gold -= paid
            deserted = min(heir.soldiers, (owed - paid) * deserters)
            heir.soldiers -= deserted
            events.append(
                Event(
                    "pay",
                    {"seat": heir.seat, "owed": owed, "paid": paid, "deserted": deserted},
                    (heir.seat,),
                )
            )
        fallen_now = [h.seat for h in st.heirs if not h.fallen and h.soldiers == 0]
        # Council points of a dynasty that falls now are taken as it stood before the fall,
        # so that "the ones that fell this round compare Council points" (H19.1) is fair.
        frozen = {seat: self.council(st, st.heirs[seat]) for seat in fallen_now}
        for seat in fallen_now:
            self.fall(st, events, seat)
        outcome = self.end_check(st, fallen_now, frozen)
        for heir in st.heirs:
            heir.hand = []
            heir.order = None
        if outcome is not None:
            st.outcome = outcome
            st.phase = PHASE_OVER
            events.append(Event("end", outcome))
            return
        if next_dawn:
            self.dawn(st, events, rng)

    def fall(self, st: HeirsState, events: list[Event], seat: int) -> None:
        """H18: the dynasty leaves the board; its land returns to the map."""
        heir = st.heirs[seat]
        heir.fallen = True
        heir.fell_round = st.round
        heir.backpack = []
        for f, owner in enumerate(st.owner):
            if owner == seat:
                st.owner[f] = -1
                st.conquered[f] = False
        for other in st.heirs:
            if seat in other.portraits:
                other.portraits = [p for p in other.portraits if p != seat]
        events.append(Event("fall", {"seat": seat}))

    def council(self, st: HeirsState, heir: Heir) -> JSON:
        """H19.2 breakdown and total."""
        points = self.content.council
        capital = st.capitals[heir.seat]
        fields = st.owner.count(heir.seat) - (1 if st.owner[capital] == heir.seat else 0)
        artifacts = len(heir.backpack) + (1 if heir.start_artifact else 0)
        levels = sum(heir.abilities)
        breakdown = {
            "signs": len(heir.signs),
            "won_battles": heir.won_battles,
            "fields": fields,
            "artifacts": artifacts,
            "ability_levels": levels,
        }
        breakdown["points"] = (
            points["sign"] * len(heir.signs)
            + points["won_battle"] * heir.won_battles
            + points["field"] * fields
            + points["artifact"] * artifacts
            + points["ability_level"] * levels
        )
        return breakdown

    @staticmethod
    def council_key(breakdown: JSON) -> tuple[int, int, int, int]:
        """H19.3: points, then Signs, then won battles, then fields."""
        return (
            breakdown["points"],
            breakdown["signs"],
            breakdown["won_battles"],
            breakdown["fields"],
        )

    def best_by_council(
        self, st: HeirsState, seats: list[int], frozen: dict[int, JSON] | None = None
    ) -> list[int]:
        frozen = frozen or {}
        keys = {s: self.council_key(frozen.get(s) or self.council(st, st.heirs[s])) for s in seats}
        best = max(keys.values())
        return sorted(s for s in seats if keys[s] == best)

    def end_check(
        self, st: HeirsState, fallen_now: list[int], frozen: dict[int, JSON] | None = None
    ) -> JSON | None:
        """H19.1 in order: Throne, Last survivor, Council of the Axis."""
        entrants = [h.seat for h in st.heirs if not h.fallen and h.entered_axis == st.round]
        living = self.living(st)
        if entrants:
            return self.make_outcome(st, self.best_by_council(st, entrants), "throne", frozen)
        if len(living) == 1:
            return self.make_outcome(st, living, "last_survivor", frozen)
        if not living:
            winners = self.best_by_council(st, fallen_now, frozen)
            return self.make_outcome(st, winners, "last_survivor", frozen)
        if st.round >= st.rounds:
            return self.make_outcome(st, self.best_by_council(st, living), "council", frozen)
        return None

    def make_outcome(
        self,
        st: HeirsState,
        winners: list[int],
        reason: str,
        frozen: dict[int, JSON] | None = None,
    ) -> JSON:
        """The result, with H19.4 reveals and H20.2 ranking and game points."""
        frozen = frozen or {}
        breakdowns = {h.seat: frozen.get(h.seat) or self.council(st, h) for h in st.heirs}
        groups: list[list[int]] = [list(winners)]
        rest_living = [h.seat for h in st.heirs if not h.fallen and h.seat not in winners]
        by_key: dict[tuple[int, ...], list[int]] = {}
        for seat in rest_living:
            by_key.setdefault(self.council_key(breakdowns[seat]), []).append(seat)
        groups += [by_key[k] for k in sorted(by_key, reverse=True)]
        by_fall: dict[int, list[int]] = {}
        for h in st.heirs:
            if h.fallen and h.seat not in winners:
                by_fall.setdefault(h.fell_round, []).append(h.seat)
        groups += [by_fall[r] for r in sorted(by_fall, reverse=True)]
        game_points: dict[str, int] = {}
        ranked_above = 0
        for group in groups:
            # A shared rank scores as its better place: everyone outside the group and
            # the groups above it counts as ranked below.
            place_points = st.players - ranked_above - 1
            ranked_above += len(group)
            for seat in group:
                game_points[str(seat)] = place_points + (
                    1 if reason == "throne" and seat in winners else 0
                )
        return {
            "winners": sorted(winners),
            "reason": reason,
            "variants": list(st.options.get("variants") or ()),  # H13.1
            "round": st.round,
            "ranking": [sorted(g) for g in groups],
            "game_points": game_points,
            "council": {str(s): b for s, b in breakdowns.items()},
            "characters": {str(h.seat): h.character for h in st.heirs},
            "colours": {str(h.seat): h.colour for h in st.heirs},
            "artifacts": {
                str(h.seat): {"start": h.start_artifact, "backpack": list(h.backpack)}
                for h in st.heirs
            },
        }

"""The simple bot of G16: it reads only ``view(state, seat)`` and the prompt, and answers
with one of the prompt's own orders. Deterministic: every tie is broken by location order
Y, R, B, P, G, then by the lower legion number, then by the prompt's option order."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from engine.core import JSON

BANNER_WORTH = 3
BANNER_WORTH_LATE = 5  # G16: a banner is worth more once the bot has 3 banners
LATE_BANNERS = 3
HIDDEN_WORTH = 1  # G16.5: a face-down card counts worth 1
HIDDEN_THREAT = 1
RECRUIT_BONUS = 4
LEAD_BONUS = 2
KEY_LOCATION_BONUS = 1
KEY_LOCATIONS = ("B", "Y")  # blue carries a banner, yellow 4 VP
BANNER_LOCATIONS = ("B",)  # G1.7: the blue majority token carries a banner
SHIELD_WALL_THREAT = 3  # G16.7: K1 when an attack would rout at least 3
STRATAGEM_KEPT_VP = 2  # G10.2: what an unused stratagem scores
BANNERS_TO_WIN = 5  # G12.1
BANNER_WIN_STAKE = 10  # a banner win decided by the blue token this turn
EARLY_SWING = 6
"""Before the last turn a token may still change hands later, so K1 counts a token's swing
only from this many VP: the yellow token lost to the opponent (4 + 4). Measured over 2,000
games (engine/legions/README.md): any swing of 4 played K1 more and scored less."""
PEEK_ESTIMATE = 2  # what an unseen hero from the deck is expected to be worth


@dataclass(slots=True)
class Board:
    """The parts of a seat's view the bot reasons about. Legions are named by id; their
    faces are in ``cards``. The bot only reads a board, so a board may share its lists."""

    me: int
    opponent: int
    order: list[str]
    mine: Mapping[str, list[str]]
    """The bot's face-up legions by location."""
    theirs: Mapping[str, list[str]]
    """The opponent's face-up legions by location."""
    my_routed: Mapping[str, list[str]]
    """The bot's own routed legions by location (G15: only their owner sees them)."""
    cards: Mapping[str, JSON] = field(compare=False)
    """The face (JSON) of each legion named above and of each in the bot's hand, by id: at
    least those; the printed faces are public, so a board may hold the whole catalogue.
    (The hand itself the bot reads off the prompt's options, which name the cards it may
    play.)"""
    tokens: Mapping[str, int | None]
    token_vp: Mapping[str, int]
    hero_row: list[JSON]
    hero_deck_count: int
    banners: int
    opponent_banners: int
    leader: int | None
    last_turn: bool
    placed_at: str | None
    shield_wall: int | None
    _empty_locations: list[str] | None = field(default=None, compare=False, repr=False)
    """The locations where the bot has no face-up legion, once :meth:`_covered_with` asks."""

    @staticmethod
    def from_view(view: JSON) -> Board:
        me = view["me"]["seat"]
        opponent = 1 - me
        order = [loc["id"] for loc in view["locations"]]
        cards: dict[str, JSON] = {}

        def ids(faces: list[JSON]) -> list[str]:
            for card in faces:
                cards[card["id"]] = card
            return [card["id"] for card in faces]

        ids(view["me"]["hand"])  # H20 Sower's options name a hand legion by id only
        return Board(
            me=me,
            opponent=opponent,
            order=order,
            mine={loc["id"]: ids(loc["sides"][me]["face_up"]) for loc in view["locations"]},
            theirs={loc["id"]: ids(loc["sides"][opponent]["face_up"]) for loc in view["locations"]},
            my_routed={loc: ids(faces) for loc, faces in view["me"]["routed"].items()},
            cards=cards,
            tokens={loc["id"]: loc["token"] for loc in view["locations"]},
            token_vp={loc["id"]: int(loc["token_vp"]) for loc in view["locations"]},
            hero_row=view["hero_row"],
            hero_deck_count=view["hero_deck_count"],
            banners=view["banners"][me],
            opponent_banners=view["banners"][opponent],
            leader=view["leader"],
            last_turn=view["last_turn"],
            placed_at=view["turn_effects"]["placed_at"][me],
            shield_wall=view["turn_effects"]["shield_wall"],
        )

    def loc_rank(self, loc: str | None) -> int:
        return self.order.index(loc) if loc in self.order else len(self.order)

    def worth(self, card: JSON) -> int:
        """G16: VP reward; a banner counts 3 (5 once the bot has 3 banners)."""
        if card["banner"]:
            return BANNER_WORTH_LATE if self.banners >= LATE_BANNERS else BANNER_WORTH
        return int(card["vp"])

    def hero_worth(self, hero: JSON) -> int:
        if hero["banner"]:
            return BANNER_WORTH_LATE if self.banners >= LATE_BANNERS else BANNER_WORTH
        return int(hero["vp"])

    def threat(self, card: JSON | None) -> int:
        """G16: how many of the bot's face-up legions an attack by this leftover routs."""
        if self.shield_wall == self.me:
            return 0
        if card is None:
            return HIDDEN_THREAT
        if card["location"] is None:
            hit = max(len(self.mine[loc]) for loc in self.order)
        else:
            hit = len(self.mine[card["location"]])
        if hit and self.tokens["R"] == self.me:  # the Shield keeps one
            hit -= 1
        return hit

    def attack_stake(self, card: JSON | None) -> int:
        """What an attack by this leftover would cost the bot at this turn's end (G11.1,
        G11.2), in VP-like points (white: the worst location; a face-down card: 0, its
        location unknown). A banner win decided by the blue token (G12.1: the bot's own
        or the opponent's) counts ``BANNER_WIN_STAKE``; in the last turn every token is a
        final score (G13.1), so the swing of its VP counts; earlier, a token may still
        change hands in a later turn, and only a swing of ``EARLY_SWING`` or more counts."""
        if self.shield_wall == self.me or card is None:
            return 0
        locations = self.order if card["location"] is None else [card["location"]]
        return max(self._stake_at(loc) for loc in locations)

    def _holder_after(self, loc: str, mine: int) -> int | None:
        """G11.1: who holds the token at the turn's end with these face-up counts."""
        theirs = len(self.theirs[loc])
        if mine > theirs:
            return self.me
        if theirs > mine:
            return self.opponent
        return self.tokens[loc]

    def _stake_at(self, loc: str) -> int:
        mine = len(self.mine[loc])
        hit = mine - 1 if mine and self.tokens["R"] == self.me else mine  # the Shield keeps one
        if not hit:
            return 0
        before, after = self._holder_after(loc, mine), self._holder_after(loc, mine - hit)
        if before == after:
            return 0
        if loc in BANNER_LOCATIONS:
            mine_banners = self.banners - (1 if self.tokens[loc] == self.me else 0)
            theirs_banners = self.opponent_banners - (1 if self.tokens[loc] == self.opponent else 0)
            if (before == self.me and mine_banners + 1 >= BANNERS_TO_WIN) or (
                after == self.opponent and theirs_banners + 1 >= BANNERS_TO_WIN
            ):
                return BANNER_WIN_STAKE
        vp = self.token_vp[loc]

        def score(holder: int | None) -> int:
            return vp if holder == self.me else -vp if holder == self.opponent else 0

        swing = score(before) - score(after)
        if self.last_turn or swing >= EARLY_SWING:
            return swing
        return 0

    def opponent_hits(self, card: JSON | None) -> int:
        """How many opponent face-up legions this leftover would rout (G16.5)."""
        if self.shield_wall == self.opponent:
            return 0
        if card is None:
            return HIDDEN_THREAT
        if card["location"] is None:
            hit = max(len(self.theirs[loc]) for loc in self.order)
        else:
            hit = len(self.theirs[card["location"]])
        if hit and self.tokens["R"] == self.opponent:  # their Shield keeps one
            hit -= 1
        return hit

    def recruitable(self, loc: str, face_up_there: int) -> bool:
        """Could the bot recruit after reaching ``face_up_there`` legions at ``loc``?"""
        if face_up_there >= 3:
            colours = [h for h in self.hero_row if h["location"] == loc]
            if colours or self.hero_deck_count > 0:
                return True
        return False

    def place_value(self, card: JSON, loc: str) -> int:
        """G16.1 *place(L)* at one location."""
        routed_there = len(self.my_routed.get(loc, []))
        collected = routed_there if self.tokens["G"] == self.me else min(1, routed_there)
        mine_after = len(self.mine[loc]) + 1 + collected
        value = collected
        if self.recruitable(loc, mine_after) or (self.hero_row and self._covered_with(loc)):
            value += RECRUIT_BONUS
        if mine_after > len(self.theirs[loc]) and self.tokens[loc] != self.me:
            value += LEAD_BONUS
            if loc in KEY_LOCATIONS:
                value += KEY_LOCATION_BONUS
        return value

    def _covered_with(self, loc: str) -> bool:
        """Whether a legion placed at ``loc`` leaves the bot a legion at every location."""
        empty = self._empty_locations
        if empty is None:  # found once a decision, however many locations it weighs
            empty = self._empty_locations = [other for other in self.order if not self.mine[other]]
        return not empty or empty == [loc]

    def best_place(self, card: JSON) -> tuple[int, str]:
        """The best location for a card (its own colour, or any for white) and its value;
        on equal values the location first in order Y, R, B, P, G."""
        own = card["location"]
        if own is not None:
            return self.place_value(card, own), own
        best_value, best_loc = -1, self.order[0]
        for loc in self.order:
            value = self.place_value(card, loc)
            if value > best_value:
                best_value, best_loc = value, loc
        return best_value, best_loc


class _Ordered(Protocol):
    """A key ``_best`` can compare: an int, or a tuple of ints and bools."""

    def __gt__(self, other: Any, /) -> bool: ...


_Option = TypeVar("_Option")
_Key = TypeVar("_Key", bound=_Ordered)


def _best(options: Sequence[_Option], key: Callable[[_Option], _Key]) -> _Option:
    """The option with the highest key; the first one on equal keys (stable tiebreak)."""
    best = options[0]
    best_key = key(best)
    for option in options[1:]:
        k = key(option)
        if k > best_key:
            best, best_key = option, k
    return best


def choose_order(view: JSON, prompt: JSON) -> JSON:
    """The bot's order for the seat whose view this is, one of the prompt's own orders."""
    return choose_on_board(Board.from_view(view), prompt)


def choose_on_board(board: Board, prompt: JSON) -> JSON:
    """The bot's order from the parts of its view it reasons about: the same order as
    :func:`choose_order` on the view those parts come from. The board's card and hero
    JSON is only read, so the rules may hand it their shared copies."""
    options: list[JSON] = prompt["options"]
    uses = [o for o in options if o.get("stratagem")]
    if uses:
        stratagem = _stratagem_choice(board, prompt, uses)
        if stratagem is not None:
            return dict(stratagem["order"])
        options = [o for o in options if not o.get("stratagem")]
    return dict(_CHOOSERS[prompt["kind"]](board, prompt, options)["order"])


# G16.1 ---------------------------------------------------------------------------------


def _choose_seal(board: Board, prompt: JSON, options: list[JSON]) -> JSON:
    def key(option: JSON) -> tuple[int, int]:
        card = option["card"]
        return board.best_place(card)[0], -card["number"]

    return _best(options, key)


# G16.2 ---------------------------------------------------------------------------------


def _choose_place(board: Board, prompt: JSON, options: list[JSON]) -> JSON:
    _, loc = board.best_place(prompt["legion"])
    return next(o for o in options if o["order"]["location"] == loc)


def _choose_collect(board: Board, prompt: JSON, options: list[JSON]) -> JSON:
    collecting = [o for o in options if o["order"]["kind"] != "skip"]
    return _best(
        collecting,
        lambda o: (board.worth(o["card"]), -o["card"]["number"]) if "card" in o else (0, 0),
    )


# G16.3 ---------------------------------------------------------------------------------


def _hero_score(board: Board, hero: JSON) -> int:
    score = board.hero_worth(hero)
    power = hero["power"]
    # +1 when the power has a worthwhile use now.
    if power == "take_token":
        bonus = hero["token"] is not None and board.tokens[hero["token"]] != board.me
    elif power == "rout_location":
        bonus = max(len(v) for v in board.theirs.values()) >= 2
    elif power == "flip_location":
        bonus = max(len(v) for v in board.my_routed.values()) >= 2
    elif power == "flip_all":
        bonus = sum(len(v) for v in board.my_routed.values()) >= 2
    else:
        bonus = False
    if bonus:
        score += 1
    return score


def _choose_recruit(board: Board, prompt: JSON, options: list[JSON]) -> JSON:
    def key(option: JSON) -> int:
        order = option["order"]
        if order["kind"] == "skip":
            return -1
        if order["kind"] == "peek":
            return PEEK_ESTIMATE
        return _hero_score(board, option["hero"])

    return _best(options, key)


def _choose_peek(board: Board, prompt: JSON, options: list[JSON]) -> JSON:
    # Keep the better hero; the other goes to the bottom (G16.3).
    def key(option: JSON) -> tuple[int, int]:
        return _hero_score(board, option["hero"]), option["order"]["other"] == "bottom"

    return _best(options, key)


def _choose_under(board: Board, prompt: JSON, options: list[JSON]) -> JSON:
    cards: dict[str, tuple[JSON, str]] = {}
    for loc in board.order:
        for card_id in board.mine[loc]:
            cards[card_id] = (board.cards[card_id], loc)

    def key(option: JSON) -> tuple[int, int, int]:
        first, second = option["order"]["legions"]  # G8.3: exactly 2 legions
        (first_card, first_loc), (second_card, second_loc) = cards[first], cards[second]
        worth = board.worth(first_card) + board.worth(second_card)
        # Then prefer taking from locations where the bot keeps another face-up legion.
        if first_loc == second_loc:
            keeps = 2 if len(board.mine[first_loc]) > 2 else 0
        else:
            keeps = (len(board.mine[first_loc]) > 1) + (len(board.mine[second_loc]) > 1)
        return worth, keeps, -(first_card["number"] + second_card["number"])

    return _best(options, key)


# G16.4 ---------------------------------------------------------------------------------


def _choose_power(board: Board, prompt: JSON, options: list[JSON]) -> JSON:
    usable = [o for o in options if o["order"]["kind"] != "skip"]
    skip = next(o for o in options if o["order"]["kind"] == "skip")
    power = prompt["hero"]["power"]
    if not usable:
        return skip
    if power == "rout_location":
        return _best(usable, lambda o: _rout_key(board, o["order"]["location"]))
    if power == "rout_one":
        where = {c: loc for loc in board.order for c in board.theirs[loc]}
        return _best(usable, lambda o: _rout_key(board, where[o["order"]["legion"]]))
    if power == "flip_location":
        return _best(
            usable,
            lambda o: (
                len(board.my_routed[o["order"]["location"]]),
                -board.loc_rank(o["order"]["location"]),
            ),
        )
    if power == "move_legion":
        return _choose_move(board, usable, skip)
    if power == "swap_row":
        # H03: swap only if a face-up row card beats the bot's lowest-worth hand card (each
        # hand card is offered with each face-up row card).
        lowest = min(board.worth(o["hand_card"]) for o in usable)
        worst_hand = [o for o in usable if board.worth(o["hand_card"]) == lowest]
        best = _best(
            worst_hand,
            lambda o: (board.worth(o["row_card"]), -o["hand_card"]["number"]),
        )
        return best if board.worth(best["row_card"]) > lowest else skip
    if power == "sow":
        cards = board.cards
        return _best(
            usable,
            lambda o: (
                board.place_value(cards[o["order"]["legion"]], o["order"]["location"]),
                -board.loc_rank(o["order"]["location"]),
                -cards[o["order"]["legion"]]["number"],
            ),
        )
    return usable[0]


def _rout_key(board: Board, loc: str) -> tuple[int, bool, int]:
    return len(board.theirs[loc]), board.tokens[loc] == board.opponent, -board.loc_rank(loc)


def _choose_move(board: Board, usable: list[JSON], skip: JSON) -> JSON:
    """H12: from the location with the largest lead to a tied location (G16.4)."""
    leads = {loc: len(board.mine[loc]) - len(board.theirs[loc]) for loc in board.order}
    sources = [loc for loc in board.order if board.mine[loc]]
    if not sources:
        return skip
    source = max(sources, key=lambda loc: (leads[loc], -board.loc_rank(loc)))
    tied = [loc for loc in board.order if leads[loc] == 0 and loc != source]
    if not tied:
        return skip  # G16.4 names no other target
    moving = set(board.mine[source])
    for option in usable:
        if option["order"]["legion"] in moving and option["order"]["location"] == tied[0]:
            return option
    return skip


# G16.5 / G16.6 / G16.8 -----------------------------------------------------------------


def _choose_take(board: Board, prompt: JSON, options: list[JSON]) -> JSON:
    row = [o.get("card") for o in options]  # None = the face-down card
    leader = board.leader == board.me
    # What each card would do as the leftover: rout the bot's legions (the bot leads and
    # the second player attacks with it) or the opponent's (the bot attacks with it).
    routs = board.threat if leader else board.opponent_hits
    hits = [routs(c) for c in row]

    def key(index_option: tuple[int, JSON]) -> tuple[int, int]:
        index, _ = index_option
        card = row[index]
        worth = HIDDEN_WORTH if card is None else board.worth(card)
        rest = hits[:index] + hits[index + 1 :]  # the cards left after this one
        value = worth - max(rest, default=0) if leader else worth + (rest[0] if rest else 0)
        number = 99 if card is None else card["number"]
        return value, -number

    return _best(list(enumerate(options)), key)[1]


def _choose_attack(board: Board, prompt: JSON, options: list[JSON]) -> JSON:
    return _best(options, lambda o: _rout_key(board, o["order"]["location"]))


def _choose_shield(board: Board, prompt: JSON, options: list[JSON]) -> JSON:
    return _best(options, lambda o: (board.worth(o["card"]), -o["card"]["number"]))


# G16.7 ---------------------------------------------------------------------------------


def _stratagem_choice(board: Board, prompt: JSON, uses: list[JSON]) -> JSON | None:
    """Keep the stratagem (2 VP) unless one of G16.7's conditions holds now; ``uses`` are
    the prompt's stratagem options (at least one)."""
    sid = uses[0]["order"]["stratagem"]
    gain = 0  # the VP-like value of using it now, for the last-turn rule
    choice: JSON | None = None
    if sid == "N1":
        best = _best(
            uses,
            lambda o: (
                len(board.my_routed[o["order"]["location"]]),
                -board.loc_rank(o["order"]["location"]),
            ),
        )
        flipped = len(board.my_routed[best["order"]["location"]])
        if flipped >= 2:
            choice, gain = best, flipped
    elif sid == "N2":
        loc = board.placed_at
        if loc is not None and board.shield_wall != board.opponent and len(board.theirs[loc]) >= 2:
            choice, gain = uses[0], len(board.theirs[loc])
    elif sid == "N3":
        for option in uses:
            token = option["order"]["token"]
            if token == "B" and board.opponent_banners >= 4:
                choice, gain = option, 5
                break
            if token == "Y":
                choice, gain = option, 4
    elif sid == "K1":
        # Only the first player's legions face an attack after its own steps (G6.4); the
        # take prompt is its last window, when it knows which two legions it leaves.
        if prompt["kind"] == "take" and board.leader == board.me:
            plain = [o for o in prompt["options"] if not o.get("stratagem")]
            taken = plain.index(_choose_take(board, prompt, plain))
            rest = [o.get("card") for i, o in enumerate(plain) if i != taken]
            threat = max((board.threat(c) for c in rest), default=0)
            stake = max((board.attack_stake(c) for c in rest), default=0)
            if threat >= SHIELD_WALL_THREAT:  # G16.7
                choice, gain = uses[0], threat
            elif stake > STRATAGEM_KEPT_VP:
                # The attack would cost more than the kept stratagem's 2 VP (attack_stake): a banner
                # win, a final token, the yellow token (beyond G16.7, engine/legions/README.md).
                choice, gain = uses[0], stake
    elif sid == "K2":
        plain = [o for o in prompt["options"] if not o.get("stratagem")]
        can_recruit = any(o["order"]["kind"] != "skip" for o in plain)
        if not can_recruit:
            value = _summons_value(board)
            if value >= 3:
                choice, gain = uses[0], value
    elif sid == "K3" and prompt["kind"] == "take":  # the bot's last window this turn
        for loc in KEY_LOCATIONS:
            mine, theirs = len(board.mine[loc]), len(board.theirs[loc])
            if mine == theirs and mine >= 1 and board.tokens[loc] != board.me:
                choice = uses[0]
                gain = 4 if loc == "Y" else 2
                if loc == "B" and board.banners + 1 >= 5:
                    gain = 10
    if choice is None:
        return None
    if board.last_turn and gain < 3:
        return None  # G16.7: in the last turn only a gain worth at least 3 VP
    return choice


def _summons_value(board: Board) -> int:
    """The best recruit K2 would open: hero VP plus the 2 legions under it."""
    best = 0
    for loc in board.order:
        if len(board.mine[loc]) != 2:
            continue
        heroes = [h for h in board.hero_row if h["location"] == loc]
        hero_value = max((_hero_score(board, h) for h in heroes), default=0)
        if not heroes and board.hero_deck_count:
            hero_value = PEEK_ESTIMATE
        if not heroes and not board.hero_deck_count:
            continue
        best = max(best, hero_value + sum(board.worth(board.cards[c]) for c in board.mine[loc]))
    return best


def _choose_first(board: Board, prompt: JSON, options: list[JSON]) -> JSON:
    return options[0]


_CHOOSERS: dict[str, Callable[[Board, JSON, list[JSON]], JSON]] = {
    "seal": _choose_seal,
    "place": _choose_place,
    "collect": _choose_collect,
    "recruit": _choose_recruit,
    "peek": _choose_peek,
    "under": _choose_under,
    "power": _choose_power,
    "arrange": _choose_first,
    "take": _choose_take,
    "attack": _choose_attack,
    "shield": _choose_shield,
}
"""The G16 choice for each kind of prompt, among its options without the stratagem."""

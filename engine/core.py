"""The small protocol every Pečeť game implements.

A game is a module-level object satisfying :class:`GameRules`. The app never looks inside a
game's state: it calls these functions, stores ``to_json(state)`` and sends only what ``view``
returns. Everything here is pure: no I/O, no clock, no global ``random``. All chance comes
from :class:`Rng`, whose state is a plain integer kept inside the game state, so the same
seed and the same orders always give the same game.

The life of a match, as the app drives it::

    state = rules.setup(seats, seed, options)
    while rules.outcome(state) is None:
        for seat in seats with rules.prompt(state, seat) is not None:
            state = rules.submit(state, seat, order)      # may raise IllegalOrder
        state, steps = advance(rules, state)   # resolve_steps() while ready

A sequential game (Hidden Leaders Duel) is ready after its single active seat submits; a
game of sealed orders (Heirs of the Axis) is ready once every living seat has sealed.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeVar, runtime_checkable

JSON = dict[str, Any]
"""A JSON object: what orders, prompts, views, events and saved states are made of."""

State = Any
"""A game's own state type. Plain data; ``to_json``/``from_json`` round-trip it exactly."""

T = TypeVar("T")


class IllegalOrder(Exception):
    """An order the rules refuse. ``message`` is shown to the player as it is.

    ``code`` is a stable machine-readable reason (for bots, tests and translations);
    ``params`` fills in the message where a client translates it.
    """

    def __init__(self, message: str, code: str = "illegal", **params: Any) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.params = params


class NotYourTurn(IllegalOrder):
    """The seat has nothing to decide right now (the app answers 409, not 422)."""

    def __init__(self, message: str = "It is not your turn.") -> None:
        super().__init__(message, code="not_your_turn")


def quoted(text: object, limit: int = 40) -> str:
    """Client text as a refusal may quote it: cut short, so that a message never repeats a
    huge value back (issue 13.2); anything but text is named by its type."""
    if not isinstance(text, str):
        return f"a {type(text).__name__}"
    return repr(text if len(text) <= limit else text[:limit] + "…")


MAX_OPTION_DEPTH = 3
"""Deeper than any option a game takes (the deepest is a list of names)."""


def check_options(game: str, options: object, known: frozenset[str]) -> Mapping[str, Any]:
    """Issue 13.4: the options a game is set up with, before the game reads any of them:
    an object whose keys are all ``known`` and whose values are plain JSON (text, whole or
    finite numbers, yes/no, null, lists and objects of those, not nested deeper than any
    option needs). Each game then checks the type and range of each option it takes.

    Raises ``ValueError`` naming the option at fault (the app answers 422); the message
    never repeats a value, which may be huge."""
    if not isinstance(options, Mapping):
        raise ValueError(f"The options of {game} must be an object.")
    unknown = sorted(str(key)[:MAX_ORDER_NAME] for key in options if key not in known)
    if unknown:
        raise ValueError(
            f"Unknown option(s) for {game}: {', '.join(unknown)}; "
            f"its options are: {', '.join(sorted(known))}."
        )
    for key, value in options.items():
        if not _is_plain_json(value, MAX_OPTION_DEPTH):
            raise ValueError(
                f"The option {key} must be text, a finite number, yes/no, null or a list of those."
            )
    return options


def _is_plain_json(value: object, depth: int) -> bool:
    """Whether ``value`` is JSON with finite numbers, at most ``depth`` containers deep."""
    if value is None or isinstance(value, str | int):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if depth <= 0:
        return False
    if isinstance(value, list | tuple):
        return all(_is_plain_json(item, depth - 1) for item in value)
    if isinstance(value, Mapping):
        return all(
            isinstance(key, str) and _is_plain_json(item, depth - 1) for key, item in value.items()
        )
    return False


OrderValue = str | int | bool | None | list[str]
"""What a flat order (a kind and a few names) may hold under each key."""

MAX_ORDER_FIELDS = 16
MAX_ORDER_LIST = 16
MAX_ORDER_NAME = 64
"""Longer than any name an order holds (card, hero and location ids, kinds)."""
MAX_ORDER_NUMBER = 10**9


def check_flat_order(
    order: object,
    kind_key: str,
    list_fields: frozenset[str] = frozenset(),
    code: str = "malformed",
) -> dict[str, OrderValue]:
    """Issue 13.2: the order of a game whose orders are flat — a kind and a few names,
    numbers, yes/no or null, and short lists of names under the keys ``list_fields`` —
    checked for shape before any rule looks at it, so that no rule meets a value it
    cannot compare, hash or sort.

    Raises :class:`IllegalOrder` with ``code`` (the game's own, ``malformed`` unless it says)
    naming the key at fault; the message never repeats the value, which may be huge or
    deeply nested."""
    if not isinstance(order, Mapping):
        raise IllegalOrder("An order must be a JSON object.", code=code)
    if len(order) > MAX_ORDER_FIELDS:
        raise IllegalOrder("That order has too many fields.", code=code)
    checked: dict[str, OrderValue] = {}
    for key, value in order.items():
        if not isinstance(key, str) or len(key) > MAX_ORDER_NAME:
            raise IllegalOrder("An order's fields are short names.", code=code)
        if key in list_fields:
            if (
                not isinstance(value, list)
                or len(value) > MAX_ORDER_LIST
                or not all(_is_order_name(item) for item in value)
            ):
                raise IllegalOrder(
                    f"The field {key} must be a short list of names.",
                    code=code,
                    field=key,
                )
            checked[key] = list(value)
        elif value is None or _is_order_name(value) or _is_order_number(value):
            checked[key] = value
        else:
            raise IllegalOrder(
                f"The field {key} must be a name, a whole number, yes/no or null.",
                code=code,
                field=key,
            )
    if not isinstance(checked.get(kind_key), str):
        raise IllegalOrder(
            f"The order must name its {kind_key}.",
            code=code,
            field=kind_key,
        )
    return checked


def _is_order_name(value: object) -> bool:
    return isinstance(value, str) and len(value) <= MAX_ORDER_NAME


def _is_order_number(value: object) -> bool:
    """A whole number an order could mean (yes/no included: ``bool`` is an ``int``)."""
    return isinstance(value, int) and abs(value) <= MAX_ORDER_NUMBER


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened during a resolution, in the order it happened.

    ``audience`` is ``None`` for a public event (the board and every phone) or the tuple of
    seats allowed to see it. The board only ever receives public events.
    """

    kind: str
    data: JSON = field(default_factory=dict)
    audience: tuple[int, ...] | None = None

    def visible_to(self, seat: int | None) -> bool:
        """Whether ``seat`` (``None`` = the board) may see this event."""
        if self.audience is None:
            return True
        return seat is not None and seat in self.audience

    def to_json(self) -> JSON:
        return {"kind": self.kind, "data": self.data, "audience": _audience_json(self.audience)}

    @staticmethod
    def from_json(raw: Mapping[str, Any]) -> Event:
        audience = raw.get("audience")
        return Event(
            kind=raw["kind"],
            data=dict(raw.get("data") or {}),
            audience=None if audience is None else tuple(audience),
        )


def _audience_json(audience: tuple[int, ...] | None) -> list[int] | None:
    return None if audience is None else list(audience)


def events_for(events: Iterable[Event], seat: int | None) -> list[JSON]:
    """The events ``seat`` (``None`` = the board) may see, as JSON, audience stripped."""
    # Event.visible_to, inline: this runs for every event, viewer and step of a room's show.
    if seat is None:
        return [{"kind": e.kind, "data": e.data} for e in events if e.audience is None]
    return [
        {"kind": e.kind, "data": e.data} for e in events if e.audience is None or seat in e.audience
    ]


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a resolution as the board plays it out: what happened in this step and
    the whole state right after it.

    A resolution is cut where the room should see one thing before the next (an heir's
    pedestal step, a battle, one faction's scoring), so that a screen drawn from the state
    after step ``k`` shows nothing of step ``k + 1``. ``round`` is the round or turn the
    step belongs to, as the game counts them (0 for a game's setup), so that histories and
    replays can group steps round by round.
    """

    round: int
    events: list[Event]
    state: State


@dataclass(frozen=True, slots=True)
class GameInfo:
    """Static facts about a game."""

    id: str
    name: str
    min_players: int
    max_players: int
    simultaneous: bool
    """True when seats seal orders at the same time (resolution waits for all of them)."""
    bot_styles: tuple[str, ...] = ("default",)
    endings: tuple[str, ...] = ()
    """The ways a game can end that a watcher may predict (``outcome["reason"]``); empty
    when only the winner is worth predicting."""
    scoring: Literal["result", "placement"] = "result"
    """How a match counts in a night of games: ``"result"`` scores 1 for a win, ½ each for a
    draw and 0 for a loss (a duel series); ``"placement"`` scores what the outcome gives each
    seat under ``game_points`` (``{str(seat): points}``, Heirs H20.2)."""
    tiebreak: str = "game_score"
    """The standings column that sums :meth:`GameRules.tiebreak_score` over a night, named
    where it puts one of two players level on points ahead (e.g. ``"council"``)."""
    rematch_on_draw: bool = False
    """Whether a drawn match of a night is played again in its place (Hidden Leaders L7.3)."""


@dataclass(frozen=True, slots=True)
class PlayedMatch:
    """A match a room has played, as the setup of its next match reads it; ``players[i]`` is
    the room seat that played engine seat ``i``."""

    game: str
    players: tuple[int, ...]
    options: Mapping[str, Any]
    outcome: Mapping[str, Any] | None


@dataclass(frozen=True, slots=True)
class NextMatch:
    """What a room knows when it sets up its next match of ``game``, for the game to carry
    over what its rules carry from one match to the next.

    ``players`` are the room seats of the new match in engine seat order; ``previous`` is the
    room's last match, of whatever game; ``night`` holds the results of a night of games so
    far (``{"game", "outcome", "players"}``, empty outside a night); ``start_player`` is the
    Catch-up start player (H20.4) when the host chose Catch-up and a game has been played.
    """

    game: str
    players: tuple[int, ...]
    previous: PlayedMatch | None = None
    night: tuple[Mapping[str, Any], ...] = ()
    start_player: int | None = None


@runtime_checkable
class GameRules(Protocol):
    """What every game implements. All functions are pure."""

    info: GameInfo

    def setup(self, seats: int, seed: int, options: Mapping[str, Any]) -> State:
        """A new game for ``seats`` players. Raises ``ValueError`` for bad options."""

    def prompt(self, state: State, seat: int) -> JSON | None:
        """What ``seat`` must decide now, with its legal choices; ``None`` if nothing.

        The prompt has at least ``{"kind": str}``; the rest is the game's own.
        """

    def submit(self, state: State, seat: int, order: Mapping[str, Any]) -> State:
        """Validate ``order`` and store it. Raises :class:`IllegalOrder` (or
        :class:`NotYourTurn`) with a message the player can read; the state is unchanged
        then, because states are never mutated in place."""

    def ready(self, state: State) -> bool:
        """Whether everything needed for the next resolution has been submitted."""

    def resolve(self, state: State) -> tuple[State, list[Event]]:
        """Play out what was submitted. Returns the new state and the ordered events."""

    def resolve_steps(self, state: State) -> list[Step]:
        """The same resolution as :meth:`resolve`, cut into the steps the board plays out.

        At least one step; the last step's state equals ``resolve(state)[0]`` and the steps'
        events, in order, are ``resolve(state)[1]``.
        """

    def order_is_public(self, order: Mapping[str, Any]) -> bool:
        """Whether this order hides nothing once it has been resolved.

        A sealed order's proof (its salt) is revealed to the room when the order is
        resolved if this is true, and only when the match ends otherwise: an order may hold
        something the rules keep secret for the rest of the game (a face-down card, a trick
        whose caster stays unknown, an heir's strength).
        """

    def view(self, state: State, seat: int | None) -> JSON:
        """What ``seat`` may see; ``None`` is the board (public information only).

        This is the only way information leaves the engine.
        """

    def outcome(self, state: State) -> JSON | None:
        """``None`` while the game runs; then the result (winners, scores, reason)."""

    def bot_order(self, state: State, seat: int, style: str = "default") -> JSON:
        """A legal order for ``seat``'s current prompt, decided from ``view(state, seat)``
        only. Deterministic for a given state."""

    def random_order(self, state: State, seat: int, rng: Rng) -> JSON:
        """A legal order for ``seat``'s current prompt, drawn at random with ``rng``
        (property tests and fuzzing walk the game with it)."""

    def to_json(self, state: State) -> JSON:
        """The state as JSON-ready data."""

    def from_json(self, raw: Mapping[str, Any]) -> State:
        """The inverse of :meth:`to_json`."""

    def default_order(self, state: State, seat: int) -> JSON:
        """The order the app seals for ``seat`` when its sealing timer runs out: a legal order
        for its current prompt (:class:`GameDefaults` gives the bot's)."""

    def tiebreak_score(self, outcome: Mapping[str, Any], seat: int) -> int:
        """What engine seat ``seat`` adds to the standings column ``info.tiebreak`` with this
        finished match (army strength, VP, Council points)."""

    def next_match_options(self, coming: NextMatch) -> JSON:
        """Options the room adds to its own when it sets up ``coming``: what the rules carry
        from one match to the next (who starts, kept colours); ``{}`` when nothing."""

    def available_variants(self) -> list[JSON]:
        """The named variants a host may turn on (H13.1), each ``{"id", "name", "text"}``
        (English; screens translate them by id); empty for a game played only by its sheet.
        Options name the ones on as ``{"variants": [id, ...]}``."""

    def seal_marks(self, state: State, seat: int) -> list[tuple[list[str | int], Any]]:
        """What every other viewer's view shows of ``seat`` having sealed in ``state`` (just
        after its submit): ``(path in the view, new value)`` pairs. Nothing else of another
        view may change on a seal (the order is secret), so the room tells the others only
        these (issue 14: a seal notice, not every socket's whole view)."""


class GameDefaults:
    """The protocol methods most games answer alike; a game's rules class may inherit them.

    A timed-out seat gets the bot's move, nothing carries over from one match to the next,
    a match adds nothing to the standings' tie-break column, and the sheet's game is the
    only one (no variants)."""

    info: GameInfo

    def bot_order(self, state: State, seat: int, style: str = "default") -> JSON:
        raise NotImplementedError  # every game has its own bot

    def default_order(self, state: State, seat: int) -> JSON:
        return self.bot_order(state, seat, self.info.bot_styles[0])

    def tiebreak_score(self, outcome: Mapping[str, Any], seat: int) -> int:
        return 0

    def next_match_options(self, coming: NextMatch) -> JSON:
        return {}

    def available_variants(self) -> list[JSON]:
        return []

    def seal_marks(self, state: State, seat: int) -> list[tuple[list[str | int], Any]]:
        return []


_MASK64 = (1 << 64) - 1


@dataclass(slots=True)
class Rng:
    """A small deterministic random number generator (SplitMix64).

    Its whole state is one integer, which the game keeps in its own state. Use it inside a
    pure function on a local instance and store ``rng.state`` back in the new state::

        rng = Rng(state.rng)
        rng.shuffle(deck)
        return replace(state, deck=tuple(deck), rng=rng.state)
    """

    state: int

    @staticmethod
    def from_seed(seed: int) -> Rng:
        return Rng(seed & _MASK64)

    def next_u64(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)`` (rejection sampling, so without bias)."""
        if n <= 0:
            raise ValueError("below() needs a positive bound")
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            x = self.next_u64()
            if x < limit:
                return x % n

    def between(self, low: int, high: int) -> int:
        """A uniform integer in ``[low, high]``."""
        return low + self.below(high - low + 1)

    def chance(self, numerator: int, denominator: int) -> bool:
        """True with probability ``numerator / denominator``."""
        return self.below(denominator) < numerator

    def choice(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]

    def shuffle(self, items: list[T]) -> None:
        """Fisher–Yates, in place on a local list."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def shuffled(self, items: Iterable[T]) -> list[T]:
        out = list(items)
        self.shuffle(out)
        return out

    def sample(self, items: Sequence[T], k: int) -> list[T]:
        return self.shuffled(items)[:k]


def advance(rules: GameRules, state: State) -> tuple[State, list[Step]]:
    """Resolve, in steps, as long as the rules are ready and the game goes on: the one loop
    every driver of a match (the room service, replays, tests) runs after a submit."""
    steps: list[Step] = []
    while rules.ready(state) and rules.outcome(state) is None:
        resolution = rules.resolve_steps(state)
        steps.extend(resolution)
        state = resolution[-1].state
    return state, steps


def single_step(rules: GameRules, state: State, round_number: int) -> list[Step]:
    """A resolution that is not cut: one step with all its events (for games whose
    decisions reveal one thing at a time)."""
    new, events = rules.resolve(state)
    return [Step(round_number, events, new)]


def replay_resolutions(
    rules: GameRules,
    seats: int,
    seed: int,
    options: Mapping[str, Any],
    orders: Iterable[tuple[int, Mapping[str, Any]]],
) -> Iterator[tuple[int, State, list[Step]]]:
    """Rebuild a game from its order log, resolution by resolution: yields the state after
    setup as ``(-1, state, [])``, then ``(i, state, steps)`` after the ``i``-th order, with
    the steps that order set off (empty when it resolved nothing)."""
    state = rules.setup(seats, seed, options)
    yield -1, state, []
    for index, (seat, order) in enumerate(orders):
        state, steps = advance(rules, rules.submit(state, seat, order))
        yield index, state, steps


def replay(
    rules: GameRules,
    seats: int,
    seed: int,
    options: Mapping[str, Any],
    orders: Iterable[tuple[int, Mapping[str, Any]]],
) -> list[State]:
    """Rebuild a game from its order log: the state after setup and after every order.

    Resolution runs whenever the rules are ready, exactly as the app drives a match, so the
    last state equals the stored snapshot of a match with this log.
    """
    state = rules.setup(seats, seed, options)
    states = [state]
    for seat, order in orders:
        state = rules.submit(state, seat, order)
        while rules.ready(state) and rules.outcome(state) is None:
            state, _events = rules.resolve(state)
        states.append(state)
    return states

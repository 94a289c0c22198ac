"""Each hosted game's screens: how its views become page context, and its forms orders.

``pages.py`` is generic (join, host, lobby, sockets); everything a game's phone and board
pages need that is particular to the game lives in ``app/games/<game>.py`` and
``templates/games/<game>/{phone,board}.html``. Context builders read views only, never state.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any, Protocol

from app.content import Kind
from engine.core import JSON
from engine.registry import engine_games

COLOUR_HEX = {
    "red": "#e0483e",
    "blue": "#3f86e8",
    "green": "#3fae5f",
    "yellow": "#f0c43c",
    "purple": "#a565d6",
    "white": "#eeeeee",
}
"""The colours a game may give its players, by the names its outcome's ``colours`` use (an
Heirs dynasty's, H20.1: they stay all night long, and the standings show them)."""


def colour_badge_style(colour: str | None) -> str:
    """A seat badge in a player's colour, with dark ink that reads on every one of them;
    empty for none."""
    if colour not in COLOUR_HEX:
        return ""
    return f"background: {COLOUR_HEX[colour]}; border-color: {COLOUR_HEX[colour]}; color: #111"


class GameScreens(Protocol):
    def name(self) -> str:
        """The game's name, translated."""

    def blurb(self) -> str:
        """One translated line for the host's game menu."""

    def watch_text(self, number: int | None) -> str:
        """The phone's line while the board plays round (or turn) ``number`` out; translated."""

    def content_kinds(self) -> Sequence[Kind]:
        """The kinds of the game's content its screens name (``app/content.py``), each read
        from the game's seeds; what the catalogs translate under ``"<game> <kind>"``."""

    def template_globals(self) -> Mapping[str, Callable[..., Any]]:
        """Functions the game's own templates call by name (its macros too, which see no
        page context); each name is the game's alone among every game's."""

    def bot_style_labels(self) -> list[tuple[str, str]]:
        """The host's choice of bot style, ``[(style, "Name — what it plays for")]`` in the
        engine's order of ``bot_styles``, translated; empty for a game with one style."""

    def context(self, payload: Mapping[str, Any], seat: int | None) -> dict[str, Any]:
        """Template context from a payload (a view); ``seat`` is ``None`` on the board.

        Called inside ``i18n.use_language``, so it may hold translated labels. Must provide
        ``seat_notes`` (seat -> short note in the lobby), ``board_lobby_hint`` and
        ``phone_lobby_hint`` (may be empty); ``seal_on_own_card`` set true says the game's
        phone shows the seat's sealed-order digits itself (the room's phone page does not).
        """

    def translate_form(self, frame: Mapping[str, Any]) -> JSON | None:
        """A phone form of this game → a protocol message; ``None`` if not this game's."""

    def log_lines(
        self, events: list[Mapping[str, Any]], payload: Mapping[str, Any], seat: int | None
    ) -> list[JSON]:
        """Events as lines of the log, ``[{"kind", "text"}]``, only those worth a line;
        ``seat`` is the game's seat reading them (``None``: the board). Translated."""

    def log_reads(self, payload: Mapping[str, Any]) -> Hashable:
        """What :meth:`log_lines` reads of the payload besides the events and the seat (the
        names it writes, and whatever else): a past round's lines are kept under it."""

    def round_label(self, number: int) -> str:
        """A round (or turn) of the log as the game names it, e.g. "Round 3"; translated."""

    def refusal_text(self, code: str, params: Mapping[str, Any]) -> str | None:
        """An engine refusal (``IllegalOrder`` ``code`` and ``params``) as a sentence in the
        current language; ``None`` for a code the game does not know (issue 13.10)."""

    def proof_label(self, order: Mapping[str, Any]) -> str:
        """What a revealed sealed order decided, in a few translated words beside its proof,
        where a round proves several orders of one player; empty where each player seals
        one order a round and the name alone tells the proofs apart."""


def seat_names(payload: Mapping[str, Any]) -> dict[int, str]:
    """Names by the game's own seat numbers (a round robin's match seats only two players)."""
    players = payload.get("players")
    if players:
        return {index: str(p["name"]) for index, p in enumerate(players)}
    return {int(s["seat"]): str(s["name"]) for s in payload.get("seats", [])}


def names_read(payload: Mapping[str, Any]) -> Hashable:
    """The seat names of :func:`seat_names` as a key: what most games' log lines read."""
    return tuple(sorted(seat_names(payload).items()))


def engine_seats(payload: Mapping[str, Any]) -> dict[int, int]:
    """Room seat → the game's own seat (a round robin's match seats only two players)."""
    players = payload.get("players")
    if players:
        return {int(p["seat"]): index for index, p in enumerate(players)}
    return {int(s["seat"]): int(s["seat"]) for s in payload.get("seats", [])}


def shown_round(payload: Mapping[str, Any]) -> int | None:
    """The round of the step a screen draws: the board's show's, or a replay's. The step's
    position may already stand in the next round (the step that ends a round moves the
    game's counter on), and the screens name the round being shown; ``None`` when the
    screen draws no step."""
    show = payload.get("show")
    if show is not None:
        return int(show["round"])
    playback = payload.get("playback") if payload.get("replaying") else None
    return int(playback[-1]["round"]) if playback else None


def short_hex(commitment: Any) -> str:
    """The first 6 hex digits of a sealed order's commitment, as the screens show it."""
    return str(commitment or "")[:6]


def form_values(value: Any) -> list[str]:
    """A form field as a list: htmx sends one value as a string and several as a list."""
    if value is None or value == "":
        return []
    if isinstance(value, list):
        return [str(v) for v in value if v not in (None, "")]
    return [str(value)]


def screens_for(game: str) -> GameScreens:
    """The screens of a registered game: ``SCREENS`` of the module ``app.games.<game id>``
    (imported on first use). ``KeyError`` for a game the registry does not know."""
    if game not in engine_games():
        raise KeyError(game)
    screens: GameScreens = importlib.import_module(f"{__name__}.{game}").SCREENS
    return screens

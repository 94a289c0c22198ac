"""HTML pages: the join/host page, a phone page per seat and the board (TV) page.

Pages are rendered with Jinja2; after the first render, every change arrives as a full HTML
fragment over the websocket (``format=html``). Each fragment's top-level elements carry ids
and htmx-ext-ws swaps them by id (out of band). Phone forms are sent over the same socket with
``ws-send``; :func:`translate_form` turns their fields into the JSON protocol messages of
``app/ws.py``. Only views are rendered, never raw state: a phone gets its seat's view, the board
the public one.
"""

from __future__ import annotations

import hashlib
import inspect
import logging
import re
from collections import OrderedDict
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from io import BytesIO
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

import orjson
import segno
from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from jinja2 import (
    Environment,
    FileSystemBytecodeCache,
    FileSystemLoader,
    pass_context,
    select_autoescape,
)
from jinja2.bccache import Bucket
from jinja2.runtime import Context
from markupsafe import Markup, escape

from app import i18n, names, ratelimit
from app.assets import static_url
from app.config import PROJECT_DIR, Settings
from app.errors import RoomError, RoomNotFound
from app.games import (
    colour_badge_style,
    engine_seats,
    screens_for,
    seat_names,
    short_hex,
)
from app.hub import Connection
from app.lan import join_base_url
from app.live import TIMED_OUT, LiveRoom, SeatInfo, is_duel, night_game_options, timer_marks
from app.proofs import canonical_json
from app.rooms import NAME_MAX, RoomService, name_key, normalize_code
from engine.core import JSON
from engine.registry import available_games, engine_games, get_rules

router = APIRouter(include_in_schema=False)
log = logging.getLogger("pecet.pages")

SEAT_COOKIE = "pecet_seat_{code}"
BACK_COOKIE = "pecet_back_{code}"
"""Set by a come-back for the phone's next page: it tells the player the seat's new PIN once."""
HOST_COOKIE = "pecet_host_{code}"
LANG_COOKIE = "pecet_lang"
COOKIE_MAX_AGE = 60 * 60 * 24 * 2


class TemplateCache(FileSystemBytecodeCache):
    """Templates compiled by an earlier start, kept in Jinja's own cache folder (one per user
    in the temporary folder, keyed by each template's source): compiling the first page's
    templates took about 40 ms of a start. A cache that cannot be written costs only that."""

    def dump_bytecode(self, bucket: Bucket) -> None:
        try:
            super().dump_bytecode(bucket)
        except OSError as error:
            log.warning("compiled template not kept: %s", error)


def template_cache() -> TemplateCache | None:
    # Jinja keys a compiled template by its source alone, yet its code also follows the
    # filters set up here (a filter that became context-dependent; a filter of a constant,
    # which Jinja evaluates at compile time): a change of this module starts a cache anew.
    setup = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:12]
    try:
        return TemplateCache(pattern=f"__pecet_{setup}_%s.cache")
    except (OSError, RuntimeError) as error:  # no private temporary folder to be had
        log.warning("compiled templates are not kept between starts: %s", error)
        return None


DICT_ATTRIBUTES = frozenset(dir(dict))


class PageEnvironment(Environment):
    """Jinja's environment, with ``{{ view.round }}`` read from a plain dict at once.

    Jinja tries an attribute first and the key after: for a dict, whose instances have no
    attribute of their own, that raised and caught an ``AttributeError`` at every dotted
    name, about a fifth of the server's time with pages under load (a board's fragment reads
    thousands). A name that is one of dict's own (``items``, ``get``) keeps Jinja's order,
    so every lookup gives what Jinja gives."""

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict and attribute not in DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                return self.undefined(obj=obj, name=attribute)
        return super().getattr(obj, attribute)


environment = PageEnvironment(
    loader=FileSystemLoader(PROJECT_DIR / "templates"),
    bytecode_cache=template_cache(),
    # A running server never sees its templates change (it is restarted to take new ones):
    # no stat() of every template a fragment includes, at every fragment.
    auto_reload=False,
    autoescape=select_autoescape(["html", "svg"]),
    extensions=["jinja2.ext.i18n"],
    trim_blocks=True,
    lstrip_blocks=True,
)
environment.install_gettext_callables(  # type: ignore[attr-defined]
    i18n.gettext, i18n.ngettext, newstyle=True, pgettext=i18n.pgettext, npgettext=i18n.npgettext
)
i18n.load_all()


@lru_cache(maxsize=8192)
def _fixed_words(language: str, message: str) -> Markup:
    """A message without placeholders as a template shows it in ``language`` (the current
    one when first asked): translated, then read as a format string, as Jinja's own
    ``gettext`` does. Bounded: the templates' messages are literals, but a template may
    one day pass a value."""
    return Markup(i18n.gettext(message)) % {}


@pass_context
def template_gettext(context: Context, message: str, **variables: Any) -> str:
    """``_()`` and ``gettext()`` in templates: what Jinja's new-style ``gettext`` gives,
    without its two indirections; a message without placeholders is translated once per
    language. A phone's fragment asks for some seventy of them, which cost a third of its
    drawing."""
    if not context.eval_ctx.autoescape:
        return i18n.gettext(message) % variables
    if variables:
        return Markup(i18n.gettext(message)) % variables
    return _fixed_words(i18n.current_language(), message)


environment.globals.update(_=template_gettext, gettext=template_gettext)


# ------------------------------------------------------------------ translated fixed words


def game_name(game: str) -> str:
    """A game's name in the current language; the id itself for a game not known here."""
    try:
        return screens_for(game).name()
    except (KeyError, ModuleNotFoundError):
        return game


TIMER_CHOICES = (30, 60, 90, 120, 180, 300)
"""The sealing timer's lengths the host picks from, in seconds (the API takes any)."""

environment.globals.update(
    timer_choices=TIMER_CHOICES,
    static_url=static_url,
    colour_badge_style=colour_badge_style,
    game_name=game_name,
    game_blurb=lambda game: screens_for(game).blurb(),
    languages=i18n.LANGUAGES,
    language_names=i18n.LANGUAGE_NAMES,
    name_max=NAME_MAX,
    hosted_games=available_games(),
    # The games a night plays as round robins (two players each), where the others predict.
    duel_game_ids=[g for g in available_games() if is_duel(g)],
)
environment.filters["game_name"] = game_name
environment.filters["seat_name"] = lambda seat, room: next(
    (s["name"] for s in room["seats"] if s["seat"] == seat), str(seat)
)
environment.filters["seat_of"] = lambda seat, room: next(
    (s for s in room["seats"] if s["seat"] == seat), {"seat": seat, "name": str(seat)}
)
for _game in engine_games():
    # Each game's own names for its templates (its macros see no page context).
    for _name, _function in screens_for(_game).template_globals().items():
        if _name in environment.globals:
            raise RuntimeError(f"{_game}'s template name {_name!r} is taken")
        environment.globals[_name] = _function
HYPHENATED = re.compile(r"\S*\w-\w\S*")


def keep_whole(text: str) -> Markup:
    """``text`` with each hyphenated word (a field such as R3-0) kept on one line: a narrow
    column broke it after its hyphen ("R3-" / "0")."""
    escaped = str(escape(text))
    return Markup(HYPHENATED.sub(lambda m: f'<span class="nowrap">{m.group(0)}</span>', escaped))


environment.filters["keep_whole"] = keep_whole


BREAKABLE_LETTERS = 9
"""Words as long as this may break; shorter ones stay whole ("Зна-ки" read worse than a
column a little wider)."""


@lru_cache(maxsize=256)
def _breakable(text: str, lang: str) -> str:
    import pyphen  # here, not at the start: its import is about 30 ms of it

    rules = pyphen.Pyphen(lang=lang)

    def halves(word: str) -> str:
        # One break, the language's nearest to the middle: two lines at most ("Spo-sob-
        # nosti" took three where the column was squeezed).
        places: list[int] = rules.positions(word) if len(word) >= BREAKABLE_LETTERS else []
        if not places:
            return word
        cut = min(places, key=lambda place: abs(2 * place - len(word)))
        return word[:cut] + "\u00ad" + word[cut:]

    return " ".join(halves(word) for word in text.split(" "))


def breakable(text: str) -> str:
    """``text`` with soft hyphens where its long words may break by the page language's own
    rules, for a narrow column's heading: a single long word ("Способности", 188 px at the
    TV's 24 px) set its column's width, and the Heirs Council table ran past its panel. A
    word breaks, with its hyphen shown, only where the column has no room for it."""
    return _breakable(text, i18n.current_language())


environment.filters["breakable"] = breakable


@pass_context  # so that Jinja never folds it into a template at compile time, in one language
def decimal(_context: Context, number: float) -> str:
    """``number`` as the page's language writes it: "1,5" in Czech, Croatian and Russian
    ("×1.5" read as an English number on their screens)."""
    from babel.numbers import format_decimal  # Babel is kept off the start (app/i18n.py)

    return str(format_decimal(number, locale=i18n.current_language()))


environment.filters["decimal"] = decimal


def render(template: str, lang: str, **context: Any) -> str:
    with i18n.use_language(lang):
        return environment.get_template(template).render(lang=lang, **context)


# ------------------------------------------------------------------ view models


def view_outcome(view: Mapping[str, Any] | None) -> JSON | None:
    """The outcome a finished view carries itself (the last step of a show or a replay, when
    the room's own outcome waits for the end of the show)."""
    if not view:
        return None
    found = view.get("outcome") or view.get("final")
    if not found and view.get("over"):
        found = view.get("scoring")
    return dict(found) if found else None


def outcome_context(payload: Mapping[str, Any]) -> dict[str, Any]:
    outcome = payload.get("outcome") or view_outcome(payload.get("view")) or {}
    names = seat_names(payload)
    # One winner (the duels), or everyone sharing first place (Heirs).
    winners = [outcome["winner"]] if outcome.get("winner") is not None else outcome.get("winners")
    ready = set(payload.get("ready") or [])
    return {
        "outcome": outcome,
        "rematch": outcome.get("result") == "REMATCH",
        "winner_name": ", ".join(names.get(int(w), "") for w in winners or ()),
        "ready": ready,
    }


# ------------------------------------------------------------------ the show (the reveal)


def shown_payload(payload: Mapping[str, Any]) -> JSON:
    """The payload a screen draws: while the room plays its newest resolution out (``show``),
    the step being shown, never the final position.

    The board's ``view`` becomes the public view right after the shown step and its
    ``events`` those of the steps so far; ``playback`` keeps only those steps. The final
    ``view`` holds what comes later (the next omen and pedestals, a later battle's Sign and
    owner), so no template may see it. The room's outcome, the timer and the revealed orders
    wait for the end of the show too. A phone's payload arrives already cut to the step by
    the server (it carries no playback); only its room-level fields are held back here.
    """
    shown: JSON = dict(payload)
    show = payload.get("show")
    if not show:
        return shown
    playback = list(payload.get("playback") or [])
    if playback:
        step = min(max(int(show.get("step") or 0), 0), len(playback) - 1)
        shown["playback"] = playback[: step + 1]
        # A live board's payload is already cut to the step (its ``view`` is that step's);
        # a replay's playback carries a view per step.
        shown["view"] = playback[step].get("view", payload.get("view"))
        shown["events"] = [e for s in playback[: step + 1] for e in s.get("events") or []]
    shown["outcome"] = None
    shown["ready"] = []
    if shown.get("status") == "finished":
        shown["status"] = "playing"
    shown["deadline"] = None
    shown["timer_left"] = None
    shown["reveals"] = {}
    return shown


def proof_rows(payload: Mapping[str, Any], proofs: list[Mapping[str, Any]]) -> list[JSON]:
    """Sealed-order proofs as the screens list them, each with its game's label of the
    decision it was; the browser checks each (static/proofs.js). Call inside
    ``i18n.use_language``."""
    names = seat_names(payload)
    seats = engine_seats(payload)
    screens = screens_for(str(payload["game"])) if payload.get("game") else None
    rows = []
    for proof in proofs:
        seat = proof.get("seat")
        name = proof.get("name")
        if not name and seat is not None:
            name = names.get(seats.get(int(seat), int(seat)), str(seat))
        commitment = str(proof.get("commitment") or "")
        rows.append(
            {
                "seat": seat,
                "name": name or "",
                "commitment": commitment,
                "short": short_hex(commitment),
                "salt": str(proof.get("salt") or ""),
                "order": proof.get("order"),
                "order_text": canonical_json(proof.get("order")),
                "label": screens.proof_label(order)
                if screens is not None and isinstance(order := proof.get("order"), Mapping)
                else "",
            }
        )
    return rows


def reveal_proofs(payload: Mapping[str, Any]) -> list[JSON]:
    """The board's or a phone's ``reveals`` (room seat → order, salt, commitment) as proofs."""
    reveals = payload.get("reveals") or {}
    proofs = [{"seat": int(seat), **reveal} for seat, reveal in reveals.items()]
    return proof_rows(payload, sorted(proofs, key=lambda p: p["seat"]))


class KeptLines:
    """The log lines of past rounds, kept by what makes them: the game, the language, the
    reader, what the game's lines read of the payload (``log_reads``) and the round's events
    themselves. A past round never changes, yet every fragment of a board or a phone showed
    the whole log again, each event written out anew: the log's sentences were a tenth of
    a fragment's time by round 3, and grow with every round. The newest ``size`` rounds read
    are kept."""

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._kept: OrderedDict[Hashable, KeptRound] = OrderedDict()

    def lines(
        self,
        game: str,
        events: list[Mapping[str, Any]],
        payload: Mapping[str, Any],
        seat: int | None,
    ) -> list[JSON]:
        """The round's lines (a copy: the caller may add to the list, never to its lines)."""
        return list(self.round(game, events, payload, seat).lines)

    def round(
        self,
        game: str,
        events: list[Mapping[str, Any]],
        payload: Mapping[str, Any],
        seat: int | None,
    ) -> KeptRound:
        screens = screens_for(game)
        key = (
            game,
            i18n.current_language(),
            seat,
            screens.log_reads(payload),
            # The events by a digest: a key stays a few bytes, whatever the round held.
            hashlib.blake2b(
                orjson.dumps(events, option=orjson.OPT_NON_STR_KEYS), digest_size=16
            ).digest(),
        )
        kept = self._kept.get(key)
        if kept is None:
            lines = round_lines(game, events, payload, seat)
            kept = self._kept[key] = KeptRound(lines, NOTHING_DRAWN.join(map(log_line, lines)))
            if len(self._kept) > self.size:
                self._kept.popitem(last=False)
        else:
            self._kept.move_to_end(key)
        return kept


NOTHING_DRAWN = Markup("")


@dataclass(frozen=True)
class KeptRound:
    """A past round's log lines, and the same drawn as the log draws them (once: escaping
    every line of every past round again was most of what a fragment's log cost)."""

    lines: list[JSON]
    html: Markup


def round_lines(
    game: str, events: list[Mapping[str, Any]], payload: Mapping[str, Any], seat: int | None
) -> list[JSON]:
    """The log lines of a round's events: the game's own, and where a resolution's order was
    the sealing timer's, the room's note of it (its mark comes before the resolution's
    events, so the note stands where the default move was played)."""
    screens = screens_for(game)
    lines: list[JSON] = []
    played: list[Mapping[str, Any]] = []
    for event in events:
        if event.get("kind") != TIMED_OUT:
            played.append(event)
            continue
        if played:
            lines += screens.log_lines(played, payload, seat)
            played = []
        lines.append(timer_line(seat_names(payload), int(event["data"]["seat"]), seat))
    if played:
        lines += screens.log_lines(played, payload, seat)
    return lines


def timer_line(names: Mapping[int, str], who: int, reader: int | None) -> JSON:
    """The log's note that the sealing timer sealed a seat's order (H5.4): the move played
    was the seat's default, not its own choice."""
    if who == reader:
        text = i18n.gettext("Time ran out for you: your default move was played.")
    else:
        name = names.get(who, str(who + 1))
        text = i18n.gettext("Time ran out for %(name)s: the default move was played.") % {
            "name": name
        }
    return {"kind": "timer", "text": text, "mine": who == reader}


def log_line(line: Mapping[str, Any]) -> Markup:
    """One line of the log, as ``fragments/_log_line.html`` draws it."""
    drawn: Markup = environment.get_template("fragments/_log_line.html").module.log_line(line)  # type: ignore[attr-defined]
    return drawn


kept_lines = KeptLines()


def log_context(
    game: str, payload: Mapping[str, Any], seat: int | None, *, replay: bool = False
) -> JSON:
    """The match's log, round by round, for the log panel of a board or a phone: the
    ``history`` and then the newest resolution (the board's ``playback`` steps so far, a
    phone's ``events``), the lines of the step being shown marked ``current``; and the
    sealed-order commitments and proofs. Call inside ``i18n.use_language``."""
    screens = screens_for(game)
    show = payload.get("show")
    groups: list[JSON] = []

    def add(round_number: Any, lines: list[JSON], kept: Markup = NOTHING_DRAWN) -> JSON:
        """Lines of a round to its group; ``kept``: lines already drawn (past rounds, which
        come first), shown before ``lines``."""
        number = int(round_number or 0)
        if groups and groups[-1]["round"] == number:
            groups[-1]["lines"].extend(lines)
            groups[-1]["kept_html"] += kept
            return groups[-1]
        label = screens.round_label(number)
        groups.append(
            {"round": number, "label": label, "lines": lines, "kept_html": kept, "proofs": []}
        )
        return groups[-1]

    history = list(payload.get("history") or [])
    # The board has the newest resolution's steps; a live phone only its events (the server
    # cuts them to the step shown); a replay gives both screens the steps so far.
    steps = list(payload.get("playback") or [])
    newest = [e for s in steps for e in s.get("events") or []]
    if not steps:
        newest = list(payload.get("events") or [])
    if history and newest and not (show or payload.get("replaying")):
        # Once shown, the newest resolution is history too (its round's last entry): once.
        tail = list(history[-1].get("events") or [])[-len(newest) :]
        if tail == newest:
            newest, steps = [], []
    for entry in history:
        kept = kept_lines.round(game, entry.get("events") or [], payload, seat)
        add(entry.get("round"), [], kept.html)
    group: JSON | None = None
    stepping = bool(show or payload.get("replaying"))
    # The resolution the board plays out is not history yet: the show tells whose time ran
    # out in it, before its first step (a replay's steps carry the marks themselves).
    marks = timer_marks((show or {}).get("timed_out") or ())
    if steps:
        for index, step in enumerate(steps):
            events = [*marks, *(step.get("events") or [])] if index == 0 else step.get("events")
            lines = round_lines(game, events or [], payload, seat)
            if stepping and index == len(steps) - 1:
                lines = [{**line, "current": True} for line in lines]
            group = add(step.get("round"), lines)
    elif newest:
        number = show.get("round") if show else None
        if number is None:
            number = (int(history[-1].get("round") or 0) + 1) if history else 0
        group = add(number, round_lines(game, [*marks, *newest], payload, seat))
    proofs = reveal_proofs(payload)
    if group is None and groups:
        # Shown to its end, the newest resolution is the last round of the history: its
        # proofs go there (they had no group then, and the live log showed none).
        group = groups[-1]
    if proofs and group is not None:
        group["proofs"] = proofs
    seats = engine_seats(payload)
    commitments = {
        seats.get(int(room_seat), int(room_seat)): short_hex(hexdigest)
        for room_seat, hexdigest in (payload.get("commitments") or {}).items()
    }
    return {
        "log_rounds": groups,
        "log_proofs": proofs,
        "commit_short": commitments,
        "my_commitment": short_hex(payload.get("my_commitment")),
        "show": show,
        "fast_forward": bool(payload.get("fast_forward")),
        "watch_text": watch_text(game, show) if show else "",
        "replay": replay,
    }


def watch_text(game: str, show: Mapping[str, Any]) -> str:
    """The phone's line while the board plays a resolution out."""
    return screens_for(game).watch_text(show.get("round"))


# ------------------------------------------------------------------ seats and the night


def seconds_since(moment: Any) -> int | None:
    """Whole seconds from an ISO time of a payload to now (``None`` without a time)."""
    left = seconds_until(moment)
    return None if left is None else max(0, int(-left))


def seconds_until(moment: Any) -> float | None:
    """Seconds from now to an ISO time of a payload (negative once past)."""
    if not moment:
        return None
    try:
        then = datetime.fromisoformat(str(moment))
    except ValueError:
        return None
    if then.tzinfo is None:
        then = then.replace(tzinfo=UTC)
    return (then - datetime.now(UTC)).total_seconds()


def away_text(seconds: int) -> str:
    """How long a seat has been away, as the board says it (static/pecet.js keeps counting
    with the same words, which the board carries in ``#away-words``)."""
    if seconds < 60:
        return i18n.gettext("away %(n)s s") % {"n": seconds}
    if seconds < 3600:
        return i18n.gettext("away %(n)s min") % {"n": seconds // 60}
    return i18n.gettext("away %(h)s h %(m)s min") % {
        "h": seconds // 3600,
        "m": seconds % 3600 // 60,
    }


def presence_of(payload: Mapping[str, Any]) -> dict[int, JSON]:
    """Room seat → whether a phone is connected; away seats with the seconds they have been
    away (the board's ticker counts on from there). Bots are always there."""
    presence: dict[int, JSON] = {}
    for seat in payload.get("seats") or []:
        connected = bool(seat.get("connected", True)) or bool(seat.get("bot"))
        away_for = None if connected else seconds_since(seat.get("away_since"))
        if not connected and away_for is None:
            away_for = 0
        presence[int(seat["seat"])] = {
            "seat": int(seat["seat"]),
            "name": seat.get("name", ""),
            "bot": bool(seat.get("bot")),
            "bot_style": seat.get("bot_style"),
            "connected": connected,
            "away_for": away_for,
            "away_text": "" if away_for is None else away_text(away_for),
        }
    return presence


def tiebreak_text(key: str | None) -> str:
    """What put a standings row ahead of the next one on equal points (or a shared place)."""
    texts = {
        "games_won": i18n.gettext("ahead on won games"),
        "council": i18n.gettext("ahead on Council points"),
        "army_strength": i18n.gettext("ahead on army strength"),
        "victory_points": i18n.gettext("ahead on victory points"),
        "head_to_head": i18n.gettext("ahead on their games against each other"),
        "shared": i18n.gettext("shared place"),
    }
    return texts.get(key or "", "")


def behind_text(key: str | None) -> str:
    """What put a standings row behind the one before it on equal points: the player told
    their own place reads why (the table says it on the row ahead)."""
    texts = {
        "games_won": i18n.gettext("behind on won games"),
        "council": i18n.gettext("behind on Council points"),
        "army_strength": i18n.gettext("behind on army strength"),
        "victory_points": i18n.gettext("behind on victory points"),
        "head_to_head": i18n.gettext("behind on their games against each other"),
    }
    return texts.get(key or "", "")


def ending_name(ending: str | None) -> str:
    """How a game with several endings ended (Heirs: H19)."""
    names = {
        "throne": i18n.gettext("Throne"),
        "last_survivor": i18n.gettext("Last survivor"),
        "council": i18n.gettext("Council"),
    }
    return names.get(ending or "", ending or "")


def stage_text(stage: Mapping[str, Any]) -> str:
    game = game_name(str(stage.get("game")))
    if stage.get("round_robin"):
        matches = int(stage.get("matches") or 0)
        return i18n.ngettext(
            "%(game)s round robin (%(num)s game)",
            "%(game)s round robin (%(num)s games)",
            matches,
        ) % {"game": game, "num": matches}
    return game


def plan_text(tournament: Mapping[str, Any], players: int) -> str:
    """The night's plan as the lobby shows it: "3 players · Hidden Leaders Duel round robin
    (3 games) → Heirs of the Axis"; a list played several times says so once."""
    stages = list(tournament.get("stages") or [])
    rounds = max(1, int(tournament.get("rounds") or 1))
    games = len(tournament.get("games") or []) or len(stages)
    one_round = stages[:games] if rounds > 1 and len(stages) == games * rounds else stages
    chain = " → ".join(stage_text(s) for s in one_round)
    if players < 2:
        # Nobody, or one, has joined: the round robins' pairings, and so the count of games,
        # come with the players (it read "0 players · … · 2 games", then jumped to 6).
        return " · ".join([chain, i18n.gettext("the number of games follows the players who join")])
    parts = [i18n.ngettext("%(num)s player", "%(num)s players", players) % {"num": players}]
    if rounds > 1 and one_round is not stages:
        text = i18n.ngettext("%(num)s round of: %(chain)s", "%(num)s rounds of: %(chain)s", rounds)
        parts.append(text % {"num": rounds, "chain": chain})
    else:
        parts.append(chain)
    total = night_total(tournament)
    # One round robin says its count already: "… round robin (3 games) · 3 games" twice.
    if not (len(stages) == 1 and stages[0].get("round_robin")):
        parts.append(i18n.ngettext("%(num)s game", "%(num)s games", total) % {"num": total})
    if tournament.get("final_double"):
        parts.append(i18n.gettext("Final ×2"))
    return " · ".join(parts)


def night_total(tournament: Mapping[str, Any]) -> int:
    """How many matches the night has: before the start, as planned for the people seated
    now (a round robin's pairings counted), never fewer than the server counts."""
    planned = sum(int(s.get("matches") or 0) for s in tournament.get("stages") or [])
    return max(planned, int(tournament.get("total") or 0))


def standings_screen(tournament: Mapping[str, Any] | None) -> JSON:
    """Whether the board shows the standings now, and in how many seconds the result gives
    way to them (the host may show them at once or dismiss them)."""
    if not tournament or not tournament.get("played"):
        return {"shown": False, "in": None, "mode": "auto"}
    mode = str(tournament.get("standings_mode") or "auto")
    if mode == "shown":
        return {"shown": True, "in": None, "mode": mode}
    if mode == "hidden":
        return {"shown": False, "in": None, "mode": mode}
    left = seconds_until(tournament.get("standings_at"))
    if left is None or left <= 0:
        return {"shown": True, "in": None, "mode": mode}
    return {"shown": False, "in": round(left, 1), "mode": mode}


def prediction_rows(payload: Mapping[str, Any]) -> list[JSON]:
    """The newest match's predictions with names: revealed (winner, ending, right or wrong,
    points) once the match is over, only who predicted while it runs."""
    names = {int(s["seat"]): str(s.get("name", "")) for s in payload.get("seats") or []}
    rows = []
    for row in payload.get("predictions") or []:
        seat = int(row["seat"])
        revealed = "winner" in row
        winner = row.get("winner")
        rows.append(
            {
                "seat": seat,
                "name": names.get(seat, str(seat)),
                "revealed": revealed,
                "winner": winner,
                "winner_name": names.get(int(winner), "") if winner is not None else "",
                "ending": row.get("ending"),
                "ending_name": ending_name(row.get("ending")) if row.get("ending") else "",
                "right_winner": bool(row.get("right_winner")),
                "right_ending": bool(row.get("right_ending")),
                "points": int(row.get("points") or 0),
            }
        )
    return rows


def oracle_rows(payload: Mapping[str, Any]) -> list[JSON]:
    names = {int(s["seat"]): str(s.get("name", "")) for s in payload.get("seats") or []}
    tournament = payload.get("tournament") or {}
    return [
        {"seat": int(r["seat"]), "name": names.get(int(r["seat"]), ""), "points": r["points"]}
        for r in tournament.get("oracle") or []
    ]


def prediction_offer(payload: Mapping[str, Any]) -> JSON | None:
    """A watcher's prediction card: the match, its players by name, the endings to pick
    from (Heirs) and the current pick."""
    offer = payload.get("prediction")
    if not offer:
        return None
    names = {int(s["seat"]): str(s.get("name", "")) for s in payload.get("seats") or []}
    return {
        "match": offer.get("match"),
        "game": offer.get("game"),
        "next": offer.get("match") != payload.get("match"),
        "players": [{"seat": int(p), "name": names.get(int(p), str(p))} for p in offer["players"]],
        "endings": [{"id": e, "name": ending_name(e)} for e in offer.get("endings") or []],
        "winner": offer.get("winner"),
        "ending": offer.get("ending"),
        "winner_name": names.get(int(offer["winner"]), "")
        if offer.get("winner") is not None
        else "",
        "ending_name": ending_name(offer.get("ending")) if offer.get("ending") else "",
    }


def night_lobby(game: str, payload: Mapping[str, Any]) -> JSON:
    """A night that seats more than the lobby's game (a duel game with 3 or more players is
    a round robin): the game's own seat notes (player A at the bottom edge…) would mislead."""
    most = int(payload.get("max_players") or 0)
    if not payload.get("tournament") or most <= get_rules(game).info.max_players:
        return {}
    hint = i18n.gettext(
        "A duel game with more than two players is a round robin: every pairing plays once on "
        "the board while the others watch and predict the winner."
    )
    return {"seat_notes": {}, "board_lobby_hint": hint, "phone_lobby_hint": hint}


def night_context(payload: Mapping[str, Any]) -> JSON:
    """What the screens show about the seats and the night, beside the game: presence, the
    plan, the standings screen, predictions and oracle points. Call inside
    ``i18n.use_language``."""
    tournament = payload.get("tournament") or None
    presence = {} if payload.get("replaying") else presence_of(payload)
    players = [int(p["seat"]) for p in payload.get("players") or []]
    seated = len(payload.get("seats") or [])
    return {
        "presence": presence,
        "engine_presence": {i: presence[p] for i, p in enumerate(players) if p in presence},
        "watchers": [presence[s] for s in presence if players and s not in players],
        "away_words": {
            "s": i18n.gettext("away %(n)s s"),
            "min": i18n.gettext("away %(n)s min"),
            "h": i18n.gettext("away %(h)s h %(m)s min"),
        },
        "plan_text": plan_text(tournament, seated) if tournament else "",
        "night_total": night_total(tournament) if tournament else 0,
        "standings_screen": standings_screen(tournament),
        "prediction_rows": prediction_rows(payload),
        "oracle_rows": oracle_rows(payload),
        "prediction_offer": prediction_offer(payload),
        "tiebreak_text": tiebreak_text,
        "behind_text": behind_text,
        "stage_text": stage_text,
    }


# ------------------------------------------------------------------ fragments


def bot_style_groups(game: str, payload: Mapping[str, Any]) -> list[tuple[str, list[Any]]]:
    """The host's choice of bot style, ``[(game name, [(style, label)])]``: in the lobby of a
    night every game of the night that has several styles (a bot keeps its style for the
    game it was chosen in and plays the others' default), else the game on the table's,
    unnamed (``""``). Call inside ``i18n.use_language``."""
    tournament = payload.get("tournament") or {}
    if payload.get("status") == "lobby" and tournament.get("games"):
        games = list(dict.fromkeys(str(g) for g in tournament["games"]))
    else:
        games = [game]
    groups = [(g, screens_for(g).bot_style_labels()) for g in games]
    # Styles named under their game's name unless they are the table's game's alone.
    named = [(g, labels) for g, labels in groups if labels]
    if [g for g, _labels in named] == [game]:
        return [("", named[0][1])]
    return [(screens_for(g).name(), labels) for g, labels in named]


def bot_style_names(groups: list[tuple[str, list[Any]]]) -> dict[str, str]:
    """A bot style's short name for the seat's bot tag: the picker's labels read "Name —
    what it plays for"; a game with one style names none."""
    return {
        str(style): str(label).split(" — ")[0]
        for _game, labels in groups
        for style, label in labels
    }


def with_shown_names(payload: JSON) -> JSON:
    """The payload with every seat's and player's name as the screen shows it (a bot's in
    the reader's language: :func:`app.names.shown`); everything that names a seat on a
    screen reads these two lists."""
    shown = dict(payload)
    for key in ("seats", "players"):
        if shown.get(key):
            shown[key] = [
                {
                    **entry,
                    "name": names.shown(str(entry.get("name", "")), bot=bool(entry.get("bot"))),
                }
                for entry in shown[key]
            ]
    return shown


def screen_context(
    game: str, payload: JSON, lang: str, *, board: bool, replay: bool = False
) -> JSON:
    """Everything the phone or board templates need from a payload (a view): the board's
    public one, or a seat's own (then with ``you`` and its ``prompt``)."""
    with i18n.use_language(lang):
        shown = with_shown_names(shown_payload(payload))
    you = None if board else shown["you"]
    # The game's own seat; None on the board and while a seat sits a match out.
    seat = None if you is None else you.get("player", you["seat"])
    with i18n.use_language(lang):  # the context holds translated labels too
        game_context = screens_for(game).context(shown, seat)
        log = log_context(game, shown, seat, replay=replay)
        night = night_context(shown)
        lobby = night_lobby(game, shown)
        bot_styles = bot_style_groups(game, shown)
    context: JSON = {
        "room": shown,
        "game": game,
        "bot_style_groups": bot_styles,
        "bot_style_names": bot_style_names(bot_styles),
        **game_context,
        **log,
        **night,
        **lobby,
        **outcome_context(shown),
    }
    if you is not None:
        context.update(you=you, prompt=shown.get("prompt"))
    return context


def render_phone_view(live: LiveRoom, payload: JSON, lang: str) -> str:
    return render(
        "fragments/phone_view.html",
        lang,
        code=live.code,
        my_pin=str((payload.get("you") or {}).get("pin") or ""),
        **screen_context(live.game, payload, lang, board=False),
    )


def render_board_view(
    live: LiveRoom,
    payload: JSON,
    lang: str,
    *,
    host: bool,
    join_url: str,
    turned_away: Sequence[str] = (),
    night_seats_more: bool = False,
) -> str:
    """The board's fragment; ``turned_away``, the names a full lobby refused, and whether
    the room would seat more as a night (``LiveRoom.seats_more_as_a_night``)."""
    return render(
        "fragments/board_view.html",
        lang,
        code=live.code,
        howto_game=live.game,
        host=host,
        join_url=join_url,
        turned_away=list(turned_away),
        night_seats_more=night_seats_more,
        night_options=night_options(live, payload, lang) if host else [],
        **screen_context(live.game, payload, lang, board=True),
    )


def night_options(live: LiveRoom, payload: JSON, lang: str) -> list[JSON]:
    """In the lobby of a night, the host's options of each of its games other than the room's
    own (Heirs' rounds and variants on a night opened as a duel), each game's own lobby form
    drawn for it: ``[{"game", "name", "html"}]``, a game with none of its own left out."""
    plan = payload.get("tournament")
    if payload.get("status") != "lobby" or not plan:
        return []
    forms = []
    for game in dict.fromkeys(plan.get("games") or ()):
        if game == live.game:
            continue
        chosen = {**payload, "options": night_game_options(live.options, game), "view": None}
        context = screen_context(game, chosen, lang, board=True)
        context.update(code=live.code, host=True, night_game=game)
        html = render(f"games/{game}/lobby_host.html", lang, **context).strip()
        if html:
            with i18n.use_language(lang):
                forms.append({"game": game, "name": game_name(game), "html": html})
    return forms


def turned_away(live: LiveRoom) -> dict[str, Any]:
    """What the board's lobby says of the players a full room refused (the names, and
    whether a night would seat them), as :func:`render_board_view` takes it."""
    refused = live.turned_away if live.status == "lobby" else []
    return {
        "turned_away": refused,
        "night_seats_more": bool(refused) and live.seats_more_as_a_night(),
    }


RULE_NUMBERS = re.compile(r"\s*\((?:[GHL]\d+(?:\.\d+)*(?:,\s*)?)+\)")
"""A rules sheet's numbers in a sentence, "(G8.3)" or "(G1.6, G10.1)": the engine's details
cite them for API clients; a player reads the sentence without them."""


def render_error(live: LiveRoom, error: Mapping[str, Any], lang: str, *, board: bool) -> str:
    """An error frame as a page shows it, in the page's language where its code is known.
    In English the frame's own detail is kept: it may say more than its code's text."""
    code = str(error.get("code") or "")
    detail = str(error.get("detail") or "")
    if lang != i18n.DEFAULT_LANGUAGE or not detail:
        params = error.get("params")
        detail = translate_refusal(
            code,
            detail,
            lang,
            game=live.game,
            params=params if isinstance(params, Mapping) else None,
        )
    detail = RULE_NUMBERS.sub("", detail)
    return render(
        "fragments/error.html",
        lang,
        code=live.code,
        error_code=code,
        detail=detail,
        board=board,
    )


def join_url_for(settings: Settings, code: str) -> str:
    return f"{join_base_url(settings)}/j/{code}"


def render_fragment(live: LiveRoom, payload: JSON, connection: Connection) -> str:
    """The hub's HTML renderer: a full fragment for a view, a small one for an error."""
    lang = i18n.normalize_language(connection.lang) or i18n.DEFAULT_LANGUAGE
    try:
        return _render_for_connection(live, payload, connection, lang)
    except Exception:  # a page must never take the hub down; the next view may render
        log.exception("could not render the %s fragment of room %s", connection.format, live.code)
        failure = {"code": "render_failed", "detail": "The page could not be drawn; reload it."}
        return render_error(live, failure, lang, board=connection.is_board)


def _render_for_connection(live: LiveRoom, payload: JSON, connection: Connection, lang: str) -> str:
    if payload.get("type") == "error":
        return render_error(live, payload, lang, board=connection.is_board)
    if connection.is_board:
        settings: Settings = connection.websocket.app.state.settings
        return render_board_view(
            live,
            payload,
            lang,
            host=connection.hosts(live),
            join_url=join_url_for(settings, live.code),
            **turned_away(live),
        )
    return render_phone_view(live, payload, lang)


# ------------------------------------------------------------------ forms → protocol


def translate_form(live: LiveRoom, frame: JSON) -> JSON:
    """A phone form's fields (sent by htmx-ext-ws with ``HEADERS``) → a protocol message.

    ``action=ready`` → ready for the next game (L7.3); ``action=lang`` → the seat's language;
    the game's own actions → its orders (see ``app/games``); anything else → ``sync``.
    An order form's hidden ``version`` and ``match`` (the view it was drawn from) go with
    the order, so that a sheet the table has left behind is refused (issue 13.10).
    """
    action = str(frame.get("action") or "")
    if action == "ready":
        return {"type": "ready"}
    if action == "lang":
        return {"type": "lang", "lang": str(frame.get("lang") or "")}
    message = screens_for(live.game).translate_form(frame) or {"type": "sync"}
    if message.get("type") == "order":
        for field_name in ("version", "match"):
            value = _form_number(frame.get(field_name))
            if value is not None:
                message[field_name] = value
    return message


def _form_number(raw: Any) -> Any:
    """A form field meant as a whole number: the number, None when empty, else the raw value
    (which the room refuses as malformed rather than guessing)."""
    if isinstance(raw, list):  # a field sent twice
        return raw
    text = str(raw if raw is not None else "").strip()
    if not text:
        return None
    return int(text) if text.isascii() and text.isdigit() else text


# ------------------------------------------------------------------ request helpers


def rooms_of(request: Request) -> RoomService:
    service: RoomService = request.app.state.rooms
    return service


def request_language(request: Request) -> str:
    return (
        i18n.normalize_language(request.cookies.get(LANG_COOKIE))
        or i18n.language_from_header(request.headers.get("accept-language"))
        or i18n.DEFAULT_LANGUAGE
    )


def clean_code(raw: str) -> str:
    return normalize_code("".join(raw.split()))


def safe_next(target: str | None, fallback: str = "/") -> str:
    if target and target.startswith("/") and not target.startswith("//"):
        return target
    return fallback


def set_cookie(response: Response, name: str, value: str, max_age: int = COOKIE_MAX_AGE) -> None:
    response.set_cookie(name, value, max_age=max_age, httponly=True, samesite="lax", path="/")


def page(
    request: Request,
    template: str,
    status_code: int = 200,
    headers: Mapping[str, str] | None = None,
    **context: Any,
) -> HTMLResponse:
    lang = request_language(request)
    # ``path``: where the language links come back to. A page a form's POST answered has no
    # address of its own to come back to (a GET there is refused): its caller names one.
    context.setdefault("path", request.url.path if request.method == "GET" else "/")
    html = render(template, lang, **context)
    return HTMLResponse(html, status_code=status_code, headers=headers)


def index_page(
    request: Request,
    *,
    code: str = "",
    name: str = "",
    error: str | None = None,
    error_code: str | None = None,
    host_error: str | None = None,
    status_code: int = 200,
    resume: SeatInfo | None = None,
    forget_seat: str | None = None,
    reclaim_error: str | None = None,
    come_back: bool = False,
    headers: Mapping[str, str] | None = None,
) -> HTMLResponse:
    """The start page: join, come back to a seat (name and PIN), host.

    ``come_back`` opens the come-back form: a phone whose seat is played elsewhere now, a
    refused join of a game that has started, a wrong PIN.

    A refused join or come-back answers a POST: its language links lead back to the room's
    join link (the come-back form open, with the name typed), not to the form's address."""
    come_back = come_back or bool(reclaim_error) or error_code in COME_BACK_CODES
    path = request.url.path
    if request.method != "GET":
        room_code = clean_code(code)
        path = "/"
        if room_code:
            path = f"/j/{quote(room_code, safe='')}"
            if come_back:
                path += "?" + urlencode({"back": 1, "name": name[:NAME_MAX]})
    return page(
        request,
        "index.html",
        status_code=status_code,
        headers=headers,
        path=path,
        code=code,
        name=name,
        error=error,
        error_code=error_code,
        host_error=host_error,
        games=[(g, get_rules(g).info) for g in available_games()],
        resume=resume,
        forget_seat=forget_seat,
        reclaim_error=reclaim_error,
        come_back=come_back,
    )


COME_BACK_CODES = ("started", "name_taken", "full")
"""Join refusals after which the join page offers the come-back form: the player may be
someone who already sits here, on a new phone."""


def seat_played_elsewhere(live: LiveRoom, token: str) -> bool:
    """A seat token that no longer fits once the game is on: the seat was handed to a bot or
    taken back on another phone, so the join page says so and opens "Come back to my seat"
    (a seat PIN brings the player back) rather than a plain join form."""
    return bool(token) and live.status != "lobby"


def seat_token(request: Request, live: LiveRoom) -> str:
    """The seat token this browser's cookie holds for the room (empty: none)."""
    return request.cookies.get(SEAT_COOKIE.format(code=live.code), "")


async def seat_from_cookie(request: Request, live: LiveRoom) -> tuple[SeatInfo | None, str]:
    token = seat_token(request, live)
    return live.seat_by_token(token), token


# ------------------------------------------------------------------ routes: join and host


@router.get("/", response_class=HTMLResponse)
async def index(request: Request) -> HTMLResponse:
    return index_page(request)


@router.get("/howto/{game}", response_class=HTMLResponse)
async def howto(request: Request, game: str, lang: str = "") -> HTMLResponse:
    """How to play a game, for players: short, with pictures of the real screens. ``lang``
    carries a phone's language (chosen on the phone, not in a cookie) to the page."""
    chosen = i18n.normalize_language(lang) or request_language(request)
    if game not in available_games():
        with i18n.use_language(chosen):
            detail = i18n.gettext("There is no such game here.")
        html = render("missing.html", chosen, code=game, detail=detail, path="/")
        return HTMLResponse(html, status_code=404)
    pictures = f"/static/howto/{chosen}"
    html = render(f"howto/{game}.html", chosen, game=game, path=request.url.path, pictures=pictures)
    return HTMLResponse(html)


@router.get("/lang/{lang}")
async def switch_language(lang: str, next: str = "/") -> RedirectResponse:
    response = RedirectResponse(safe_next(next), status_code=303)
    chosen = i18n.normalize_language(lang)
    if chosen:
        response.set_cookie(LANG_COOKIE, chosen, max_age=60 * 60 * 24 * 365, samesite="lax")
    return response


@router.get("/j/{code}", response_class=HTMLResponse)
async def join_link(request: Request, code: str, back: int = 0, name: str = "") -> HTMLResponse:
    """The join URL the board's QR code encodes: the join form with the code filled in.
    ``back=1`` (a phone whose seat is played elsewhere now) opens the come-back form, with
    the ``name`` filled in."""
    code = clean_code(code)
    wait = ratelimit.wait_for("lookup", request)
    if wait is not None:
        return index_page(
            request,
            code=code,
            error=ratelimit.refusal_text(wait, request_language(request)),
            status_code=429,
            headers=ratelimit.retry_headers(wait),
        )
    try:
        live = await rooms_of(request).room(code)
    except RoomNotFound as missing:
        return index_page(request, code=code, error=missing.detail, status_code=404)
    seat, _token = await seat_from_cookie(request, live)
    return index_page(
        request, code=live.code, name=name[:NAME_MAX], resume=seat, come_back=bool(back)
    )


@router.post("/join", response_class=HTMLResponse)
async def join(request: Request, code: str = Form(""), name: str = Form("")) -> Response:
    typed_code, typed_name = code, name
    code = clean_code(code)
    rooms = rooms_of(request)
    if not code:
        with i18n.use_language(request_language(request)):
            message = i18n.gettext("Enter the 4-letter room code shown on the board.")
        return index_page(request, code=typed_code, name=typed_name, error=message, status_code=422)
    lang = request_language(request)
    wait = ratelimit.wait_for("join", request)
    if wait is not None:
        return index_page(
            request,
            code=typed_code,
            name=typed_name,
            error=ratelimit.refusal_text(wait, lang),
            status_code=429,
            headers=ratelimit.retry_headers(wait),
        )
    live: LiveRoom | None = None
    try:
        live = await rooms.room(code)
        existing, token = await seat_from_cookie(request, live)
        if existing is not None and name_key(existing.name) == name_key(name):
            return RedirectResponse(f"/r/{live.code}", status_code=303)
        token = (await rooms.join(code, name, lang)).token
    except RoomError as refusal:
        seated = [s.name for s in live.seats] if live is not None else []
        error = names.refusal_text(refusal.code, lang, name, seated) or translate_room_error(
            refusal, lang
        )
        if refusal.code == "full" and live is not None and live.seats_more_as_a_night():
            with i18n.use_language(lang):
                error += " " + i18n.gettext(
                    "The host's board shows you were turned away: as a night of several "
                    "games the room seats more, and then you can join again."
                )
        return index_page(
            request,
            code=typed_code,
            name=typed_name,
            error=error,
            error_code=refusal.code,
            status_code=refusal.status,
            headers={"Retry-After": str(refusal.retry_after)} if refusal.retry_after else None,
        )
    response = RedirectResponse(f"/r/{live.code}", status_code=303)
    set_cookie(response, SEAT_COOKIE.format(code=live.code), token)
    return response


@router.post("/reclaim", response_class=HTMLResponse)
async def reclaim(
    request: Request, code: str = Form(""), name: str = Form(""), pin: str = Form("")
) -> Response:
    """Come back to my seat: name and seat PIN give the seat to this phone, mid-game too
    (the old phone is signed out), and it lands on the seat like after a join."""
    typed_code, typed_name = code, name
    code = clean_code(code)
    lang = request_language(request)
    if not code:
        with i18n.use_language(lang):
            message = i18n.gettext("Enter the 4-letter room code shown on the board.")
        return index_page(
            request, code=typed_code, name=typed_name, reclaim_error=message, status_code=422
        )
    wait = ratelimit.wait_for("reclaim", request)
    if wait is not None:
        return index_page(
            request,
            code=typed_code,
            name=typed_name,
            reclaim_error=ratelimit.refusal_text(wait, lang),
            status_code=429,
            headers=ratelimit.retry_headers(wait),
        )
    live: LiveRoom | None = None
    try:
        live = await rooms_of(request).room(code)
        seated = await rooms_of(request).reclaim(code, name, pin)
    except RoomError as refusal:
        return index_page(
            request,
            code=typed_code,
            name=typed_name,
            reclaim_error=translate_reclaim_error(refusal, lang, seat_name_as_shown(live, name)),
            status_code=refusal.status,
            headers={"Retry-After": str(refusal.retry_after)} if refusal.retry_after else None,
        )
    response = RedirectResponse(f"/r/{live.code}", status_code=303)
    set_cookie(response, SEAT_COOKIE.format(code=live.code), seated.token)
    set_cookie(response, BACK_COOKIE.format(code=live.code), "1", max_age=300)
    return response


def seat_name_as_shown(live: LiveRoom | None, typed: str) -> str:
    """The name of the seat a typed name stands for, as the board shows it."""
    seat = None if live is None else live.seat_to_reclaim(typed)
    return seat.name if seat is not None else " ".join(typed.split())


def translate_reclaim_error(refusal: RoomError, lang: str, name: str) -> str:
    """Why the come-back form was refused, in the page's language."""
    shown = " ".join(name.split())
    with i18n.use_language(lang):
        if refusal.code == "wrong_pin":
            return i18n.gettext(
                "That PIN does not match %(name)s's seat. The host sees every seat's PIN in "
                "the board's host menu."
            ) % {"name": shown}
        if refusal.code == "no_such_name":
            return i18n.gettext(
                "Nobody called %(name)s sits in this room. Type your name as the board shows it."
            ) % {"name": shown}
        if refusal.code == "too_many_tries":
            wait = max(1, int(refusal.retry_after or 60))
            if wait < 60:
                text = i18n.ngettext(
                    "Too many wrong PINs for this seat. Try again in %(num)s second.",
                    "Too many wrong PINs for this seat. Try again in %(num)s seconds.",
                    wait,
                )
                return text % {"num": wait}
            minutes = -(-wait // 60)
            text = i18n.ngettext(
                "Too many wrong PINs for this seat. Try again in %(num)s minute.",
                "Too many wrong PINs for this seat. Try again in %(num)s minutes.",
                minutes,
            )
            return text % {"num": minutes}
    return translate_room_error(refusal, lang)


def translate_room_error(refusal: RoomError, lang: str) -> str:
    """The room service's refusals, in the page's language (the detail text is English)."""
    if isinstance(refusal, RoomNotFound) and refusal.code == "error":
        with i18n.use_language(lang):
            return i18n.gettext("There is no room with that code. Check the code on the board.")
    return translate_refusal(refusal.code, refusal.detail, lang)


def translate_refusal(
    code: str | None,
    detail: str,
    lang: str,
    *,
    game: str | None = None,
    params: Mapping[str, Any] | None = None,
) -> str:
    """A refusal in ``lang``, by its code where the catalog has it (the room's codes, then
    ``game``'s engine codes filled in from ``params``), else its own detail (issue 13.10: a
    Czech phone read the server's English)."""
    with i18n.use_language(lang):
        text = _refusal_texts().get(code or "")
        if text is None and code and game is not None:
            text = screens_for(game).refusal_text(code, params or {})
    return text if text is not None else detail


def _refusal_texts() -> dict[str, str]:
    """The refusals a page translates by code, in the current language."""
    return {
        "started": i18n.gettext("This game has already started."),
        "full": i18n.gettext("This room is full."),
        "name_empty": i18n.gettext("Please enter your name."),
        "name_too_long": i18n.ngettext(
            "Names are at most %(max)s character.",
            "Names are at most %(max)s characters.",
            NAME_MAX,
        )
        % {"max": NAME_MAX},
        "name_taken": i18n.gettext("That name is taken in this room. Pick another."),
        "show": i18n.gettext(
            "The board is still playing the last round out. Watch it; your turn comes next."
        ),
        "not_playing": i18n.gettext("There is no game running in this room."),
        "watching": i18n.gettext("You are watching this game; your turn comes later."),
        "not_your_turn": i18n.gettext("It is not your turn."),
        "host_moved": i18n.gettext(
            "The host's controls moved to another screen, with the host's PIN."
        ),
        "stale": i18n.gettext("The table moved on while you were choosing; here is the new sheet."),
        "bad_order": i18n.gettext("That order could not be read. Pick again from your sheet."),
        "malformed": i18n.gettext("That order could not be read. Pick again from your sheet."),
        "binary": i18n.gettext("Frames must be text: JSON objects."),
        "busy": i18n.gettext("This room is busy. Try again in a moment."),
        "unavailable": i18n.gettext(
            "The game server is briefly out of reach. Try again in a moment."
        ),
        "no_codes": i18n.gettext(
            "Every room code is in use right now. Try again in a few minutes."
        ),
        "invalid": i18n.gettext("The server could not handle that message."),
        "unknown_type": i18n.gettext("Unknown frame type; use order, ready or ping."),
        "not_finished": i18n.gettext("The game is not over yet."),
        "tournament_over": i18n.gettext("The tournament is over."),
        "bad_token": i18n.gettext("This seat's token is not valid here."),
        "render_failed": i18n.gettext("The page could not be drawn; reload it."),
        "not_host": i18n.gettext("Only the host can do this."),
        "bad_time": i18n.gettext("More time is ×1.5, ×2 or ×3, or no limit."),
        "bot_seat": i18n.gettext("A bot needs no more time."),
        "bad_options": i18n.gettext("Those settings do not fit this game."),
        "too_many_players": i18n.gettext(
            "Too many players for this game: remove some, or set up a tournament night."
        ),
    }


@router.post("/host", response_class=HTMLResponse)
async def host(request: Request, game: str = Form("")) -> Response:
    try:
        code, host_token = await rooms_of(request).create_room(game)
    except RoomError as refusal:
        return index_page(request, host_error=refusal.detail, status_code=refusal.status)
    response = RedirectResponse(f"/b/{code}", status_code=303)
    set_cookie(response, HOST_COOKIE.format(code=code), host_token)
    return response


# ------------------------------------------------------------------ routes: phone


@router.get("/r/{code}", response_class=HTMLResponse)
async def phone(request: Request, code: str) -> Response:
    code = clean_code(code)
    try:
        live = await rooms_of(request).room(code)
    except RoomNotFound:
        return RedirectResponse(f"/j/{quote(code)}", status_code=303)
    token = seat_token(request, live)
    # The phone whose seat the host handed to a bot stays in the room: it watches.
    held = live.phone_seat(token)
    if held is None:
        back = "?back=1" if seat_played_elsewhere(live, token) else ""
        return RedirectResponse(f"/j/{live.code}{back}", status_code=303)
    holder, handed = held
    lang = request_language(request)
    if request.cookies.get(LANG_COOKIE) is None:
        lang = i18n.normalize_language(holder.lang) or lang
    payload = rooms_of(request).payloads.seat_payload(live, holder, handed=handed)
    # The socket proves the seat with the seat cookie: a token in the URL would be logged.
    socket_url = f"/ws/rooms/{live.code}?" + urlencode({"format": "html", "lang": lang})
    back_cookie = BACK_COOKIE.format(code=live.code)
    html = render(
        "phone.html",
        lang,
        code=live.code,
        token=token,
        seat_name=holder.name,
        socket_url=socket_url,
        view_html=Markup(render_phone_view(live, payload, lang)),
        path=request.url.path,
        new_pin=holder.pin if not handed and request.cookies.get(back_cookie) else "",
    )
    response = HTMLResponse(html)
    if back_cookie in request.cookies:
        response.delete_cookie(back_cookie)
    return response


@router.post("/r/{code}/restore")
async def restore_seat(request: Request, code: str, token: str = Form("")) -> Response:
    """The localStorage fallback: a phone whose cookie is gone sends its saved seat token."""
    code = clean_code(code)
    try:
        live = await rooms_of(request).room(code)
    except RoomNotFound as missing:
        return index_page(request, code=code, error=missing.detail, status_code=404)
    if live.phone_seat(token) is None:
        gone = seat_played_elsewhere(live, token)
        return index_page(
            request, code=live.code, forget_seat=live.code, come_back=gone, status_code=401
        )
    response = RedirectResponse(f"/r/{live.code}", status_code=303)
    set_cookie(response, SEAT_COOKIE.format(code=live.code), token)
    return response


@router.post("/r/{code}/predict")
async def phone_predict(
    request: Request, code: str, winner: str = Form(""), ending: str = Form("")
) -> Response:
    """A watcher's prediction from its phone: who wins and, in Heirs, how it ends. htmx
    gets 204 (the websocket redraws the card with the pick); a pick still missing its other
    half is kept in the page until it is complete."""
    code = clean_code(code)
    rooms = rooms_of(request)
    lang = request_language(request)
    try:
        live = await rooms.room(code)
        seat, token = await seat_from_cookie(request, live)
        if seat is None:
            return RedirectResponse(f"/j/{live.code}", status_code=303)
        offer = rooms.payloads.seat_payload(live, seat).get("prediction")
        endings = list((offer or {}).get("endings") or [])
        if not winner.strip().lstrip("-").isdigit() or (endings and not ending):
            return Response(status_code=204)  # half a pick: wait for the other half
        await rooms.predict(code, token, int(winner), ending or None)
    except RoomError as refusal:
        with i18n.use_language(lang):
            detail = (
                i18n.gettext("Predictions close when the match's first move is played.")
                if refusal.code == "no_prediction"
                else refusal.detail
            )
        if request.headers.get("HX-Request"):
            return PlainTextResponse(detail, status_code=refusal.status)
        return page(request, "missing.html", status_code=refusal.status, code=code, detail=detail)
    if request.headers.get("HX-Request"):
        return Response(status_code=204)
    return RedirectResponse(f"/r/{code}", status_code=303)


# ------------------------------------------------------------------ routes: board


@router.get("/b/{code}", response_class=HTMLResponse)
async def board(request: Request, code: str) -> Response:
    code = clean_code(code)
    rooms = rooms_of(request)
    try:
        live = await rooms.room(code)
    except RoomNotFound as missing:
        return page(request, "missing.html", status_code=404, code=code, detail=missing.detail)
    if code != live.code:
        return RedirectResponse(f"/b/{live.code}", status_code=303)
    host_token = request.cookies.get(HOST_COOKIE.format(code=live.code), "")
    is_host = live.is_host(host_token)
    lang = request_language(request)
    settings: Settings = request.app.state.settings
    join_url = join_url_for(settings, live.code)
    # The host's socket proves the host with the host cookie, never with a token in the URL.
    socket_url = f"/ws/rooms/{live.code}/board?" + urlencode({"format": "html", "lang": lang})
    view_html = render_board_view(
        live,
        rooms.payloads.board_payload(live, host=is_host),
        lang,
        host=is_host,
        join_url=join_url,
        **turned_away(live),
    )
    html = render(
        "board.html",
        lang,
        code=live.code,
        socket_url=socket_url,
        view_html=Markup(view_html),
        join_url=join_url,
        path=request.url.path,
    )
    return HTMLResponse(html)


@router.get("/b/{code}/host", response_class=HTMLResponse)
async def host_back_form(request: Request, code: str) -> Response:
    """The host's controls on another screen: the host's PIN, asked."""
    try:
        live = await rooms_of(request).room(clean_code(code))
    except RoomNotFound as missing:
        return page(request, "missing.html", status_code=404, code=code, detail=missing.detail)
    return page(request, "host_back.html", code=live.code)


@router.post("/b/{code}/host", response_class=HTMLResponse)
async def host_back(request: Request, code: str, pin: str = Form("")) -> Response:
    """The host's PIN brings the host's controls to this screen (``reclaim_host``); the
    screen that had them keeps the board only."""
    code = clean_code(code)
    lang = request_language(request)
    form_path = f"/b/{code}/host"
    wait = ratelimit.wait_for("reclaim", request)
    if wait is not None:
        return page(
            request,
            "host_back.html",
            status_code=429,
            headers=ratelimit.retry_headers(wait),
            code=code,
            error=ratelimit.refusal_text(wait, lang),
            path=form_path,
        )
    try:
        token, _pin = await rooms_of(request).reclaim_host(code, pin)
    except RoomNotFound as missing:
        return page(request, "missing.html", status_code=404, code=code, detail=missing.detail)
    except RoomError as refusal:
        return page(
            request,
            "host_back.html",
            status_code=refusal.status,
            code=code,
            error=translate_host_back_error(refusal, lang),
            path=form_path,
        )
    response = RedirectResponse(f"/b/{code}", status_code=303)
    set_cookie(response, HOST_COOKIE.format(code=code), token)
    return response


def translate_host_back_error(refusal: RoomError, lang: str) -> str:
    """Why the host's PIN was refused, in the page's language."""
    with i18n.use_language(lang):
        if refusal.code == "wrong_pin":
            return i18n.gettext(
                "That is not the host's PIN. It is on the host's board, under “Seat PINs”."
            )
        if refusal.code == "too_many_tries":
            return i18n.gettext("Too many wrong PINs for the host. Try again in a few minutes.")
        if refusal.code == "no_host_pin":
            return i18n.gettext(
                "This room was opened before host PINs: its host's controls stay on the "
                "screen that opened it."
            )
    return translate_room_error(refusal, lang)


@router.get("/b/{code}/qr.svg")
async def board_qr(request: Request, code: str) -> Response:
    code = clean_code(code)
    live = await rooms_of(request).room(code)
    qr = segno.make(join_url_for(request.app.state.settings, live.code), error="m")
    buffer = BytesIO()
    qr.save(buffer, kind="svg", scale=10, border=2, dark="#000000", light="#ffffff")
    return Response(
        buffer.getvalue(), media_type="image/svg+xml", headers={"Cache-Control": "max-age=3600"}
    )


async def host_action(request: Request, code: str, action: str, **params: Any) -> Response:
    """Run one host control; htmx gets 204 (the websocket shows the change), a plain form a
    redirect back to the board, and a refusal its reason with its status."""
    code = clean_code(code)
    rooms = rooms_of(request)
    token = request.cookies.get(HOST_COOKIE.format(code=code))
    try:
        if action == "start":
            await rooms.start(code, token)
        elif action == "bot":
            await rooms.add_bot(code, token, str(params.get("style") or "") or None)
        elif action == "pause":
            await rooms.set_paused(code, token, bool(params["paused"]))
        elif action == "options":
            await rooms.set_options(code, token, params.get("options") or {}, params.get("game"))
        elif action == "kick":
            await rooms.kick(code, token, params["seat"])
        elif action == "time":
            await rooms.set_time_factor(code, token, params["seat"], params["factor"])
        elif action == "timer":
            await rooms.set_timer(code, token, params["timer"])
        elif action == "move":
            await rooms.move_seat(code, token, params["seat"], params["to"])
        elif action == "again":
            await rooms.play_again(code, token)
        elif action == "tournament":
            await rooms.set_tournament(code, token, params.get("tournament"))
        elif action == "skip":
            await rooms.skip_show(code, token, to_the_end=bool(params.get("all")))
        elif action == "standings":
            await rooms.set_standings(code, token, bool(params.get("shown")))
    except RoomError as refusal:
        detail = translate_room_error(refusal, request_language(request))
        if request.headers.get("HX-Request"):
            return PlainTextResponse(detail, status_code=refusal.status)
        return page(request, "missing.html", status_code=refusal.status, code=code, detail=detail)
    if request.headers.get("HX-Request"):
        return Response(status_code=204)
    return RedirectResponse(f"/b/{code}", status_code=303)


@router.post("/b/{code}/start")
async def board_start(request: Request, code: str) -> Response:
    return await host_action(request, code, "start")


@router.post("/b/{code}/bots")
async def board_add_bot(request: Request, code: str, style: str = Form("")) -> Response:
    return await host_action(request, code, "bot", style=style)


@router.post("/b/{code}/pause")
async def board_pause(request: Request, code: str, paused: int = Form(...)) -> Response:
    return await host_action(request, code, "pause", paused=paused)


@router.post("/b/{code}/options")
async def board_options(request: Request, code: str) -> Response:
    """The lobby's options form: a number stays a number, an empty field drops the option."""
    form = await request.form()
    options: dict[str, Any] = {}
    # The options of another game of the night than the room's own (its form says which).
    game = str(form.get("night_game") or "") or None
    for key, value in form.items():
        if key == "night_game":
            continue
        if key.endswith("[]"):  # a list of checkboxes: every ticked value
            options[key[:-2]] = [str(v) for v in form.getlist(key) if str(v).strip()]
            continue
        text = str(value).strip()
        options[key] = int(text) if text.lstrip("-").isdigit() else (text or None)
    return await host_action(request, code, "options", options=options, game=game)


@router.post("/b/{code}/seats/{seat}/kick")
async def board_kick(request: Request, code: str, seat: int) -> Response:
    return await host_action(request, code, "kick", seat=seat)


@router.post("/b/{code}/seats/{seat}/time")
async def board_more_time(
    request: Request, code: str, seat: int, factor: str = Form("1")
) -> Response:
    """The host's "more time" for one seat: 1, 1.5, 2 or 3 times the timer, or ``none``."""
    chosen: float | None = None
    if factor != "none":
        try:
            chosen = float(factor)
        except ValueError:
            chosen = -1.0  # refused by the room service, with its reason
    return await host_action(request, code, "time", seat=seat, factor=chosen)


@router.post("/b/{code}/timer")
async def board_timer(request: Request, code: str, timer: str = Form("")) -> Response:
    """The host's sealing timer during a game: seconds, or empty to turn it off."""
    text = timer.strip()
    seconds = int(text) if text.isascii() and text.isdigit() else (-1 if text else None)
    return await host_action(request, code, "timer", timer=seconds)


@router.post("/b/{code}/seats/{seat}/move")
async def board_move(request: Request, code: str, seat: int, to: int = Form(...)) -> Response:
    return await host_action(request, code, "move", seat=seat, to=to)


@router.post("/b/{code}/tournament")
async def board_tournament(request: Request, code: str) -> Response:
    """Host, in the lobby: a night of games — one game N times or a list of games (a mixed
    night), with Final x2 (H20.3) and Catch-up (H20.4); "single" turns it back into one game."""
    form = await request.form()
    plan: dict[str, Any] | None = None
    if form.get("mode") != "single":
        games = [str(g) for g in form.getlist("games") if g]
        if games:  # the list of games, played "rounds" times over
            plan = {"games": games, "rounds": _form_int(form.get("rounds"), 1)}
        else:  # the room's own game, "count" (or "rounds") times
            plan = {"count": _form_int(form.get("count") or form.get("rounds"), 3)}
        plan["final_double"] = form.get("final_double") == "1"
        plan["catch_up"] = form.get("catch_up") == "1"
    return await host_action(request, code, "tournament", tournament=plan)


def _form_int(raw: Any, default: int) -> int:
    try:
        return int(str(raw))
    except ValueError:
        return default


@router.post("/b/{code}/again")
async def board_again(request: Request, code: str) -> Response:
    return await host_action(request, code, "again")


@router.post("/b/{code}/standings")
async def board_standings(request: Request, code: str, shown: int = Form(1)) -> Response:
    """Host, between games: show the standings now (``shown=1``) or dismiss them and go
    back to the result (``shown=0``)."""
    return await host_action(request, code, "standings", shown=shown)


@router.post("/b/{code}/show/skip")
async def board_skip_show(request: Request, code: str, all: int = Form(0)) -> Response:
    """Host, while the board plays a resolution out: end this show; ``all=1`` also plays
    every later resolution of the match at once (fast-forward to the end)."""
    return await host_action(request, code, "skip", all=all)


# ------------------------------------------------------------------ routes: replays

REPLAY_STEP_MS = 2000
"""How long the replay page's play button holds each step."""


REPLAY_CACHE_SIZE = 8


async def load_replay(request: Request, code: str, match: int, token: str | None) -> JSON:
    """The room service's replay of a finished match (public views, or a seat's own).

    A finished match never changes, so the page's step requests share one rebuild: the app
    keeps the last few replays."""
    cache: dict[tuple[str, int, str], JSON] = getattr(request.app.state, "replays", None) or {}
    request.app.state.replays = cache
    key = (code, match, token or "")
    if key in cache:
        return cache[key]
    result: Any = rooms_of(request).replay(code, match, token)
    if inspect.isawaitable(result):
        result = await result
    replay: JSON = result
    cache[key] = replay
    while len(cache) > REPLAY_CACHE_SIZE:
        cache.pop(next(iter(cache)))
    return replay


def replay_rounds(steps: list[JSON]) -> list[JSON]:
    """The round list of a replay: each round's number and first step."""
    rounds: list[JSON] = []
    for index, step in enumerate(steps):
        number = int(step.get("round") or 0)
        if not rounds or rounds[-1]["round"] != number:
            rounds.append({"round": number, "first": index, "last": index})
        rounds[-1]["last"] = index
    return rounds


def replay_payload(
    live: LiveRoom, replay: JSON, index: int, you: JSON | None = None
) -> tuple[JSON, JSON]:
    """One step of a replay as the payload the live screens draw: the step's view, the steps
    of its round so far as the playback (the step itself current), earlier rounds as the
    history, and the proofs of the step's round. Returns the payload and the step facts."""
    steps: list[JSON] = list(replay.get("steps") or [])
    index = min(max(index, 0), len(steps) - 1)
    step = steps[index]
    number = int(step.get("round") or 0)
    rounds = replay_rounds(steps)
    here = next(r for r in rounds if r["first"] <= index <= r["last"])
    players = list(replay.get("players") or [])
    seats = [
        {"seat": int(p.get("seat", n)), "name": p.get("name", ""), "bot": bool(p.get("bot"))}
        for n, p in enumerate(players)
    ]
    view = step.get("view") or {}
    last = index == len(steps) - 1
    outcome = view_outcome(view) if last else None
    playback: list[JSON] = [
        {"round": s.get("round"), "events": list(s.get("events") or []), "view": s.get("view")}
        for s in steps[here["first"] : index + 1]
    ]
    events: list[JSON] = [e for s in playback for e in s["events"]]
    history = [
        {"round": s.get("round"), "events": s.get("events") or []} for s in steps[: here["first"]]
    ]
    proofs = [p for s in steps[here["first"] : here["last"] + 1] for p in s.get("proofs") or []]
    payload: JSON = {
        "code": live.code,
        "game": replay.get("game") or live.game,
        "status": "finished" if last else "playing",
        "seats": seats,
        "players": seats,
        "min_players": len(seats),
        "max_players": len(seats),
        "match": replay.get("match"),
        "version": index,
        "to_act": [],
        "outcome": outcome,
        "ready": [],
        "options": {},
        "paused": False,
        "deadline": None,
        "timer_left": None,
        "tournament": None,
        "view": view,
        "events": events,
        "playback": playback,
        "history": history,
        "show": None,
        "commitments": {},
        "reveals": {},
        "fast_forward": False,
        "replaying": True,
    }
    if you is not None:
        payload["you"] = you
        payload["prompt"] = None
    facts = {
        "index": index,
        "count": len(steps),
        "round": number,
        "rounds": rounds,
        "round_step": index - here["first"] + 1,
        "round_steps": here["last"] - here["first"] + 1,
        "proofs": proofs,
        "events": step.get("events") or [],
    }
    return payload, facts


def finished_matches(payload: Mapping[str, Any]) -> list[int]:
    """The room's matches that may be replayed: every earlier one, and the current one once
    it has an outcome."""
    current = payload.get("match")
    if not current:
        return []
    last = int(current) if payload.get("outcome") else int(current) - 1
    return list(range(1, last + 1))


async def replay_page(
    request: Request, code: str, match: int, *, phone: bool, step: int | None
) -> Response:
    code = clean_code(code)
    rooms = rooms_of(request)
    try:
        live = await rooms.room(code)
    except RoomNotFound as missing:
        return page(request, "missing.html", status_code=404, code=code, detail=missing.detail)
    lang = request_language(request)
    token: str | None = None
    if phone:
        seat, token = await seat_from_cookie(request, live)
        if seat is None:  # no seat here (any more): the public replay
            return RedirectResponse(f"/b/{live.code}/replay/{match}", status_code=303)
        if request.cookies.get(LANG_COOKIE) is None:
            lang = i18n.normalize_language(seat.lang) or lang
    try:
        replay = await load_replay(request, live.code, match, token)
    except RoomError as refusal:
        with i18n.use_language(lang):
            detail = (
                i18n.gettext("This match can be watched again once it has ended.")
                if refusal.status == 409
                else i18n.gettext("There is no such match in this room.")
            )
        return page(
            request, "missing.html", status_code=refusal.status, code=live.code, detail=detail
        )
    if not replay.get("steps"):
        return page(request, "missing.html", status_code=404, code=live.code, detail="")
    index = min(max(step or 0, 0), len(replay["steps"]) - 1)
    step_html = render_replay_step(live, replay, index, lang, phone=phone, token=token)
    html = render(
        "replay.html",
        lang,
        code=live.code,
        game=replay.get("game") or live.game,
        match=match,
        phone=phone,
        matches=finished_matches(rooms.payloads.board_payload(live)),
        step_html=Markup(step_html),
        step_ms=REPLAY_STEP_MS,
        path=request.url.path,
    )
    return HTMLResponse(html)


def render_replay_step(
    live: LiveRoom, replay: JSON, index: int, lang: str, *, phone: bool, token: str | None
) -> str:
    """One step of a replay: the game's own board (or phone) screen drawn from the step's
    view, the step's log lines, its round's sealed-order proofs and the step controls."""
    you = None
    if phone:
        seat = live.seat_by_token(token)
        players = list(replay.get("players") or [])
        engine = next(
            (
                n
                for n, p in enumerate(players)
                if seat is not None and p.get("seat") == seat.position
            ),
            None,
        )
        you = {
            "seat": seat.position if seat else 0,
            "name": seat.name if seat else "",
            "lang": lang,
            "player": engine,
        }
    payload, facts = replay_payload(live, replay, index, you)
    game = str(payload["game"])
    if phone:
        context = screen_context(game, payload, lang, board=False, replay=True)
    else:
        context = screen_context(game, payload, lang, board=True, replay=True)
    with i18n.use_language(lang):
        seat_of = context["you"]["player"] if phone else None
        step_lines = round_lines(game, facts["events"], payload, seat_of)
        labels = {r["round"]: screens_for(game).round_label(r["round"]) for r in facts["rounds"]}
        proofs = proof_rows(payload, facts["proofs"])
    return render(
        "fragments/replay_step.html",
        lang,
        code=live.code,
        match=replay.get("match"),
        phone=phone,
        host=False,
        join_url="",
        step=facts,
        step_lines=step_lines,
        round_labels=labels,
        proofs=proofs,
        **context,
    )


@router.get("/b/{code}/replay/{match}", response_class=HTMLResponse)
async def board_replay(
    request: Request, code: str, match: int, step: int | None = None
) -> Response:
    """A finished match again on the TV: step forward and back, play, jump to a round."""
    return await replay_page(request, code, match, phone=False, step=step)


@router.get("/r/{code}/replay/{match}", response_class=HTMLResponse)
async def phone_replay(
    request: Request, code: str, match: int, step: int | None = None
) -> Response:
    """A finished match again on a phone, with the seat's own secrets."""
    return await replay_page(request, code, match, phone=True, step=step)


async def replay_step(request: Request, code: str, match: int, index: int, phone: bool) -> Response:
    code = clean_code(code)
    try:
        live = await rooms_of(request).room(code)
    except RoomNotFound as missing:
        return PlainTextResponse(missing.detail, status_code=404)
    token: str | None = None
    if phone:
        seat, token = await seat_from_cookie(request, live)
        if seat is None:
            return PlainTextResponse("This seat's token is not valid here.", status_code=401)
    try:
        replay = await load_replay(request, live.code, match, token)
    except RoomError as refusal:
        return PlainTextResponse(refusal.detail, status_code=refusal.status)
    if not replay.get("steps"):
        return PlainTextResponse("This match has no steps.", status_code=404)
    lang = request_language(request)
    html = render_replay_step(live, replay, index, lang, phone=phone, token=token)
    return HTMLResponse(html)


@router.get("/b/{code}/replay/{match}/step/{index}", response_class=HTMLResponse)
async def board_replay_step(request: Request, code: str, match: int, index: int) -> Response:
    """The replay page's fragment for step ``index`` (htmx swaps it in)."""
    return await replay_step(request, code, match, index, phone=False)


@router.get("/r/{code}/replay/{match}/step/{index}", response_class=HTMLResponse)
async def phone_replay_step(request: Request, code: str, match: int, index: int) -> Response:
    return await replay_step(request, code, match, index, phone=True)

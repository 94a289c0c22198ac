"""Load benchmark: the real server, R Heirs of the Axis rooms, 6 phones and 1 board each.

Starts ``pecet serve`` on a fresh SQLite file (or ``--processes N`` of them sharing it through
a throwaway Redis, room i played on process i % N), opens R rooms through the JSON API, seats
six phones in each, starts the matches and connects every phone and board websocket. Then
every phone plays whole rounds with the real protocol: when its view has a prompt, it waits a
random moment within ``--window`` seconds and seals an order read off the prompt. With
``--format html`` the sockets are the pages' own (``format=html&lang=en``): every view is a
whole HTML fragment, and a phone reads the Heirs sheet's form off it, fills it in and sends
its fields as htmx-ext-ws sends a form. It measures

- last seal → board: from sending the last seal of a round to the board's first frame that
  shows that round resolved (its ``show`` or newest ``history`` round; in HTML, the
  fragment's ``data-show-round`` or its log's newest ``data-round``);
- seal → acknowledgement: from sending an order to the phone's next frame that shows it
  sealed (its own ``sealed`` notice, or a view with ``my_commitment`` set or no prompt any
  more; in HTML, a fragment without a decision form) or refuses it (an error frame);
- server RSS and CPU, client CPU, frames and bytes per kind, refusals and errors.

    .venv/bin/python bench/load.py [--rooms R] [--rounds N | --seconds S] [--window W]
                                   [--saturate] [--format {json,html}] [--clients K]
                                   [--processes N] [--database-url URL]
                                   [--find-rooms [--p99-ms MS]] [--json PATH]

Every figure is printed as one line of a plain table; ``--json`` writes the same figures.
``--find-rooms`` instead runs a few short probes to find the most rooms whose p99 last seal →
board stays within ``--p99-ms``.
"""

from __future__ import annotations

import abc
import argparse
import asyncio
import collections
import contextlib
import json
import math
import multiprocessing
import multiprocessing.synchronize
import os
import queue
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, Generic, TypeVar
from urllib.parse import urlencode

import httpx
import orjson
import redis
import uvloop
from sqlalchemy.engine import make_url
from start import compile_bytecode  # bench/start.py, beside this script
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

# The throwaway Redis and PostgreSQL databases the tests use serve the runs here too.
from tests.services import LocalAddress, PostgresDatabases, free_port, redis_server, stop_process

JSON = dict[str, Any]

PROJECT_DIR = Path(__file__).resolve().parent.parent
GAME = "heirs"
PHONES_PER_ROOM = 6
MAX_HEIRS_ROUNDS = 20
"""The longest game of Heirs a room may be set up for (seeds/heirs/setup.json)."""
DEFAULT_HEIRS_ROUNDS = 12
CONNECT_AT_ONCE = 50
"""Websockets opened at the same time; more would only queue in the server's backlog."""
ROOMS_OPENED_AT_ONCE = 8
RETRIES_PER_DECISION = 4
"""Refusals one phone takes for one decision before it gives that decision up."""
ACK_GRACE = 10.0
"""Seconds the run waits at its end for orders still without an answer."""
CLIENT_BUSY_PERCENT = 70.0
"""A client process busier than this may be what holds the figures back."""
FRAME_TYPE = re.compile(r'\{\s*"type"\s*:\s*"([A-Za-z_]+)"')
"""The server writes ``type`` first; reading it off the head spares parsing idle frames."""
NO_PROMPT = ('"prompt": null', '"prompt":null')
"""A view without a decision, told from its text: ``prompt`` is a top-level key only, and
inside a JSON string its quotes would be escaped. Such views (the first and last step of
the board's show) need no parsing on a phone that waits for nothing but its next prompt;
the ``step`` frames between them it does not read at all."""


# ------------------------------------------------------------------ what a phone draws

BUILD_CHANCE = 0.5
"""How often a phone builds, when its sheet offers a building it can pay for."""
LEARN_CHANCE = 0.5
"""How often a phone learns, when its sheet offers an ability it can pay for."""
TRICK_CHANCE = 0.3
"""How often a phone plays a trick, when its sheet offers one that costs nothing (tricks that
cost something compete with recruits and buildings for the same resources)."""

Choice = TypeVar("Choice")
Expedition = TypeVar("Expedition")
Trick = TypeVar("Trick")
Result = TypeVar("Result")


def run_client(main: Coroutine[Any, Any, Result]) -> Result:
    """Drive the phones on uvloop's event loop, as the server runs (uvicorn takes it where it
    is installed): at 1,000 seals/s the client reads about 15 frames a seal, and on asyncio's
    own loop its work per frame held the figures back before the server's did."""
    return uvloop.run(main)


def maybe_choice(rng: random.Random, options: Sequence[Choice], chance: float) -> Choice | None:
    """One of ``options`` at random, ``chance`` of the times; None otherwise or without any."""
    if options and rng.random() < chance:
        return rng.choice(options)
    return None


def draw_setup(
    colours: Sequence[str], characters: Sequence[str], rng: random.Random, simplest: bool
) -> tuple[str, str]:
    """A colour and a character among those offered: at random, or the first of each."""
    if simplest:
        return colours[0], characters[0]
    return rng.choice(colours), rng.choice(characters)


@dataclass(frozen=True)
class OrderMenu(Generic[Expedition, Trick]):
    """What a Heirs order sheet offers, however the phone read it (a JSON prompt, an HTML
    form): the choices of each part, each one affordable on its own."""

    expeditions: Sequence[Expedition]
    recruit_most: int
    buildings: Sequence[str]
    abilities: Sequence[str]
    free_tricks: Sequence[Trick]
    """Only tricks that cost nothing: the rest compete with recruits and buildings."""


@dataclass(frozen=True)
class OrderDraw(Generic[Expedition, Trick]):
    """One order's choices, part by part (a trick's target or field is drawn by the reader,
    which knows what the sheet offers for it)."""

    expedition: Expedition
    recruit: int
    build: str | None
    learn: str | None
    trick: Trick | None


def draw_order(
    menu: OrderMenu[Expedition, Trick], rng: random.Random
) -> OrderDraw[Expedition, Trick]:
    """Each part of an order at random among what the menu offers. Parts that compete for the
    same resources may still add up to a refusal, which the phone counts and recovers from, as
    a player would."""
    return OrderDraw(
        expedition=rng.choice(menu.expeditions),
        recruit=rng.randint(0, max(0, menu.recruit_most)),
        build=maybe_choice(rng, menu.buildings, BUILD_CHANCE),
        learn=maybe_choice(rng, menu.abilities, LEARN_CHANCE),
        trick=maybe_choice(rng, menu.free_tricks, TRICK_CHANCE),
    )


def order_from_prompt(prompt: JSON, rng: random.Random, simplest: bool = False) -> JSON:
    """An order read off a Heirs prompt alone, as a phone's sheet would fill it in.

    ``simplest`` gives the prompt's own default (the order a timer would seal, H5.1), or at
    setup the first colour and character offered: what a phone falls back to after a refusal.
    Otherwise each part is drawn at random among what the prompt offers and calls affordable
    (:func:`draw_order`)."""
    kind = prompt.get("kind")
    if kind == "setup":
        colour, character = draw_setup(prompt["colours"], prompt["characters"], rng, simplest)
        return {"colour": colour, "character": character}
    default: JSON = dict(prompt.get("default") or {})
    if kind != "orders" or simplest:
        return default
    order = default
    expedition = prompt["expedition"]
    expeditions: list[JSON] = [{"kind": "stay", "field": None}]
    for expedition_kind in ("move", "attack", "scout"):
        for target in expedition.get(expedition_kind) or ():
            expeditions.append({"kind": expedition_kind, "field": target})
    recruit = prompt["recruit"]
    menu = OrderMenu(
        expeditions=expeditions,
        recruit_most=min(recruit["cap"], recruit["affordable"]),
        buildings=[b["id"] for b in prompt["buildings"] if b["affordable"]],
        abilities=[a["id"] for a in prompt["abilities"] if a["affordable"]],
        free_tricks=[
            t for t in prompt["tricks"] if t["affordable"] and not any(t["cost"].values())
        ],
    )
    draw = draw_order(menu, rng)
    order["expedition"] = draw.expedition
    order["recruit"] = draw.recruit
    if draw.build is not None:
        order["build"] = draw.build
    if draw.learn is not None:
        order["learn"] = draw.learn
    trick = draw.trick
    if trick is not None:
        played: JSON = {"card": trick["card"]}
        if "targets" in trick:
            if trick["targets"]:
                played["target"] = rng.choice(trick["targets"])
                order["trick"] = played
        elif "fields_after" in trick or "fields" in trick:
            # The extra step starts where the expedition ends: the fields offered after it.
            after = trick.get("fields_after") or {}
            chosen = draw.expedition
            ends = after.get(chosen["kind"])
            fields = ends.get(chosen["field"], []) if isinstance(ends, dict) else ends
            if fields is None:
                fields = trick.get("fields") or []
            if fields:
                played["field"] = rng.choice(fields)
                order["trick"] = played
        else:
            order["trick"] = played
    return order


def decision_round(prompt: JSON) -> int:
    """The round a prompt decides, as the board names its resolution (setup is round 0)."""
    return int(prompt.get("round", 0)) if prompt.get("kind") == "orders" else 0


# ------------------------------------------------------------------ reading HTML fragments

HTML_QUERY = "?" + urlencode({"format": "html", "lang": "en"})
"""What the phone and board pages add to their socket's address (app/pages.py)."""
FRAGMENT_HEAD = re.compile(r'\s*<[a-z]+ id="([\w-]+)"')
FRAGMENT_KINDS = {
    "phone-view": "fragment",
    "board-view": "fragment",
    "phone-error": "error",
    "board-flash": "error",
}
"""A fragment's kind by the id of its first element: a whole view (fragments/phone_view.html,
board_view.html), or a refusal (fragments/error.html, which the views' own empty
``phone-error`` and ``board-flash`` follow, never lead)."""
ERROR_CODE = re.compile(r'data-error-code="([^"]*)"')
DECISION_FORM = re.compile(r'<input type="hidden" name="action" value="heirs_(setup|orders)">')
"""The hidden ``action`` of the Heirs forms that seal a decision, setup or orders
(templates/games/heirs/phone.html): a phone's fragment holds one while the seat has a
decision to make, and none once its order is sealed (its "Sealed" card), during the show or
at the end."""
FORM_VERSION = re.compile(r'<input type="hidden" name="version" value="(\d+)">')
FORM_MATCH = re.compile(r'<input type="hidden" name="match" value="(\d+)">')
DRAFT_ROUND = re.compile(r'data-draft-key="[^"]*:(\d+)"')
"""The round of an order sheet: the last part of the key heirs.js files its draft under."""
SHOW_ROUND = re.compile(r'data-show-round="(\d+)"')
"""A board showing a round play out (templates/games/heirs/board.html)."""
NEWEST_LOG_ROUND = re.compile(r'class="log-round newest" data-round="(\d+)"')
"""The newest round of the board's log (templates/fragments/_log.html)."""
BOARD_FINISHED = 'data-status="finished"'
UNSUBMITTED_INPUTS = frozenset({"submit", "button", "reset", "image", "file"})


def json_frame_kind(text: str) -> str:
    head = FRAME_TYPE.match(text)
    return head.group(1) if head else str(orjson.loads(text).get("type"))


def html_frame_kind(text: str) -> str:
    """``fragment`` or ``error`` (:data:`FRAGMENT_KINDS`); a JSON frame's type, should one
    come (a pong); else ``other``."""
    head = FRAGMENT_HEAD.match(text)
    if head is not None:
        return FRAGMENT_KINDS.get(head.group(1), f"#{head.group(1)}")
    return json_frame_kind(text) if text.lstrip().startswith("{") else "other"


def error_code(fragment: str) -> str:
    code = ERROR_CODE.search(fragment)
    return code.group(1) if code else "unknown"


@dataclass(frozen=True)
class SelectOption:
    value: str
    selected: bool
    disabled: bool


@dataclass
class FormControl:
    """An ``input`` or ``select`` of a form, as the page sent it."""

    name: str
    kind: str
    """An input's ``type`` (``text`` when it has none), or ``select``."""
    value: str
    attributes: dict[str, str | None]
    options: list[SelectOption] = field(default_factory=list)

    @property
    def checked(self) -> bool:
        return "checked" in self.attributes

    @property
    def disabled(self) -> bool:
        return "disabled" in self.attributes

    def option_values(self) -> list[str]:
        return [option.value for option in self.options if not option.disabled]

    def selected_value(self) -> str | None:
        """The option a browser submits: the last one marked selected, else the first that
        is not disabled; None for a select without options."""
        marked = [option for option in self.options if option.selected]
        if marked:
            return marked[-1].value
        return next(iter(self.option_values()), None)


@dataclass
class SheetForm:
    """A ``ws-send`` form of a fragment: its own attributes and its controls, in order."""

    attributes: dict[str, str | None]
    controls: list[FormControl] = field(default_factory=list)

    def named(self, name: str) -> list[FormControl]:
        return [control for control in self.controls if control.name == name]

    def control(self, name: str) -> FormControl | None:
        return next(iter(self.named(name)), None)

    def enabled_values(self, name: str) -> list[str]:
        """The values of the controls named ``name`` a player can tap (a radio group)."""
        return [control.value for control in self.named(name) if not control.disabled]

    def checked_value(self, name: str) -> str | None:
        return next((c.value for c in self.named(name) if c.checked and not c.disabled), None)


class FormReader(HTMLParser):
    """The ``ws-send`` forms of a fragment, with their inputs and selects."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.forms: list[SheetForm] = []
        self._form: SheetForm | None = None
        self._select: FormControl | None = None
        self._option: dict[str, str | None] | None = None
        """The attributes of an ``option`` whose text is being read (one without a value)."""
        self._option_text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if tag == "form":
            if "ws-send" in attributes:
                self._form = SheetForm(attributes)
                self.forms.append(self._form)
            return
        if self._form is None:
            return
        if tag == "input":
            kind = (attributes.get("type") or "text").lower()
            # A checkbox or radio without a value submits "on", as in a browser.
            default = "on" if kind in ("checkbox", "radio") else ""
            value = attributes.get("value")
            self._form.controls.append(
                FormControl(
                    attributes.get("name") or "",
                    kind,
                    default if value is None else value,
                    attributes,
                )
            )
        elif tag == "select":
            self._select = FormControl(attributes.get("name") or "", "select", "", attributes)
            self._form.controls.append(self._select)
        elif tag == "option" and self._select is not None:
            self._end_option()
            self._option, self._option_text = attributes, []

    def handle_data(self, data: str) -> None:
        if self._option is not None:
            self._option_text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("option", "select"):
            self._end_option()
        if tag == "select":
            self._select = None
        elif tag == "form":
            self._form = None

    def _end_option(self) -> None:
        option, self._option = self._option, None
        if option is None or self._select is None:
            return
        value = option.get("value")
        text = " ".join("".join(self._option_text).split())  # an option's text, stripped
        self._select.options.append(
            SelectOption(
                text if value is None else value, "selected" in option, "disabled" in option
            )
        )


def fragment_decision(fragment: str) -> Decision[str] | None:
    """The decision a phone's fragment asks for, None when it holds no decision form: the
    form's markup, with what tells the decision apart read off its hidden inputs (the
    ``version`` and ``match`` of the view it was drawn from) and, for orders, its round
    (setup is round 0). The form itself is parsed only when the phone fills it in: a phone
    gets a fresh fragment at every seal of the others, and reads most of them only for this."""
    action = DECISION_FORM.search(fragment)
    if action is None:
        return None
    start = fragment.rfind("<form", 0, action.start())
    end = fragment.find("</form>", action.end())
    markup = fragment[start : end + len("</form>")]
    version, match = FORM_VERSION.search(markup), FORM_MATCH.search(markup)
    if start < 0 or end < 0 or version is None or match is None:
        return None
    kind = action.group(1)
    round_number = 0
    if kind == "orders":
        drafted = DRAFT_ROUND.search(markup)
        if drafted is None:
            return None
        round_number = int(drafted.group(1))
    return Decision(int(match.group(1)), int(version.group(1)), kind, round_number, markup)


def parse_form(markup: str) -> SheetForm:
    """The first ``ws-send`` form of ``markup``, read with the standard library's parser."""
    reader = FormReader()
    reader.feed(markup)
    reader.close()
    if not reader.forms:
        raise ValueError("no ws-send form in the markup")
    return reader.forms[0]


def form_fields(form: SheetForm, choices: Mapping[str, str | None]) -> JSON:
    """The fields a browser submits for ``form`` (the entry list ``FormData`` builds: every
    enabled control with a name; radios and checkboxes only when checked; a select's selected
    option), once the player's ``choices`` are made: a name → the value its control takes
    (the radio of that value checked, the option selected, the input set), or None for a
    control the page's script disabled. A name sent twice becomes a list, as htmx sends it."""
    fields: JSON = {}
    for control in form.controls:
        name = control.name
        if not name or control.disabled or control.kind in UNSUBMITTED_INPUTS:
            continue
        chosen, changed = choices.get(name), name in choices
        if changed and chosen is None:
            continue
        value: str | None
        if control.kind in ("radio", "checkbox"):
            on = control.value == chosen if changed else control.checked
            value = control.value if on else None
        elif control.kind == "select":
            value = chosen if changed else control.selected_value()
        else:
            value = chosen if changed else control.value
        if value is None:
            continue
        held = fields.get(name)
        if held is None:
            fields[name] = value
        elif isinstance(held, list):
            held.append(value)
        else:
            fields[name] = [held, value]
    return fields


def fields_after(select: FormControl, expedition: str) -> list[str]:
    """The options heirs.js leaves in a select that follows the chosen expedition
    (``data-after``: the Shadow path's fields from where the expedition ends); a select that
    does not follow it keeps its own."""
    after_text = select.attributes.get("data-after")
    if after_text is None:
        return select.option_values()
    after = json.loads(after_text)
    kind, _, place = expedition.partition(":")
    fields = after.get(kind)
    if isinstance(fields, dict):
        fields = fields.get(place)
    return [str(f) for f in fields or []]


def sheet_choices(
    form: SheetForm, kind: str, rng: random.Random, simplest: bool
) -> dict[str, str | None]:
    """What a player changes on a Heirs sheet before sealing it, for :func:`form_fields`.

    ``simplest`` leaves the sheet as the page drew it (at setup its first colour and
    character, for orders the default order): what a phone falls back to after a refusal.
    Otherwise the choices are drawn as the JSON mode draws them from a prompt, among what the
    form lets a player tap (:func:`draw_order`). Then, as the page's script does, each select
    that follows the expedition offers the fields after it; and a required radio group that
    the page left without a choice gets one at random, since the form would not submit."""
    choices: dict[str, str | None] = {}
    if kind == "setup" and not simplest:
        colours, characters = form.enabled_values("colour"), form.enabled_values("character")
        if colours and characters:
            choices["colour"], choices["character"] = draw_setup(colours, characters, rng, simplest)
    elif kind == "orders" and not simplest:
        _draw_on_sheet(form, rng, choices)
    if kind == "orders":
        expedition = choices.get("expedition") or form.checked_value("expedition") or "stay"
        for select in form.controls:
            if select.kind == "select" and "data-after" in select.attributes:
                offered = fields_after(select, expedition)
                kept = choices.get(select.name)
                choices[select.name] = kept if kept in offered else next(iter(offered), None)
    for control in form.controls:
        name = control.name
        if (
            control.kind == "radio"
            and "required" in control.attributes
            and name not in choices
            and form.checked_value(name) is None
            and form.enabled_values(name)
        ):
            choices[name] = rng.choice(form.enabled_values(name))
    return choices


def _draw_on_sheet(form: SheetForm, rng: random.Random, choices: dict[str, str | None]) -> None:
    """An order drawn among the sheet's enabled choices, written into ``choices``."""
    recruit = form.control("recruit")
    recruit_most = 0
    if recruit is not None and not recruit.disabled:
        recruit_most = int(recruit.attributes.get("max") or 0)
    free_tricks = [
        control.value
        for control in form.named("trick")
        if control.value
        and not control.disabled
        and not any(json.loads(control.attributes.get("data-cost") or "{}").values())
    ]
    menu = OrderMenu(
        expeditions=form.enabled_values("expedition") or ["stay"],
        recruit_most=recruit_most,
        buildings=[value for value in form.enabled_values("build") if value],
        abilities=[value for value in form.enabled_values("learn") if value],
        free_tricks=free_tricks,
    )
    draw = draw_order(menu, rng)
    choices["expedition"] = draw.expedition
    if recruit_most:
        choices["recruit"] = str(draw.recruit)
    if draw.build is not None:
        choices["build"] = draw.build
    if draw.learn is not None:
        choices["learn"] = draw.learn
    card = draw.trick
    if card is None:
        return
    target, place = form.control(f"target_{card}"), form.control(f"field_{card}")
    if target is not None:  # a trick aimed at a sibling: the page offers only those it may
        targets = target.option_values()
        if targets:
            choices[target.name] = rng.choice(targets)
            choices["trick"] = card
    elif place is not None:  # a trick with a field: where the expedition ends, for a Shadow path
        fields = fields_after(place, draw.expedition)
        if fields:
            choices[place.name] = rng.choice(fields)
            choices["trick"] = card
    else:
        choices["trick"] = card


def htmx_ws_message(fields: JSON, form: SheetForm, page_url: str) -> str:
    """What htmx-ext-ws sends when a ``ws-send`` form is submitted: its fields and
    ``HEADERS`` as ``htmx.getHeaders`` builds them (static/vendor/htmx-2.0.8.min.js and
    htmx-ext-ws-2.0.4.min.js): the triggering element's ``id`` and ``name`` (the form's,
    null when it has none), the target's ``id`` (the form itself: no ``hx-target`` is set on
    it or above it) and the page's address; ``JSON.stringify``'s compact text."""
    headers = {
        "HX-Request": "true",
        "HX-Trigger": form.attributes.get("id"),
        "HX-Trigger-Name": form.attributes.get("name"),
        "HX-Target": form.attributes.get("id"),
        "HX-Current-URL": page_url,
    }
    return json.dumps({**fields, "HEADERS": headers}, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class BoardNews:
    """What a board frame tells: the newest round it shows resolved, if any, of which match
    (None: the frame does not say), and whether the match is over."""

    match: int | None
    round: int | None
    finished: bool


def json_board_news(text: str) -> BoardNews | None:
    """A JSON view's ``show`` round, or the newest round of its ``history``."""
    view: JSON = orjson.loads(text)
    match = view.get("match")
    if match is None:
        return None
    show = view.get("show")
    history = view.get("history") or []
    newest = show["round"] if show else (history[-1]["round"] if history else None)
    return BoardNews(int(match), newest, view.get("status") == "finished")


def html_board_news(text: str) -> BoardNews:
    """A board fragment's ``data-show-round`` (the round its show plays out), or the
    ``data-round`` of its log's newest round; the fragment does not name the match."""
    shown = SHOW_ROUND.search(text) or NEWEST_LOG_ROUND.search(text)
    return BoardNews(None, None if shown is None else int(shown.group(1)), BOARD_FINISHED in text)


# ------------------------------------------------------------------ figures


@dataclass
class FrameTally:
    count: int = 0
    total_bytes: int = 0
    max_bytes: int = 0

    def add(self, size: int) -> None:
        self.count += 1
        self.total_bytes += size
        self.max_bytes = max(self.max_bytes, size)

    def merge(self, other: FrameTally) -> None:
        self.count += other.count
        self.total_bytes += other.total_bytes
        self.max_bytes = max(self.max_bytes, other.max_bytes)


@dataclass
class WorkerReport:
    """What one client process measured over its rooms."""

    sockets: int = 0
    board_ms: list[float] = field(default_factory=list)
    ack_ms: list[float] = field(default_factory=list)
    seals: int = 0
    order_rounds: int = 0
    setups: int = 0
    finished_games: int = 0
    refusals: dict[str, int] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    frames: dict[str, FrameTally] = field(default_factory=dict)
    started_at: float = 0.0
    finished_at: float = 0.0
    cpu_seconds: float = 0.0

    def count(self, table: dict[str, int], key: str) -> None:
        table[key] = table.get(key, 0) + 1

    def merge(self, other: WorkerReport) -> None:
        self.sockets += other.sockets
        self.board_ms += other.board_ms
        self.ack_ms += other.ack_ms
        self.seals += other.seals
        self.order_rounds += other.order_rounds
        self.setups += other.setups
        self.finished_games += other.finished_games
        for mine, theirs in ((self.refusals, other.refusals), (self.errors, other.errors)):
            for key, value in theirs.items():
                mine[key] = mine.get(key, 0) + value
        for kind, tally in other.frames.items():
            self.frames.setdefault(kind, FrameTally()).merge(tally)
        self.started_at = min(self.started_at or other.started_at, other.started_at)
        self.finished_at = max(self.finished_at, other.finished_at)
        self.cpu_seconds += other.cpu_seconds


def percentile(values: list[float], share: float) -> float | None:
    """The nearest-rank percentile (``share`` in 0..1); None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(share * len(ordered)))
    return ordered[rank - 1]


# ------------------------------------------------------------------ the client side


@dataclass(frozen=True)
class RoomSeats:
    code: str
    host_token: str
    seat_tokens: list[str]
    ws_url: str
    """The websocket root of the server process the room is played on."""
    base_url: str
    """Its HTTP root (where a phone's page is, for htmx's ``HX-Current-URL``)."""


@dataclass(frozen=True)
class DriveOptions:
    window: float
    rounds: int
    seconds: float | None
    stall: float
    seed: int
    compression: bool
    format: str = "json"
    """``json`` (JSON frames, as API clients) or ``html`` (fragments, as the pages)."""


Sheet = TypeVar("Sheet")


@dataclass(frozen=True)
class Decision(Generic[Sheet]):
    """What a phone's newest view asks of it, and the sheet it reads the choices off (a JSON
    prompt, an HTML form)."""

    match: int
    version: int
    """The view the sheet was drawn from: an order says so (issue 13.10)."""
    kind: str
    """The prompt's kind: ``setup`` or ``orders``."""
    round: int
    """The round it decides, as the board names its resolution (setup is round 0)."""
    sheet: Sheet

    @property
    def key(self) -> tuple[int, int]:
        return self.match, self.version


class Phone(abc.ABC, Generic[Sheet]):
    """One seat's websocket, answering every decision once with an order drawn from it. What
    a phone does with a view, an acknowledgement or a refusal is the same in every format;
    a subclass reads its format's frames (:meth:`on_frame`) and writes its orders
    (:meth:`order_text`)."""

    def __init__(self, room: RoomDriver, token: str, rng: random.Random) -> None:
        self.room = room
        self.token = token
        self.rng = rng
        self.socket: ClientConnection | None = None
        self.decision: Decision[Sheet] | None = None
        """What the newest view asks; None when it asks nothing."""
        self.answered: tuple[int, int] | None = None
        """(match, version) of the view the last order was drawn from."""
        self.sent_at: float | None = None
        """When the order still waiting for its acknowledgement was sent."""
        self.sent_kind = ""
        """The kind of prompt (setup, orders) the order waiting for its answer was for."""
        self.attempts = 0
        self.timer: asyncio.TimerHandle | None = None
        self.greeted = False
        """The phone has had its first view since it connected."""

    @abc.abstractmethod
    def on_frame(self, kind: str, text: str) -> None:
        """One frame the phone's socket received, of ``kind`` (the wire's name for it)."""

    @abc.abstractmethod
    def order_text(self, decision: Decision[Sheet], simplest: bool) -> str:
        """The frame that seals an order for ``decision``: drawn at random, or the simplest
        one (:func:`order_from_prompt`)."""

    def listening(self) -> bool:
        """Whether views still matter: the room plays, or an order waits for its answer."""
        return not self.room.done.is_set() or self.sent_at is not None

    def show(self, decision: Decision[Sheet] | None, sealed: bool = False) -> None:
        """A view: ``decision`` is what it asks (None: nothing), ``sealed`` that it shows this
        phone's order sealed. Either acknowledges an order that waits for its answer; a
        decision is answered after a random wait within the window."""
        self.greeted = True
        self.decision = decision
        if self.sent_at is not None and (sealed or decision is None):
            self._acknowledged()
        if decision is not None:
            self.consider(self.rng.uniform(0, self.room.options.window))

    def _acknowledged(self) -> None:
        assert self.sent_at is not None
        now = time.perf_counter()
        self.room.report.ack_ms.append((now - self.sent_at) * 1000)
        self.room.report.seals += 1
        self.room.progress(now)
        self.sent_at = None

    def refused(self, code: str) -> None:
        """An error frame: the answer to the order sent, counted by prompt kind and code.
        A fresh view gets a fresh order at once, the same view the simplest one; after a
        ``stale`` or ``show`` refusal the server sends the fresh view on its own."""
        report = self.room.report
        if self.sent_at is None:  # not an answer to an order of ours
            report.count(report.refusals, f"unasked {code}")
            return
        report.count(report.refusals, f"{self.sent_kind} {code}")
        now = time.perf_counter()
        report.ack_ms.append((now - self.sent_at) * 1000)
        self.sent_at = None
        self.attempts += 1
        if self.attempts > RETRIES_PER_DECISION:
            report.count(report.errors, "gave_up_a_decision")
            return
        key = self._view_key()
        if code in ("stale", "show") and key == self.answered:
            return  # the server sends the fresh sheet (or the next prompt) on its own
        self.consider(0.0, simplest=key == self.answered)

    def _view_key(self) -> tuple[int, int] | None:
        return None if self.decision is None else self.decision.key

    def consider(self, delay: float, simplest: bool = False) -> None:
        """Answer the view's decision after ``delay`` seconds, unless already answered."""
        if self.timer is not None or self.sent_at is not None or not self.room.playing:
            return
        if self.decision is None:
            return
        if self._view_key() == self.answered and not simplest:
            return
        if self._view_key() != self.answered:
            self.attempts = 0
        self.timer = asyncio.get_running_loop().call_later(delay, self._send, simplest)

    def _send(self, simplest: bool) -> None:
        self.timer = None
        decision = self.decision
        if decision is None or self.sent_at is not None or not self.room.playing:
            return
        if decision.key == self.answered and not simplest:
            return
        text = self.order_text(decision, simplest)
        self.answered = decision.key
        self.sent_kind = decision.kind
        self.sent_at = time.perf_counter()
        self.room.sent(decision.match, decision.round, self.sent_at)
        self.room.spawn(self._transmit(text))

    async def _transmit(self, text: str) -> None:
        assert self.socket is not None
        try:
            await self.socket.send(text)
        except ConnectionClosed:
            self.room.report.count(self.room.report.errors, "send_on_closed_socket")
            self.sent_at = None


class JsonPhone(Phone[JSON]):
    """A phone of the JSON protocol (app/ws.py): views, seal notices, ``order`` frames."""

    def __init__(self, room: RoomDriver, token: str, rng: random.Random) -> None:
        super().__init__(room, token, rng)
        self.seat: int | None = None
        """The phone's room seat, read off its first view with a decision."""

    def on_frame(self, kind: str, text: str) -> None:
        if kind == "error":
            self.refused(str(orjson.loads(text).get("code")))
        elif kind == "view" and self.listening():
            if any(marker in text for marker in NO_PROMPT):
                self.show(None)
            else:
                self._on_view(orjson.loads(text))
        elif kind == "sealed" and (self.sent_at is not None or '"/prompt"' in text):
            notice = orjson.loads(text)
            if notice.get("seat") == self.seat:
                if self.sent_at is not None:
                    # The phone's own seal comes back as a notice (in Heirs it leaves the
                    # seat nothing to decide until the next whole view).
                    self.decision = None
                    self._acknowledged()
            elif self.listening():
                # Another seat's seal that narrowed this phone's decision (a colour taken)
                # carries its new prompt, as a whole view did.
                prompts = [op["value"] for op in notice["patch"] if op["path"] == "/prompt"]
                if prompts:
                    version = notice.get("version")
                    self._decide(notice.get("match"), version, prompts[0], sealed=False)
        # Anything else (another seat's notice, a step of the show, a pong) changes nothing.

    def _on_view(self, view: JSON) -> None:
        self.seat = (view.get("you") or {}).get("seat", self.seat)
        sealed = view.get("my_commitment") is not None
        self._decide(view.get("match"), view.get("version"), view.get("prompt"), sealed)

    def _decide(self, match: Any, version: Any, prompt: JSON | None, sealed: bool) -> None:
        decision = None
        if prompt is not None and match is not None and version is not None:
            kind, number = str(prompt.get("kind")), decision_round(prompt)
            decision = Decision(int(match), int(version), kind, number, prompt)
        self.show(decision, sealed=sealed)

    def order_text(self, decision: Decision[JSON], simplest: bool) -> str:
        order = order_from_prompt(decision.sheet, self.rng, simplest)
        version, match = decision.version, decision.match
        return json.dumps({"type": "order", "order": order, "version": version, "match": match})


class HtmlPhone(Phone[str]):
    """A phone as the page is one (``format=html``): every view is a whole fragment; the
    phone reads its Heirs decision form, fills it in and sends its fields as htmx-ext-ws
    does. A fragment without a decision form (the sheet sealed, the show, the end)
    acknowledges an order, as an error fragment refuses it."""

    def __init__(self, room: RoomDriver, token: str, rng: random.Random) -> None:
        super().__init__(room, token, rng)
        self.page_url = f"{room.seats.base_url}/r/{room.seats.code}"

    def on_frame(self, kind: str, text: str) -> None:
        if kind == "error":
            self.refused(error_code(text))
        elif kind == "fragment" and self.listening():
            self.show(fragment_decision(text))

    def order_text(self, decision: Decision[str], simplest: bool) -> str:
        form = parse_form(decision.sheet)
        choices = sheet_choices(form, decision.kind, self.rng, simplest)
        return htmx_ws_message(form_fields(form, choices), form, self.page_url)


@dataclass(frozen=True)
class Wire:
    """How one ``--format`` talks: the query its sockets add, how a frame's kind is told,
    which board frames may show a resolution and how they are read, and its phones."""

    query: str
    frame_kind: Callable[[str], str]
    view_kind: str
    finished_marker: str
    """Text only a board frame of a finished match holds (the cheap test before reading)."""
    board_news: Callable[[str], BoardNews | None]
    phone: Callable[[RoomDriver, str, random.Random], Phone[Any]]


class RoomDriver:
    """One room: its six phones, its board, and the rounds they play."""

    def __init__(
        self, seats: RoomSeats, options: DriveOptions, report: WorkerReport, rng: random.Random
    ) -> None:
        self.seats = seats
        self.options = options
        self.report = report
        self.wire = WIRES[options.format]
        self.phones = [
            self.wire.phone(self, token, random.Random(rng.random())) for token in seats.seat_tokens
        ]
        self.board: ClientConnection | None = None
        self.playing = False
        self.done = asyncio.Event()
        self.last_sent: dict[tuple[int, int], float] = {}
        """(match, round) → when its last seal so far was sent."""
        self.match: int | None = None
        """The match the phones last sealed into: a board fragment does not name its own."""
        self.resolved: set[tuple[int, int]] = set()
        self.unresolved: set[tuple[int, int]] = set()
        """Rounds sealed into and not yet shown resolved: the board must read its frames."""
        self.last_progress = time.perf_counter()
        self.tasks: set[asyncio.Task[None]] = set()

    def spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def sent(self, match: int, round_number: int, at: float) -> None:
        self.match = match
        self.last_sent[(match, round_number)] = at
        self.unresolved.add((match, round_number))

    def progress(self, at: float) -> None:
        self.last_progress = at

    def begin(self) -> None:
        self.playing = True
        self.last_progress = time.perf_counter()
        for phone in self.phones:
            phone.consider(phone.rng.uniform(0, self.options.window))

    def finish(self) -> None:
        self.playing = False
        self.done.set()
        for phone in self.phones:
            if phone.timer is not None:
                phone.timer.cancel()
                phone.timer = None

    def on_board_frame(self, kind: str, text: str) -> None:
        if kind != self.wire.view_kind or not self.playing:
            return
        if not self.unresolved and self.wire.finished_marker not in text:
            return  # the show of a round already counted: nothing to learn from it
        now = time.perf_counter()
        news = self.wire.board_news(text)
        if news is None:
            return
        match = self.match if news.match is None else news.match
        newest = news.round
        if match is not None and newest is not None and (match, newest) not in self.resolved:
            self.resolved.add((match, newest))
            self.unresolved.discard((match, newest))
            self.progress(now)
            sent = self.last_sent.get((match, newest))
            if sent is not None:
                self.report.board_ms.append((now - sent) * 1000)
            if newest == 0:
                self.report.setups += 1
            else:
                self.report.order_rounds += 1
                if newest >= self.options.rounds:
                    self.finish()
        if news.finished and self.playing:
            self.report.finished_games += 1
            self.finish()


WIRES: dict[str, Wire] = {
    "json": Wire(
        query="",
        frame_kind=json_frame_kind,
        view_kind="view",
        finished_marker='"finished"',
        board_news=json_board_news,
        phone=JsonPhone,
    ),
    "html": Wire(
        query=HTML_QUERY,
        frame_kind=html_frame_kind,
        view_kind="fragment",
        finished_marker=BOARD_FINISHED,
        board_news=html_board_news,
        phone=HtmlPhone,
    ),
}


async def _read(
    socket: ClientConnection,
    role: str,
    handle: Callable[[str, str], None],
    report: WorkerReport,
    closing: asyncio.Event,
    frame_kind: Callable[[str], str],
) -> None:
    """Every frame of one socket, tallied by kind (``frame_kind``, the wire's) and handed
    on; a socket that ends before ``closing`` is set counts as an error."""
    frames = report.frames
    try:
        async for message in socket:
            if isinstance(message, bytes):
                frames.setdefault(f"{role} binary", FrameTally()).add(len(message))
                continue
            kind = frame_kind(message)
            size = len(message) if message.isascii() else len(message.encode())
            tally = frames.get(f"{role} {kind}")
            if tally is None:
                tally = frames[f"{role} {kind}"] = FrameTally()
            tally.add(size)
            handle(kind, message)
    except ConnectionClosed:
        pass
    if not closing.is_set():
        code = "no close frame" if socket.close_code is None else socket.close_code
        report.count(report.errors, f"{role} socket closed during the run ({code})")


async def _open(
    url: str, token: str, options: DriveOptions, gate: asyncio.Semaphore
) -> ClientConnection:
    async with gate:
        return await connect(
            url,
            additional_headers={"Authorization": f"Bearer {token}"},
            compression="deflate" if options.compression else None,
            ping_interval=None,  # like a browser: the server pings, the client answers
            max_size=2**22,
            open_timeout=120,
            close_timeout=5,
        )


async def drive(
    rooms: list[RoomSeats], options: DriveOptions, ready: Callable[[], Awaitable[None]]
) -> WorkerReport:
    """Connect every socket of ``rooms``, await ``ready()`` (the go), play, and report."""
    report = WorkerReport()
    rng = random.Random(options.seed)
    wire = WIRES[options.format]
    drivers = [RoomDriver(seats, options, report, rng) for seats in rooms]
    gate = asyncio.Semaphore(CONNECT_AT_ONCE)
    readers: list[asyncio.Task[None]] = []
    closing = asyncio.Event()

    async def connect_room(driver: RoomDriver) -> None:
        base = f"{driver.seats.ws_url}/ws/rooms/{driver.seats.code}"
        board_url = f"{base}/board{wire.query}"
        driver.board = await _open(board_url, driver.seats.host_token, options, gate)
        for phone in driver.phones:
            phone.socket = await _open(f"{base}{wire.query}", phone.token, options, gate)
        report.sockets += 1 + len(driver.phones)

    await asyncio.gather(*(connect_room(driver) for driver in drivers))
    for driver in drivers:
        assert driver.board is not None
        readers.append(
            asyncio.create_task(
                _read(
                    driver.board, "board", driver.on_board_frame, report, closing, wire.frame_kind
                )
            )
        )
        for phone in driver.phones:
            assert phone.socket is not None
            readers.append(
                asyncio.create_task(
                    _read(phone.socket, "phone", phone.on_frame, report, closing, wire.frame_kind)
                )
            )
    # Idle: every phone has its first view (the setup prompt) before the go.
    greeting_deadline = time.perf_counter() + options.stall
    while not all(phone.greeted for driver in drivers for phone in driver.phones):
        if time.perf_counter() > greeting_deadline:
            raise RuntimeError(f"some phones had no view {options.stall:g} s after connecting")
        await asyncio.sleep(0.05)
    await ready()

    report.started_at = time.time()
    cpu_start = time.process_time()
    for driver in drivers:
        driver.begin()
    deadline = None if options.seconds is None else time.perf_counter() + options.seconds
    while not all(driver.done.is_set() for driver in drivers):
        await asyncio.sleep(0.25)
        now = time.perf_counter()
        for driver in drivers:
            if driver.playing and now - driver.last_progress > options.stall:
                report.count(report.errors, f"room stalled for {options.stall:g} s")
                driver.finish()
        if deadline is not None and now >= deadline:
            for driver in drivers:
                if driver.playing:
                    driver.finish()
    report.finished_at = time.time()
    report.cpu_seconds = time.process_time() - cpu_start
    # The board may show a room's last round before its last sealer hears back: wait for that.
    phones = [phone for driver in drivers for phone in driver.phones]
    acks_deadline = time.perf_counter() + ACK_GRACE
    while any(p.sent_at is not None for p in phones) and time.perf_counter() < acks_deadline:
        await asyncio.sleep(0.05)
    unanswered = sum(1 for p in phones if p.sent_at is not None)
    if unanswered:
        report.errors["orders never acknowledged"] = unanswered

    closing.set()
    sockets = [d.board for d in drivers] + [p.socket for d in drivers for p in d.phones]
    await asyncio.gather(*(s.close() for s in sockets if s is not None), return_exceptions=True)
    await asyncio.gather(*readers, return_exceptions=True)
    return report


def _worker_process(
    rooms: list[RoomSeats],
    options: DriveOptions,
    connected: multiprocessing.Queue[Any],
    go: multiprocessing.synchronize.Event,
) -> None:
    """A client process of ``--clients K``: drives its share of the rooms."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops the run

    async def ready() -> None:
        connected.put(("connected", os.getpid()))
        await asyncio.get_running_loop().run_in_executor(None, go.wait)

    try:
        report = run_client(drive(rooms, options, ready))
        connected.put(("report", report))
    except Exception as error:  # the parent must hear of it instead of waiting forever
        connected.put(("failed", f"{type(error).__name__}: {error}"))


# ------------------------------------------------------------------ the server side

LOG_RECORD = re.compile(r"^(DEBUG|INFO|WARNING|ERROR|CRITICAL)\b")
"""The head of a server log record: the app's ``LEVEL name: …`` and uvicorn's ``LEVEL: …``;
the lines up to the next head (a traceback) belong to it."""
FAILURE_LEVELS = ("ERROR", "CRITICAL")
TRACEBACK = "Traceback ("
FAILURES_KEPT = 20
"""Distinct server log failures printed and kept in the figures."""


def log_failures(lines: Sequence[str]) -> list[str]:
    """The records of a server log that report a failure, each told by its first line and,
    when a traceback follows, the exception that ends it: ``ERROR asyncio: Task exception was
    never retrieved → KeyError: 'x'``. A traceback printed without a logger is one too."""
    failures: list[str] = []
    record: list[str] = []

    def failing() -> bool:
        level = LOG_RECORD.match(record[0]) if record else None
        return bool(record) and (
            (level is not None and level.group(1) in FAILURE_LEVELS)
            or record[0].startswith(TRACEBACK)
        )

    def close() -> None:
        if failing():
            # The exception is the traceback's last line that is not indented.
            ends = [line for line in record[1:] if line.strip() and not line[0].isspace()]
            head, last = record[0], ends[-1] if ends else None
            failures.append(head if last is None or last == head else f"{head} → {last}")
        record.clear()

    for line in lines:
        if LOG_RECORD.match(line) or (line.startswith(TRACEBACK) and not failing()):
            close()
        record.append(line)
    close()
    return failures


class Server(LocalAddress):
    """One ``pecet serve`` process on a free port, stopped with SIGTERM at the end."""

    def __init__(self, folder: Path, number: int, environment: dict[str, str]) -> None:
        self.number = number
        self.port = free_port()
        self.log_path = folder / f"server-{number}.log"
        self.environment = environment
        self.process: subprocess.Popen[bytes] | None = None
        self.cold_start = 0.0

    def start(self) -> None:
        pecet = Path(sys.executable).parent / "pecet"
        if not pecet.exists():
            pecet = PROJECT_DIR / ".venv" / "bin" / "pecet"
        with open(self.log_path, "wb") as log:
            spawned = time.perf_counter()
            # A session of its own: Ctrl-C reaches this script, which stops the server itself.
            self.process = subprocess.Popen(
                [str(pecet), "serve", "--host", "127.0.0.1", "--port", str(self.port)],
                cwd=PROJECT_DIR,
                env=self.environment,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        with httpx.Client(timeout=2) as http:
            while True:
                if self.process.poll() is not None:
                    raise RuntimeError(
                        f"server process {self.number} exited at start ({self.process.returncode})"
                    )
                try:
                    if http.get(f"{self.base_url}/").status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.perf_counter() - spawned > 120:
                    raise RuntimeError(
                        f"server process {self.number} did not answer GET / within 120 s"
                    )
                time.sleep(0.01)
        self.cold_start = time.perf_counter() - spawned

    def rss_kib(self) -> int:
        assert self.process is not None
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return 0

    def cpu_seconds(self) -> float:
        assert self.process is not None
        stat = Path(f"/proc/{self.process.pid}/stat").read_text()
        # The command name may hold spaces; the fields after its closing parenthesis do not.
        fields = stat[stat.rindex(")") + 2 :].split()
        utime, stime = int(fields[11]), int(fields[12])
        return (utime + stime) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        if self.process is not None:
            stop_process(self.process, grace=15)

    def log_lines(self) -> list[str]:
        if not self.log_path.exists():
            return []
        return self.log_path.read_text(errors="replace").splitlines()

    def log_tail(self) -> str:
        return "\n".join(self.log_lines()[-15:]) or "(empty server log)"


@dataclass
class ServerGroup:
    """The server processes of one run: one database, and one Redis when they are several."""

    servers: list[Server]
    redis_url: str | None

    def rss_kib(self) -> list[int]:
        return [server.rss_kib() for server in self.servers]

    def cpu_seconds(self) -> list[float]:
        return [server.cpu_seconds() for server in self.servers]

    def redis_cpu_seconds(self) -> float | None:
        """Redis's own CPU seconds so far (its INFO), None without Redis."""
        if self.redis_url is None:
            return None
        client = redis.Redis.from_url(self.redis_url)
        try:
            info: dict[str, Any] = client.info("cpu")
        finally:
            client.close()
        return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])

    def failures(self) -> collections.Counter[str]:
        """The failures the servers' logs report (:func:`log_failures`), each marked with its
        process, and how many times each."""
        return collections.Counter(
            f"process {server.number}: {failure}"
            for server in self.servers
            for failure in log_failures(server.log_lines())
        )

    def stop(self) -> None:
        for server in self.servers:
            server.stop()


@contextlib.contextmanager
def serving(
    folder: Path, processes: int, step_seconds: float, database_server: str | None
) -> Iterator[ServerGroup]:
    """``processes`` servers on one fresh database: a SQLite file in ``folder`` (WAL lets
    several processes share it), or a new database on the PostgreSQL server of
    ``database_server``, dropped at the end. Several processes share the rooms through a
    throwaway Redis. They start one after another, so only the first migrates the database.
    Should anything fail, the end of every server's log and its error lines are printed."""
    with contextlib.ExitStack() as stack:
        if database_server is None:
            database_url = f"sqlite:///{folder / 'pecet.sqlite3'}"
        else:
            databases = PostgresDatabases(database_server)
            stack.callback(databases.close)
            database_url = stack.enter_context(databases.database())
        redis_url = stack.enter_context(redis_server(folder)) if processes > 1 else None
        environment = {
            **os.environ,
            "PECET_DATA_DIR": str(folder),
            "DATABASE_URL": database_url,
            "PECET_RATE_LIMITS": "off",  # every phone comes from 127.0.0.1
            "PECET_STEP_SECONDS": str(step_seconds),
            # The server runs this checkout's code, even when the virtualenv was installed
            # from another (its editable install would point there).
            "PYTHONPATH": os.pathsep.join(
                filter(None, [str(PROJECT_DIR), os.environ.get("PYTHONPATH")])
            ),
        }
        environment.pop("PECET_REDIS_URL", None)
        if redis_url is not None:
            environment["PECET_REDIS_URL"] = redis_url
        group = ServerGroup(
            [Server(folder, number, environment) for number in range(processes)], redis_url
        )
        stack.callback(group.stop)
        try:
            for server in group.servers:
                server.start()
            yield group
        except Exception:
            for server in group.servers:
                if server.process is not None:
                    print(
                        f"server process {server.number} log (last lines):\n{server.log_tail()}",
                        file=sys.stderr,
                    )
            failures = _failure_lines(group.failures())
            if failures:
                shown = "\n".join(failures)
                print(f"failures in the server logs:\n{shown}", file=sys.stderr)
            raise


def _failure_lines(failures: collections.Counter[str]) -> list[str]:
    """The most frequent failures, each with its count."""
    return [f"{count} × {failure}" for failure, count in failures.most_common(FAILURES_KEPT)]


def rooms_on(process: int, processes: int, rooms: int) -> int:
    """How many of ``rooms`` are played on ``process``: room i goes to process i % N."""
    return len(range(process, rooms, processes))


async def open_rooms(servers: Sequence[Server], count: int, options: JSON) -> list[RoomSeats]:
    """Create ``count`` rooms, seat six phones in each and start their matches (the API);
    room i on server process i % N, where its sockets will connect too."""
    gate = asyncio.Semaphore(ROOMS_OPENED_AT_ONCE)

    async def one(http: httpx.AsyncClient, server: Server) -> RoomSeats:
        async with gate:
            created = await http.post("/api/rooms", json={"game": GAME, "options": options})
            created.raise_for_status()
            code, host = created.json()["code"], created.json()["host_token"]
            tokens = []
            for number in range(1, PHONES_PER_ROOM + 1):
                joined = await http.post(
                    f"/api/rooms/{code}/seats", json={"name": f"Heir {number}"}
                )
                joined.raise_for_status()
                tokens.append(joined.json()["token"])
            started = await http.post(
                f"/api/rooms/{code}/start", headers={"Authorization": f"Bearer {host}"}
            )
            started.raise_for_status()
            return RoomSeats(code, host, tokens, server.ws_url, server.base_url)

    async with contextlib.AsyncExitStack() as stack:
        clients = [
            await stack.enter_async_context(httpx.AsyncClient(base_url=s.base_url, timeout=120))
            for s in servers
        ]
        placed = [(clients[i % len(servers)], servers[i % len(servers)]) for i in range(count)]
        return list(await asyncio.gather(*(one(http, server) for http, server in placed)))


# ------------------------------------------------------------------ the run


def _git_commit() -> str:
    """The checkout's commit, marked ``-dirty`` when tracked files differ from it (the
    figures then belong to uncommitted code)."""

    def git(*arguments: str) -> str:
        done = subprocess.run(
            ["git", *arguments], cwd=PROJECT_DIR, capture_output=True, text=True, check=True
        )
        return done.stdout.strip()

    try:
        commit = git("rev-parse", "--short", "HEAD")
        changed = git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return f"{commit}-dirty" if changed else commit


def _rounded(value: float | None, digits: int = 1) -> float | None:
    return None if value is None else round(value, digits)


@dataclass
class ServerMeter:
    """What the server processes (and Redis) take: RSS before the rooms, at the go and at the
    end; CPU seconds from the go to the end."""

    group: ServerGroup
    rss_before_kib: list[int] = field(default_factory=list)
    rss_idle_kib: list[int] = field(default_factory=list)
    rss_end_kib: list[int] = field(default_factory=list)
    cpu_spent: list[float] = field(default_factory=list)
    redis_cpu_spent: float | None = None
    _cpu_at_go: list[float] = field(default_factory=list)
    _redis_cpu_at_go: float | None = None

    def before_rooms(self) -> None:
        self.rss_before_kib = self.group.rss_kib()

    def go(self) -> None:
        """Every socket is connected and greeted: the measured interval starts."""
        self.rss_idle_kib = self.group.rss_kib()
        self._cpu_at_go = self.group.cpu_seconds()
        self._redis_cpu_at_go = self.group.redis_cpu_seconds()

    def end(self) -> None:
        self.rss_end_kib = self.group.rss_kib()
        cpu_now = zip(self.group.cpu_seconds(), self._cpu_at_go, strict=True)
        self.cpu_spent = [later - earlier for later, earlier in cpu_now]
        redis_now = self.group.redis_cpu_seconds()
        if redis_now is not None and self._redis_cpu_at_go is not None:
            self.redis_cpu_spent = redis_now - self._redis_cpu_at_go


def _database_label(database_server: str | None, processes: int) -> str:
    if database_server is not None:
        server = make_url(database_server)
        return f"a fresh PostgreSQL database on {server.host}:{server.port}"
    return "one SQLite file (WAL)" + (f" shared by {processes} processes" if processes > 1 else "")


def run(args: argparse.Namespace) -> JSON:
    window = 0.0 if args.saturate else args.window
    options = DriveOptions(
        window=window,
        rounds=args.rounds,
        seconds=args.seconds,
        stall=args.stall,
        seed=args.seed,
        compression=not args.no_compression,
        format=args.format,
    )
    game_rounds = MAX_HEIRS_ROUNDS if args.seconds else max(DEFAULT_HEIRS_ROUNDS, args.rounds)
    processes = args.processes
    figures: JSON = {
        "commit": _git_commit(),
        "format": args.format,
        "mode": "saturate (window 0)" if args.saturate else f"window {window:g} s",
        "load_average_start": [round(x, 2) for x in os.getloadavg()],
        "step_seconds": args.step_seconds,
        "clients": args.clients,
        "processes": processes,
        "database": _database_label(args.database_url, processes),
    }
    # As `make run` serves it; compiling at the start would also leave freed memory that the
    # first rooms take over, and their RSS would look smaller than it is.
    compile_bytecode()
    with (
        tempfile.TemporaryDirectory(prefix="pecet-bench-") as folder,
        serving(Path(folder), processes, args.step_seconds, args.database_url) as group,
    ):
        ports = ", ".join(str(server.port) for server in group.servers)
        print(f"{processes} server process(es) up on port(s) {ports}", flush=True)
        meter = ServerMeter(group)
        meter.before_rooms()
        rooms = asyncio.run(open_rooms(group.servers, args.rooms, {"rounds": game_rounds}))
        print(f"{len(rooms)} rooms open and started; connecting sockets", flush=True)
        report = _drive_all(rooms, options, args.clients, meter.go)
        meter.end()
        failures = group.failures()
        servers = group.servers
    interval = max(1e-9, report.finished_at - report.started_at)
    errors = dict(report.errors)
    if failures:
        errors["failures in the server logs"] = failures.total()
    rss_before, rss_idle = sum(meter.rss_before_kib), sum(meter.rss_idle_kib)
    figures.update(
        cold_start_s=round(servers[0].cold_start, 3),
        rooms=args.rooms,
        rounds_per_room=None if args.seconds else args.rounds,
        sockets=report.sockets,
        measured_s=round(interval, 2),
        setups_resolved=report.setups,
        rounds_played=report.order_rounds,
        games_finished=report.finished_games,
        seals=report.seals,
        seals_per_s=round(report.seals / interval, 1),
        last_seal_to_board_ms={
            "p50": _rounded(percentile(report.board_ms, 0.50)),
            "p95": _rounded(percentile(report.board_ms, 0.95)),
            "p99": _rounded(percentile(report.board_ms, 0.99)),
            "max": _rounded(max(report.board_ms, default=None)),
            "rounds": len(report.board_ms),
        },
        seal_to_ack_ms={
            "p50": _rounded(percentile(report.ack_ms, 0.50)),
            "p99": _rounded(percentile(report.ack_ms, 0.99)),
        },
        server_rss_kib={
            "before_rooms": rss_before,
            "idle_after_connect": rss_idle,
            "end": sum(meter.rss_end_kib),
        },
        rss_per_idle_room_kib=round((rss_idle - rss_before) / max(1, args.rooms), 1),
        server_cpu_percent=round(sum(meter.cpu_spent) / interval * 100, 1),
        server_processes=[
            {
                "port": server.port,
                "rooms": rooms_on(server.number, processes, args.rooms),
                "cold_start_s": round(server.cold_start, 3),
                "rss_kib": {"before_rooms": before, "idle_after_connect": idle, "end": end},
                "cpu_percent": round(cpu / interval * 100, 1),
            }
            for server, before, idle, end, cpu in zip(
                servers,
                meter.rss_before_kib,
                meter.rss_idle_kib,
                meter.rss_end_kib,
                meter.cpu_spent,
                strict=True,
            )
        ],
        redis_cpu_percent=None
        if meter.redis_cpu_spent is None
        else round(meter.redis_cpu_spent / interval * 100, 1),
        client_cpu_percent=round(report.cpu_seconds / interval * 100, 1),
        frames={
            kind: {
                "count": tally.count,
                "mean_bytes": round(tally.total_bytes / max(1, tally.count)),
                "max_bytes": tally.max_bytes,
            }
            for kind, tally in sorted(report.frames.items())
        },
        refusals=dict(sorted(report.refusals.items())),
        errors=dict(sorted(errors.items())),
        server_log_failures=_failure_lines(failures),
        load_average_end=[round(x, 2) for x in os.getloadavg()],
    )
    return figures


def _drive_all(
    rooms: list[RoomSeats], options: DriveOptions, clients: int, at_go: Callable[[], None]
) -> WorkerReport:
    """Play every room from ``clients`` processes (this one alone for 1); ``at_go()`` runs
    when every socket is connected and greeted, just before the phones start."""
    if clients <= 1:

        async def ready() -> None:
            at_go()

        return run_client(drive(rooms, options, ready))

    context = multiprocessing.get_context("spawn")
    messages: multiprocessing.Queue[Any] = context.Queue()
    go = context.Event()
    shares = [rooms[index::clients] for index in range(clients)]
    workers = [
        context.Process(target=_worker_process, args=(share, options, messages, go))
        for share in shares
        if share
    ]
    for worker in workers:
        worker.start()
    completed = False
    try:
        waiting_for = len(workers)
        while waiting_for:
            kind, body = _next_message(messages, workers)
            if kind == "failed":
                raise RuntimeError(f"a client process failed: {body}")
            waiting_for -= 1
        at_go()
        go.set()
        report = WorkerReport()
        for _ in workers:
            kind, body = _next_message(messages, workers)
            if kind == "failed":
                raise RuntimeError(f"a client process failed: {body}")
            report.merge(body)
        completed = True
        return report
    finally:
        for worker in workers:
            if not completed:  # interrupted or failed: the others need not finish
                worker.terminate()
            worker.join(timeout=10)
            if worker.is_alive():
                worker.terminate()


def _next_message(
    messages: multiprocessing.Queue[Any], workers: Sequence[multiprocessing.process.BaseProcess]
) -> tuple[str, Any]:
    while True:
        try:
            message: tuple[str, Any] = messages.get(timeout=1)
            return message
        except queue.Empty:
            if all(not worker.is_alive() for worker in workers):
                raise RuntimeError("the client processes ended without a report") from None


FORMAT_LABELS = {
    "json": "json (JSON frames, as API clients)",
    "html": "html (format=html&lang=en: HTML fragments and htmx form messages, as the pages)",
}


def line(name: str, value: object) -> None:
    """One row of a printed table."""
    print(f"{name:<34} {value}")


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"


def print_table(figures: JSON) -> None:
    def ms(table: JSON, *keys: str) -> str:
        return " / ".join(_ms(table[k]) for k in keys)

    processes = figures["processes"]
    several = processes > 1
    print()
    line("commit", figures["commit"])
    line("format", FORMAT_LABELS[figures["format"]])
    line("mode", figures["mode"])
    line("client processes", figures["clients"])
    placement = f" (room i and all its sockets on process i % {processes})" if several else ""
    line("server processes", f"{processes}{placement}")
    line("database", figures["database"])
    line("board step (PECET_STEP_SECONDS)", f"{figures['step_seconds']:g} s")
    first = " (the first process)" if several else ""
    line("cold start to first page", f"{figures['cold_start_s']:.2f} s{first}")
    line("rooms", figures["rooms"])
    line("sockets", figures["sockets"])
    line("measured interval", f"{figures['measured_s']:g} s")
    line("setups resolved", figures["setups_resolved"])
    line("rounds played", figures["rounds_played"])
    line("games finished early", figures["games_finished"])
    line("seals (acknowledged)", figures["seals"])
    line("seals/s", figures["seals_per_s"])
    board = figures["last_seal_to_board_ms"]
    line("last seal→board p50/p95/p99/max", f"{ms(board, 'p50', 'p95', 'p99', 'max')} ms")
    line("  rounds measured", board["rounds"])
    line("seal→ack p50/p99", f"{ms(figures['seal_to_ack_ms'], 'p50', 'p99')} ms")
    summed = f" (sum of {processes} processes)" if several else ""
    rss = figures["server_rss_kib"]
    line("server RSS before rooms", f"{rss['before_rooms']} KiB{summed}")
    line("server RSS idle after connect", f"{rss['idle_after_connect']} KiB{summed}")
    line("server RSS at end", f"{rss['end']} KiB{summed}")
    line("RSS per started idle room", f"{figures['rss_per_idle_room_kib']:g} KiB")
    line("server CPU", f"{figures['server_cpu_percent']:g} % of one core{summed}")
    if several:
        for number, server in enumerate(figures["server_processes"]):
            own = server["rss_kib"]
            line(
                f"  process {number} (port {server['port']})",
                f"{server['rooms']} rooms, CPU {server['cpu_percent']:g} %, RSS "
                f"{own['before_rooms']} / {own['idle_after_connect']} / {own['end']} KiB "
                f"(before / idle / end), cold start {server['cold_start_s']:.2f} s",
            )
    if figures["redis_cpu_percent"] is not None:
        line("redis CPU", f"{figures['redis_cpu_percent']:g} % of one core")
    line("client CPU", f"{figures['client_cpu_percent']:g} % of one core")
    per_process = figures["client_cpu_percent"] / figures["clients"]
    if per_process > CLIENT_BUSY_PERCENT:
        line("  warning", "the client may be the bottleneck: split it with --clients K")
    for kind, tally in figures["frames"].items():
        line(
            f"frames {kind}",
            f"{tally['count']} × mean {tally['mean_bytes']} B, max {tally['max_bytes']} B",
        )
    refusals = figures["refusals"]
    line("refusals", sum(refusals.values()))
    for code, number in refusals.items():
        line(f"  refused {code}", number)
    errors = figures["errors"]
    line("errors", sum(errors.values()))
    for what, number in errors.items():
        line(f"  {what}", number)
    for failure in figures["server_log_failures"]:
        print(f"    {failure}")
    line("load average at start", " ".join(map(str, figures["load_average_start"])))
    line("load average at end", " ".join(map(str, figures["load_average_end"])))


# ------------------------------------------------------------------ the most rooms within a p99

SEARCH_PROBES = 7
"""Probes of one ``--find-rooms`` search: with short probes, a few minutes in all."""
PROBE_ROUNDS_MEASURED = 100
"""Resolved rounds a probe measures at least, rooms permitting: of fewer, the p99 is the
slowest round, one hiccup of the machine's."""
PROBE_FAILURES = (RuntimeError, httpx.HTTPError, OSError)
"""What a probe may end with when the servers are overwhelmed: the probe does not hold."""


def find_rooms(args: argparse.Namespace) -> JSON:
    """The most rooms whose p99 last seal → board stays within ``--p99-ms`` (and that run
    without errors). The probes double R from ``--rooms`` until one does not hold, then halve
    the gap between the most rooms held and the fewest not held until it is a tenth of the
    former, or the probes run out. Each probe is a whole run on fresh servers, of
    :func:`probe_rounds` rounds."""
    target = args.p99_ms
    search: JSON = {
        "commit": _git_commit(),
        "format": args.format,
        "processes": args.processes,
        "database": _database_label(args.database_url, args.processes),
        "target_p99_ms": target,
        "probe_rounds": args.probe_rounds,
        "mode": "saturate (window 0)" if args.saturate else f"window {args.window:g} s",
        "load_average_start": [round(x, 2) for x in os.getloadavg()],
        "probes": [],
    }
    probes: list[JSON] = search["probes"]

    def holds(rooms: int) -> bool:
        rounds = probe_rounds(rooms, args.probe_rounds)
        number = len(probes) + 1
        print(
            f"\nprobe {number} of at most {SEARCH_PROBES}: {rooms} rooms × {rounds} rounds",
            flush=True,
        )
        probe_args = argparse.Namespace(
            **{**vars(args), "rooms": rooms, "rounds": rounds, "seconds": None}
        )
        try:
            probe = _probe_summary(run(probe_args), target)
        except PROBE_FAILURES as error:
            failure = f"{type(error).__name__}: {error}"
            probe = {"rooms": rooms, "rounds": rounds, "holds": False, "failure": failure}
        probes.append(probe)
        print(_probe_text(probe), flush=True)
        return bool(probe["holds"])

    held, not_held = 0, None
    rooms = args.rooms
    while not_held is None and len(probes) < SEARCH_PROBES:
        if holds(rooms):
            held, rooms = rooms, rooms * 2
        else:
            not_held = rooms
    while (
        not_held is not None
        and not_held - held > max(1, held // 10)
        and len(probes) < SEARCH_PROBES
    ):
        middle = (held + not_held) // 2
        if holds(middle):
            held = middle
        else:
            not_held = middle
    search.update(
        rooms_held=held,
        fewest_rooms_not_held=not_held,
        load_average_end=[round(x, 2) for x in os.getloadavg()],
    )
    return search


def probe_rounds(rooms: int, fewest: int) -> int:
    """Order rounds per room in a probe of ``rooms``: at least ``fewest``, and enough for
    :data:`PROBE_ROUNDS_MEASURED` resolutions (setup included) as far as a game goes."""
    enough = math.ceil(PROBE_ROUNDS_MEASURED / rooms) - 1
    return max(fewest, min(enough, MAX_HEIRS_ROUNDS))


def _probe_summary(figures: JSON, target_ms: float) -> JSON:
    board = figures["last_seal_to_board_ms"]
    p99 = board["p99"]
    return {
        "rooms": figures["rooms"],
        "rounds": figures["rounds_per_room"],
        "holds": p99 is not None and p99 <= target_ms and not figures["errors"],
        "p50_ms": board["p50"],
        "p99_ms": p99,
        "max_ms": board["max"],
        "rounds_measured": board["rounds"],
        "seals_per_s": figures["seals_per_s"],
        "server_cpu_percent": figures["server_cpu_percent"],
        "process_cpu_percent": [s["cpu_percent"] for s in figures["server_processes"]],
        "redis_cpu_percent": figures["redis_cpu_percent"],
        "client_cpu_percent": figures["client_cpu_percent"],
        "errors": figures["errors"],
        "server_log_failures": figures["server_log_failures"],
        "load_average_end": figures["load_average_end"],
    }


def _probe_text(probe: JSON) -> str:
    head = f"{probe['rooms']} rooms × {probe['rounds']} rounds: "
    if "failure" in probe:
        return f"{head}failed ({probe['failure']}) → does not hold"
    cpu = probe["server_cpu_percent"]
    if len(probe["process_cpu_percent"]) > 1:
        cpu = f"{cpu:g} ({' + '.join(f'{c:g}' for c in probe['process_cpu_percent'])})"
    redis_cpu = probe["redis_cpu_percent"]
    text = (
        f"{head}p50 {_ms(probe['p50_ms'])} ms, p99 {_ms(probe['p99_ms'])} ms "
        f"over {probe['rounds_measured']} rounds, {probe['seals_per_s']:g} seals/s, "
        f"server CPU {cpu} %"
        + ("" if redis_cpu is None else f", redis {redis_cpu:g} %")
        + f", client {probe['client_cpu_percent']:g} %"
    )
    if probe["errors"]:
        text += ", errors " + ", ".join(f"{k}: {v}" for k, v in probe["errors"].items())
    text += " → holds" if probe["holds"] else " → does not hold"
    return text + "".join(f"\n    {failure}" for failure in probe["server_log_failures"])


def print_search(search: JSON) -> None:
    print()
    line("commit", search["commit"])
    processes = search["processes"]
    placement = f" (room i and all its sockets on process i % {processes})" if processes > 1 else ""
    line("server processes", f"{processes}{placement}")
    line("database", search["database"])
    line("format", FORMAT_LABELS[search["format"]])
    line("mode", search["mode"])
    line("target", f"p99 last seal→board ≤ {search['target_p99_ms']:g} ms, no errors")
    line(
        "each probe",
        f"fresh servers; setup + at least {search['probe_rounds']} rounds per room, more "
        f"for {PROBE_ROUNDS_MEASURED} resolutions in all (up to {MAX_HEIRS_ROUNDS})",
    )
    for number, probe in enumerate(search["probes"], 1):
        line(f"probe {number}", _probe_text(probe))
    not_held = search["fewest_rooms_not_held"]
    bound = "" if not_held is None else f" ({not_held} did not)"
    line("rooms held", f"{search['rooms_held']}{bound}")
    line("load average at start", " ".join(map(str, search["load_average_start"])))
    line("load average at end", " ".join(map(str, search["load_average_end"])))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rooms", type=int, default=5, help="Heirs rooms (6 phones + 1 board)")
    length = parser.add_mutually_exclusive_group()
    length.add_argument(
        "--rounds",
        type=int,
        default=5,
        help=f"order rounds per room after setup (at most {MAX_HEIRS_ROUNDS}; default 5)",
    )
    length.add_argument("--seconds", type=float, help="play for this long instead")
    parser.add_argument(
        "--window", type=float, default=2.0, help="a phone seals within this many seconds"
    )
    parser.add_argument(
        "--saturate", action="store_true", help="window 0: phones seal as soon as asked"
    )
    parser.add_argument(
        "--step-seconds",
        type=float,
        default=0.05,
        help="PECET_STEP_SECONDS: the board's pace per reveal step (default 0.05)",
    )
    parser.add_argument("--clients", type=int, default=1, help="client processes sharing the rooms")
    parser.add_argument(
        "--processes",
        type=int,
        default=1,
        help="server processes sharing the rooms through a throwaway Redis; room i is played "
        "on process i %% N (default 1)",
    )
    parser.add_argument(
        "--database-url",
        help="a PostgreSQL server (postgresql+psycopg://ROLE@HOST:PORT/DB, a role that may "
        "create databases): each run gets a fresh database there, dropped at its end. "
        "Default: a fresh SQLite file",
    )
    parser.add_argument(
        "--find-rooms",
        action="store_true",
        help=f"find the most rooms within --p99-ms: at most {SEARCH_PROBES} short runs, "
        "doubling from --rooms, then bisecting (--rounds and --seconds are not used)",
    )
    parser.add_argument(
        "--p99-ms",
        type=float,
        default=50.0,
        help="--find-rooms: the p99 last seal→board a probe must keep (default 50)",
    )
    parser.add_argument(
        "--probe-rounds",
        type=int,
        default=3,
        help="--find-rooms: order rounds per room after setup in each probe, at least "
        f"(default 3; more at few rooms, for {PROBE_ROUNDS_MEASURED} resolutions in all)",
    )
    parser.add_argument(
        "--stall",
        type=float,
        default=60.0,
        help="seconds without progress after which a room counts as stalled",
    )
    parser.add_argument(
        "--format",
        choices=list(WIRES),
        default="json",
        help="json: JSON frames, as API clients (default); html: the pages' own sockets "
        "(format=html&lang=en), whole HTML fragments read as a browser shows them, and "
        "orders sent as htmx-ext-ws sends the sheet's form",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--no-compression", action="store_true", help="no permessage-deflate (browsers use it)"
    )
    parser.add_argument("--json", type=Path, help="also write the figures as JSON here")
    args = parser.parse_args()
    if not 1 <= args.rounds <= MAX_HEIRS_ROUNDS:
        parser.error(f"--rounds is 1..{MAX_HEIRS_ROUNDS}")
    if not 1 <= args.probe_rounds <= MAX_HEIRS_ROUNDS:
        parser.error(f"--probe-rounds is 1..{MAX_HEIRS_ROUNDS}")
    if args.rooms < 1 or args.clients < 1 or args.processes < 1:
        parser.error("--rooms, --clients and --processes are at least 1")
    if args.database_url and make_url(args.database_url).get_backend_name() != "postgresql":
        parser.error("--database-url names a PostgreSQL server (the default is SQLite)")
    if args.seconds is not None:
        args.rounds = MAX_HEIRS_ROUNDS

    pace = "saturate" if args.saturate else f"window {args.window:g} s"
    rooms = (
        f"the most rooms within p99 {args.p99_ms:g} ms from {args.rooms}"
        if args.find_rooms
        else f"{args.rooms} rooms"
    )
    print(
        f"load: {rooms} × ({PHONES_PER_ROOM} phones + 1 board), {args.format} frames, "
        f"step {args.step_seconds:g} s, {pace}, {args.clients} client process(es), "
        f"{args.processes} server process(es)",
        flush=True,
    )
    try:
        figures = find_rooms(args) if args.find_rooms else run(args)
    except KeyboardInterrupt:
        print("interrupted; the servers were stopped", file=sys.stderr)
        sys.exit(130)
    if args.find_rooms:
        print_search(figures)
    else:
        print_table(figures)
    if args.json is not None:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()

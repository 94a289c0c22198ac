"""HTML pages: the join/host page, a phone page per seat and the board (TV) page.

Pages are rendered with Jinja2; after the first render, every change arrives as a full HTML
fragment over the websocket (``format=html``). Each fragment's top-level elements carry ids
and htmx-ext-ws swaps them by id (out of band). Phone forms are sent over the same socket with
``ws-send``; :func:`translate_form` turns their fields into the JSON protocol messages of
``app/ws.py``. Only views are rendered, never raw state: a phone gets its seat's view, the board
the public one.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from io import BytesIO
from typing import Any
from urllib.parse import quote, urlencode

import segno
from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup

from app import i18n
from app.config import PROJECT_DIR, Settings
from app.games import hidden_leaders, screens_for, seat_names
from app.hub import Connection
from app.lan import join_base_url
from app.rooms import (
    NAME_MAX,
    LiveRoom,
    RoomError,
    RoomNotFound,
    RoomService,
    SeatInfo,
    normalize_code,
)
from engine.core import JSON
from engine.registry import available_games, get_rules

router = APIRouter(include_in_schema=False)
log = logging.getLogger("pecet.pages")

SEAT_COOKIE = "pecet_seat_{code}"
HOST_COOKIE = "pecet_host_{code}"
LANG_COOKIE = "pecet_lang"
COOKIE_MAX_AGE = 60 * 60 * 24 * 2

environment = Environment(
    loader=FileSystemLoader(PROJECT_DIR / "templates"),
    autoescape=select_autoescape(["html", "svg"]),
    extensions=["jinja2.ext.i18n"],
    trim_blocks=True,
    lstrip_blocks=True,
)
environment.install_gettext_callables(  # type: ignore[attr-defined]
    i18n.gettext, i18n.ngettext, newstyle=True, pgettext=i18n.pgettext, npgettext=i18n.npgettext
)
i18n.load_all()


# ------------------------------------------------------------------ translated fixed words


def game_name(game: str) -> str:
    names = {
        "hidden_leaders": i18n.gettext("Hidden Leaders Duel"),
        "heirs": i18n.gettext("Heirs of the Axis"),
        "legions": i18n.gettext("Legions"),
    }
    return names.get(game, game)


environment.globals.update(
    faction_name=hidden_leaders.faction_name,
    game_name=game_name,
    game_blurb=lambda game: screens_for(game).blurb(),
    languages=i18n.LANGUAGES,
    language_names=i18n.LANGUAGE_NAMES,
    name_max=NAME_MAX,
    hosted_games=available_games(),
)
environment.filters["seat_name"] = lambda seat, room: next(
    (s["name"] for s in room["seats"] if s["seat"] == seat), str(seat)
)
environment.filters["seat_name_of"] = lambda row, room: environment.filters["seat_name"](
    row["seat"], room
)
environment.filters["strength"] = lambda card_id: hidden_leaders.card_strength(str(card_id))


def render(template: str, lang: str, **context: Any) -> str:
    with i18n.use_language(lang):
        return environment.get_template(template).render(lang=lang, **context)


# ------------------------------------------------------------------ view models


def outcome_context(payload: Mapping[str, Any]) -> dict[str, Any]:
    outcome = payload.get("outcome") or {}
    names = seat_names(payload)
    winner = outcome.get("winner")
    ready = set(payload.get("ready") or [])
    return {
        "outcome": outcome,
        "rematch": outcome.get("result") == "REMATCH",
        "winner_name": names.get(winner, "") if winner is not None else "",
        "ready": ready,
    }


# ------------------------------------------------------------------ fragments


def render_phone_view(live: LiveRoom, payload: JSON, lang: str) -> str:
    you = payload["you"]
    seat = you.get("player", you["seat"])  # the game's own seat; None while sitting out
    with i18n.use_language(lang):  # the context holds translated labels too
        game_context = screens_for(live.game).context(payload, seat)
    return render(
        "fragments/phone_view.html",
        lang,
        room=payload,
        game=live.game,
        code=live.code,
        you=payload["you"],
        prompt=payload.get("prompt"),
        **game_context,
        **outcome_context(payload),
    )


def render_board_view(
    live: LiveRoom, payload: JSON, lang: str, *, host: bool, join_url: str
) -> str:
    with i18n.use_language(lang):
        game_context = screens_for(live.game).context(payload, None)
    return render(
        "fragments/board_view.html",
        lang,
        room=payload,
        game=live.game,
        code=live.code,
        host=host,
        join_url=join_url,
        **game_context,
        **outcome_context(payload),
    )


def render_error(live: LiveRoom, error: Mapping[str, Any], lang: str, *, board: bool) -> str:
    return render(
        "fragments/error.html",
        lang,
        code=live.code,
        error_code=error.get("code"),
        detail=error.get("detail") or "",
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
            live, payload, lang, host=connection.host, join_url=join_url_for(settings, live.code)
        )
    return render_phone_view(live, payload, lang)


# ------------------------------------------------------------------ forms → protocol


def translate_form(live: LiveRoom, frame: JSON) -> JSON:
    """A phone form's fields (sent by htmx-ext-ws with ``HEADERS``) → a protocol message.

    ``action=ready`` → ready for the next game (L7.3); ``action=lang`` → the seat's language;
    the game's own actions → its orders (see ``app/games``); anything else → ``sync``.
    """
    action = str(frame.get("action") or "")
    if action == "ready":
        return {"type": "ready"}
    if action == "lang":
        return {"type": "lang", "lang": str(frame.get("lang") or "")}
    return screens_for(live.game).translate_form(frame) or {"type": "sync"}


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


def set_cookie(response: Response, name: str, value: str) -> None:
    response.set_cookie(
        name, value, max_age=COOKIE_MAX_AGE, httponly=True, samesite="lax", path="/"
    )


def page(request: Request, template: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    lang = request_language(request)
    html = render(template, lang, path=request.url.path, **context)
    return HTMLResponse(html, status_code=status_code)


def index_page(
    request: Request,
    *,
    code: str = "",
    name: str = "",
    error: str | None = None,
    host_error: str | None = None,
    status_code: int = 200,
    resume: SeatInfo | None = None,
    forget_seat: str | None = None,
) -> HTMLResponse:
    return page(
        request,
        "index.html",
        status_code=status_code,
        code=code,
        name=name,
        error=error,
        host_error=host_error,
        games=[(g, get_rules(g).info) for g in available_games()],
        resume=resume,
        forget_seat=forget_seat,
    )


async def seat_from_cookie(request: Request, live: LiveRoom) -> tuple[SeatInfo | None, str]:
    token = request.cookies.get(SEAT_COOKIE.format(code=live.code), "")
    return live.seat_by_token(token), token


# ------------------------------------------------------------------ routes: join and host


@router.get("/", response_class=HTMLResponse)
async def index(request: Request) -> HTMLResponse:
    return index_page(request)


@router.get("/lang/{lang}")
async def switch_language(lang: str, next: str = "/") -> RedirectResponse:
    response = RedirectResponse(safe_next(next), status_code=303)
    chosen = i18n.normalize_language(lang)
    if chosen:
        response.set_cookie(LANG_COOKIE, chosen, max_age=60 * 60 * 24 * 365, samesite="lax")
    return response


@router.get("/j/{code}", response_class=HTMLResponse)
async def join_link(request: Request, code: str) -> HTMLResponse:
    """The join URL the board's QR code encodes: the join form with the code filled in."""
    code = clean_code(code)
    try:
        live = await rooms_of(request).room(code)
    except RoomNotFound as missing:
        return index_page(request, code=code, error=missing.detail, status_code=404)
    seat, _token = await seat_from_cookie(request, live)
    return index_page(request, code=live.code, resume=seat)


@router.post("/join", response_class=HTMLResponse)
async def join(request: Request, code: str = Form(""), name: str = Form("")) -> Response:
    typed_code, typed_name = code, name
    code = clean_code(code)
    rooms = rooms_of(request)
    if not code:
        with i18n.use_language(request_language(request)):
            message = i18n.gettext("Enter the 4-letter room code shown on the board.")
        return index_page(request, code=typed_code, name=typed_name, error=message, status_code=422)
    try:
        live = await rooms.room(code)
        existing, token = await seat_from_cookie(request, live)
        if existing is not None and existing.name.casefold() == " ".join(name.split()).casefold():
            return RedirectResponse(f"/r/{live.code}", status_code=303)
        _seat, token = await rooms.join(code, name, request_language(request))
    except RoomError as refusal:
        return index_page(
            request,
            code=typed_code,
            name=typed_name,
            error=translate_room_error(refusal, request_language(request)),
            status_code=refusal.status,
        )
    response = RedirectResponse(f"/r/{live.code}", status_code=303)
    set_cookie(response, SEAT_COOKIE.format(code=live.code), token)
    return response


def translate_room_error(refusal: RoomError, lang: str) -> str:
    """The room service's refusals, in the page's language (the detail text is English)."""
    with i18n.use_language(lang):
        texts = {
            "started": i18n.gettext("This game has already started."),
            "full": i18n.gettext("This room is full."),
            "name_empty": i18n.gettext("Please enter your name."),
            "name_too_long": i18n.gettext("Names are at most %(max)s characters.")
            % {"max": NAME_MAX},
            "name_taken": i18n.gettext("That name is taken in this room. Pick another."),
        }
        if isinstance(refusal, RoomNotFound) and refusal.code == "error":
            return i18n.gettext("There is no room with that code. Check the code on the board.")
        return texts.get(refusal.code, refusal.detail)


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
    seat, token = await seat_from_cookie(request, live)
    if seat is None:
        return RedirectResponse(f"/j/{live.code}", status_code=303)
    lang = request_language(request)
    if request.cookies.get(LANG_COOKIE) is None:
        lang = i18n.normalize_language(seat.lang) or lang
    payload = rooms_of(request).seat_payload(live, seat)
    socket_url = f"/ws/rooms/{live.code}?" + urlencode(
        {"token": token, "format": "html", "lang": lang}
    )
    html = render(
        "phone.html",
        lang,
        code=live.code,
        token=token,
        socket_url=socket_url,
        view_html=Markup(render_phone_view(live, payload, lang)),
        path=request.url.path,
    )
    return HTMLResponse(html)


@router.post("/r/{code}/restore")
async def restore_seat(request: Request, code: str, token: str = Form("")) -> Response:
    """The localStorage fallback: a phone whose cookie is gone sends its saved seat token."""
    code = clean_code(code)
    try:
        live = await rooms_of(request).room(code)
    except RoomNotFound as missing:
        return index_page(request, code=code, error=missing.detail, status_code=404)
    if live.seat_by_token(token) is None:
        return index_page(request, code=live.code, forget_seat=live.code, status_code=401)
    response = RedirectResponse(f"/r/{live.code}", status_code=303)
    set_cookie(response, SEAT_COOKIE.format(code=live.code), token)
    return response


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
    query = {"format": "html", "lang": lang}
    if is_host:
        query["host"] = host_token
    socket_url = f"/ws/rooms/{live.code}/board?" + urlencode(query)
    view_html = render_board_view(
        live, rooms.board_payload(live), lang, host=is_host, join_url=join_url
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
            await rooms.set_options(code, token, params.get("options") or {})
        elif action == "kick":
            await rooms.kick(code, token, params["seat"])
        elif action == "move":
            await rooms.move_seat(code, token, params["seat"], params["to"])
        elif action == "again":
            await rooms.play_again(code, token)
        elif action == "tournament":
            await rooms.set_tournament(code, token, params.get("tournament"))
    except RoomError as refusal:
        if request.headers.get("HX-Request"):
            return PlainTextResponse(refusal.detail, status_code=refusal.status)
        return page(
            request, "missing.html", status_code=refusal.status, code=code, detail=refusal.detail
        )
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
    for key, value in form.items():
        text = str(value).strip()
        options[key] = int(text) if text.lstrip("-").isdigit() else (text or None)
    return await host_action(request, code, "options", options=options)


@router.post("/b/{code}/seats/{seat}/kick")
async def board_kick(request: Request, code: str, seat: int) -> Response:
    return await host_action(request, code, "kick", seat=seat)


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
        plan = {"games": games} if games else {"count": _form_int(form.get("count"), 3)}
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

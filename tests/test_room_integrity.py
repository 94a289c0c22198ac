"""Room integrity (issue 13.10): memory follows the database, stale order sheets are refused,
and a phone reads refusals in its own language.

A failed commit is the one fault here that cannot be caused from outside: a SQLAlchemy
``before_commit`` listener, installed only inside :func:`failing_commits`, makes every commit
raise (the statements before it still run, as they would before a real failed commit).
Everything else is real: the app in process, its event loop, its websockets.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event
from sqlmodel import Session, col, select
from starlette.testclient import WebSocketTestSession

from app import pages
from app.models import OrderLog, Seat
from engine.core import Rng
from engine.registry import get_rules
from tests.live import current_match, live_room, room_service
from tests.play import auth, create_room, join, order_from_prompt, play_to_end, start_duel

Frame = dict[str, Any]
HTMX_HEADERS = {"HX-Request": "true", "HX-Trigger": None, "HX-Current-URL": "http://x/r/ABCD"}
STALE_CS = "Mezitím se hra posunula dál; tady je tvůj nový list."


class CommitFailed(Exception):
    """The injected database fault."""


@contextmanager
def failing_commits() -> Iterator[None]:
    """Every session's commit raises while inside (the disk is full, the database locked)."""

    def refuse(*_args: object) -> None:
        raise CommitFailed("injected: the database refused the commit")

    event.listen(Session, "before_commit", refuse)
    try:
        yield
    finally:
        event.remove(Session, "before_commit", refuse)


def call(client: TestClient, function: Any, *args: Any, **kwargs: Any) -> Any:
    """``function(*args, **kwargs)`` awaited on the app's event loop."""
    portal = client.portal
    assert portal is not None

    async def run() -> Any:
        return await function(*args, **kwargs)

    return portal.call(run)


def board(client: TestClient, code: str) -> Frame:
    response = client.get(f"/api/rooms/{code}")
    assert response.status_code == 200, response.text
    body: Frame = response.json()
    return body


def seat_names(client: TestClient, code: str) -> list[tuple[int, str, bool]]:
    return [(s["seat"], s["name"], s["bot"]) for s in board(client, code)["seats"]]


def stored_seats(client: TestClient, code: str) -> list[tuple[int, str, bool]]:
    live = live_room(client, code)
    with Session(room_service(client).db) as session:
        rows = session.exec(
            select(Seat).where(Seat.room_id == live.row_id).order_by(col(Seat.position))
        ).all()
        return [(row.position, row.name, row.is_bot) for row in rows]


def next_frame(socket: WebSocketTestSession) -> Frame:
    """The next frame but the match's log (its frames come before a view)."""
    while (frame := socket.receive_json())["type"] == "log":
        pass
    result: Frame = frame
    return result


def next_view(socket: WebSocketTestSession) -> Frame:
    while (frame := next_frame(socket))["type"] != "view":
        pass
    return frame


def first_to_act(client: TestClient, code: str) -> int:
    (seat,) = board(client, code)["to_act"]
    return int(seat)


# ------------------------------------------------------------------ 1. memory after the commit


def test_a_pause_whose_commit_fails_leaves_the_clock_running(client: TestClient) -> None:
    """issue 13.10: set_paused moved the sealing timer into "time left" before its commit;
    a failed commit left the live room paused in all but name. Now the room is unchanged."""
    room = create_room(client, timer=600)
    code, host = room["code"], room["host_token"]
    for name in ("Ema", "Petr"):
        join(client, code, name)
    assert client.post(f"/api/rooms/{code}/start", headers=auth(host)).status_code == 200
    before = board(client, code)
    assert before["deadline"] is not None and before["timer_left"] is None

    with failing_commits(), pytest.raises(CommitFailed):
        call(client, room_service(client).set_paused, code, host, True)

    match = current_match(live_room(client, code))
    assert match.deadline_at is not None and match.timer_left is None
    after = board(client, code)
    assert (after["paused"], after["deadline"], after["timer_left"]) == (
        False,
        before["deadline"],
        None,
    )
    # Without the fault the same request works.
    assert client.post(
        f"/api/rooms/{code}/pause", json={"paused": True}, headers=auth(host)
    ).is_success
    paused = board(client, code)
    assert paused["paused"] and paused["deadline"] is None and paused["timer_left"] > 0


def test_a_lobby_kick_whose_commit_fails_keeps_every_seat_and_its_number(
    client: TestClient,
) -> None:
    """issue 13.10: kick renumbered the live seats before its commit; a failed commit left
    two seats numbered 0. Now the seats stay as they were, in memory and on the board."""
    room = create_room(client, game="heirs")
    code, host = room["code"], room["host_token"]
    for name in ("Ema", "Petr", "Jana"):
        join(client, code, name)
    seated = [(0, "Ema", False), (1, "Petr", False), (2, "Jana", False)]

    with failing_commits(), pytest.raises(CommitFailed):
        call(client, room_service(client).kick, code, host, 0)

    live = live_room(client, code)
    assert [(s.position, s.name, s.is_bot) for s in live.seats] == seated
    assert seat_names(client, code) == seated == stored_seats(client, code)
    assert client.delete(f"/api/rooms/{code}/seats/0", headers=auth(host)).is_success
    assert seat_names(client, code) == [(0, "Petr", False), (1, "Jana", False)]
    assert stored_seats(client, code) == [(0, "Petr", False), (1, "Jana", False)]


def test_a_move_whose_commit_fails_keeps_the_seat_order(client: TestClient) -> None:
    """issue 13.10: _renumber changed the live seats' numbers before the commit of a move."""
    room = create_room(client, game="heirs")
    code, host = room["code"], room["host_token"]
    for name in ("Ema", "Petr", "Jana"):
        join(client, code, name)
    seated = [(0, "Ema", False), (1, "Petr", False), (2, "Jana", False)]

    with failing_commits(), pytest.raises(CommitFailed):
        call(client, room_service(client).move_seat, code, host, 2, 0)

    assert [(s.position, s.name, s.is_bot) for s in live_room(client, code).seats] == seated
    assert seat_names(client, code) == seated == stored_seats(client, code)


def test_a_game_kick_whose_commit_fails_leaves_the_phone_its_seat(client: TestClient) -> None:
    """issue 13.10: during a game kick handed the seat to a bot and changed its token in
    memory before the commit; a failed commit signed the phone out of a seat the database
    still gave it. Now the seat, its token and the board stay as they were."""
    code, host, tokens = start_duel(client)

    with failing_commits(), pytest.raises(CommitFailed):
        call(client, room_service(client).kick, code, host, 1)

    assert seat_names(client, code) == [(0, "Ema", False), (1, "Petr", False)]
    me = client.get(f"/api/rooms/{code}/me", headers=auth(tokens[1]))
    assert me.status_code == 200, me.text
    assert me.json()["you"]["handed"] is False, "the seat is still the phone's own"
    assert client.delete(f"/api/rooms/{code}/seats/1", headers=auth(host)).is_success
    assert seat_names(client, code) == [(0, "Ema", False), (1, "Petr", True)]
    # Handed to a bot, the seat is no longer the phone's: it only watches.
    watching = client.get(f"/api/rooms/{code}/me", headers=auth(tokens[1]))
    assert watching.status_code == 200 and watching.json()["you"]["handed"] is True


def test_a_ready_whose_commit_fails_is_not_counted(client: TestClient) -> None:
    """issue 13.10 (the same fault elsewhere): play_again counted a seat as ready before its
    commit."""
    code, _host, tokens = start_duel(client)
    play_to_end(client, code, tokens)

    with failing_commits(), pytest.raises(CommitFailed):
        call(client, room_service(client).play_again, code, tokens[0])

    assert current_match(live_room(client, code)).ready_seats == []
    assert board(client, code)["ready"] == []


# ------------------------------------------------------------------ 2. set_language under lock


def test_set_language_waits_for_the_room_lock(client: TestClient) -> None:
    """issue 13.10: set_language changed a seat without the room lock, so it could run in
    the middle of a kick or a come-back. Now it waits for the lock."""
    room = create_room(client)
    code = room["code"]
    token = join(client, code, "Ema")["token"]
    service = room_service(client)

    async def scenario() -> tuple[bool, str, str]:
        live = await service.room(code)
        async with live.lock:
            change = asyncio.ensure_future(service.set_language(code, token, "cs"))
            await asyncio.sleep(0)  # one turn of the loop: enough for it to run up to a wait
            done_under_lock = change.done()
            lang_under_lock = live.seats[0].lang
        await change
        return done_under_lock, lang_under_lock, live.seats[0].lang

    portal = client.portal
    assert portal is not None
    assert portal.call(scenario) == (False, "en", "cs")


# ------------------------------------------------------------------ 3. stale order sheets


def test_an_order_drawn_for_an_earlier_decision_is_refused_as_stale(client: TestClient) -> None:
    """issue 13.10: a sheet drawn at version 0 (the take) sent after the take was played is
    refused with ``stale`` and the fresh view follows; nothing is written."""
    code, _host, tokens = start_duel(client)
    seat = first_to_act(client, code)
    with client.websocket_connect(f"/ws/rooms/{code}?token={tokens[seat]}") as socket:
        sheet = next_view(socket)
        assert sheet["version"] == 0 and sheet["prompt"]["kind"] == "take"
        take = order_from_prompt(sheet["prompt"])
        socket.send_json({"type": "order", "order": take, "version": 0, "match": 1})
        placing = next_view(socket)
        assert placing["version"] == 1 and placing["prompt"]["kind"] == "place"

        other = other_take(sheet["prompt"], take)
        socket.send_json({"type": "order", "order": other, "version": 0, "match": 1})
        error = next_frame(socket)
        assert error["type"] == "error" and error["code"] == "stale", error
        assert error["detail"] == (
            "The table moved on while you were choosing; here is the new sheet."
        )
        fresh = next_frame(socket)
        assert fresh["type"] == "view" and fresh["version"] == 1
        assert fresh["prompt"]["kind"] == "place"
    assert len(order_rows(client, code)) == 1


def test_an_order_sent_again_from_the_same_sheet_is_answered_with_the_view(
    client: TestClient,
) -> None:
    """A phone whose connection died sends again what it sent unheard, and a double tap
    sends a form twice: the same order from the same sheet, come again once it is sealed,
    is answered with the seat's view, not refused as stale; nothing more is written. An
    order that differs, from that sheet, is still stale (above)."""
    code, _host, tokens = start_duel(client)
    seat = first_to_act(client, code)
    with client.websocket_connect(f"/ws/rooms/{code}?token={tokens[seat]}") as socket:
        sheet = next_view(socket)
        take = order_from_prompt(sheet["prompt"])
        frame = {"type": "order", "order": take, "version": 0, "match": 1}
        socket.send_json(frame)
        assert next_view(socket)["version"] == 1
        socket.send_json(frame)
        again = next_frame(socket)
        assert again["type"] == "view", again
        assert again["version"] == 1 and again["prompt"]["kind"] == "place"
        assert again["my_commitment"] is None  # the take was played: its place is next
    assert len(order_rows(client, code)) == 1


def test_a_form_tapped_twice_seals_once_without_a_refusal(client: TestClient) -> None:
    """The page's form sent twice (a double tap, or sent again on a new connection): the
    second is answered with the page as it stands, with no error line under it."""
    code, _host, tokens = start_duel(client)
    seat = first_to_act(client, code)
    url = f"/ws/rooms/{code}?token={tokens[seat]}&format=html&lang=cs"
    take = order_from_prompt(
        client.get(f"/api/rooms/{code}/me", headers=auth(tokens[seat])).json()["prompt"]
    )
    with client.websocket_connect(url) as ws:
        assert "take-form" in ws.receive_text()
        ws.send_text(form(action="take", slot=take["slots"], version="0", match="1"))
        receive_until(ws, lambda h: "place-form" in h)
        ws.send_text(form(action="take", slot=take["slots"], version="0", match="1"))
        again = ws.receive_text()
        assert 'id="phone-view"' in again and "place-form" in again, again[:200]
        assert "data-error-code" not in again  # the error fragment's mark
    assert len(order_rows(client, code)) == 1


@pytest.mark.parametrize(
    ("version", "match", "code"),
    [(5, 1, "stale"), (0, 2, "stale"), ("0", 1, "malformed"), (True, 1, "malformed")],
    ids=["a-version-not-reached", "another-match", "version-as-text", "version-a-boolean"],
)
def test_versions_that_do_not_fit_are_refused(
    client: TestClient, version: Any, match: Any, code: str
) -> None:
    """issue 13.10: a version the match has not reached, another match's sheet, and a
    version that is not a whole number are refused; the socket plays on."""
    code_, _host, tokens = start_duel(client)
    seat = first_to_act(client, code_)
    with client.websocket_connect(f"/ws/rooms/{code_}?token={tokens[seat]}") as socket:
        sheet = next_view(socket)
        order = order_from_prompt(sheet["prompt"])
        socket.send_json({"type": "order", "order": order, "version": version, "match": match})
        error = next_frame(socket)
        assert error["type"] == "error" and error["code"] == code, error
        if code == "stale":
            assert next_frame(socket)["version"] == 0  # the sheet to choose from again
        socket.send_json({"type": "order", "order": order})  # no version: judged as it comes
        assert next_view(socket)["version"] == 1


def test_another_seat_sealing_does_not_make_a_sheet_stale(client: TestClient) -> None:
    """issue 13.10: in a round everybody seals at once (Heirs' orders) the version moves with
    each seal, yet the sheet of a seat still choosing is the same decision: accepted. In the
    setup another seat's choice takes a colour away, which narrows the decision but leaves
    it standing: a sheet drawn before is judged by the rules, refused only where it names
    the colour taken (told as such), accepted where its colour is still free. At a table
    where everyone picks at once, every pick but the first was refused as stale before."""
    rules = get_rules("heirs")
    room = create_room(client, game="heirs")
    code = room["code"]
    tokens = [join(client, code, name)["token"] for name in ("Ann", "Ben")]
    assert client.post(f"/api/rooms/{code}/start", headers=auth(room["host_token"])).is_success
    live = live_room(client, code)

    def seal(seat: int) -> dict[str, Any]:
        order: dict[str, Any] = rules.random_order(current_match(live).state, seat, Rng(seat))
        sealed = client.post(f"/api/rooms/{code}/orders", json=order, headers=auth(tokens[seat]))
        assert sealed.is_success, sealed.text
        return order

    with client.websocket_connect(f"/ws/rooms/{code}?token={tokens[0]}") as socket:
        sheet = next_view(socket)
        assert sheet["version"] == 0 and sheet["prompt"]["kind"] == "setup"
        bens = seal(1)  # Ben's dynasty takes a colour Ann's sheet still offers
        assert bens["colour"] in sheet["prompt"]["colours"]
        character = sheet["prompt"]["characters"][0]
        taken = {"colour": bens["colour"], "character": character}
        socket.send_json({"type": "order", "order": taken, "version": 0, "match": 1})
        notices = []
        while (frame := next_frame(socket))["type"] in ("view", "sealed"):
            if frame["type"] == "sealed":
                notices.append(frame)
        assert frame["type"] == "error" and frame["code"] == "COLOUR_TAKEN", frame
        # Ben's pick was told small, with Ann's prompt narrowed: the colour gone from it.
        assert [n["seat"] for n in notices] == [1], notices
        narrowed = [op["value"] for op in notices[0]["patch"] if op["path"] == "/prompt"]
        assert narrowed and bens["colour"] not in narrowed[0]["colours"], notices
        free = next(c for c in sheet["prompt"]["colours"] if c != bens["colour"])
        kept = {"colour": free, "character": character}
        socket.send_json({"type": "order", "order": kept, "version": 0, "match": 1})
        while (frame := next_frame(socket))["type"] == "view" and frame["version"] < 2:
            pass
        assert frame["type"] == "view" and frame["version"] == 2, frame
    heirs = current_match(live).state.heirs
    assert [h.setup_choice for h in heirs] == [kept, bens]
    assert len(order_rows(client, code)) == 2
    with client.websocket_connect(f"/ws/rooms/{code}?token={tokens[0]}") as socket:
        drawn = next_view(socket)
        assert drawn["version"] == 2 and drawn["prompt"]["kind"] == "orders"
        orders = rules.random_order(current_match(live).state, 0, Rng(5))
        seal(1)  # Ben seals his round first: the version moves, Ann's decision does not
        socket.send_json({"type": "order", "order": orders, "version": 2, "match": 1})
        notices = []
        while (frame := next_frame(socket))["type"] in ("view", "sealed") and frame["version"] < 4:
            if frame["type"] == "sealed":
                notices.append(frame)
        assert frame["type"] == "view" and frame["version"] == 4, frame
        assert [(n["seat"], n["version"]) for n in notices] == [(1, 3)], "Ben's seal, told small"


def test_a_sheet_drawn_before_a_restart_still_counts(client: TestClient) -> None:
    """issue 13.10: the room is loaded again (as after a restart) once Ben has sealed his
    round; Ann's sheet, drawn before, is for the same decision: accepted, not stale."""
    rules = get_rules("heirs")
    room = create_room(client, game="heirs")
    code = room["code"]
    tokens = [join(client, code, name)["token"] for name in ("Ann", "Ben")]
    assert client.post(f"/api/rooms/{code}/start", headers=auth(room["host_token"])).is_success
    for seat in (0, 1):  # setup
        order = rules.random_order(current_match(live_room(client, code)).state, seat, Rng(seat))
        setup = client.post(f"/api/rooms/{code}/orders", json=order, headers=auth(tokens[seat]))
        assert setup.is_success, setup.text
    drawn = current_match(live_room(client, code)).version
    orders = [
        rules.random_order(current_match(live_room(client, code)).state, s, Rng(9)) for s in (0, 1)
    ]
    sealed = client.post(f"/api/rooms/{code}/orders", json=orders[1], headers=auth(tokens[1]))
    assert sealed.is_success, sealed.text
    room_service(client)._forget(code)  # the next request loads the room from the database
    with client.websocket_connect(f"/ws/rooms/{code}?token={tokens[0]}") as socket:
        assert next_view(socket)["version"] == drawn + 1
        socket.send_json({"type": "order", "order": orders[0], "version": drawn, "match": 1})
        while (frame := next_frame(socket))["type"] == "view" and frame["version"] <= drawn + 1:
            pass
        assert frame["type"] == "view" and frame["version"] == drawn + 2, frame


def test_order_forms_carry_the_version_they_were_drawn_at(client: TestClient) -> None:
    """issue 13.10: the phone's order form holds the view's version and match as hidden
    fields, and translate_form carries them into the order frame."""
    code, _host, tokens = start_duel(client)
    seat = first_to_act(client, code)
    with client.websocket_connect(f"/ws/rooms/{code}?token={tokens[seat]}&format=html") as ws:
        html = ws.receive_text()
    form = html[html.index('<form ws-send data-keep-choices class="ph-card take-form"') :]
    form = form[: form.index("</form>")]
    assert '<input type="hidden" name="version" value="0">' in form
    assert '<input type="hidden" name="match" value="1">' in form

    live = live_room(client, code)
    fields = {"HEADERS": HTMX_HEADERS, "action": "take", "slot": ["A1", "B7"]}
    sent = pages.translate_form(live, {**fields, "version": "0", "match": "1"})
    assert sent == {
        "type": "order",
        "order": {"type": "take", "slots": ["A1", "B7"]},
        "version": 0,
        "match": 1,
    }
    assert "version" not in pages.translate_form(live, {**fields, "version": "", "match": ""})
    assert pages.translate_form(live, {**fields, "version": "x1"})["version"] == "x1"


def test_a_stale_form_on_a_czech_phone_reads_czech_and_redraws_the_sheet(
    client: TestClient,
) -> None:
    """issue 13.10: the stale refusal reaches a Czech phone's page in Czech (by its code),
    followed by the fresh sheet."""
    code, _host, tokens = start_duel(client)
    seat = first_to_act(client, code)
    url = f"/ws/rooms/{code}?token={tokens[seat]}&format=html&lang=cs"
    prompt = client.get(f"/api/rooms/{code}/me", headers=auth(tokens[seat])).json()["prompt"]
    take = order_from_prompt(prompt)
    with client.websocket_connect(url) as ws:
        assert "take-form" in ws.receive_text()
        ws.send_text(form(action="take", slot=take["slots"], version="0", match="1"))
        receive_until(ws, lambda h: "place-form" in h)
        other = other_take(prompt, take)
        ws.send_text(form(action="take", slot=other["slots"], version="0", match="1"))
        error = receive_until(ws, lambda h: h.lstrip().startswith('<div id="phone-error"'))
        assert 'data-error-code="stale"' in error and STALE_CS in error
        assert "place-form" in receive_until(ws, lambda h: 'id="phone-view"' in h)


# ------------------------------------------------------------------ 4. refusals translated


@pytest.mark.parametrize(
    ("code", "czech"),
    [
        ("show", "Tabule ještě přehrává poslední kolo."),
        ("not_playing", "V téhle místnosti se teď nehraje."),
        ("watching", "Tuhle hru sleduješ"),
        ("stale", STALE_CS),
        ("malformed", "Tenhle rozkaz se nedá přečíst."),
        ("bad_order", "Tenhle rozkaz se nedá přečíst."),
        ("unknown_type", "Neznámý druh zprávy"),
        ("binary", "Zprávy musí být text"),
        ("invalid", "Server tuhle zprávu nedokázal zpracovat."),
    ],
)
def test_a_czech_phone_reads_refusals_in_czech(client: TestClient, code: str, czech: str) -> None:
    """issue 13.10: refusal codes the catalog knows are shown in the phone's language."""
    live = live_room(client, create_room(client)["code"])
    html = pages.render_error(live, {"code": code, "detail": "English detail"}, "cs", board=False)
    assert czech in html and "English detail" not in html


def test_unknown_codes_keep_their_detail_and_english_keeps_the_server_words(
    client: TestClient,
) -> None:
    """issue 13.10: a code without a translation shows the server's detail; an English phone
    keeps the detail too (an engine's message may say more than its code)."""
    live = live_room(client, create_room(client)["code"])
    unknown = {"code": "not_in_row", "detail": "B9 is not in row B."}
    assert "B9 is not in row B." in pages.render_error(live, unknown, "cs", board=False)
    specific = {"code": "malformed", "detail": "slots must be a list of slot names."}
    assert "slots must be a list" in pages.render_error(live, specific, "en", board=False)


def test_engine_refusals_keep_their_params_on_the_socket(client: TestClient) -> None:
    """issue 13.10: an engine refusal's ``params`` reach the client with its ``code``, so a
    client can say it in its own words."""
    code, _host, tokens = start_duel(client)
    seat = first_to_act(client, code)
    with client.websocket_connect(f"/ws/rooms/{code}?token={tokens[seat]}") as socket:
        sheet = next_view(socket)
        one_slot = sheet["prompt"]["takeable"][:1]
        socket.send_json({"type": "order", "order": {"type": "take", "slots": one_slot}})
        error = next_frame(socket)
    assert error["code"] == "wrong_count", error
    assert error["params"] == {"expected": 2, "got": 1}


# ------------------------------------------------------------------ helpers


def other_take(offered: Frame, take: Frame) -> Frame:
    """A take of other slots than ``take`` from what the take's prompt ``offered``."""
    slots = [slot for slot in offered["takeable"] if slot not in take["slots"]]
    return {"type": "take", "slots": slots[: len(take["slots"])]}


def order_rows(client: TestClient, code: str) -> list[OrderLog]:
    match = current_match(live_room(client, code))
    with Session(room_service(client).db) as session:
        return list(session.exec(select(OrderLog).where(OrderLog.match_id == match.row_id)).all())


def form(**fields: Any) -> str:
    return json.dumps({**fields, "HEADERS": HTMX_HEADERS})


def receive_until(ws: WebSocketTestSession, wanted: Any, limit: int = 8) -> str:
    """The next text frame ``wanted(text)`` accepts (presence changes redraw the page)."""
    for _ in range(limit):
        text: str = ws.receive_text()
        if wanted(text):
            return text
    raise AssertionError("the expected frame never came")


SETUP = {
    "kind": "setup",
    "colours": ["red", "blue", "green"],
    "colour_kept": False,
    "characters": ["dwarf", "seer"],
}


@pytest.mark.parametrize(
    ("now", "same"),
    [
        ({**SETUP, "colours": ["red", "green"]}, True),  # a colour taken: narrowed
        (dict(SETUP), True),
        ({**SETUP, "colours": ["green", "red"]}, False),  # reordered: not what was drawn
        ({**SETUP, "colours": ["red", "white"]}, False),  # a choice that was not there
        ({**SETUP, "characters": ["dwarf", "merchant"]}, False),
        ({**SETUP, "kind": "orders"}, False),
        ({**SETUP, "fixed": "red"}, False),  # a field more
        (None, False),
    ],
)
def test_only_a_narrowed_prompt_is_the_same_decision(
    now: dict[str, Any] | None, same: bool
) -> None:
    """A sheet drawn before another seat's order stands only where that order narrowed the
    decision (the setup's colours); any other change makes it a new decision."""
    from app.rooms import _same_decision

    assert _same_decision(SETUP, now) is same
    assert _same_decision(None, SETUP) is False

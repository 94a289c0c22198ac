"""No seat or host token in any log line (issue 13.3).

The pages' websockets prove seat and host by cookie, so their URLs carry no token; API clients
may still put one in a URL or an ``Authorization`` header, and every log handler redacts it.
"""

from __future__ import annotations

import io
import json
import logging
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from websockets.sync.client import ClientConnection, connect

from app.config import PROJECT_DIR
from app.logs import REDACTED, RedactSecrets, install, redact
from tests.conftest import ServerProcess
from tests.play import auth, create_room, join, order_from_prompt, start_duel

Frame = dict[str, Any]


def socket_url_of(html: str) -> str:
    match = re.search(r'ws-connect="([^"]*)"', html)
    assert match is not None, "the page opens a websocket"
    return match.group(1).replace("&amp;", "&")


# ------------------------------------------------------------------ tokens out of URLs


def test_the_phone_page_socket_url_has_no_token_and_the_cookie_opens_the_seat(
    client: TestClient,
) -> None:
    """issue 13.3: the phone page connects without ``?token=``; its seat cookie proves the
    seat on the websocket handshake, and without the cookie the socket is refused."""
    code = create_room(client)["code"]
    joined = client.post("/join", data={"code": code, "name": "Ema"}, follow_redirects=False)
    assert joined.status_code == 303
    token = client.cookies[f"pecet_seat_{code}"]
    page = client.get(f"/r/{code}")
    url = socket_url_of(page.text)
    assert token not in url and "token=" not in url
    with client.websocket_connect(url) as socket:
        fragment = socket.receive_text()
    assert "Ema" in fragment, "the seat's own view"
    with client.websocket_connect(f"/ws/rooms/{code}") as socket:
        assert socket.receive_json()["you"]["seat"] == 0
    client.cookies.clear()
    with (
        client.websocket_connect(f"/ws/rooms/{code}") as socket,
        pytest.raises(WebSocketDisconnect) as closed,
    ):
        socket.receive_json()
    assert closed.value.code == 1008


def test_the_board_page_socket_url_has_no_host_token_and_the_cookie_makes_it_the_host(
    client: TestClient,
) -> None:
    """issue 13.3: the host's board connects without ``?host=``; the host cookie gives its
    socket the host's view (the seat PINs), a board without it gets the public view."""
    hosted = client.post("/host", data={"game": "hidden_leaders"}, follow_redirects=False)
    code = hosted.headers["location"].rsplit("/", 1)[-1]
    host_token = client.cookies[f"pecet_host_{code}"]
    pin = join(client, code, "Ema")["pin"]
    url = socket_url_of(client.get(f"/b/{code}").text)
    assert host_token not in url and "host=" not in url
    with client.websocket_connect(url) as socket:
        assert f'data-testid="pin-0">{pin}<' in socket.receive_text()
    client.cookies.clear()
    with client.websocket_connect(url) as socket:
        assert 'data-testid="pin-' not in socket.receive_text()


def test_api_clients_authenticate_sockets_by_header_or_query(client: TestClient) -> None:
    """issue 13.3: ``Authorization: Bearer`` opens a seat's socket and a host's board; the
    documented ``?token=`` and ``?host=`` keep working."""
    code, host, tokens = start_duel(client)
    for headers, url in (
        (auth(tokens[1]), f"/ws/rooms/{code}"),
        ({}, f"/ws/rooms/{code}?token={tokens[1]}"),
    ):
        with client.websocket_connect(url, headers=headers) as socket:
            assert socket.receive_json()["you"]["seat"] == 1
    for headers, url in (
        (auth(host), f"/ws/rooms/{code}/board"),
        ({}, f"/ws/rooms/{code}/board?host={host}"),
    ):
        with client.websocket_connect(url, headers=headers) as socket:
            assert "pins" in json.dumps(socket.receive_json())
    with client.websocket_connect(f"/ws/rooms/{code}/board", headers=auth("forged")) as socket:
        assert "pins" not in json.dumps(socket.receive_json())


# ------------------------------------------------------------------ the filter


@pytest.mark.parametrize(
    "line",
    [
        '127.0.0.1:5555 - "WebSocket /ws/rooms/ABCD?token=SECRET&format=html" [accepted]',
        '127.0.0.1:5555 - "GET /b/ABCD?lang=cs&host=SECRET HTTP/1.1" 200',
        "< authorization: Bearer SECRET",
        "(b'authorization', b'Bearer SECRET'), (b'cookie', b'lang=cs; pecet_seat_ABCD=SECRET')",
        "Cookie: pecet_host_ABCD=SECRET; pecet_seat_ABCD=SECRET",
        '{"code": "ABCD", "host_token": "SECRET"}',
        "{'seat': 0, 'token': 'SECRET', 'pin': '1234'}",
    ],
)
def test_redact_removes_every_form_a_token_takes_in_a_log_line(line: str) -> None:
    """issue 13.3: tokens in URLs, headers, cookies and JSON are redacted."""
    redacted = redact(line)
    assert "SECRET" not in redacted and REDACTED in redacted


def test_the_filter_keeps_uvicorns_access_arguments_usable() -> None:
    """issue 13.3: uvicorn's access formatter unpacks five arguments, the status a number."""
    record = logging.LogRecord(
        "uvicorn.access",
        logging.INFO,
        __file__,
        1,
        '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:1", "GET", "/api/rooms/ABCD/me?token=SECRET", "1.1", 401),
        None,
    )
    assert RedactSecrets().filter(record)
    assert record.args == ("127.0.0.1:1", "GET", f"/api/rooms/ABCD/me?token={REDACTED}", "1.1", 401)
    scope = {"headers": [(b"authorization", b"Bearer SECRET")]}
    traced = logging.LogRecord("uvicorn.asgi", 5, __file__, 1, "scope=%s %r", (scope, scope), None)
    RedactSecrets().filter(traced)
    assert "SECRET" not in traced.getMessage() and REDACTED in traced.getMessage()
    try:
        raise ValueError("GET /ws/rooms/ABCD?token=SECRET")
    except ValueError:
        failed = logging.LogRecord(
            "pecet", logging.ERROR, __file__, 1, "failed", None, sys.exc_info()
        )
    RedactSecrets().filter(failed)
    assert "SECRET" not in logging.Formatter().format(failed)


def test_install_puts_the_filter_on_handlers_configured_elsewhere() -> None:
    """issue 13.3: a logging set up by someone else (uvicorn's own configuration) is
    redacted once :func:`app.logs.install` has run, on every handler, once."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    logger = logging.getLogger("tests.log_secrets.elsewhere")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        install()
        install()
        assert sum(isinstance(f, RedactSecrets) for f in handler.filters) == 1
        logger.warning('"WebSocket %s" [accepted]', "/ws/rooms/ABCD?token=SECRET")
    finally:
        logger.removeHandler(handler)
        for existing in [logging.getLogger(), *logging.Logger.manager.loggerDict.values()]:
            for other in getattr(existing, "handlers", []):
                for added in [f for f in other.filters if isinstance(f, RedactSecrets)]:
                    other.removeFilter(added)
    assert stream.getvalue() == f'"WebSocket /ws/rooms/ABCD?token={REDACTED}" [accepted]\n'


# ------------------------------------------------------------------ a whole game's server log


def start_tracing(server: ServerProcess) -> None:
    """Starts ``pecet serve`` at uvicorn's most verbose level, ``trace`` (every ASGI scope
    with its headers, every websocket handshake line): the log then holds all the server
    could ever write. (``ServerProcess.start`` runs at ``warning``, where no access line is
    written at all.)"""
    assert server.log_path is not None
    log = server.log_path.open("ab")
    server.process = subprocess.Popen(
        [
            *(sys.executable, "-m", "app.cli", "serve", "--host", "127.0.0.1"),
            *("--port", str(server.port), "--log-level", "trace"),
        ],
        cwd=PROJECT_DIR,
        env={
            **os.environ,
            "DATABASE_URL": server.database_url,
            "PECET_BOT_DELAY": str(server.bot_delay),
            "PECET_STEP_SECONDS": str(server.step_seconds),
            "PECET_PUBLIC_URL": server.base_url,
        },
        stdout=log,
        stderr=log,
    )
    log.close()
    deadline = time.monotonic() + 60
    while True:
        assert server.process.poll() is None, "the server exited"
        try:
            if httpx.get(f"{server.base_url}/healthz", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        assert time.monotonic() < deadline, "the server did not start within 60 s"
        time.sleep(0.1)


def settled_view(socket: ClientConnection, version: int) -> Frame:
    """Frames until the view of ``version`` once the board has played it out."""
    while True:
        frame: Frame = json.loads(socket.recv(timeout=30))
        if frame.get("type") == "view" and frame["version"] >= version and not frame.get("show"):
            return frame


def test_a_whole_game_leaves_no_token_in_the_server_log(tmp_path: Path) -> None:
    """issue 13.3: a duel played by two phones over websockets (one with ``?token=``, one by
    cookie), watched by two host boards (by cookie and by ``?host=``), with API calls by
    header and by query and the pages by cookie: no seat or host token is in the server's
    whole log, written at its most verbose level."""
    server = ServerProcess(
        database_url=f"sqlite:///{tmp_path / 'pecet.sqlite3'}", log_path=tmp_path / "server.log"
    )
    start_tracing(server)
    try:
        with httpx.Client(base_url=server.base_url) as http:
            code, host, tokens = start_duel(http)
            secrets = [host, *tokens]
            cookie_header = {"Cookie": f"pecet_seat_{code}={tokens[1]}; pecet_host_{code}={host}"}
            assert http.get(f"/r/{code}", headers=cookie_header).status_code == 200
            assert http.get(f"/b/{code}", headers=cookie_header).status_code == 200
            http.get(f"/api/rooms/{code}/me?token={tokens[0]}")
            http.get(f"/b/{code}?host={host}")
            ws = server.ws_url + f"/ws/rooms/{code}"
            with (
                connect(f"{ws}?token={tokens[0]}") as phone0,
                connect(ws, additional_headers=cookie_header) as phone1,
                connect(f"{ws}/board", additional_headers=cookie_header) as board,
                connect(f"{ws}/board?host={host}&format=html") as html_board,
            ):
                phones = [phone0, phone1]
                views = [settled_view(phone, 0) for phone in phones]
                assert [view["you"]["seat"] for view in views] == [0, 1]
                assert "pins" in json.dumps(settled_view(board, 0)), "the host's board"
                assert 'data-testid="pin-0"' in html_board.recv(timeout=30)
                version = 0
                while views[0]["status"] == "playing":
                    (active,) = views[0]["to_act"]
                    order = order_from_prompt(views[active]["prompt"])
                    phones[active].send(json.dumps({"type": "order", "order": order}))
                    version += 1
                    views = [settled_view(phone, version) for phone in phones]
                assert views[0]["status"] == "finished"
                assert settled_view(board, version)["status"] == "finished"
    finally:
        server.stop()
    assert server.log_path is not None
    log = server.log_path.read_text(errors="replace")
    assert f'"WebSocket /ws/rooms/{code}?token={REDACTED}' in log, "the access line was written"
    assert f"pecet_seat_{code}={REDACTED}" in log, "the handshake's cookie header was traced"
    leaked = [secret for secret in secrets if secret in log]
    assert leaked == [], f"{len(leaked)} token(s) in the server log"


def test_a_page_of_another_site_cannot_use_the_seat_cookie(client: TestClient) -> None:
    """issue 13.3: the cookie proves a seat to this server's own pages only; a socket opened
    by a page of another site (its Origin) is refused like one without a token."""
    created = client.post("/api/rooms", json={"game": "legions"}).json()
    code = created["code"]
    token = client.post(f"/api/rooms/{code}/seats", json={"name": "Ann"}).json()["token"]
    client.cookies.set(f"pecet_seat_{code}", token)
    with client.websocket_connect(
        f"/ws/rooms/{code}", headers={"origin": "http://testserver"}
    ) as socket:
        assert socket.receive_json()["type"] == "view"
    with (
        pytest.raises(WebSocketDisconnect) as refused,
        client.websocket_connect(
            f"/ws/rooms/{code}", headers={"origin": "http://evil.example"}
        ) as socket,
    ):
        socket.receive_json()
    assert refused.value.code == 1008

"""Rate limits per client address on room lookups, joins and come-back attempts (issue 13.7):
429 with ``Retry-After`` over the limit, each address counted on its own."""

from __future__ import annotations

import time
from collections.abc import Iterator
from html import unescape
from pathlib import Path

import httpx
import limits.storage.memory
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from starlette.requests import HTTPConnection

from app import ratelimit
from app.config import Settings
from app.main import create_app
from app.ratelimit import AddressLimits, Kind, Throttle, client_key

TABLE = ("192.0.2.10", 50000)
"""One NAT address a whole table's phones share."""
STRANGER = ("198.51.100.7", 50000)


def limited_app(tmp_path: Path, limits: dict[Kind, str | None]) -> FastAPI:
    """The real app, with the limits installed as ``create_app`` is to install them."""
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'limits.sqlite3'}", bot_delay=0.0)
    app = create_app(settings)
    ratelimit.install(app, AddressLimits.of(limits))
    return app


@pytest.fixture
def app(tmp_path: Path) -> FastAPI:
    return limited_app(tmp_path, {"lookup": "3/minute", "join": "2/minute", "reclaim": "2/minute"})


@pytest.fixture
def table(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app, client=TABLE) as client:
        yield client


def open_room(client: TestClient) -> str:
    created = client.post("/api/rooms", json={"game": "heirs"})
    assert created.status_code == 201, created.text
    code: str = created.json()["code"]
    return code


def assert_limited(response: httpx.Response) -> int:
    assert response.status_code == 429, response.text
    wait = int(response.headers["Retry-After"])
    assert 1 <= wait <= 60
    return wait


def test_room_lookups_over_the_limit_are_429_with_retry_after(
    app: FastAPI, table: TestClient
) -> None:
    """issue 13.7: GET /api/rooms/{code} — found or not — counts; the 4th in a minute waits,
    while another address still looks up."""
    code = open_room(table)
    for looked_up in (code, "ZZZZ", "YYYY"):
        assert table.get(f"/api/rooms/{looked_up}").status_code in (200, 404)
    refused = table.get(f"/api/rooms/{code}")
    assert_limited(refused)
    assert refused.json()["code"] == "too_many_requests"
    with TestClient(app, client=STRANGER) as stranger:
        assert stranger.get(f"/api/rooms/{code}").status_code == 200


def test_the_join_link_page_counts_as_a_lookup(app: FastAPI, table: TestClient) -> None:
    """issue 13.7: /j/{code} (the QR code's page) shares the lookup limit and answers with the
    join page, the reason in the player's language and Retry-After."""
    code = open_room(table)
    table.get(f"/api/rooms/{code}")
    assert table.get(f"/j/{code}").status_code == 200
    assert table.get("/j/ZZZZ").status_code == 404
    refused = table.get(f"/j/{code}", headers={"Accept-Language": "cs"})
    assert_limited(refused)
    assert "Příliš mnoho pokusů z tvé sítě" in unescape(refused.text)
    assert 'name="code"' in refused.text, "the join form is still there to use later"


def test_joins_over_the_limit_are_429_by_api_and_by_form(app: FastAPI, table: TestClient) -> None:
    """issue 13.7: POST /api/rooms/{code}/seats and the join form share the join limit."""
    code = open_room(table)
    assert table.post(f"/api/rooms/{code}/seats", json={"name": "Ann"}).status_code == 201
    form = table.post("/join", data={"code": code, "name": "Ben"}, follow_redirects=False)
    assert form.status_code == 303
    refused = table.post(f"/api/rooms/{code}/seats", json={"name": "Cid"})
    assert_limited(refused)
    page = table.post("/join", data={"code": code, "name": "Cid"})
    assert_limited(page)
    assert "Too many tries from your network" in page.text
    assert 'value="Cid"' in page.text, "the typed name is kept for the next try"
    with TestClient(app, client=STRANGER) as stranger:
        joined = stranger.post(f"/api/rooms/{code}/seats", json={"name": "Cid"})
        assert joined.status_code == 201


def test_reclaims_over_the_limit_are_429_across_seats_and_rooms(
    app: FastAPI, table: TestClient
) -> None:
    """issue 13.7: an address guessing PINs is stopped across seats and rooms, not only per
    seat (the per-seat limit alone lets one address try 5 PINs on every seat)."""
    first, second = open_room(table), open_room(table)
    with TestClient(app, client=STRANGER) as stranger:
        for code in (first, second):
            assert stranger.post(f"/api/rooms/{code}/seats", json={"name": "Ann"}).is_success
    tries = [
        table.post(f"/api/rooms/{first}/reclaim", json={"name": "Ann", "pin": "0000"}),
        table.post("/reclaim", data={"code": second, "name": "Ann", "pin": "0000"}),
    ]
    assert [t.status_code for t in tries] in ([403, 403], [200, 403], [403, 200], [200, 200])
    assert_limited(table.post(f"/api/rooms/{second}/reclaim", json={"name": "Ann", "pin": "1"}))
    page = table.post("/reclaim", data={"code": first, "name": "Ann", "pin": "1"})
    assert_limited(page)
    assert "Too many tries from your network" in page.text


def test_a_table_behind_one_address_is_not_limited_by_the_defaults(tmp_path: Path) -> None:
    """issue 13.7: ten phones on one NAT address open the join link at once (half of them
    twice) and join, without meeting the default limits."""
    app = limited_app(tmp_path, dict(ratelimit.DEFAULT_LIMITS))
    with TestClient(app, client=TABLE) as client:
        code = open_room(client)
        for phone in range(15):
            assert client.get(f"/j/{code}").status_code == 200, phone
        for phone in range(10):
            joined = client.post("/join", data={"code": code, "name": f"Player {phone}"})
            assert joined.status_code in (200, 409), joined.text  # Heirs seats six


class HeldTime:
    """The ``time`` module as the rate limits see it, with the clock held still: a sweep at
    full speed, however slowly a loaded machine serves it (the moving window reads
    ``time.time()`` in ``limits``' memory storage)."""

    def __init__(self) -> None:
        self.now = time.time()

    def time(self) -> float:
        return self.now


def test_the_default_lookup_limit_stops_a_sweep(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """issue 13.7: a sweep of room codes at full speed is stopped after a small burst."""
    held = HeldTime()
    monkeypatch.setattr(limits.storage.memory, "time", held)
    monkeypatch.setattr(ratelimit, "time", held)
    app = limited_app(tmp_path, dict(ratelimit.DEFAULT_LIMITS))
    with TestClient(app, client=STRANGER) as sweeper:
        answers = [sweeper.get(f"/api/rooms/{code}").status_code for code in ("ABCD",) * 40]
    assert answers == [404] * 20 + [429] * 20
    bursts = []
    with TestClient(app, client=STRANGER) as sweeper:
        for _ in range(3):
            held.now += 1.5
            answers = [sweeper.get(f"/api/rooms/{code}").status_code for code in ("ABCD",) * 40]
            bursts.append(answers.count(404))
    assert bursts == [20, 20, 0], "a burst a second, until the minute's 60 are spent"


def test_a_refused_hit_is_not_counted() -> None:
    """issue 13.7: a client that waits as told is let in again (refusals do not extend the
    wait); each key is counted on its own."""
    throttle = Throttle("2/minute")
    assert throttle.hit("a") is None and throttle.hit("a") is None
    first_wait = throttle.hit("a")
    assert first_wait is not None and 1 <= first_wait <= 60
    for _ in range(5):
        assert throttle.hit("a") is not None
    assert throttle.hit("b") is None
    assert len(throttle.items) == 1


def connection_from(host: str) -> HTTPConnection:
    return HTTPConnection({"type": "http", "client": (host, 1234), "headers": []})


def test_ipv6_clients_are_counted_per_64_network() -> None:
    """issue 13.7: an IPv6 client may use any address of its /64, so the network counts."""
    one = client_key(connection_from("2001:db8:1:2::1"))
    other = client_key(connection_from("2001:db8:1:2:ffff::9"))
    assert one == other == "2001:db8:1:2::/64"
    assert client_key(connection_from("2001:db8:1:3::1")) != one
    assert client_key(connection_from("::ffff:192.0.2.1")) == "192.0.2.1"
    assert client_key(connection_from("192.0.2.1")) == "192.0.2.1"


def test_limits_are_read_from_the_environment() -> None:
    """issue 13.7: the numbers are settings; the test suite turns the limits off."""
    assert AddressLimits.from_env({"PECET_RATE_LIMITS": "off"}).throttles == {}
    defaults = AddressLimits.from_env({})
    assert set(defaults.throttles) == {"lookup", "join", "reclaim"}
    assert [str(i) for i in defaults.throttles["lookup"].items] == [
        "20 per 1 second",
        "60 per 1 minute",
    ]
    tuned = AddressLimits.from_env({"PECET_JOIN_LIMIT": "100/hour", "PECET_RECLAIM_LIMIT": "off"})
    assert [str(i) for i in tuned.throttles["join"].items] == ["100 per 1 hour"]
    assert "reclaim" not in tuned.throttles


def test_an_app_without_limits_installed_is_not_limited(tmp_path: Path) -> None:
    """issue 13.7: limits come only from ``install`` (the suite's other tests share one
    address and must not be throttled)."""
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'free.sqlite3'}", bot_delay=0.0)
    with TestClient(create_app(settings)) as client:
        code = open_room(client)
        assert all(client.get(f"/j/{code}").status_code == 200 for _ in range(70))

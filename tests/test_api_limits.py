"""What one request may carry, and that every bad one gets a clear 4xx at once (issue 13).

Through the real app in process: the limits live in its routing and middleware.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.limits_http import MAX_BODY_BYTES, MAX_JSON_DEPTH, json_depth_exceeds
from engine.tournament import MAX_GAMES, MAX_ROUNDS, Plan
from tests.play import auth, create_room, join

JSON_HEADERS = {"Content-Type": "application/json"}


def post_raw(
    client: TestClient, path: str, body: bytes, headers: dict[str, str] | None = None
) -> Any:
    return client.post(path, content=body, headers={**JSON_HEADERS, **(headers or {})})


@pytest.mark.parametrize(
    "tournament",
    [
        {"count": 1_000_000_000},
        {"count": 10**10},
        {"count": 10**4000},
        {"games": ["heirs"], "rounds": 1_000_000_000},
    ],
)
def test_a_huge_tournament_is_refused_naming_the_limit(
    client: TestClient, tournament: dict[str, Any]
) -> None:
    """Issue 13.1: 10⁹ games took 65 s and 7.7 GB before its 422 (10¹⁰: a 500). Every number
    is checked before anything is built from it; this test finishing under pytest-timeout
    with the 422 is the proof that nothing proportional to it was allocated."""
    response = client.post("/api/rooms", json={"game": "legions", "tournament": tournament})
    assert response.status_code == 422, response.text
    assert f"less than or equal to {MAX_ROUNDS}" in response.json()["detail"]

    room = create_room(client, "legions")
    changed = client.post(
        f"/api/rooms/{room['code']}/tournament",
        json={"tournament": tournament},
        headers=auth(room["host_token"]),
    )
    assert changed.status_code == 422, changed.text
    assert str(MAX_ROUNDS) in changed.json()["detail"]


def test_the_plan_checks_its_numbers_before_building_anything() -> None:
    """Issue 13.1: the engine's own check names the limit, for every caller (the board's
    form too), and a count does not take rounds it would silently ignore."""
    for raw in ({"count": 10**18}, {"count": 10**18, "final_double": True}):
        with pytest.raises(
            ValueError, match=f"count must be a whole number from 1 to {MAX_ROUNDS}"
        ):
            Plan.from_json(raw, "legions", ["legions"])
    with pytest.raises(ValueError, match=f"1 to {MAX_GAMES} games"):
        Plan.from_json({"games": ["legions"] * 10**6}, "legions", ["legions"])
    with pytest.raises(ValueError, match="rounds go with a list of games"):
        Plan.from_json({"count": 2, "rounds": 3}, "legions", ["legions"])


def test_a_body_over_64_kib_is_413(client: TestClient) -> None:
    """Issue 13.4: a 50 MB option was stored and sent back in every view."""
    room = create_room(client, "heirs")
    host = auth(room["host_token"])
    huge = b'{"game":"heirs","options":{"note":"' + b"x" * MAX_BODY_BYTES + b'"}}'
    assert post_raw(client, "/api/rooms", huge).status_code == 413
    options = f"/api/rooms/{room['code']}/options"
    assert post_raw(client, options, huge, host).status_code == 413

    def chunks() -> Iterator[bytes]:  # no Content-Length: the bytes are counted as they come
        yield b'{"game":"heirs","options":{"note":"'
        for _ in range(MAX_BODY_BYTES // 1024 + 1):
            yield b"x" * 1024
        yield b'"}}'

    chunked = client.post("/api/rooms", content=chunks(), headers=JSON_HEADERS)
    assert chunked.status_code == 413
    assert client.get(f"/api/rooms/{room['code']}").json()["options"] == {}

    padded = b'{"game": "legions"}' + b" " * (MAX_BODY_BYTES - 100)
    assert post_raw(client, "/api/rooms", padded).status_code == 201, "under the limit is read"


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_non_finite_numbers_are_refused_everywhere(client: TestClient, constant: str) -> None:
    """Issue 13.4: `{"options":{"foo":NaN}}` was stored and went out as a bare NaN that
    browsers' JSON.parse rejects; Python's json accepts it, the API does not."""
    created = post_raw(
        client, "/api/rooms", b'{"game":"heirs","options":{"rounds":%s}}' % constant.encode()
    )
    assert created.status_code == 422
    assert constant.lstrip("-") in created.json()["detail"]

    room = create_room(client, "heirs")
    code, host = room["code"], auth(room["host_token"])
    body = b'{"timer": %s}' % constant.encode()
    changed = post_raw(client, f"/api/rooms/{code}/options", body, host)
    assert changed.status_code == 422 and constant.lstrip("-") in changed.json()["detail"]
    assert client.get(f"/api/rooms/{code}").json()["options"] == {}

    seat = join(client, code, "Ema")
    order = b'{"kind": "seal", "amount": %s}' % constant.encode()
    sealed = post_raw(client, f"/api/rooms/{code}/orders", order, auth(seat["token"]))
    assert sealed.status_code == 422 and constant.lstrip("-") in sealed.json()["detail"]


def test_deep_json_is_refused_with_a_reason(client: TestClient) -> None:
    """Issue 13.4: nesting is bounded before a value is stored or reaches a game; a nesting
    deeper than the interpreter's stack was a bare 400 "error parsing the body"."""
    room = create_room(client, "heirs")
    code, host = room["code"], auth(room["host_token"])
    for depth in (MAX_JSON_DEPTH + 1, 5000):
        nested = b"[" * depth + b"]" * depth
        body = b'{"game":"heirs","options":{"note":' + nested + b"}}"
        refused = post_raw(client, "/api/rooms", body)
        assert refused.status_code == 422, (depth, refused.text)
        assert f"deeper than {MAX_JSON_DEPTH}" in refused.json()["detail"]
        options = b'{"note":' + nested + b"}"
        changed = post_raw(client, f"/api/rooms/{code}/options", options, host)
        assert changed.status_code == 422
    assert client.get(f"/api/rooms/{code}").json()["options"] == {}


@pytest.mark.parametrize("as_bytes", [False, True])
def test_the_depth_limit_holds_at_its_edge_whether_or_not_the_text_is_walked(
    as_bytes: bool,
) -> None:
    """A text that opens no more arrays and objects than the limit is taken without walking
    its value; one that opens more is walked, and only its nesting decides."""
    at_limit = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH
    over = "[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1)
    wide = json.dumps({"moves": [{"to": [n]} for n in range(MAX_JSON_DEPTH)]})  # 3 deep
    strings = json.dumps({"name": "{[" * MAX_JSON_DEPTH})  # brackets only inside a string
    for text, deeper in ((at_limit, False), (over, True), (wide, False), (strings, False)):
        value = json.loads(text)
        given = text.encode() if as_bytes else text
        assert json_depth_exceeds(value, MAX_JSON_DEPTH, given) is deeper, text[:40]
        assert json_depth_exceeds(value, MAX_JSON_DEPTH) is deeper, text[:40]


@pytest.mark.parametrize(
    "options",
    [
        [],
        "timer",
        {f"option{i}": 1 for i in range(33)},
        {"note": "x" * 5000},
    ],
)
def test_options_are_a_small_json_object(client: TestClient, options: Any) -> None:
    """Issue 13.4: options are stored and sent in every view, so they are an object of a
    few KiB at most, whatever the game does with them."""
    created = client.post("/api/rooms", json={"game": "heirs", "options": options})
    assert created.status_code == 422, created.text
    room = create_room(client, "heirs")
    changed = client.post(
        f"/api/rooms/{room['code']}/options", json=options, headers=auth(room["host_token"])
    )
    assert changed.status_code == 422, changed.text
    assert client.get(f"/api/rooms/{room['code']}").json()["options"] == {}


def test_options_that_do_not_fit_the_seats_at_start_are_422_naming_the_option(
    client: TestClient,
) -> None:
    """Issue 13.6: Heirs colours checked for 2 players, then 3 seats, then Start was a 500."""
    room = create_room(client, "heirs")
    code, host = room["code"], auth(room["host_token"])
    two = client.post(f"/api/rooms/{code}/options", json={"colours": ["red", "blue"]}, headers=host)
    assert two.status_code == 200, two.text
    for name in ("Ema", "Petr", "Jana"):
        join(client, code, name)
    start = client.post(f"/api/rooms/{code}/start", headers=host)
    assert start.status_code == 422, start.text
    assert start.json()["code"] == "bad_options"
    assert "colours" in start.json()["detail"]
    assert client.get(f"/api/rooms/{code}").json()["status"] == "lobby"

    three = {"colours": ["red", "blue", "green"]}
    assert client.post(f"/api/rooms/{code}/options", json=three, headers=host).status_code == 200
    assert client.post(f"/api/rooms/{code}/start", headers=host).status_code == 200


@pytest.mark.parametrize("path_seat", ["+0.0", "+0", "0.0", "00", "-0", "٠", "1e0"])
def test_a_seat_in_the_path_is_plain_digits(client: TestClient, path_seat: str) -> None:
    """Issue 13.10: a seat path of `+0.0` was seat 0."""
    room = create_room(client, "hidden_leaders")
    code, host = room["code"], auth(room["host_token"])
    join(client, code, "Ema")
    join(client, code, "Petr")
    kicked = client.delete(f"/api/rooms/{code}/seats/{path_seat}", headers=host)
    assert kicked.status_code == 422, kicked.text
    moved = client.post(f"/api/rooms/{code}/seats/{path_seat}/move", json={"to": 1}, headers=host)
    assert moved.status_code == 422, moved.text
    seats = client.get(f"/api/rooms/{code}").json()["seats"]
    assert [s["name"] for s in seats] == ["Ema", "Petr"]
    assert client.delete(f"/api/rooms/{code}/seats/0", headers=host).status_code == 200


def test_numbers_and_flags_in_bodies_have_their_json_type(client: TestClient) -> None:
    """Issue 13.10: the schema says integer and boolean; `"1"`, `1.0` and `1` were taken."""
    room = create_room(client, "hidden_leaders")
    code, host = room["code"], auth(room["host_token"])
    join(client, code, "Ema")
    join(client, code, "Petr")
    for to in ("1", 1.0, True):
        move = client.post(f"/api/rooms/{code}/seats/0/move", json={"to": to}, headers=host)
        assert move.status_code == 422, (to, move.text)
    pause = client.post(f"/api/rooms/{code}/pause", json={"paused": 1}, headers=host)
    assert pause.status_code == 422
    seats = client.get(f"/api/rooms/{code}").json()["seats"]
    assert [s["name"] for s in seats] == ["Ema", "Petr"]


def schema_of(openapi: dict[str, Any], ref_or_schema: dict[str, Any]) -> dict[str, Any]:
    """A schema with its `$ref` (or a single-`$ref` `anyOf` member) followed."""
    for member in ref_or_schema.get("anyOf", [ref_or_schema]):
        if "$ref" in member:
            found: dict[str, Any] = openapi["components"]["schemas"][member["$ref"].split("/")[-1]]
            return found
    return ref_or_schema


def valid_by_one_of(schema: dict[str, Any], value: dict[str, Any]) -> bool:
    """Whether ``value`` meets exactly one ``oneOf`` branch (the branches here only require
    keys and forbid others)."""

    def meets(branch: dict[str, Any]) -> bool:
        required = set(branch.get("required", ()))
        forbidden = set(branch.get("not", {}).get("required", ()))
        return required <= set(value) and not (forbidden and forbidden <= set(value))

    return sum(meets(branch) for branch in schema["oneOf"]) == 1


def test_the_openapi_contract_matches_the_server(client: TestClient) -> None:
    """Issue 13.10: the 400 for an unreadable body and the 413 were undocumented, `name`
    had no minLength, `"tournament": {}` was valid by the schema but 422, and a seat path
    took any number."""
    openapi = client.get("/openapi.json").json()
    for path, item in openapi["paths"].items():
        if path.startswith("/api/"):
            for method, operation in item.items():
                for documented in ("400", "413", "422"):
                    assert documented in operation["responses"], (method, path, documented)

    schemas = openapi["components"]["schemas"]
    assert schemas["Join"]["properties"]["name"]["minLength"] == 1
    assert schemas["Reclaim"]["properties"]["name"]["minLength"] == 1

    plan = schema_of(openapi, schemas["CreateRoom"]["properties"]["tournament"])
    assert plan["additionalProperties"] is False
    assert plan["properties"]["count"]["maximum"] == MAX_ROUNDS
    assert plan["properties"]["games"]["maxItems"] == MAX_GAMES
    for tournament, status in (
        ({}, 422),
        ({"count": 2, "rounds": 2}, 422),
        ({"games": ["legions"], "count": 2}, 422),
        ({"count": 2}, 201),
        ({"games": ["legions"], "rounds": 2}, 201),
    ):
        answer = client.post("/api/rooms", json={"game": "legions", "tournament": tournament})
        assert answer.status_code == status, (tournament, answer.text)
        assert valid_by_one_of(plan, tournament) == (status == 201), tournament
    body = schemas["TournamentBody"]["properties"]["tournament"]
    assert schema_of(openapi, body) == plan

    kick = openapi["paths"]["/api/rooms/{code}/seats/{seat}"]["delete"]["parameters"]
    (seat,) = [p for p in kick if p["name"] == "seat"]
    assert seat["schema"]["type"] == "integer" and seat["schema"]["minimum"] == 0

"""Issue 13.10: a game engine's refusals reach a Czech phone in Czech, not in the engine's
English. Every code an engine raises has a sentence in its game's screens (or, for the codes
the room shares, in the room's table), filled in from the refusal's params."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.config import PROJECT_DIR
from app.pages import render_error, translate_refusal
from engine.heirs.content import RESOURCES

GAMES = ("hidden_leaders", "legions", "heirs")
UNKNOWN = "ENGLISH DETAIL"

SAMPLE_PARAMS: dict[str, list[dict[str, Any]]] = {
    "hidden_leaders": [
        {},
        {"slot": "A1", "card": "WF1", "expected": 2, "got": 1, "field": "colour"},
        {"slot": "B2", "card": "LIA4", "expected": 1, "got": 2, "missing": ["A1", "B3"]},
    ],
    "legions": [{}],
    "heirs": [{}, {"part": "expedition"}, {"part": "shadow_path"}],
}


def _call_name(call: ast.Call) -> str:
    if isinstance(call.func, ast.Name):
        return call.func.id
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    return ""


def _codes_of(node: ast.expr | None) -> set[str]:
    """A code argument as the codes it can be: a literal, or Heirs' ``f"NOT_ENOUGH_{x}"``
    over every resource; a variable only forwards a code written elsewhere."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, ast.JoinedStr):
        head = node.values[0]
        assert isinstance(head, ast.Constant) and head.value == "NOT_ENOUGH_", ast.unparse(node)
        return {f"NOT_ENOUGH_{resource.upper()}" for resource in RESOURCES}
    return set()


def engine_codes(game: str) -> set[str]:
    """Every refusal code engine/<game>/ can raise, read from its source: ``code=`` at any
    call (``IllegalOrder``, ``check_flat_order``), Heirs' ``_bad(message, code)`` and
    ``fail(part, code, message)``, and ``NotYourTurn``."""
    codes: set[str] = set()
    for source in sorted((PROJECT_DIR / "engine" / game).glob("*.py")):
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = _call_name(node)
            for keyword in node.keywords:
                if keyword.arg == "code":
                    codes |= _codes_of(keyword.value)
            if name == "NotYourTurn":
                codes.add("not_your_turn")
            elif name == "_bad":
                codes |= _codes_of(node.args[1]) if len(node.args) > 1 else {"BAD_ORDER"}
            elif name == "fail" and len(node.args) > 1:
                codes |= _codes_of(node.args[1])
    return codes


def test_the_source_reading_finds_the_codes_each_engine_raises() -> None:
    """Issue 13.10: the parser sees the codes a grep of the engines shows (so the coverage test
    below cannot pass by reading nothing)."""
    assert engine_codes("legions") == {
        "bad_order",
        "not_your_turn",
        "not_ready",
        "used",
        "not_yours",
        "stratagem_timing",
        "stratagem_target",
        "wrong_step",
        "not_in_hand",
        "wrong_location",
        "not_in_row",
        "not_qualified",
        "fallback_not_allowed",
        "same_location",
        "illegal_pair",
        "not_available",
    }
    assert {"malformed", "wrong_count", "empty_slot", "bad_placement", "already_blocked"} <= (
        engine_codes("hidden_leaders")
    )
    heirs = engine_codes("heirs")
    assert {"BAD_ORDER", "COLOUR_TAKEN", "NOT_ENOUGH_GOLD", "NOT_A_TARGET", "MAX_LEVEL"} <= heirs
    assert "NOT_ENOUGH_KNOWLEDGE" in heirs


@pytest.mark.parametrize("game", GAMES)
def test_every_engine_code_has_a_translated_sentence(game: str) -> None:
    """Issue 13.10: each code the engine raises reads as a Czech sentence that differs from
    the English and keeps no unfilled %( placeholder."""
    for code in sorted(engine_codes(game)):
        for params in SAMPLE_PARAMS[game]:
            english = translate_refusal(code, UNKNOWN, "en", game=game, params=params)
            czech = translate_refusal(code, UNKNOWN, "cs", game=game, params=params)
            assert english != UNKNOWN, f"{game} {code}: no sentence"
            assert czech != english, f"{game} {code}: not translated ({english})"
            assert "%(" not in czech and "%(" not in english, f"{game} {code}: {czech}"


RULE_NUMBER = re.compile(r"\((?:[GHL]\d+(?:\.\d+)*(?:, )?)+\)")


@pytest.mark.parametrize("game", GAMES)
def test_a_phone_s_refusal_names_no_rule_number(game: str) -> None:
    """The sheets' numbers ("G8.3") are the project's, not the players': a Croatian phone read
    "… s 2 različite lokacije (G8.3)." The API's English details keep them."""
    for code in sorted(engine_codes(game)):
        for lang in ("en", "cs", "hr", "ru"):
            for params in SAMPLE_PARAMS[game]:
                text = translate_refusal(code, UNKNOWN, lang, game=game, params=params)
                assert not RULE_NUMBER.search(text), f"{game} {code} {lang}: {text}"


def test_an_english_phone_reads_the_engine_s_detail_without_its_rule_numbers() -> None:
    """In English a phone shows the engine's own detail, which cites the sheet for API
    clients: the page leaves the numbers out."""
    live: Any = SimpleNamespace(game="legions", code="ABCD")
    error = {
        "code": "stratagem_timing",
        "detail": "Your stratagem cannot be used at this moment (G1.6, G10.1).",
    }
    html = render_error(live, error, "en", board=False)
    assert "Your stratagem cannot be used at this moment." in html
    assert "G1.6" not in html and "G10.1" not in html


def test_the_games_own_sentences_fill_in_their_params() -> None:
    """Issue 13.10: values the engine passes in params appear in the sentence, cards named as
    the screens name them; an unknown code keeps the English detail."""
    assert translate_refusal(
        "duplicate_slot", UNKNOWN, "cs", game="hidden_leaders", params={"slot": "B7"}
    ) == ("Pole B7 je zadané dvakrát: vezmi dva různé hrdiny.")
    assert "Vodní lid 1" in translate_refusal(
        "not_in_hand", UNKNOWN, "cs", game="hidden_leaders", params={"card": "WF1"}
    )
    assert translate_refusal(
        "NOT_ADJACENT", UNKNOWN, "cs", game="heirs", params={"part": "expedition"}
    ).startswith("Výprava: ")
    assert translate_refusal("no_such_code", UNKNOWN, "cs", game="legions") == UNKNOWN
    assert translate_refusal("no_such_code", UNKNOWN, "cs") == UNKNOWN


# ------------------------------------------------------------------ end to end


def _started_room(client: TestClient, game: str) -> tuple[str, list[str]]:
    room = client.post("/api/rooms", json={"game": game}).json()
    tokens = []
    for name in ("Ema", "Petr"):
        response = client.post(f"/api/rooms/{room['code']}/seats", json={"name": name})
        assert response.status_code == 201, response.text
        tokens.append(response.json()["token"])
    response = client.post(
        f"/api/rooms/{room['code']}/start",
        headers={"Authorization": f"Bearer {room['host_token']}"},
    )
    assert response.status_code == 200, response.text
    return room["code"], tokens


def _acting_token(client: TestClient, code: str, tokens: list[str]) -> str:
    """The token of a seat the game is waiting for (a duel has one, sealing games all)."""
    to_act: list[int] = client.get(f"/api/rooms/{code}").json()["to_act"]
    return tokens[to_act[0]]


def _refusal_on_czech_phone(client: TestClient, code: str, token: str, order: Any) -> str:
    """The error fragment a Czech html phone gets for ``order``."""
    with client.websocket_connect(
        f"/ws/rooms/{code}?format=html&lang=cs", headers={"Authorization": f"Bearer {token}"}
    ) as ws:
        ws.receive_text()
        ws.send_text(json.dumps({"type": "order", "order": order}))
        for _ in range(6):  # the room may redraw the page first (the phone's presence)
            html: str = ws.receive_text()
            if html.lstrip().startswith('<div id="phone-error"'):
                return html
    raise AssertionError("no error fragment came")


ORDERS: Mapping[str, tuple[Any, str]] = {
    "hidden_leaders": (
        {"type": "take", "slots": ["A1", "A1"]},
        "Pole A1 je zadané dvakrát: vezmi dva různé hrdiny.",
    ),
    "legions": ({"kind": "seal", "legion": "L99"}, "Tuhle legii nemáš v ruce."),
    "heirs": (
        {"colour": "red", "character": "no_such_character"},
        "Nech si jednu ze dvou postav, které ti byly nabídnuty.",
    ),
}


@pytest.mark.parametrize("game", GAMES)
def test_a_real_engine_refusal_reaches_a_czech_phone_in_czech(
    client: TestClient, game: str
) -> None:
    """Issue 13.10: an order the engine refuses comes back to a Czech html phone as the Czech
    sentence, not the engine's English."""
    code, tokens = _started_room(client, game)
    order, czech = ORDERS[game]
    html = _refusal_on_czech_phone(client, code, _acting_token(client, code, tokens), order)
    assert czech in html, html

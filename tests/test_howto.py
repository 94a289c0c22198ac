"""How to play: a page per game for players, in English and Czech, with small pictures of the
real screens, reachable from the start page, every board and every phone."""

from __future__ import annotations

import re
import struct
import tomllib
from html import unescape
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app import i18n
from app.config import PROJECT_DIR
from app.pages import render_board_view, render_phone_view
from engine.registry import available_games
from tests.test_pages import lobby_payload

PICTURES = PROJECT_DIR / "static" / "howto"


def png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    width, height = struct.unpack(">II", head[16:24])
    return width, height


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
@pytest.mark.parametrize("game", available_games())
def test_each_game_has_a_how_to_play_page_with_real_pictures(
    client: TestClient, game: str, lang: str
) -> None:
    page = client.get(f"/howto/{game}?lang={lang}")
    assert page.status_code == 200
    assert f'<html lang="{lang}">' in page.text
    sources = re.findall(r'<img src="([^"]+)"[^>]*data-testid="howto-picture"', page.text)
    assert len(sources) >= 4, "joining, the lobby, the phone and the TV"
    for source in sources:
        assert source.startswith(f"/static/howto/{lang}/"), source
        file = PROJECT_DIR / source.lstrip("/")
        width, _height = png_size(file)
        assert file.stat().st_size < 120_000, f"{file} is {file.stat().st_size} bytes"
        assert width in (390, 960), f"{file}: phone 390 px or TV 960 px wide, not {width}"
        assert client.get(source).status_code == 200


def test_the_czech_page_is_written_in_czech(client: TestClient) -> None:
    english = unescape(client.get("/howto/legions?lang=en").text)
    czech = unescape(client.get("/howto/legions?lang=cs").text)
    assert "How to play" in english and "Jak se hraje" in czech
    assert "Nekrotábor proti Králi" in czech and "The Necro-camp against the King" not in czech
    # Without ?lang= the page follows the language cookie the start page sets.
    client.cookies.set("pecet_lang", "cs")
    assert "Jak se hraje" in client.get("/howto/heirs").text


def test_an_unknown_game_has_no_page(client: TestClient) -> None:
    assert client.get("/howto/chess?lang=en").status_code == 404


def test_the_start_page_board_and_phone_link_to_how_to_play(client: TestClient) -> None:
    start = client.get("/").text
    for game in available_games():
        assert f'href="/howto/{game}"' in start
    live: Any = SimpleNamespace(game="heirs", code="ABCD")
    board = render_board_view(live, lobby_payload(), "cs", host=True, join_url="x")
    assert 'href="/howto/heirs?lang=cs"' in board
    payload = lobby_payload()
    payload["you"] = {"seat": 0, "name": "Alice", "player": None}
    phone = render_phone_view(live, payload, "en")
    assert 'href="/howto/heirs?lang=en"' in phone


def test_the_readme_sends_nobody_to_the_shared_folder() -> None:
    readme = (PROJECT_DIR / "README.md").read_text()
    assert "../shared" not in readme and "shared/rules" not in readme
    assert "/howto/" in readme


def test_the_packaging_uses_an_spdx_license_string() -> None:
    project = tomllib.loads((PROJECT_DIR / "pyproject.toml").read_text())
    assert project["project"]["license"] == "MIT"
    assert project["build-system"]["requires"] == ["setuptools>=77"]

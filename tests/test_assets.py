"""Static files are named at their current version and kept by the browser for a year
(app/assets.py): a board re-inserts its stylesheets with every frame and must find them in
its cache at once, and a new release names new versions."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from app.assets import STATIC_DIR, version

KEPT = "public, max-age=31536000, immutable"


def test_every_static_file_a_page_names_is_versioned_and_kept(client: TestClient) -> None:
    page = client.get("/")
    addresses = re.findall(r'(?:href|src)="(/static/[^"]+)"', page.text)
    assert len(addresses) >= 5, f"the start page names too few static files: {addresses}"
    for address in addresses:
        path, _, asked = address.removeprefix("/static/").partition("?v=")
        assert asked == version(path), address
        answer = client.get(address)
        assert answer.status_code == 200, address
        assert answer.content == (STATIC_DIR / path).read_bytes()
        assert answer.headers["cache-control"] == KEPT, address


def test_an_unversioned_or_old_address_must_be_revalidated(client: TestClient) -> None:
    for address in ("/static/pecet.css", "/static/pecet.css?v=000000000000"):
        answer = client.get(address)
        assert answer.status_code == 200
        assert answer.headers["cache-control"] == "no-cache", address
        assert answer.headers["etag"]
    assert client.get("/static/nothing-here.css?v=1").status_code == 404

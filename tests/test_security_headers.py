"""Security headers (issue 13.10): a strict policy on every page, API answer and file."""

from __future__ import annotations

from fastapi.testclient import TestClient

from app.security import CONTENT_SECURITY_POLICY


def test_every_answer_carries_the_security_headers(client: TestClient) -> None:
    code = client.post("/api/rooms", json={"game": "legions"}).json()["code"]
    for path in (
        "/",
        f"/b/{code}",
        f"/j/{code}",
        f"/api/rooms/{code}",
        "/static/pecet.js",
        "/api/rooms/ZZZZ",
        "/howto/heirs",
    ):
        response = client.get(path)
        assert response.status_code in (200, 404), (path, response.status_code)
        headers = response.headers
        assert headers["content-security-policy"] == CONTENT_SECURITY_POLICY, path
        assert "frame-ancestors 'none'" in headers["content-security-policy"]
        assert "script-src 'self'" in headers["content-security-policy"]
        assert headers["x-content-type-options"] == "nosniff", path
        assert headers["referrer-policy"] == "no-referrer", path
        assert headers["x-frame-options"] == "DENY", path

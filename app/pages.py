"""HTML pages (placeholder until the pages land)."""

from __future__ import annotations

from fastapi import APIRouter

from app.hub import Connection
from app.rooms import LiveRoom
from engine.core import JSON

router = APIRouter(include_in_schema=False)


def render_fragment(live: LiveRoom, payload: JSON, connection: Connection) -> str:
    return ""


def translate_form(live: LiveRoom, frame: JSON) -> JSON:
    return {}

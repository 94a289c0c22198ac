"""The static files (stylesheets, scripts, icons) with their versions in their addresses.

A page names each file as ``/static/<path>?v=<hash of its content>`` (``static_url``), and a
request for the current version is answered as cacheable for a year: a board that receives a
new frame every half second re-inserts its game's stylesheet each time, and the browser must
take it from its cache at once. Without a lifetime the browser guessed one from the file's age,
so on a freshly installed server it soon asked again at every frame, and until the answer
came the board was drawn without its stylesheet. A new version has a new address, so nothing
stale is kept; any other request (an old version, no version) must be revalidated.
"""

from __future__ import annotations

import hashlib
import os
from functools import cache

from starlette.datastructures import QueryParams
from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

from app.config import PROJECT_DIR

STATIC_DIR = PROJECT_DIR / "static"
VERSIONED = "public, max-age=31536000, immutable"
UNVERSIONED = "no-cache"


@cache
def version(path: str) -> str:
    """A short hash of a static file's content (read once per process: the files change only
    with a new release, and a new release is a new process)."""
    return hashlib.sha256((STATIC_DIR / path).read_bytes()).hexdigest()[:12]


def static_url(path: str) -> str:
    """The address of a static file at its current version (``path`` inside ``static/``)."""
    return f"/static/{path}?v={version(path)}"


class VersionedStaticFiles(StaticFiles):
    """``static/``, cached for a year when asked for at its current version."""

    def file_response(
        self,
        full_path: str | os.PathLike[str],
        stat_result: os.stat_result,
        scope: Scope,
        status_code: int = 200,
    ) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        asked = QueryParams(scope.get("query_string", b"")).get("v")
        relative = os.path.relpath(full_path, STATIC_DIR)
        current = asked is not None and asked == version(relative)
        response.headers["Cache-Control"] = VERSIONED if current else UNVERSIONED
        return response

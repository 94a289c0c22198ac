"""The FastAPI application: wiring only (routes are thin, the room service does the work)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any

from fastapi import FastAPI, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.types import Receive, Scope, Send

from app import api, pages, ratelimit, ws
from app.assets import STATIC_DIR, VersionedStaticFiles
from app.clock import Clock
from app.cluster import RETRY_AFTER, RedisRooms
from app.config import Settings
from app.db import make_engine, upgrade
from app.errors import RoomError
from app.hub import Hub
from app.limits_http import MAX_BODY_BYTES
from app.rooms import RoomService
from app.security import SecurityHeaders

log = logging.getLogger("pecet")


class PecetApp(FastAPI):
    """The FastAPI application, with the rooms' sockets served ahead of its HTTP stack
    (``ws.room_socket`` says why); any other socket path takes the usual way (and is
    refused there)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket" and (found := ws.room_socket(scope["path"])):
            handler, code = found
            scope["app"] = self
            await handler(WebSocket(scope, receive, send), code)
            return
        await super().__call__(scope, receive, send)


def create_app(settings: Settings | None = None, clock: Clock | None = None) -> FastAPI:
    """The application; ``clock`` runs the rooms' timed tasks (the wall clock by default,
    one the tests move by hand)."""
    settings = settings or Settings.from_env()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        db = make_engine(settings.database_url)
        upgrade(settings.database_url, db)
        rooms = RoomService(
            db,
            bot_delay=settings.bot_delay,
            step_seconds=settings.step_seconds,
            prediction_seconds=settings.prediction_seconds,
            away_seconds=settings.away_seconds,
            idle_after=timedelta(hours=settings.idle_hours),
            keep_for=timedelta(days=settings.keep_days),
            clock=clock,
            cluster=RedisRooms(settings.redis_url) if settings.redis_url else None,
        )
        await rooms.cluster.start(rooms)
        app.state.settings = settings
        app.state.rooms = rooms
        app.state.hub = Hub(
            rooms, render_html=pages.render_fragment, send_timeout=settings.send_timeout
        )
        app.state.translate_form = pages.translate_form
        # The rooms that were being played wake up while the server already answers: a
        # request for one of them loads it on demand, and nobody waits for rooms they never
        # asked about (a night of many rooms would otherwise delay every first page).
        recovery = asyncio.get_running_loop().create_task(rooms.recover(), name="recovery")
        recovery.add_done_callback(_log_failure)
        try:
            yield
        finally:
            recovery.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await recovery
            await rooms.close()
            await rooms.cluster.close()
            db.dispose()

    app = PecetApp(
        title="Pečeť",
        summary="Phones seal secret orders; a TV shows the board.",
        version="0.1.0",
        lifespan=lifespan,
        max_body_size=MAX_BODY_BYTES,
    )

    @app.exception_handler(RoomError)
    async def room_error(_request: Request, error: RoomError) -> JSONResponse:
        headers = {} if error.retry_after is None else {"Retry-After": str(error.retry_after)}
        return JSONResponse(
            {"detail": error.detail, "code": error.code},
            status_code=error.status,
            headers=headers,
        )

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_request: Request, error: RequestValidationError) -> JSONResponse:
        problems = [
            {"loc": list(e.get("loc", ())), "msg": _message(e), "type": e.get("type", "")}
            for e in error.errors()
        ]
        detail = "; ".join(f"{'.'.join(map(str, p['loc']))}: {p['msg']}" for p in problems)
        return JSONResponse(
            {"detail": detail or "Invalid request.", "errors": problems}, status_code=422
        )

    @app.get("/healthz", include_in_schema=False)
    async def healthz(request: Request) -> JSONResponse:
        """200 while the process can serve commands; 503 while it cannot (processes that
        share rooms: Redis out of reach), so that a proxy or an orchestrator can tell."""
        rooms: RoomService | None = getattr(request.app.state, "rooms", None)
        status: dict[str, str] = {"status": "ok"}
        if rooms is not None and rooms.cluster.name is not None:
            status["process"] = rooms.cluster.name
        if rooms is not None and not await rooms.cluster.healthy():
            status["status"] = "unavailable"
            return JSONResponse(status, status_code=503, headers={"Retry-After": str(RETRY_AFTER)})
        return JSONResponse(status)

    ratelimit.install(app, ratelimit.AddressLimits.from_env())
    app.add_middleware(SecurityHeaders)  # added last, runs first: a 429 gets the headers too
    app.include_router(api.router)
    app.include_router(pages.router)
    app.mount("/static", VersionedStaticFiles(directory=STATIC_DIR), name="static")
    return app


def _log_failure(recovery: asyncio.Task[None]) -> None:
    """A room that cannot be woken must not pass unnoticed; the server goes on serving (a
    request for that room loads it again, and says why if it still fails)."""
    if not recovery.cancelled() and recovery.exception() is not None:
        log.error("recovering the rooms failed", exc_info=recovery.exception())


def _message(problem: Mapping[str, Any]) -> str:
    """Pydantic's message; for a body that is not JSON FastAPI keeps the reason (a NaN, a
    syntax error) apart, and the client needs it to fix the body."""
    message = str(problem.get("msg", ""))
    reason = (problem.get("ctx") or {}).get("error")
    if problem.get("type") == "json_invalid" and reason:
        return f"{message}: {reason}"
    return message

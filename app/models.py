"""Tables. The order log is the record of a match; its snapshot makes loading fast.

A new database is built from these models (``app.db``), an older one is migrated: the
server defaults below are those the migrations gave columns they added to stored rows, so
that both hold the same schema (``tests/test_startup.py``)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Column, Index, UniqueConstraint, false
from sqlmodel import Field, SQLModel


def utcnow() -> datetime:
    return datetime.now(UTC)


class Room(SQLModel, table=True):
    """A table of people, found by its short code. It hosts one match after another."""

    __table_args__ = (Index("ix_room_code_status", "code", "status"),)

    id: int | None = Field(default=None, primary_key=True)
    code: str = Field(max_length=8)
    game: str = Field(max_length=32)
    options: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    status: str = Field(default="lobby", max_length=16)
    """lobby, playing, finished, or closed (a closed room's code may be given out again)."""
    host_token_hash: str = Field(max_length=64)
    host_pin: str = Field(default="", max_length=8, sa_column_kwargs={"server_default": ""})
    """The host's PIN: the host's controls on another screen (a TV browser that lost its
    cookies), as a seat's PIN brings a seat back. Empty for rooms made before it existed."""
    paused: bool = Field(default=False, sa_column_kwargs={"server_default": false()})
    """The host stopped the clock: the sealing timer and the bots wait."""
    tournament: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    """The plan of a night of games (``engine.tournament.Plan``); None for single games."""
    standings_mode: str = Field(
        default="auto", max_length=8, sa_column_kwargs={"server_default": "auto"}
    )
    """Between the games of a night: ``auto`` (the standings follow the result after a
    while), or the host's choice, ``shown`` or ``hidden``."""
    result_at: datetime | None = None
    """When the board began to show the last game's result (the standings follow it)."""
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


class Seat(SQLModel, table=True):
    """A player's place at the table. ``position`` is the seat number the engine uses."""

    __table_args__ = (
        UniqueConstraint("room_id", "name_key", name="uq_seat_room_name"),
        UniqueConstraint("token_hash", name="uq_seat_token"),
    )

    id: int | None = Field(default=None, primary_key=True)
    room_id: int = Field(foreign_key="room.id", index=True)
    position: int
    name: str = Field(max_length=24)
    name_key: str = Field(max_length=24)
    """The name folded for comparison, so 'Ema' and 'ema ' are the same player."""
    token_hash: str = Field(max_length=64)
    is_bot: bool = False
    bot_style: str | None = Field(default=None, max_length=32)
    lang: str = Field(default="en", max_length=8)
    pin: str = Field(default="", max_length=8, sa_column_kwargs={"server_default": ""})
    """4 digits that let the player take this seat back from another phone; empty for bots."""
    time_factor: float | None = Field(default=1.0, sa_column_kwargs={"server_default": "1"})
    """The host's "more time" for this seat: its sealing deadline is the round's start plus
    the timer times this (1, 1.5, 2 or 3); None: no limit for this seat (H5.4)."""
    handed_token_hash: str = Field(
        default="", max_length=64, sa_column_kwargs={"server_default": ""}
    )
    """The token hash the seat had when the host handed it to a bot mid-game: that phone
    watches the match from then on; empty once the player takes the seat back."""
    joined_at: datetime = Field(default_factory=utcnow)


class Match(SQLModel, table=True):
    """One game played in a room, with the snapshot of its newest state."""

    __table_args__ = (UniqueConstraint("room_id", "number", name="uq_match_room_number"),)

    id: int | None = Field(default=None, primary_key=True)
    room_id: int = Field(foreign_key="room.id", index=True)
    number: int
    game: str = Field(default="", max_length=32, sa_column_kwargs={"server_default": ""})
    players: list[int] = Field(
        default_factory=list, sa_column=Column(JSON, nullable=False, server_default="[]")
    )
    """Room seats in engine order: ``players[i]`` plays engine seat ``i``."""
    seed: int = Field(sa_type=BigInteger)
    """62 random bits: more than PostgreSQL's ``integer`` holds."""
    options: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    seats: int
    status: str = Field(default="playing", max_length=16)
    """playing or finished."""
    outcome: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    version: int = 0
    """How many orders of the log are applied in ``state``: the state is stored after each
    resolution, and the orders sealed since then are in the log only (loading a room seals
    them again)."""
    state: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    recent_events: list[dict[str, Any]] = Field(
        default_factory=list, sa_column=Column(JSON, nullable=False)
    )
    """The events of the newest resolution, each with its audience (views filter them)."""
    ready_seats: list[int] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    """Seats that tapped Ready for the next game after this one finished."""
    deadline_at: datetime | None = None
    """When the sealing timer runs out (the room option ``timer``); None without a timer."""
    timer_left: float | None = None
    """Seconds the timer still had when the host paused the room."""
    show_started_at: datetime | None = None
    """When the board began playing the newest resolution out, step by step; None when no
    show runs (or while the host pauses it, see ``show_elapsed``)."""
    show_elapsed: float | None = None
    """Seconds of the show already played when the host paused it."""
    fast_forward: bool = Field(default=False, sa_column_kwargs={"server_default": false()})
    """The host asked to play every later resolution of this match at once."""
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


class Resolution(SQLModel, table=True):
    """One resolution of a match: the orders it played (``first_seq``..``last_seq`` of the
    order log) and its events with their audiences, for the match's history."""

    __table_args__ = (UniqueConstraint("match_id", "number", name="uq_resolution_match_number"),)

    id: int | None = Field(default=None, primary_key=True)
    match_id: int = Field(foreign_key="match.id", index=True)
    number: int
    round: int
    """The round or turn it played, as the game counts them (0 for the game's setup)."""
    first_seq: int
    last_seq: int
    events: list[dict[str, Any]] = Field(
        default_factory=list, sa_column=Column(JSON, nullable=False)
    )
    created_at: datetime = Field(default_factory=utcnow)


class Prediction(SQLModel, table=True):
    """A watcher's guess at who wins a match (and, where the game has several, how it ends),
    scored in oracle points beside the standings."""

    __table_args__ = (
        UniqueConstraint("room_id", "match_number", "seat", name="uq_prediction_seat"),
    )

    id: int | None = Field(default=None, primary_key=True)
    room_id: int = Field(foreign_key="room.id", index=True)
    match_number: int
    seat: int
    """The room seat that predicts."""
    winner: int
    """The room seat it expects to win."""
    ending: str | None = Field(default=None, max_length=32)
    created_at: datetime = Field(default_factory=utcnow)


class OrderLog(SQLModel, table=True):
    """Every accepted order, in the order the engine applied it."""

    __table_args__ = (UniqueConstraint("match_id", "seq", name="uq_order_match_seq"),)

    id: int | None = Field(default=None, primary_key=True)
    match_id: int = Field(foreign_key="match.id", index=True)
    seq: int
    seat: int
    by_bot: bool = False
    """Not the player's own choice: a bot's, or the sealing timer's (then ``by_timer`` too)."""
    by_timer: bool = Field(default=False, sa_column_kwargs={"server_default": false()})
    """Sealed by the sealing timer for a seat whose time ran out (H5.4); ``by_bot`` too."""
    order: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    salt: str = Field(default="", max_length=32, sa_column_kwargs={"server_default": ""})
    """A fresh 128-bit salt (hex) for the sealed-order proof."""
    commitment: str = Field(default="", max_length=64, sa_column_kwargs={"server_default": ""})
    """sha256(canonical JSON of ``order`` + ``salt``), shown to the room when sealed."""
    created_at: datetime = Field(default_factory=utcnow)

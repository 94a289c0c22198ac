"""The room API (JSON). Clients and bots rely on this contract; keep it exact."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal, Self

from fastapi import APIRouter, Depends, Header, Path, Query, Request, status
from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from app import i18n
from app.errors import Invalid, Unauthorized
from app.limits_http import StrictJSONRoute
from app.rooms import RoomService
from engine.registry import KNOWN_GAMES
from engine.tournament import MAX_GAMES, MAX_ROUNDS

router = APIRouter(prefix="/api", tags=["rooms"], route_class=StrictJSONRoute)


def _known_game(game: str) -> str:
    """A game the registry knows (one it cannot host yet is refused by the room service)."""
    if game not in KNOWN_GAMES:
        raise ValueError(f"unknown game; choose one of: {', '.join(KNOWN_GAMES)}")
    return game


GameId = Annotated[
    str,
    AfterValidator(_known_game),
    Field(description="A game id.", json_schema_extra={"enum": list(KNOWN_GAMES)}),
]
"""A game id, checked against the registry; the OpenAPI schema lists the allowed ids."""

MAX_OPTIONS = 32
"""Keys in a room's options; every game has far fewer."""
MAX_OPTIONS_BYTES = 4096
"""The options are stored and sent back in every view of the room (issue 13.4)."""
MAX_PATH_NUMBER = 99_999
"""Seats and match numbers in a path; a room never comes near."""


def _small_options(options: dict[str, Any]) -> dict[str, Any]:
    if len(json.dumps(options, separators=(",", ":"))) > MAX_OPTIONS_BYTES:
        raise ValueError(f"options take at most {MAX_OPTIONS_BYTES} bytes of JSON")
    return options


GameOptions = Annotated[
    dict[str, Any],
    Field(
        max_length=MAX_OPTIONS,
        description=f"The game's options: a JSON object of at most {MAX_OPTIONS_BYTES} bytes.",
    ),
    AfterValidator(_small_options),
]


def _digits_only(value: object) -> object:
    """A path number is written plainly: `+0.0`, `00` or `٣` are not seat 0 or 3."""
    plain = isinstance(value, str) and value.isascii() and value.isdigit()
    if isinstance(value, str) and not (plain and value == str(int(value))):
        raise ValueError("write the number in plain digits")
    return value


PathNumber = Annotated[int, Path(ge=0, le=MAX_PATH_NUMBER), BeforeValidator(_digits_only)]


def _no_schema_default(schema: dict[str, Any]) -> None:
    """An absent setting means "not given", not a value a client may send."""
    schema.pop("default", None)


class TournamentPlan(BaseModel):
    """A night of games: `count` games of the room's own game, or a list of `games` played
    `rounds` times over (at most 20 games in all)."""

    model_config = ConfigDict(
        extra="forbid",
        strict=True,
        json_schema_extra={
            "oneOf": [
                {"required": ["games"]},
                {"required": ["count"], "not": {"required": ["rounds"]}},
            ]
        },
    )
    games: Annotated[list[GameId], Field(min_length=1, max_length=MAX_GAMES)] = Field(
        default_factory=list, json_schema_extra=_no_schema_default
    )
    count: int = Field(
        default=0,
        ge=1,
        le=MAX_ROUNDS,
        description="How many games of the room's own game.",
        json_schema_extra=_no_schema_default,
    )
    rounds: int = Field(
        default=1, ge=1, le=MAX_ROUNDS, description="How many times the list is played."
    )
    final_double: bool = Field(default=False, description="H20.3: the last game counts twice.")
    catch_up: bool = Field(default=False, description="H20.4: the last in the standings starts.")

    @model_validator(mode="after")
    def _games_or_count(self) -> Self:
        given = self.model_fields_set
        if "games" not in given and "count" not in given:
            raise ValueError("a tournament needs a list of games (games) or a count")
        if "games" in given and "count" in given:
            raise ValueError("give either a list of games or a count, not both")
        if "count" in given and "rounds" in given:
            raise ValueError("rounds go with a list of games; a count already says how many")
        return self

    def settings(self) -> dict[str, Any]:
        """What the host gave, as the room service reads it."""
        return self.model_dump(exclude_unset=True)


class CreateRoom(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    game: GameId
    options: GameOptions = Field(default_factory=dict)
    tournament: TournamentPlan | None = Field(
        default=None,
        description=(
            'A night of games: `{"count": 3}` of this game, or `{"games": ["heirs", '
            '"hidden_leaders"]}`; with `"final_double"` (H20.3) and `"catch_up"` (H20.4). '
            "A duel game with 3–8 entrants is played as a round robin."
        ),
    )


class RoomCreated(BaseModel):
    code: str = Field(description="4 upper-case letters; accepted in any case everywhere.")
    host_token: str = Field(description="Send as `Authorization: Bearer` for host actions.")


class Join(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    name: str = Field(min_length=1, max_length=200, description="1–24 characters after trimming.")
    lang: i18n.Language = "en"


class Joined(BaseModel):
    seat: int
    token: str = Field(description="The seat's secret: `Authorization: Bearer` and the websocket.")
    pin: str = Field(
        description="4 digits: with the name, `POST /reclaim` gives the seat to another phone."
    )


class Reclaim(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    name: str = Field(min_length=1, max_length=200)
    pin: str = Field(
        min_length=1, max_length=8, description="The seat's 4-digit PIN, shown on its phone."
    )


class Reclaimed(BaseModel):
    seat: int
    token: str = Field(description="The seat's new token; the old one stops working.")
    pin: str = Field(description="The seat's new PIN; the one just used stops working.")


class HostReclaim(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    pin: str = Field(
        min_length=1, max_length=8, description="The host's 4-digit PIN, shown on the host's board."
    )


class HostReclaimed(BaseModel):
    host_token: str = Field(description="The host's new token; the old one stops working.")
    host_pin: str = Field(description="The host's new PIN; the one just used stops working.")


class AddBot(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    style: str | None = None


class BotAdded(BaseModel):
    seat: int


class MoveSeat(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    to: int = Field(ge=0, description="The new seat number; the others shift to make room.")


class Pause(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    paused: bool


TIME_FACTORS = (1, 1.5, 2, 3)
"""How much more time the host may give one seat (the room service checks it too)."""


def _time_factor(value: float | None) -> float | None:
    if value is not None and value not in TIME_FACTORS:
        raise ValueError("give 1, 1.5, 2 or 3 (times the timer), or null for no limit")
    return value


TimeFactor = Annotated[
    float | None,
    AfterValidator(_time_factor),
    Field(json_schema_extra={"enum": [*TIME_FACTORS, None]}),
]


class MoreTime(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    factor: TimeFactor = Field(
        description="The seat's deadline is the round's start plus the sealing timer times "
        "this: 1 (normal), 1.5, 2 or 3; null: no limit for this seat."
    )


class Timer(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    timer: int | None = Field(
        ge=1, le=3600, description="The sealing timer in seconds (H5.4); null turns it off."
    )


class Options(BaseModel):
    """The room's options after a change."""

    options: dict[str, Any]


class Ok(BaseModel):
    ok: bool = True


class Accepted(BaseModel):
    accepted: bool = True


class Show(BaseModel):
    round: int
    step: int = Field(description="The index in `playback` the board draws now.")
    steps: int
    step_ms: int = Field(description="How long the board shows each step.")
    timed_out: list[int] = Field(
        default=[],
        description="The game's seats whose order in this resolution the sealing timer "
        "sealed: their default was played (absent from a socket's view when none).",
    )


class HistoryRound(BaseModel):
    round: int = Field(description="The round or turn, as the game counts them (0: setup).")
    events: list[dict[str, Any]] = Field(
        description="The round's events, each resolution's after "
        '`{"kind": "timed_out", "data": {"seat"}}` for a seat (the game\'s own) whose order '
        "in it the sealing timer sealed: its default was played."
    )


class PlaybackStep(BaseModel):
    round: int
    events: list[dict[str, Any]] = Field(description="The public events of this step.")


class Reveal(BaseModel):
    order: dict[str, Any]
    salt: str = Field(description="32 hex digits.")
    commitment: str = Field(
        description="sha256(canonical JSON of `order` + `salt`): sorted keys, no spaces, UTF-8."
    )


class Proof(BaseModel):
    seat: int
    name: str
    commitment: str
    salt: str
    order: dict[str, Any]


class ReplayStep(BaseModel):
    round: int = Field(
        description="The round the step belongs to; the first step, the position before any "
        "order, opens the round of the first resolution."
    )
    events: list[dict[str, Any]]
    view: dict[str, Any]
    proofs: list[Proof] = Field(
        description="The orders this step's resolution played, with their salts."
    )


class Replay(BaseModel):
    game: str
    match: int
    players: list[SeatPublic]
    steps: list[ReplayStep]


class SkipShow(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    all: bool = Field(
        default=False, description="Also play every later round of this match at once."
    )


class SeatPublic(BaseModel):
    seat: int
    name: str
    bot: bool
    bot_style: str | None = Field(
        default=None, description="The style of the bot playing the seat (added or handed one)."
    )
    connected: bool = Field(
        default=True, description="A phone socket is open (or closed less than 10 s ago)."
    )
    away_since: str | None = Field(
        default=None, description="Since when the seat has had no phone (ISO 8601, UTC)."
    )
    time_factor: float | None = Field(
        default=1.0,
        description="The host's more time for this seat: its sealing deadline is the round's "
        "start plus the timer times this (1, 1.5, 2 or 3); null: no limit for this seat.",
    )


class RoomView(BaseModel):
    """The board's public view of a room."""

    model_config = ConfigDict(extra="allow")
    code: str
    game: str
    game_name: str
    status: Literal["lobby", "playing", "finished"]
    seats: list[SeatPublic]
    match: int | None = Field(description="The number of the current game in this room.")
    version: int | None = Field(description="How many orders this game has applied so far.")
    to_act: list[int] = Field(description="Seats the game waits for (never what they chose).")
    outcome: dict[str, Any] | None
    ready: list[int] = Field(description="Seats ready for the next game, once one is over.")
    players: list[SeatPublic] | None = Field(
        description="The seats playing the current game, in the game's own seat order."
    )
    tournament: dict[str, Any] | None = Field(
        description="The plan, the standings (place, points per game, total) and the next game."
    )
    options: dict[str, Any] = Field(description="The room's options, `timer` included.")
    paused: bool = Field(description="The host stopped the clock.")
    deadline: str | None = Field(description="When the sealing timer runs out (ISO 8601, UTC).")
    timer_left: float | None = Field(description="Seconds left on a paused timer.")
    view: dict[str, Any] | None = Field(description="The game's public view (the board's).")
    show: Show | None = Field(
        description="While the board plays the newest resolution out: the step it shows now. "
        "Phones get no decision until it ends."
    )
    history: list[HistoryRound] = Field(
        description="The match so far, round by round (without the resolution on show)."
    )
    fast_forward: bool = Field(description="The host plays every later round at once.")
    predictions: list[dict[str, Any]] = Field(
        description="Watchers' predictions of the newest match: who predicted while it runs, "
        "their picks and points once it is over."
    )
    commitments: dict[str, str] = Field(
        description="Room seat → sha256 commitment of its sealed order not yet played."
    )
    reveals: dict[str, Reveal] = Field(
        description="Room seat → its order and salt, for the newest resolution's orders that "
        "hide nothing any more (every one once the match is over)."
    )


class BoardView(RoomView):
    pins: dict[str, str] | None = Field(
        default=None, description="Room seat → its PIN; only with the host's token."
    )
    host_pin: str | None = Field(
        default=None,
        description="The host's PIN (`POST /host/reclaim` takes the host's controls to "
        "another screen); only with the host's token, empty for rooms opened before it.",
    )
    playback: list[PlaybackStep] = Field(
        description="The newest resolution step by step, each with its public events; while "
        "`show` runs, only the steps up to `show.step`, and `view` is the position right "
        "after it."
    )


class SeatView(RoomView):
    """One seat's private view: its own secrets, never another seat's. Its `deadline` and
    `timer_left` are the seat's own (the host may give it more time than the room)."""

    you: dict[str, Any]
    prompt: dict[str, Any] | None = Field(
        description="What this seat must decide; null if nothing (and during the show)."
    )
    events: list[dict[str, Any]] = Field(
        description="The newest resolution's events this seat may read (up to the step on show)."
    )
    my_commitment: str | None = Field(
        description="The commitment of this seat's sealed order not yet played."
    )
    time_ran_out: int | None = Field(
        default=None,
        description="The round whose resolution played this seat's default order because its "
        "time ran out (the sealing timer sealed it); null once the seat seals again (in a game "
        "of turns it stays through the other player's moves), or if it sealed its own.",
    )
    timer_order: dict[str, Any] | None = Field(
        default=None,
        description="The default order the sealing timer played for this seat, while "
        "`time_ran_out` stands (its own order: no other seat is told it).",
    )
    sealed_by: Literal["bot", "timer"] | None = Field(
        default=None,
        description="Who sealed this seat's order not yet played, if not its player: `bot` "
        "(the seat was handed to one) or `timer` (its time ran out). It stands: a sealed "
        "order is final.",
    )
    prediction: dict[str, Any] | None = Field(
        description="The match this watcher may predict now: `match`, `game`, `players`, "
        "`endings`, and its own `winner` and `ending` so far."
    )


def service_of(request: Request) -> RoomService:
    service: RoomService = request.app.state.rooms
    return service


Service = Annotated[RoomService, Depends(service_of)]


def bearer(authorization: Annotated[str | None, Header()] = None) -> str | None:
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


Token = Annotated[str | None, Depends(bearer)]

ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"description": "The body could not be read"},
    401: {"description": "Token missing"},
    403: {"description": "Not the host"},
    404: {"description": "No such room"},
    429: {"description": "Too many tries; see `Retry-After`"},
    409: {"description": "Conflict: name taken, room full, already started, not your turn"},
    413: {"description": "The body is larger than 64 KiB"},
    422: {
        "description": "Invalid body (not JSON, NaN or Infinity, nested deeper than 32 levels, "
        'wrong fields), bad options, or an illegal order: `{"detail": "..."}`'
    },
}


@router.post("/rooms", status_code=status.HTTP_201_CREATED, responses=ERRORS)
async def create_room(body: CreateRoom, rooms: Service) -> RoomCreated:
    """Open a room in the lobby for one game. Unknown or not-yet-built games answer 422."""
    tournament = None if body.tournament is None else body.tournament.settings()
    code, host_token = await rooms.create_room(body.game, body.options, tournament)
    return RoomCreated(code=code, host_token=host_token)


@router.get("/rooms/{code}", responses=ERRORS)
async def get_room(code: str, rooms: Service, token: Token) -> BoardView:
    """The board's public view: seats, status, the game's public view and outcome; with the
    host's token also the seats' PINs."""
    live = await rooms.room(code)
    return BoardView.model_validate(rooms.payloads.board_payload(live, host=live.is_host(token)))


@router.post("/rooms/{code}/seats", status_code=status.HTTP_201_CREATED, responses=ERRORS)
async def join_room(code: str, body: Join, rooms: Service) -> Joined:
    """Take a seat by name (409 if the name is taken, the room is full or started)."""
    seated = await rooms.join(code, body.name, body.lang)
    return Joined(seat=seated.seat, token=seated.token, pin=seated.pin)


@router.post("/rooms/{code}/reclaim", responses=ERRORS)
async def reclaim_seat(code: str, body: Reclaim, rooms: Service) -> Reclaimed:
    """Come back to your seat from another phone, mid-game too, with your name and PIN: 403
    for a wrong PIN, 429 (with `Retry-After`) after 5 wrong PINs for one seat in 10 minutes.
    A seat handed to a bot is taken back the same way. The seat gets a new PIN: the one
    used brings it back once only."""
    seated = await rooms.reclaim(code, body.name, body.pin)
    return Reclaimed(seat=seated.seat, token=seated.token, pin=seated.pin)


@router.post("/rooms/{code}/host/reclaim", responses=ERRORS)
async def reclaim_host(code: str, body: HostReclaim, rooms: Service) -> HostReclaimed:
    """The host's controls on another screen, with the host's PIN (the host's board shows
    it as `host_pin`): 403 for a wrong PIN, 429 (with `Retry-After`) after 5 wrong PINs in
    10 minutes, 409 `no_host_pin` for a room opened before host PINs. The old host token
    stops working, and the PIN used is replaced by a new one."""
    token, pin = await rooms.reclaim_host(code, body.pin)
    return HostReclaimed(host_token=token, host_pin=pin)


@router.get("/rooms/{code}/me", responses=ERRORS)
async def my_view(code: str, rooms: Service, token: Token) -> SeatView:
    """The seat's private view with its prompt (null when it has nothing to decide).

    A phone whose seat the host handed to a bot mid-game keeps its token as a watcher, as
    its page and socket do: it gets what a seat sitting the match out sees (the board's
    view and log), with `you.handed` true and nothing of the seat's own: no PIN, decision,
    sealed order, timer default or prediction. Its seat's PIN brings the seat back, with a
    new token; the watching one is then refused. 401 for any other token."""
    live = await rooms.room(code)
    held = live.phone_seat(token)
    if held is None:
        raise Unauthorized("This seat's token is missing or not valid here.", code="bad_token")
    seat, handed = held
    return SeatView.model_validate(rooms.payloads.seat_payload(live, seat, handed=handed))


@router.post("/rooms/{code}/orders", status_code=status.HTTP_202_ACCEPTED, responses=ERRORS)
async def submit_order(code: str, order: dict[str, Any], rooms: Service, token: Token) -> Accepted:
    """Submit the seat's order; it is stored before the answer comes. 409 when it is not
    this seat's turn; 422 with a readable `detail` when the rules refuse it."""
    await rooms.submit(code, token, order)
    return Accepted()


@router.post("/rooms/{code}/ready", responses=ERRORS)
async def ready_for_next(code: str, rooms: Service, token: Token) -> Ok:
    """After a game ends: this seat is ready for the next one (the host token starts it)."""
    await rooms.play_again(code, token)
    return Ok()


@router.post("/rooms/{code}/bots", status_code=status.HTTP_201_CREATED, responses=ERRORS)
async def add_bot(code: str, rooms: Service, token: Token, body: AddBot | None = None) -> BotAdded:
    """Host: fill the next seat with a bot."""
    seat = await rooms.add_bot(code, token, body.style if body else None)
    return BotAdded(seat=seat)


@router.post("/rooms/{code}/start", responses=ERRORS)
async def start_game(code: str, rooms: Service, token: Token) -> Ok:
    """Host: start the game with the seats as they are; 422 naming the option when the
    options, checked for the seats of the time, do not fit the seats now."""
    try:
        await rooms.start(code, token)
    except ValueError as error:  # the game's setup refuses the options for this many seats
        raise Invalid(f"Bad options for these players: {error}", code="bad_options") from error
    return Ok()


@router.delete("/rooms/{code}/seats/{seat}", responses=ERRORS)
async def kick_seat(code: str, seat: PathNumber, rooms: Service, token: Token) -> Ok:
    """Host: free a seat in the lobby; during a game a bot takes the seat over."""
    await rooms.kick(code, token, seat)
    return Ok()


@router.post("/rooms/{code}/seats/{seat}/move", responses=ERRORS)
async def move_seat(
    code: str, seat: PathNumber, body: MoveSeat, rooms: Service, token: Token
) -> Ok:
    """Host: move a seat so that the seat order matches the table clockwise (lobby only)."""
    await rooms.move_seat(code, token, seat, body.to)
    return Ok()


@router.post("/rooms/{code}/options", responses=ERRORS)
async def set_options(
    code: str,
    body: GameOptions,
    rooms: Service,
    token: Token,
    game: Annotated[
        str | None,
        Query(
            max_length=40,
            description="A game of the night's list other than the room's own, whose own "
            'options these are (`?game=heirs` with `{"rounds": 8}` on a night opened as a '
            "duel); they are kept in the room's options under `night_games`.",
        ),
    ] = None,
) -> Options:
    """Host, in the lobby: change options (e.g. `{"timer": 90}`, Heirs' `{"rounds": 10}`);
    a key set to null goes back to its default."""
    return Options(options=await rooms.set_options(code, token, body, game))


@router.post("/rooms/{code}/seats/{seat}/time", responses=ERRORS)
async def more_time(
    code: str, seat: PathNumber, body: MoreTime, rooms: Service, token: Token
) -> Ok:
    """Host, in the lobby or during a game: more time for one player's seat (`{"factor": 2}`:
    twice the room's sealing timer; `{"factor": null}`: no limit for that seat). A seat runs
    out of time at the round's start plus the timer times its factor, and only then gets its
    default order (H5.4); a change mid-round counts for the round under way. 404 for no such
    seat, 409 for a bot's seat, 422 for any other factor."""
    await rooms.set_time_factor(code, token, seat, body.factor)
    return Ok()


@router.post("/rooms/{code}/timer", responses=ERRORS)
async def set_timer(code: str, body: Timer, rooms: Service, token: Token) -> Ok:
    """Host, in the lobby or during a game: set the room's sealing timer (`{"timer": 120}`)
    or turn it off (`{"timer": null}`). Mid-round the round keeps its start: a longer timer
    moves every deadline on by the difference, a timer turned on starts whole now."""
    await rooms.set_timer(code, token, body.timer)
    return Ok()


@router.post("/rooms/{code}/pause", responses=ERRORS)
async def pause(code: str, body: Pause, rooms: Service, token: Token) -> Ok:
    """Host: stop (`{"paused": true}`) or restart the clock: the sealing timer and the bots."""
    await rooms.set_paused(code, token, body.paused)
    return Ok()


class TournamentBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    tournament: TournamentPlan | None


@router.post("/rooms/{code}/tournament", responses=ERRORS)
async def set_tournament(
    code: str, body: TournamentBody, rooms: Service, token: Token
) -> dict[str, Any]:
    """Host, in the lobby: make the room a tournament (`null` turns it back into one game).
    Answers the tournament with its (empty) standings."""
    plan = None if body.tournament is None else body.tournament.settings()
    return {"tournament": await rooms.set_tournament(code, token, plan)}


@router.post("/rooms/{code}/show/skip", responses=ERRORS)
async def skip_show(code: str, rooms: Service, token: Token, body: SkipShow | None = None) -> Ok:
    """Host: end the board's show of this round now; with `{"all": true}` every later round
    of the match is played at once too."""
    await rooms.skip_show(code, token, to_the_end=bool(body and body.all))
    return Ok()


@router.get("/rooms/{code}/matches/{match}/replay", responses=ERRORS)
async def replay(code: str, match: PathNumber, rooms: Service, token: Token) -> Replay:
    """A finished match rebuilt from its order log: every step with its events and view,
    and the sealed-order proofs. Public views; with a seat's token, that seat's own."""
    return Replay.model_validate(await rooms.replay(code, match, token))


class Predict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    winner: int = Field(description="The room seat expected to win.")
    ending: str | None = Field(
        default=None, description="How it ends, for a game with several endings (Heirs)."
    )


@router.post("/rooms/{code}/predictions", responses=ERRORS)
async def predict(code: str, body: Predict, rooms: Service, token: Token) -> Ok:
    """A watcher predicts the match it watches (or will watch next): 409 for a player of
    that match or after its first round. Scored in oracle points when the match ends."""
    await rooms.predict(code, token, body.winner, body.ending)
    return Ok()


class StandingsScreen(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    shown: bool


@router.post("/rooms/{code}/standings", responses=ERRORS)
async def show_standings(code: str, body: StandingsScreen, rooms: Service, token: Token) -> Ok:
    """Host: show the standings on the board now (`true`) or dismiss them (`false`). By
    default a result stays 20 s, then the standings follow."""
    await rooms.set_standings(code, token, body.shown)
    return Ok()

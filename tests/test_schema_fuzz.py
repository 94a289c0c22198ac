"""Schemathesis over the whole room API against a real server process (issue 13, "Permanent
guards in make test"): every operation, with bounded and derandomized examples, answers no 5xx
and only what its OpenAPI contract documents (status codes, content types, bodies).

Generated room codes and tokens almost never name a real room, so part of every operation's
examples is sent to rooms seeded here (one in the lobby, one playing) with a real host or seat
token: the requests then reach the rooms' and games' own checks, not only the 404 and 401."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from requests import Session
from schemathesis import Case, CheckFunction, GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.core.failures import FailureGroup
from schemathesis.core.result import Ok
from schemathesis.schemas import APIOperation, BaseSchema
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.conftest import ServerProcess, running_server

pytestmark = pytest.mark.server

Operation = APIOperation[Any, Any, Any, Any]

EXAMPLES_PER_RUN = 25
"""Per operation, generation mode and seeded context: bounded so the module stays near a
minute on two busy cores."""

CHECKS: list[CheckFunction] = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    negative_data_rejection,
]
"""0 5xx, 0 answers the contract does not document, and invalid input never accepted."""


GENERATED = "generated room and token"
ROOM_CHANGING = {"POST /api/rooms/{code}/start", "DELETE /api/rooms/{code}/seats/{seat}"}


@dataclass(frozen=True)
class Seeded:
    """Requests aimed at a real room with a real token."""

    name: str
    code: str
    token: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


@dataclass(frozen=True)
class LiveAPI:
    server: ServerProcess
    schema: BaseSchema
    contexts: list[Seeded]
    answers: Counter[tuple[str, int]] = field(default_factory=Counter)
    """(context, status code) → how many answers from a room's operations: proves that the
    seeded requests reached the rooms."""

    def send(
        self,
        case: Case[Operation],
        session: Session,
        seeded: Seeded | None,
        headers: dict[str, str] | None = None,
    ) -> None:
        """Sends ``case`` and runs every check on the answer; raises on a failing check."""
        answer = case.call_and_validate(
            base_url=self.server.base_url,
            session=session,
            headers=headers,
            checks=CHECKS,
            timeout=30,
        )
        if "{code}" in case.operation.path:
            self.answers[(seeded.name if seeded else GENERATED, answer.status_code)] += 1


OperationRun = Callable[[Operation, LiveAPI, Session, Seeded | None], None]
"""Sends one operation's requests in one context; raises on a failing check."""


def _seed_rooms(base_url: str) -> list[Seeded]:
    """A lobby room of Heirs with one seat, and a duel of Legions being played."""
    with httpx.Client(base_url=base_url, timeout=30) as api:
        lobby = api.post("/api/rooms", json={"game": "heirs"}).raise_for_status().json()
        lobby_seat = (
            api.post(f"/api/rooms/{lobby['code']}/seats", json={"name": "Ema"})
            .raise_for_status()
            .json()
        )
        duel = api.post("/api/rooms", json={"game": "legions"}).raise_for_status().json()
        duel_host = {"Authorization": f"Bearer {duel['host_token']}"}
        duel_seat = (
            api.post(f"/api/rooms/{duel['code']}/seats", json={"name": "Jan"})
            .raise_for_status()
            .json()
        )
        api.post(f"/api/rooms/{duel['code']}/bots", headers=duel_host).raise_for_status()
        api.post(f"/api/rooms/{duel['code']}/start", headers=duel_host).raise_for_status()
    return [
        Seeded("lobby, host", lobby["code"], lobby["host_token"]),
        Seeded("lobby, seat", lobby["code"], lobby_seat["token"]),
        Seeded("playing, host", duel["code"], duel["host_token"]),
        Seeded("playing, seat", duel["code"], duel_seat["token"]),
    ]


@pytest.fixture(scope="module")
def live_api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveAPI]:
    folder: Path = tmp_path_factory.mktemp("schema-fuzz")
    with running_server(folder) as server:
        schema = schemathesis.openapi.from_url(f"{server.base_url}/openapi.json")
        yield LiveAPI(server, schema, _seed_rooms(server.base_url))


def _operations(schema: BaseSchema) -> list[Operation]:
    operations = []
    for result in schema.get_all_operations():
        assert isinstance(result, Ok), f"the served schema has an invalid operation: {result.err()}"
        operations.append(result.ok())
    # Starting the game and kicking seats end the lobby and the seeded seat for every later
    # operation: they go last so that the lobby's own operations meet a lobby.
    return sorted(operations, key=lambda operation: operation.label in ROOM_CHANGING)


def _fixed_parts(operation: Operation, seeded: Seeded | None) -> dict[str, Any]:
    """The path's room code and the Authorization header of a seeded context."""
    if seeded is None:
        return {}
    fixed: dict[str, Any] = {"headers": seeded.headers}
    if "code" in operation.path_parameters:
        fixed["path_parameters"] = {"code": seeded.code}
    return fixed


def _fuzz(mode: GenerationMode) -> OperationRun:
    """Hypothesis' generated requests of one mode, ``EXAMPLES_PER_RUN`` per operation."""

    def run(
        operation: Operation, live_api: LiveAPI, session: Session, seeded: Seeded | None
    ) -> None:
        strategy = operation.as_strategy(generation_mode=mode, **_fixed_parts(operation, seeded))

        @settings(
            max_examples=EXAMPLES_PER_RUN,
            derandomize=True,
            database=None,
            deadline=None,
            phases=[Phase.explicit, Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        @given(case=strategy)
        def each_case(case: Case[Operation]) -> None:
            live_api.send(case, session, seeded)

        try:
            each_case()
        except Unsatisfiable:
            # Nothing to break: every parameter is fixed or takes any string (the room code,
            # the optional token) and there is no body.
            if mode is not GenerationMode.NEGATIVE:
                raise

    return run


def _cover(
    operation: Operation, live_api: LiveAPI, session: Session, seeded: Seeded | None
) -> None:
    """Schemathesis' coverage cases, valid and invalid: each schema bound, one past it, every
    required part missing, each wrong type (deterministic, no randomness)."""
    schema = live_api.schema
    fixed = _fixed_parts(operation, seeded)
    for case in schema.iter_coverage_cases(
        operation,
        generation_modes=list(GenerationMode),
        generation_config=schema.config.generation_for(operation=operation, phase="coverage"),
    ):
        case.path_parameters = {**(case.path_parameters or {}), **fixed.get("path_parameters", {})}
        live_api.send(case, session, seeded, fixed.get("headers"))


def _failures_of(live_api: LiveAPI, run: OperationRun, contexts: list[Seeded | None]) -> str:
    """Every operation in every context; the failures of all, not only the first."""
    failures: list[str] = []
    with Session() as session:
        for operation in _operations(live_api.schema):
            for seeded in contexts:
                try:
                    run(operation, live_api, session, seeded)
                # A group of checks' failures is a BaseExceptionGroup.
                except (Exception, FailureGroup) as error:
                    where = seeded.name if seeded else GENERATED
                    failures.append(f"{operation.label} ({where}):\n{error}")
    return "\n\n".join(failures)


def test_every_operation_keeps_its_contract_on_generated_requests(live_api: LiveAPI) -> None:
    """Issue 13 (permanent guard; 13.10 the contract matches the server): valid requests to
    generated and to real rooms, as a stranger, the host and a seat, get no 5xx and only
    documented answers."""
    failures = _failures_of(live_api, _fuzz(GenerationMode.POSITIVE), [None, *live_api.contexts])
    assert not failures, failures
    for seeded in live_api.contexts:  # else the seeding broke and only 404s and 401s were seen
        accepted = sum(
            n
            for (where, code), n in live_api.answers.items()
            if where == seeded.name and code < 300
        )
        assert accepted, f"no request as {seeded.name} was accepted: {live_api.answers}"
    assert live_api.server.process is not None and live_api.server.process.poll() is None


def test_every_operation_refuses_invalid_requests_by_its_contract(live_api: LiveAPI) -> None:
    """Issue 13 (permanent guard; 13.2, 13.4, 13.10): requests that break the schema (wrong
    types, missing fields, bad paths) get a documented 4xx, never a 5xx or an acceptance."""
    # A body or path that breaks the schema is refused before any room is looked up, so one
    # real room with its host's token is enough to also cover the answers behind the token.
    failures = _failures_of(live_api, _fuzz(GenerationMode.NEGATIVE), [None, live_api.contexts[0]])
    assert not failures, failures
    assert live_api.server.process is not None and live_api.server.process.poll() is None


def test_every_operation_keeps_its_contract_at_the_schema_bounds(live_api: LiveAPI) -> None:
    """Issue 13 (permanent guard; 13.10 the contract matches the server): at every bound the
    schema states, just past it, with parts missing or of the wrong type, answers are
    documented and never 5xx, for a stranger, a lobby's host and a playing seat."""
    lobby_host, playing_seat = live_api.contexts[0], live_api.contexts[3]
    failures = _failures_of(live_api, _cover, [None, lobby_host, playing_seat])
    assert not failures, failures
    assert live_api.server.process is not None and live_api.server.process.poll() is None

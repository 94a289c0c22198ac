"""The hosted deployment (compose.yaml and deploy/): the compose file's shape, its migration
step, and deploy/nginx.conf run by Debian's nginx in front of a real server process.

No container engine runs here, so the compose file itself is only read; the proxy's
configuration is exercised for real: the same file, with its upstream pointed at a local
``pecet serve`` and its listening address, pid file and temporary folders moved into the test's
folder, so that nginx needs no root."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
import yaml
from websockets.typing import Origin

from app.config import PROJECT_DIR
from app.db import make_engine, script_heads, stored_revisions
from app.pages import SEAT_COOKIE
from tests.conftest import running_server
from tests.play import auth, create_room, join, order_from_prompt
from tests.services import LocalAddress, free_port

COMPOSE_FILE = PROJECT_DIR / "compose.yaml"
DEPLOY_DIR = PROJECT_DIR / "deploy"
NGINX_CONF = DEPLOY_DIR / "nginx.conf"
SERVERS = ("pecet-1", "pecet-2")
NGINX_MISSING = (
    "Debian's nginx is needed to test deploy/nginx.conf and was not found on PATH or in "
    "/usr/sbin: install it with `apt-get install nginx`."
)

JSON = dict[str, Any]


def compose() -> JSON:
    loaded: JSON = yaml.safe_load(COMPOSE_FILE.read_text(encoding="utf-8"))
    return loaded


def nginx_text() -> str:
    """deploy/nginx.conf without its comments."""
    lines = NGINX_CONF.read_text(encoding="utf-8").splitlines()
    return "\n".join(line.split("#", 1)[0] for line in lines)


def upstream_body(conf: str) -> re.Match[str]:
    found = re.search(r"upstream pecet \{(?P<body>[^}]*)\}", conf)
    assert found is not None, "deploy/nginx.conf has an `upstream pecet` block"
    return found


def upstream_servers(conf: str) -> list[str]:
    return re.findall(r"^\s*server\s+(\S+?);", upstream_body(conf)["body"], flags=re.MULTILINE)


def test_compose_runs_postgres_redis_a_migration_two_servers_and_a_proxy() -> None:
    services = compose()["services"]
    assert set(services) == {"postgres", "redis", "migrate", *SERVERS, "proxy"}
    for name in SERVERS:
        server = services[name]
        environment = server["environment"]
        assert environment["DATABASE_URL"].startswith("postgresql+psycopg://")
        assert "@postgres:5432/" in environment["DATABASE_URL"]
        assert environment["PECET_REDIS_URL"] == "redis://redis:6379/0"
        assert environment["PECET_PUBLIC_URL"], "the QR codes need the public address"
        assert server["command"] == ["pecet", "serve", "--host", "0.0.0.0", "--port", "8000"]
        assert "ports" not in server, "only the proxy listens outside"
        assert server["depends_on"] == {
            "migrate": {"condition": "service_completed_successfully"},
            "redis": {"condition": "service_healthy"},
        }
        assert "http://127.0.0.1:8000/healthz" in " ".join(server["healthcheck"]["test"])
        assert server["build"]["dockerfile"] == "deploy/Dockerfile"
    migrate = services["migrate"]
    assert migrate["restart"] == "no"
    assert migrate["depends_on"] == {"postgres": {"condition": "service_healthy"}}
    proxy = services["proxy"]
    assert proxy["volumes"] == ["./deploy/nginx.conf:/etc/nginx/nginx.conf:ro"]
    assert proxy["depends_on"] == {name: {"condition": "service_healthy"} for name in SERVERS}
    assert [port.split(":")[-1] for port in proxy["ports"]] == ["80"]
    assert "/healthz" in " ".join(proxy["healthcheck"]["test"])
    for name in ("postgres", "redis"):
        assert services[name]["healthcheck"]["test"], name
    assert upstream_servers(nginx_text()) == [f"{name}:8000" for name in SERVERS]


def test_the_image_installs_the_extras_the_services_need() -> None:
    dockerfile = (DEPLOY_DIR / "Dockerfile").read_text(encoding="utf-8")
    assert "pip install --editable '.[postgres,redis]'" in dockerfile
    with (PROJECT_DIR / "pyproject.toml").open("rb") as project:
        extras = tomllib.load(project)["project"]["optional-dependencies"]
    assert {"postgres", "redis"} <= set(extras)
    ignored = [
        line.strip()
        for line in (PROJECT_DIR / ".dockerignore").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    copies = re.findall(r"^COPY (.+) \S+$", dockerfile, flags=re.MULTILINE)
    sources = [source for line in copies for source in line.split()]
    assert {"app", "engine", "migrations", "templates", "static", "locale"} <= set(sources)
    for source in sources:
        assert (PROJECT_DIR / source).exists(), source
        assert not any(fnmatch(source, pattern) for pattern in ignored), source


def test_the_migration_step_brings_a_new_database_to_the_newest_schema(tmp_path: Path) -> None:
    """The compose file's ``migrate`` command, run as it is written (here on SQLite)."""
    command = compose()["services"]["migrate"]["command"]
    assert command == ["pecet", "migrate"]
    url = f"sqlite:///{tmp_path / 'pecet.sqlite3'}"
    environment = {**os.environ, "DATABASE_URL": url}
    # The image's `pecet` is this checkout's console script: the same module, run here.
    program = [sys.executable, "-m", "app.cli", *command[1:]]
    subprocess.run(program, cwd=PROJECT_DIR, env=environment, check=True)
    engine = make_engine(url)
    try:
        assert stored_revisions(engine) == script_heads()
    finally:
        engine.dispose()


def test_the_proxy_passes_websocket_upgrades_and_the_browsers_host() -> None:
    conf = nginx_text()
    assert re.search(
        r"map \$http_upgrade \$connection_upgrade \{\s*default upgrade;\s*''\s*'';\s*\}", conf
    )
    for directive in (
        "proxy_http_version 1.1;",
        "proxy_set_header Upgrade $http_upgrade;",
        "proxy_set_header Connection $connection_upgrade;",
        "proxy_set_header Host $http_host;",
        "proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;",
        "proxy_set_header X-Forwarded-Proto $scheme;",
    ):
        assert directive in conf, directive
    locations = re.findall(r"location\s+(\S+)\s*\{([^}]*)\}", conf)
    assert {path for path, _body in locations} == {"/", "/ws/"}
    for path, body in locations:
        assert "proxy_pass http://pecet;" in body, path
        # One proxy_set_header in a location and it inherits none of the server's.
        assert "proxy_set_header" not in body, path


def test_the_proxy_logs_no_query_strings() -> None:
    (log_format,) = re.findall(r"log_format pecet (.*?);", nginx_text(), flags=re.DOTALL)
    for variable in ("$request ", "$request_uri", "$args", "$query_string", "$http_cookie"):
        assert variable not in log_format + " ", variable
    assert "$uri" in log_format


def nginx_binary() -> str:
    found = shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin:/sbin")
    if found is None:
        pytest.fail(NGINX_MISSING, pytrace=False)
    return found


def local_config(conf: str, upstream: str, listen: str, folder: Path) -> str:
    """deploy/nginx.conf with one upstream server, the given address to listen on, and the
    temporary folders in ``folder`` (the compiled-in ones are writable by root only)."""
    block = upstream_body(conf)
    server_line = re.compile(r"^(?P<indent>[ \t]*)server\s+\S+;\n", flags=re.MULTILINE)
    first = server_line.search(block["body"])
    assert first is not None
    # Everything before the first server line stays where it was: the one server goes there.
    rest = server_line.sub("", block["body"])
    body = f"{rest[: first.start()]}{first['indent']}server {upstream};\n{rest[first.start() :]}"
    conf = conf[: block.start("body")] + body + conf[block.end("body") :]
    assert conf.count("listen 80;") == 1
    conf = conf.replace("listen 80;", f"listen {listen};")
    temporary = "".join(
        f"\n    {kind}_temp_path {folder / kind};"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    assert conf.count("http {") == 1
    return conf.replace("http {", "http {" + temporary)


@dataclass
class Proxy(LocalAddress):
    port: int
    process: subprocess.Popen[bytes]
    access_log: Path
    error_log: Path

    def stop(self) -> None:
        """A graceful stop (SIGQUIT): every finished request is in the access log after it."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGQUIT)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


def launch_nginx(folder: Path, upstream: str) -> Proxy:
    """nginx in the foreground on a free port, answering once ``/healthz`` passes through."""
    binary = nginx_binary()
    port = free_port()
    conf = folder / "nginx.conf"
    conf.write_text(
        local_config(nginx_text(), upstream, f"127.0.0.1:{port}", folder), encoding="utf-8"
    )
    main = f"daemon off; pid {folder / 'nginx.pid'};"
    if os.geteuid() == 0:
        # Workers would otherwise run as nobody, who may not enter the test's folder.
        main += " user root;"
    access_log, error_log = folder / "access.log", folder / "error.log"
    with access_log.open("ab") as stdout, error_log.open("ab") as stderr:
        process = subprocess.Popen(
            [binary, "-p", f"{folder}/", "-c", str(conf), "-e", "stderr", "-g", main],
            stdout=stdout,
            stderr=stderr,
        )
    proxy = Proxy(port, process, access_log, error_log)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return proxy
        try:
            if httpx.get(f"{proxy.base_url}/healthz", timeout=1).status_code == 200:
                return proxy
        except httpx.HTTPError:
            time.sleep(0.05)
    proxy.stop()
    raise AssertionError(f"nginx did not answer within 30 s: {error_log.read_text()}")


@contextmanager
def running_nginx(folder: Path, upstream: str) -> Iterator[Proxy]:
    """nginx with deploy/nginx.conf in front of ``upstream``; stopped at the end. If the free
    port it probed was taken meanwhile, it starts again on another."""
    folder.mkdir()
    for _attempt in range(3):
        proxy = launch_nginx(folder, upstream)
        if proxy.process.poll() is None:
            break
        log = proxy.error_log.read_text()
        if "Address already in use" not in log:
            raise AssertionError(f"nginx exited with {proxy.process.returncode}: {log}")
    else:
        raise AssertionError("nginx found no free port in three attempts")
    try:
        yield proxy
    finally:
        proxy.stop()


async def next_view(socket: websockets.ClientConnection) -> JSON:
    while (frame := json.loads(await socket.recv()))["type"] != "view":
        pass
    view: JSON = frame
    return view


async def play_through_proxy(
    proxy: Proxy, code: str, host_token: str, seat_token: str
) -> tuple[JSON, JSON, JSON]:
    """The host's board (its token in the URL) and the seat's phone (its token in the page's
    cookie, from a page of the proxy's address): each one's first frame, then the phone's view
    after it has sealed an order. Answers (phone's first, board's first, phone's next)."""
    phone_url = f"{proxy.ws_url}/ws/rooms/{code}"
    cookie = f"{SEAT_COOKIE.format(code=code)}={seat_token}"
    async with (
        websockets.connect(
            phone_url, origin=Origin(proxy.base_url), additional_headers={"Cookie": cookie}
        ) as phone,
        websockets.connect(f"{proxy.ws_url}/ws/rooms/{code}/board?host={host_token}") as board,
    ):
        first_phone: JSON = json.loads(await phone.recv())
        first_board: JSON = json.loads(await board.recv())
        order = {"type": "order", "order": order_from_prompt(first_phone["prompt"])}
        await phone.send(json.dumps(order))
        return first_phone, first_board, await next_view(phone)


@pytest.mark.server
def test_nginx_serves_pages_the_api_and_websockets_of_a_real_server(tmp_path: Path) -> None:
    with (
        running_server(tmp_path) as server,
        running_nginx(tmp_path / "nginx", f"127.0.0.1:{server.port}") as proxy,
    ):
        with httpx.Client(base_url=proxy.base_url, timeout=10) as http:
            page = http.get("/")
            assert page.status_code == 200
            assert page.headers["content-type"].startswith("text/html")
            assert "<h1>Pečeť</h1>" in page.text
            assert page.headers["content-security-policy"].startswith("default-src 'self'")
            assert page.headers.get("server") == "nginx", "no version told"

            room = create_room(http)
            code, host_token = room["code"], room["host_token"]
            seats = [join(http, code, name) for name in ("Ema", "Petr")]
            started = http.post(f"/api/rooms/{code}/start", headers=auth(host_token))
            assert started.status_code == 200, started.text
            (active,) = http.get(f"/api/rooms/{code}").json()["to_act"]

        first_phone, first_board, after = asyncio.run(
            play_through_proxy(proxy, code, host_token, seats[active]["token"])
        )
        assert first_phone["type"] == "view" and first_phone["version"] == 0
        assert first_phone["prompt"] is not None, "the phone is the seat to act"
        assert first_board["type"] == "view" and first_board["version"] == 0
        assert first_board["pins"] == {str(seat["seat"]): seat["pin"] for seat in seats}
        assert after["version"] == 1
        proxy.stop()
        assert proxy.process.returncode == 0, proxy.error_log.read_text()

    logged = proxy.access_log.read_text(encoding="utf-8")
    for secret in (host_token, *(seat["token"] for seat in seats)):
        assert secret not in logged
    assert f'"GET /ws/rooms/{code}/board HTTP/1.1" 101' in logged
    assert f'"POST /api/rooms/{code}/start HTTP/1.1" 200' in logged

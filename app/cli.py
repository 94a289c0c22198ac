"""The ``pecet`` command: ``pecet serve`` and ``pecet simulate``."""

from __future__ import annotations

import argparse
import dataclasses
import gc
import logging.config
import sys
from collections.abc import Sequence

from app.config import Settings


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="pecet", description="Pečeť game server.")
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="run the server (phones join over the LAN)")
    serve.add_argument("--host", help="address to listen on (default 0.0.0.0, or PECET_HOST)")
    serve.add_argument("--port", type=int, help="port (default 8000, or PECET_PORT)")
    serve.add_argument("--log-level", default="info")

    commands.add_parser(
        "migrate",
        help="bring the database (DATABASE_URL) to the newest schema and exit; `serve` does it"
        " too, but several processes starting at once against a new database must not",
    )

    simulate = commands.add_parser("simulate", help="bots against bots: win rates and speed")
    simulate.add_argument("game")
    simulate.add_argument("--players", type=int, default=None)
    simulate.add_argument("--games", type=int, default=100)
    simulate.add_argument("--seed", type=int, default=1)
    simulate.add_argument("--json", action="store_true", help="print the figures as JSON")
    simulate.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="processes to share the games (default: one per usable core); the figures are"
        " the same for any N",
    )
    simulate.add_argument(
        "--variant",
        dest="variants",
        action="append",
        default=[],
        metavar="NAME",
        help="play with a named variant on (Heirs: e.g. elf_per_5); repeat for several",
    )

    args = parser.parse_args(argv)
    if args.command == "serve":
        return _serve(args)
    if args.command == "migrate":
        from app.db import upgrade

        ran = upgrade(Settings.from_env().database_url)
        print("Migrated to the newest schema." if ran else "The schema is up to date.")
        return 0
    from app.simulate import run_cli

    return run_cli(args)


FULL_COLLECTION_EVERY = 1000
"""Collections of the middle generation between two full ones (CPython's default is 10)."""


def tune_garbage_collector() -> None:
    """Walk the whole heap seldom: every live room stays in memory, and with CPython's
    default thresholds a full collection walked it every second or two, a pause of 0.25 s at
    50 busy rooms and 0.5 s at 200 (bench/load.py), for objects that live as long as their
    room. The young generations are collected as often as before (the garbage of a closed
    socket goes at once); what is loaded by now (modules, routes, catalogs) lives as long as
    the process: frozen, no collection walks it again.

    The start runs with the collector off (``_serve``): the imports make objects that all
    stay, and collecting them while they came cost about 70 ms of a 1.1 s start. The
    garbage the start leaves (about a thousand objects) is frozen with the rest rather than
    collected, which cost another 25–50 ms."""
    gc.freeze()
    young, middle, _full = gc.get_threshold()
    gc.set_threshold(young, middle, FULL_COLLECTION_EVERY)
    gc.enable()


def _serve(args: argparse.Namespace) -> int:
    gc.disable()  # until tune_garbage_collector, see there
    import uvicorn

    from app.lan import join_base_url
    from app.logs import logging_config
    from app.main import create_app
    from app.socket_protocol import SocketProtocol

    settings = Settings.from_env()
    host = args.host or settings.host
    port = args.port or settings.port
    settings = dataclasses.replace(settings, host=host, port=port)
    print(f"Pečeť: open {join_base_url(settings)} on the TV; phones join from the same Wi-Fi.")
    # Every handler, uvicorn's access log included, redacts seat and host tokens (issue 13.3).
    logging.config.dictConfig(logging_config(args.log_level))
    app = create_app(settings)
    tune_garbage_collector()
    uvicorn.run(
        app,
        host=host,
        port=port,
        log_config=logging_config(args.log_level),
        log_level=args.log_level,
        ws_ping_interval=settings.keepalive_seconds,
        ws_ping_timeout=settings.keepalive_seconds,
        ws=SocketProtocol,
        ws_per_message_deflate=settings.ws_compression,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Logging that never writes a secret (issue 13.3).

A seat token lets its holder play the seat and a host token hosts the room, so no log line may
carry one. Pages authenticate by cookie, but API clients may still put ``?token=`` or
``?host=`` in a URL, send ``Authorization: Bearer …``, and uvicorn's access log and its trace
level (every ASGI scope with its headers) would print them. :class:`RedactSecrets` rewrites
every record that passes a handler it sits on; :func:`logging_config` puts it on every handler
of the server, and :func:`install` on the handlers of a logging set up elsewhere.
"""

from __future__ import annotations

import copy
import logging
import re
from collections.abc import Mapping
from typing import Any

REDACTED = "[redacted]"

SECRET_PATTERNS = (
    # ?token=…, &host=… and host_token=… in a URL or a query string.
    re.compile(r"(?i)((?:^|[?&;\s\"'])(?:token|host|host_token)=)[^&\s\"';#]+"),
    # An Authorization header, as text or as the bytes of an ASGI scope.
    re.compile(r"(?i)(\bbearer\s+)[^\s\"',;)\]]+"),
    # The pages' cookies: pecet_seat_{code}=… and pecet_host_{code}=….
    re.compile(r"(?i)(\bpecet_(?:seat|host)_\w+=)[^;\s\"',)\]]+"),
    # A token in JSON or in a Python mapping: "token": "…", 'host_token': '…'.
    re.compile(r"(?i)([\"'](?:token|host_token)[\"']\s*:\s*[\"'])[^\"']+"),
)


def redact(text: str) -> str:
    """``text`` with every secret it carries replaced by ``[redacted]``."""
    for pattern in SECRET_PATTERNS:
        text = pattern.sub(rf"\g<1>{REDACTED}", text)
    return text


class _Redacted:
    """Stands in for a log argument that is not text (an ASGI scope, a header list): it
    prints like the original with its secrets redacted, under ``%s`` and ``%r`` alike."""

    def __init__(self, original: object) -> None:
        self._str = redact(str(original))
        self._repr = redact(repr(original))

    def __str__(self) -> str:
        return self._str

    def __repr__(self) -> str:
        return self._repr


def _redact_argument(argument: object) -> object:
    if isinstance(argument, str):
        return redact(argument)
    if argument is None or isinstance(argument, int | float):
        # Numbers stay numbers: formats such as uvicorn's %d status code need them.
        return argument
    shown = _Redacted(argument)
    if shown._str == str(argument) and shown._repr == repr(argument):
        return argument
    return shown


class RedactSecrets(logging.Filter):
    """Removes tokens from the message, its arguments, the traceback and the stack of every
    record; it never drops a record."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, Mapping):
            record.args = {key: _redact_argument(value) for key, value in record.args.items()}
        elif record.args:
            record.args = tuple(_redact_argument(argument) for argument in record.args)
        if record.exc_info and not record.exc_text:
            # Formatted here so that the handler's formatter uses the redacted text.
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        return True


FILTER_NAME = "redact_secrets"
PLAIN_FORMAT = "%(levelname)s %(name)s: %(message)s"


def logging_config(level: str = "info") -> dict[str, Any]:
    """uvicorn's logging configuration with :class:`RedactSecrets` on every handler, and a
    root handler (the app's and the websockets library's loggers) that has it too."""
    from uvicorn.config import LOGGING_CONFIG

    config: dict[str, Any] = copy.deepcopy(LOGGING_CONFIG)
    config["filters"] = {FILTER_NAME: {"()": RedactSecrets}}
    config["formatters"]["plain"] = {"format": PLAIN_FORMAT}
    config["handlers"]["plain"] = {
        "class": "logging.StreamHandler",
        "formatter": "plain",
        "stream": "ext://sys.stderr",
    }
    for handler in config["handlers"].values():
        handler["filters"] = [*handler.get("filters", []), FILTER_NAME]
    config["root"] = {"handlers": ["plain"], "level": _level_number(level)}
    return config


def _level_number(level: str) -> int:
    from uvicorn.config import LOG_LEVELS

    return LOG_LEVELS[level.lower()]


def install() -> None:
    """Puts :class:`RedactSecrets` on every handler that exists now: the root logger's and
    those of every named logger (for a server whose logging was set up by someone else, such as
    ``uvicorn app.main:create_app --factory`` with uvicorn's own configuration)."""
    loggers: list[logging.Logger] = [logging.getLogger()]
    loggers += [
        logger
        for logger in logging.Logger.manager.loggerDict.values()
        if isinstance(logger, logging.Logger)
    ]
    for logger in loggers:
        for handler in logger.handlers:
            if not any(isinstance(f, RedactSecrets) for f in handler.filters):
                handler.addFilter(RedactSecrets())

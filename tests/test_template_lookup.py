"""``app.pages.PageEnvironment`` reads ``{{ x.name }}`` from a plain dict at once: every
lookup gives what Jinja's own environment gives (a value, or the same undefined), whether
the name is a key, one of dict's own methods, missing, or asked of something else."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import pytest
from jinja2 import Environment, StrictUndefined, Undefined, UndefinedError

from app import pages


class Seat:
    name = "Ann"

    def __getitem__(self, key: str) -> str:
        return f"item {key}"


OBJECTS: list[Any] = [
    {"round": 3, "items": "a key named items", "get": 1, "seat": None},
    {"phase": "setup"},
    {},
    OrderedDict(round=4, keys="a key named keys"),
    Seat(),
    ["zero", "one"],
    "text",
    None,
    7,
]
NAMES = ["round", "items", "get", "keys", "values", "seat", "phase", "name", "missing", "upper"]


def looked_up(environment: Environment, obj: Any, name: str) -> tuple[str, Any]:
    """What a lookup gives, comparable across environments: a value, or the undefined's
    name and hint."""
    found = environment.getattr(obj, name)
    if isinstance(found, Undefined):
        return "undefined", (found._undefined_name, found._undefined_hint)
    if callable(found):  # a bound method: the same method of the same object
        return "method", (getattr(found, "__self__", None) is obj, found.__name__)
    return "value", found


@pytest.mark.parametrize("obj", OBJECTS, ids=lambda o: type(o).__name__)
def test_every_lookup_gives_what_jinja_gives(obj: Any) -> None:
    jinjas = Environment()
    for name in NAMES:
        assert looked_up(pages.environment, obj, name) == looked_up(jinjas, obj, name), name


def test_a_dict_method_name_keeps_jinjas_order() -> None:
    """``items`` is dict's own method before it is a key, in templates as in Jinja."""
    view = {"items": "a key", "round": 2}
    source = "{{ view.round }} {{ view.items is callable }} {{ view['items'] }}"
    ours = pages.environment.from_string(source).render(view=view)
    assert ours == Environment().from_string(source).render(view=view) == "2 True a key"


def test_a_missing_key_is_undefined_and_strict_undefined_still_raises() -> None:
    assert pages.environment.from_string("[{{ view.nothing }}]").render(view={}) == "[]"
    strict = pages.environment.overlay(undefined=StrictUndefined)
    with pytest.raises(UndefinedError, match="has no attribute 'nothing'"):
        strict.from_string("{{ view.nothing }}").render(view={})

"""``json_diff``: the RFC 6902 patch a step frame carries turns one view into the next."""

from __future__ import annotations

from typing import Any

import jsonpatch
import pytest

from app.payloads import json_diff

CASES: list[tuple[Any, Any]] = [
    ({"a": 1, "b": [1, 2]}, {"a": 1, "b": [1, 2]}),
    ({"a": 1, "gone": True}, {"a": 2, "new": {"x": []}}),
    ({"list": [1, 2, 3]}, {"list": [1, 2]}),
    ({"list": [{"v": 1}, {"v": 2}]}, {"list": [{"v": 1}, {"v": 3, "w": None}]}),
    ({"a/b": {"~c": 1}}, {"a/b": {"~c": 2}}),
    ({"kind": [1]}, {"kind": {"0": 1}}),
    ({"n": None}, {"n": 0}),
]


@pytest.mark.parametrize(("old", "new"), CASES)
def test_the_diff_applied_to_the_old_value_gives_the_new_one(old: Any, new: Any) -> None:
    patch = json_diff(old, new)
    assert jsonpatch.apply_patch(old, patch) == new
    assert (patch == []) == (old == new)


def test_only_what_changed_is_in_the_patch() -> None:
    old = {"heirs": [{"gold": 3, "name": "A"}, {"gold": 5, "name": "B"}], "round": 2}
    new = {"heirs": [{"gold": 3, "name": "A"}, {"gold": 7, "name": "B"}], "round": 2}
    assert json_diff(old, new, "/view") == [
        {"op": "replace", "path": "/view/heirs/1/gold", "value": 7}
    ]

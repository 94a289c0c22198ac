"""``json_diff``: the RFC 6902 patch a step frame carries turns one view into the next."""

from __future__ import annotations

import json
from typing import Any

import jsonpatch
import pytest

from app.hub import dumps
from app.payloads import DiffMemo, json_diff

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


def test_views_made_of_the_same_parts_share_one_comparison_and_each_gets_its_own_patch() -> None:
    """The board's part of every viewer's view is one object per step: the memo compares it
    once, and every viewer's patch is still exactly its own."""
    board_before = {"heirs": [{"gold": 3}, {"gold": 5}], "round": 2}
    board_after = {"heirs": [{"gold": 3}, {"gold": 7}], "round": 2}
    views = [
        ({**board_before, "me": {"hand": [1, 2]}}, {**board_after, "me": {"hand": [2]}}),
        ({**board_before, "me": {"hand": [4]}}, {**board_after, "me": {"hand": [4]}}),
        (dict(board_before), dict(board_after)),
    ]
    memo = DiffMemo()
    for old, new in views:
        patch = json_diff(old, new, "/view", memo)
        assert patch == json_diff(old, new, "/view")
        assert jsonpatch.apply_patch({"view": old}, patch) == {"view": new}
    shared = memo.get(board_before["heirs"], board_after["heirs"], "/view/heirs")
    assert shared == [{"op": "replace", "path": "/view/heirs/1/gold", "value": 7}]


def test_a_memo_answers_only_for_the_very_values_it_compared() -> None:
    old, new = {"a": [1]}, {"a": [2]}
    memo = DiffMemo()
    json_diff(old, new, "", memo)
    assert memo.get(old, new, "") == [{"op": "replace", "path": "/a/0", "value": 2}]
    assert memo.get({"a": [1]}, {"a": [2]}, "") is None  # equal, but other objects
    assert memo.get(old, new, "/elsewhere") is None
    # A patch handed out is the caller's own: changing it leaves the memo's intact.
    memo.get(old, new, "").clear()  # type: ignore[union-attr]
    assert memo.get(old, new, "") == [{"op": "replace", "path": "/a/0", "value": 2}]


def test_frames_keep_keys_that_are_not_strings() -> None:
    assert json.loads(dumps({"type": "view", "table": {1: "a", 2: None}})) == {
        "type": "view",
        "table": {"1": "a", "2": None},
    }

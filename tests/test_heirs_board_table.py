"""The Heirs board's end table (H19.2, H19.4) and its battle marks (H23), read off real games
played to the end by the bots."""

from __future__ import annotations

from typing import Any

import pytest

from app import i18n
from app.games.heirs import outcome_rows, step_focus
from app.simulate import play_game
from engine.registry import get_rules


@pytest.mark.parametrize("seed", [3, 11, 40])
def test_h19_2_every_column_is_points_and_they_add_up_to_the_engines_total(seed: int) -> None:
    rules = get_rules("heirs")
    styles = ["warlord", "raider", "expander", "warlord"]
    played = play_game(rules, 4, seed, styles, {"rounds": 6})
    view = rules.view(played.final, None)
    council = played.outcome["council"]
    for lang in ("en", "cs"):
        with i18n.use_language(lang):
            table = outcome_rows(view, {s: f"P{s}" for s in range(4)})
        assert table is not None
        labels = [c["label"] for c in table["columns"]]
        assert len(set(labels)) == len(labels) == 5, labels
        for row in table["rows"]:
            parts = [row["score"][c["key"]]["points"] for c in table["columns"]]
            assert sum(parts) == council[str(row["seat"])]["points"] == row["points"]["points"]
    # H19.2's sheet: a Sign is worth 6, a won battle 4 (so points are not the counts).
    assert table is not None
    row = max(table["rows"], key=lambda r: r["score"]["signs"]["count"])
    signs = row["score"]["signs"]
    assert signs["points"] == 6 * signs["count"]
    battles = row["score"]["won_battles"]
    assert battles["points"] == 4 * battles["count"]


def battle(field: str) -> dict[str, Any]:
    return {"kind": "battle", "data": {"field": field}}


def test_h23_a_battle_is_marked_from_its_own_step_to_the_end_of_the_round() -> None:
    steps = [
        {"events": [{"kind": "step", "data": {"seat": 0}}, battle("R1-0")]},
        {"events": [{"kind": "step", "data": {"seat": 1}}]},
        {"events": [{"kind": "step", "data": {"seat": 2}}, battle("R2-3")]},
    ]
    # The board's payload holds the steps shown so far: a later battle is never in it.
    first = step_focus({"show": {"round": 1}, "playback": steps[:1]})
    assert first["battle"] == {"R1-0"} and first["fought"] == set()
    second = step_focus({"show": {"round": 1}, "playback": steps[:2]})
    assert second["battle"] == set() and second["fought"] == {"R1-0"}
    third = step_focus({"show": {"round": 1}, "playback": steps})
    assert third["battle"] == {"R2-3"} and third["fought"] == {"R1-0"}
    # Once the round is over (no show), nothing stays marked.
    assert step_focus({"show": None, "playback": steps})["fought"] == set()


def test_h12_8_a_beaten_defenders_retreat_is_lit_only_once_the_attacker_has_arrived() -> None:
    """Where the defender retreats tells who won: that field is lit late (heirs.css), the
    attacker's own field at once."""
    steps = [
        {
            "events": [
                {"kind": "step", "data": {"seat": 0}},
                battle("R2-5"),
                {"kind": "retreat", "data": {"seat": 1, "to": "R3-9"}},
                {"kind": "move", "data": {"seat": 0, "to": "R2-5"}},
            ]
        }
    ]
    focus = step_focus({"show": {"round": 1}, "playback": steps})
    assert focus["later"] == {"R3-9"} and "R3-9" not in focus["lit"]
    assert focus["battle"] == {"R2-5"} and focus["active"] == 0


def test_h19_3_tied_heirs_share_a_place_and_the_next_place_counts_them_all() -> None:
    """A ranking of 1, 2, 2: the heir after them is fourth, not third. The board's table
    shows under each column's points what they count ("1 × 6": one Sign worth 6)."""
    from types import SimpleNamespace

    from app.pages import render_board_view

    rules = get_rules("heirs")
    played = play_game(rules, 4, 3, ["warlord", "raider", "expander", "warlord"], {"rounds": 6})
    view = rules.view(played.final, None)
    view["outcome"] = {**view["outcome"], "ranking": [[2], [0, 3], [1]]}
    with i18n.use_language("en"):
        table = outcome_rows(view, {s: f"P{s}" for s in range(4)})
    assert table is not None
    assert [(r["seat"], r["place"]) for r in table["rows"]] == [(2, 1), (0, 2), (3, 2), (1, 4)]
    live: Any = SimpleNamespace(game="heirs", code="ABCD")
    seats = [{"seat": s, "name": f"P{s}", "bot": False} for s in range(4)]
    payload = {"code": "ABCD", "game": "heirs", "status": "finished", "seats": seats}
    html = render_board_view(
        live, {**payload, "view": view, "outcome": view["outcome"]}, "en", host=False, join_url="x"
    )
    signs = table["rows"][0]["score"]["signs"]
    assert (
        f'{signs["points"]}</span><small class="hx-count" data-testid="count">{signs["count"]} × 6<'
        in html
    )

"""The log lines of past rounds are kept (app/pages.py ``KeptLines``): what a fragment shows
is what the game writes, in the reader's language, with today's names, for each reader."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from markupsafe import Markup

from app import i18n
from app.games import screens_for
from app.pages import KeptLines, log_context, log_line, render
from engine.core import JSON, events_for
from engine.registry import get_rules


def first_round_events(game: str, seats: int) -> list[Mapping[str, Any]]:
    """The public events of a bots-only game's first resolution."""
    rules = get_rules(game)
    state = rules.setup(seats, 3, {})
    while not rules.ready(state):
        seat = next(s for s in range(seats) if rules.prompt(state, s) is not None)
        state = rules.submit(state, seat, rules.bot_order(state, seat, rules.info.bot_styles[0]))
    _, events = rules.resolve(state)
    return list(events_for(events, None))


def payload_of(game: str, names: list[str], **extra: Any) -> JSON:
    return {"seats": [{"seat": i, "name": name} for i, name in enumerate(names)], **extra}


@pytest.mark.parametrize(("game", "seats"), [("heirs", 3), ("hidden_leaders", 2)])
def test_kept_lines_are_the_games_own_in_each_language(game: str, seats: int) -> None:
    kept = KeptLines()
    events = first_round_events(game, seats)
    payload = payload_of(game, [f"Ema{i}" for i in range(seats)])
    written: dict[str, list[JSON]] = {}
    for lang in ("en", "cs", "en", "cs"):
        with i18n.use_language(lang):
            lines = kept.lines(game, events, payload, None)
            assert lines == screens_for(game).log_lines(events, payload, None)
        assert lines, "a first round is worth a line of the log"
        written.setdefault(lang, lines)
        assert lines == written[lang]
    assert written["en"] != written["cs"]


def test_a_new_name_or_another_reader_is_written_anew() -> None:
    kept = KeptLines()
    events = first_round_events("heirs", 3)
    before = kept.lines("heirs", events, payload_of("heirs", ["Ema", "Ota", "Iva"]), None)
    after = kept.lines("heirs", events, payload_of("heirs", ["Ema", "Ota", "Zuzana"]), None)
    assert "Zuzana" not in str(before) and "Zuzana" in str(after)
    for seat in range(3):
        payload = payload_of("heirs", ["Ema", "Ota", "Iva"])
        mine = kept.lines("heirs", events, payload, seat)
        assert mine == screens_for("heirs").log_lines(events, payload, seat)


def test_legions_lines_follow_the_players_sides() -> None:
    kept = KeptLines()
    events = first_round_events("legions", 2)
    sides = [{"side": "necro"}, {"side": "king"}]
    swapped = [{"side": "king"}, {"side": "necro"}]
    names = ["Ema", "Ota"]
    one = kept.lines("legions", events, payload_of("legions", names, view={"players": sides}), 0)
    other = kept.lines(
        "legions", events, payload_of("legions", names, view={"players": swapped}), 0
    )
    assert one != other
    legions = screens_for("legions")
    assert other == legions.log_lines(
        events, payload_of("legions", names, view={"players": swapped}), 0
    )


def test_a_caller_adding_to_the_lines_changes_nothing_kept_and_the_kept_are_bounded() -> None:
    kept = KeptLines(size=2)
    events = first_round_events("heirs", 3)
    payload = payload_of("heirs", ["Ema", "Ota", "Iva"])
    lines = kept.lines("heirs", events, payload, None)
    count = len(lines)
    lines.append({"kind": "extra", "text": "added by a caller"})
    assert len(kept.lines("heirs", events, payload, None)) == count
    for seat in range(3):
        kept.lines("heirs", events, payload, seat)
    assert len(kept._kept) == 2


def test_a_kept_round_is_drawn_as_the_log_draws_each_line_and_escaped() -> None:
    """A past round's lines are drawn once, the very markup ``_log_line.html`` gives each
    line, with a player's name escaped like any text."""
    kept = KeptLines()
    events = first_round_events("heirs", 3)
    payload = payload_of("heirs", ["<b>Ema</b>", "Ota", "Iva"])
    for seat in (None, 0, 1):
        drawn = kept.round("heirs", events, payload, seat)
        assert drawn.html == Markup("").join(log_line(line) for line in drawn.lines)
        assert drawn.html.count("<li class=") == len(drawn.lines) > 0
        assert "<b>Ema</b>" not in drawn.html
        if seat != 0:  # Ema reads "You"
            assert "&lt;b&gt;Ema&lt;/b&gt;" in drawn.html
        assert kept.round("heirs", events, payload, seat) is drawn


def test_the_log_panel_shows_past_rounds_kept_and_the_newest_drawn_anew() -> None:
    """The panel of a match in its third round: the two past rounds' lines as kept, then
    the newest round's lines, in order, each once."""
    events = first_round_events("heirs", 3)
    payload = payload_of(
        "heirs",
        ["Ema", "Ota", "Iva"],
        history=[{"round": 1, "events": events}, {"round": 2, "events": events}],
        events=events[:1],
        show={"round": 3, "step": 0, "steps": 1, "step_ms": 1000},
    )
    with i18n.use_language("en"):
        context = log_context("heirs", payload, None)
        panel = render("fragments/_log.html", "en", **context)
    lines = screens_for("heirs").log_lines(events, payload, None)
    newest = screens_for("heirs").log_lines(events[:1], payload, None)
    assert [r["round"] for r in context["log_rounds"]] == [1, 2, 3]
    for group, count in zip(
        context["log_rounds"], (len(lines), len(lines), len(newest)), strict=True
    ):
        section = panel.split(f'data-round="{group["round"]}"')[1].split("</ol>")[0]
        assert section.count("<li class=") == count
    assert panel.count(str(lines[0]["text"])) >= 2


def test_the_log_tells_whose_time_ran_out_where_the_default_was_played() -> None:
    """H5.4: a resolution in which the sealing timer sealed a seat's order is told by a note
    before its events, that the clock, not the player, chose: in a past round from the mark
    in its history (a round of several resolutions has it before the right one), in the
    round the board is playing out from its show; the seat itself reads "you"."""
    events = first_round_events("heirs", 3)
    mark = {"kind": "timed_out", "data": {"seat": 1}}
    payload = payload_of(
        "heirs",
        ["Ema", "Ota", "Iva"],
        history=[
            {"round": 1, "events": [*events[:1], mark, *events[1:]]},
            {"round": 2, "events": events},
        ],
        playback=[{"round": 3, "events": events[:1]}],
        show={"round": 3, "step": 0, "steps": 2, "step_ms": 1000, "timed_out": [0, 2]},
    )
    with i18n.use_language("en"):
        board = render("fragments/_log.html", "en", **log_context("heirs", payload, None))
        ota = render("fragments/_log.html", "en", **log_context("heirs", payload, 1))
        first = screens_for("heirs").log_lines(events[:1], payload, None)
    with i18n.use_language("cs"):
        czech = render("fragments/_log.html", "cs", **log_context("heirs", payload, None))

    def round_of(panel: str, number: int) -> list[str]:
        section = panel.split(f'data-round="{number}"')[1].split("</ol>")[0]
        return [item.split(">", 1)[1].split("<")[0] for item in section.split("<li class=")[1:]]

    ota_late = "Time ran out for Ota: the default move was played."
    lines = round_of(board, 1)
    assert lines[len(first)] == ota_late, "the note stands before the resolution it is of"
    assert lines.count(ota_late) == 1
    assert not any("Time ran out" in line for line in round_of(board, 2))
    assert round_of(board, 3)[:2] == [
        "Time ran out for Ema: the default move was played.",
        "Time ran out for Iva: the default move was played.",
    ]
    assert "Time ran out for you: your default move was played." in round_of(ota, 1)
    assert 'class="k-timer mine"' in ota
    assert any("Ota" in line for line in round_of(czech, 1)) and "Time ran out" not in czech

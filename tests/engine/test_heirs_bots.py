"""Heirs of the Axis bots: pinned outcomes (speed work must not change a game), the bots'
lean view, and the character choice that does not depend on the style."""

from __future__ import annotations

import hashlib
import json
from collections import Counter

from app.simulate import play_one
from engine.heirs import RULES, bots
from engine.heirs.api import BOT_ME_KEYS, DEFAULT_ORDER
from engine.heirs.state import HeirsState

PINNED_GAMES = 200
PINNED_OUTCOMES = "f970711d684eb7bea5fac8d425c0f93bfc4c616cfea544ff089b4d5b1cac285c"
"""SHA-256 of the outcomes of ``pinned_outcomes()``. The optimisations of the engine and of
the bots must leave every game exactly as it was; a deliberate change of the bots or the
rules changes this hash — then check the new figures (``pecet simulate``) and update it."""

PURPOSEFUL = ("expander", "raider", "warlord")


def pinned_outcomes() -> str:
    styles = RULES.info.bot_styles
    lines = []
    for k in range(PINNED_GAMES):
        players = 2 + k % 5
        seats = [styles[(s + k) % len(styles)] for s in range(players)]
        lines.append(json.dumps(play_one(RULES, players, 1000 + k, seats), sort_keys=True))
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def test_h22_bots_games_are_pinned_so_optimisations_change_no_outcome() -> None:
    assert pinned_outcomes() == PINNED_OUTCOMES


def states_of_a_game(players: int, seed: int) -> list[HeirsState]:
    styles = RULES.info.bot_styles
    state = RULES.setup(players, seed, {})
    states = [state]
    while RULES.outcome(state) is None:
        for seat in range(players):
            if RULES.prompt(state, seat) is not None:
                state = RULES.submit(state, seat, RULES.bot_order(state, seat, styles[seat % 4]))
                states.append(state)
        state, _ = RULES.resolve(state)
        states.append(state)
    return states


def test_h23_bot_view_is_part_of_the_seats_own_view() -> None:
    checked = 0
    for players, seed in ((2, 1), (4, 2), (6, 3)):
        for state in states_of_a_game(players, seed):
            for seat in range(players):
                prompt = RULES.prompt(state, seat)
                lean = RULES.bot_view(state, seat, prompt)
                full = RULES.view(state, seat)
                assert {k: v for k, v in lean.items() if k != "me"} == {
                    k: v for k, v in full.items() if k != "me"
                }
                assert set(lean["me"]) <= BOT_ME_KEYS
                for key, value in lean["me"].items():
                    assert full["me"][key] == value, key
                if prompt is not None and prompt["kind"] == "orders":
                    assert set(lean["me"]) == BOT_ME_KEYS
                checked += 1
    assert checked > 100


def test_h5_4_prompt_default_is_the_default_order() -> None:
    state = RULES.setup(3, 4, {"auto_setup": True})
    for seat in range(3):
        prompt = RULES.prompt(state, seat)
        assert prompt is not None and prompt["default"] == DEFAULT_ORDER
        assert prompt["default"] is not DEFAULT_ORDER


def test_bots_keep_the_same_character_whatever_their_style() -> None:
    kept: Counter[str] = Counter()
    for players in (2, 4, 6):
        for seed in range(40):
            state = RULES.setup(players, seed, {})
            for seat in range(players):
                prompt = RULES.prompt(state, seat)
                assert prompt is not None
                view = RULES.view(state, seat)
                choices = {bots.decide(view, prompt, style)[0]["character"] for style in PURPOSEFUL}
                assert len(choices) == 1
                (choice,) = choices
                assert choice in prompt["characters"]
                kept[choice] += 1
    # Every character is kept, none far more often than the others (a seeded, fair pick).
    assert set(kept) == set(RULES.content.characters)
    assert max(kept.values()) < 2 * min(kept.values())

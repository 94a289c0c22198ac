"""Legions at the table: two phones and a board play whole games over websockets (JSON and
HTML), and no frame holds a secret of G15 — checked against the true states rebuilt from
the order log with ``engine.core.replay``."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app import i18n
from app.games import legions as screens
from engine.core import JSON, Rng, advance
from engine.legions.rules import STAGE_ORDER_KINDS
from engine.legions.state import LegionsState
from engine.registry import available_games, get_rules
from tests.live import order_log
from tests.play import Follower, auth, create_room, join, replay_position
from tests.truth import rebuild

Frame = dict[str, Any]
STRATAGEM_NAMES = {
    "N1": "Rise of the Dead",
    "N2": "Night Terror",
    "N3": "Dread",
    "K1": "Shield Wall",
    "K2": "Royal Summons",
    "K3": "Royal Decree",
}


class SecretOracle:
    """Which legion, hero and stratagem ids a screen must not receive (G15), per true state.

    A legion that has ever lain face up in public (row, battlefield, revealed, under a hero)
    is public knowledge; everything else is known only to who holds or peeked at it."""

    def __init__(self) -> None:
        self.ever_public: set[str] = set()

    def observe(self, state: LegionsState) -> None:
        for slot in state.legion_row:
            if slot.face_up:
                self.ever_public.add(slot.card)
        for player in state.players:
            if player.revealed:
                self.ever_public.add(player.revealed)
            for cards in player.face_up.values():
                self.ever_public.update(cards)
            for hero in player.heroes:
                self.ever_public.update(hero.legions)

    def forbidden(self, state: LegionsState, viewer: int | None) -> tuple[set[str], set[str]]:
        """(card and hero ids, stratagem ids) that ``viewer`` (None = board) must not see."""
        seen_by_me: set[str] = set()
        if viewer is not None:
            seen_by_me = set(re.findall(r"[LH]\d\d", json.dumps(state.players[viewer].notes)))
        hidden: set[str] = set(state.legion_deck) | set(state.hero_deck)
        face_down = [slot.card for slot in state.legion_row if not slot.face_up]
        foresight = viewer is not None and state.tokens["P"] == viewer
        if not foresight:
            hidden.update(face_down)
        stratagems = {"N1", "N2", "N3", "K1", "K2", "K3"}
        for seat, player in enumerate(state.players):
            if seat == viewer:
                stratagems.discard(player.stratagem)
                continue
            hidden.update(player.hand)
            if player.sealed:
                hidden.add(player.sealed)
            if player.stratagem_used:
                stratagems.discard(player.stratagem)
        if state.phase == "over":  # the tiebreak may show both hands; decks stay secret
            hidden = set(state.legion_deck) | set(state.hero_deck) | set(face_down)
        return hidden - self.ever_public - seen_by_me, stratagems


def json_leaks(frame: Frame, cards: set[str], stratagems: set[str]) -> list[str]:
    text = json.dumps(frame)
    return sorted(i for i in cards | stratagems if f'"{i}"' in text)


def html_leaks(html: str, cards: set[str], stratagems: set[str]) -> list[str]:
    found = [c for c in cards if re.search(rf"\b{c}\b", html)]
    numbers = {c: int(c[1:]) for c in cards if c.startswith("L")}
    found += [c for c, n in numbers.items() if f'data-card="{n}"' in html]
    found += [s for s in stratagems if STRATAGEM_NAMES[s] in html or re.search(rf"\b{s}\b", html)]
    return sorted(set(found))


def choose(prompt: Frame, rng: random.Random) -> Frame:
    options = prompt["options"]
    plain = [o for o in options if not o.get("stratagem") and o["order"]["kind"] != "skip"]
    if options and rng.random() < 0.15:
        return dict(rng.choice(options)["order"])
    return dict(rng.choice(plain or options)["order"])


def until_version(socket: Any, follower: Follower, frames: list[Frame], version: int) -> Frame:
    """The frame of ``version`` once the board has played it out (its show's steps, and
    older frames, may come first)."""
    while True:
        frame: Frame = follower.take(socket.receive_json())
        if frame.get("type") == "log":
            continue
        frames.append(frame)
        settled = frame.get("show") is None
        if frame.get("type") == "view" and frame.get("version") == version and settled:
            return frame


HTML_VERSION = re.compile(r'data-version="(\d*)"')


def html_until_finished(socket: Any) -> list[tuple[int, str]]:
    """Every HTML fragment up to the end, each with the version it was drawn at."""
    frames = []
    while True:
        html = socket.receive_text()
        found = HTML_VERSION.search(html)
        if found and found.group(1):
            frames.append((int(found.group(1)), html))
        if 'data-status="finished"' in html:
            return frames


def start_legions(client: TestClient, **options: Any) -> tuple[str, str, list[str]]:
    room = create_room(client, "legions", **options)
    tokens = [join(client, room["code"], name)["token"] for name in ("Ema", "Petr")]
    response = client.post(f"/api/rooms/{room['code']}/start", headers=auth(room["host_token"]))
    assert response.status_code == 200, response.text
    return room["code"], room["host_token"], tokens


def test_legions_is_hosted() -> None:
    assert "legions" in available_games()


@pytest.mark.parametrize("seed", [3])
def test_g15_two_phones_and_a_board_play_legions_and_no_frame_leaks(
    client: TestClient, seed: int
) -> None:
    rng = random.Random(seed)
    code, _host, tokens = start_legions(client)
    base = f"/ws/rooms/{code}"
    with (
        client.websocket_connect(f"{base}?token={tokens[0]}") as ws0,
        client.websocket_connect(f"{base}?token={tokens[1]}") as ws1,
        client.websocket_connect(f"{base}/board") as board_ws,
        client.websocket_connect(f"{base}?token={tokens[0]}&format=html") as html0,
        client.websocket_connect(f"{base}?token={tokens[1]}&format=html&lang=cs") as html1,
        client.websocket_connect(f"{base}/board?format=html") as html_board,
    ):
        phones = [ws0, ws1]
        json_frames: dict[int | None, list[Frame]] = {0: [], 1: [], None: []}
        followers = {viewer: Follower() for viewer in json_frames}
        html_frames: dict[int | None, list[tuple[int, str]]] = {0: [], 1: [], None: []}
        htmls = {0: html0, 1: html1, None: html_board}
        latest = [until_version(phones[s], followers[s], json_frames[s], 0) for s in (0, 1)]
        board = until_version(board_ws, followers[None], json_frames[None], 0)
        version = 0
        forged_once = False
        while board["status"] == "playing":
            seat = board["to_act"][0]
            prompt = latest[seat]["prompt"]
            assert prompt is not None and prompt["options"], "only legal options, never none"
            if not forged_once and prompt["kind"] != "seal":
                # A forged option and a malformed form are refused cleanly, never a 500.
                phones[seat].send_json(
                    {"type": "order", "order": {"kind": "place", "location": "Q"}}
                )
                assert phones[seat].receive_json()["type"] == "error"
                phones[seat].send_json({"HEADERS": {}, "action": "legions", "order": "{not json"})
                refusal = phones[seat].receive_json()
                assert refusal["type"] == "error" and refusal["code"] == "bad_order"
                phones[1 - seat].send_json(
                    {"type": "order", "order": prompt["options"][0]["order"]}
                )
                assert phones[1 - seat].receive_json()["code"] == "not_your_turn"
                forged_once = True
            order = choose(prompt, rng)
            # Half the orders go as the phone's form would send them (HEADERS + JSON field).
            if version % 2:
                phones[seat].send_json(
                    {"HEADERS": {}, "action": "legions", "order": json.dumps(order)}
                )
            else:
                phones[seat].send_json({"type": "order", "order": order})
            version += 1
            latest = [
                until_version(phones[s], followers[s], json_frames[s], version) for s in (0, 1)
            ]
            board = until_version(board_ws, followers[None], json_frames[None], version)
            assert version < 400
        for viewer, socket in htmls.items():
            html_frames[viewer] = html_until_finished(socket)
            assert {number for number, _html in html_frames[viewer]} >= {0, version}
        assert board["status"] == "finished"
        outcome = board["outcome"]
        assert outcome["reason"] in ("banners", "score", "tiebreak")
        assert "first_leader" in outcome
        assert latest[0]["outcome"] == latest[1]["outcome"] == outcome
        last_html = html_frames[None][-1][1]
        assert 'data-testid="final"' in last_html and 'data-testid="end-reason"' in last_html

    match, orders = order_log(client, code)
    truth = rebuild(match, orders)
    rules = truth.rules
    states = truth.states()
    assert rules.to_json(states[-1]) == match.state, "the log rebuilds the stored snapshot"
    # Public knowledge grows step by step: a frame of the board's show at step k of version
    # v is checked against what the room had seen by then, in the state of that step.
    seen: dict[tuple[int, int | None], set[str]] = {}
    oracle = SecretOracle()
    for number in sorted(truth.after):
        state, steps = truth.after[number]
        for index, step in enumerate(steps):
            oracle.observe(step.state)
            seen[number, index] = set(oracle.ever_public)
        oracle.observe(state)
        seen[number, None] = set(oracle.ever_public)
    forbidden: dict[tuple[int, int | None], tuple[set[str], set[str]]] = {}
    for number in sorted(truth.after):
        for viewer in (0, 1, None):
            oracle.ever_public = seen[number, None]
            forbidden[number, viewer] = oracle.forbidden(truth.state(number), viewer)
    sealed_checked = 0
    for viewer in (0, 1, None):
        for frame in json_frames[viewer]:
            if frame.get("type") != "view":
                continue
            # Every frame holds the position of the step on show and nothing later, the
            # board's too (its playback stops at that step).
            show = frame.get("show")
            state = truth.state(frame["version"]) if show is None else truth.shown(frame)
            oracle.ever_public = seen[frame["version"], show["step"] if show else None]
            cards, stratagems = oracle.forbidden(state, viewer)
            # What the viewer was told in its own events (now or in its history) it knows.
            told = [*frame.get("events", [])]
            told += [e for past in frame.get("history", []) for e in past["events"]]
            cards = cards - set(re.findall(r"[LH]\d\d", json.dumps(told)))
            sealed_checked += sum(
                1 for s, p in enumerate(state.players) if p.sealed and s != viewer
            )
            leaks = json_leaks(frame, cards, stratagems)
            where = [k for k in frame if json_leaks({k: frame[k]}, cards, stratagems)]
            assert leaks == [], (viewer, frame["version"], where, frame.get("show"))
            if viewer is not None:  # not vacuous: a phone does see its own secrets
                own = state.players[viewer]
                assert json_leaks(frame, set(own.hand), {own.stratagem}) != []
        for number, html in html_frames[viewer]:
            # An HTML fragment names no step: what is secret in every step of its version.
            cards, stratagems = forbidden[number, viewer]
            for index, step in enumerate(truth.after[number][1]):
                oracle.ever_public = seen[number, index]
                step_cards, step_stratagems = oracle.forbidden(step.state, viewer)
                cards, stratagems = cards & step_cards, stratagems & step_stratagems
            assert html_leaks(html, cards, stratagems) == [], (viewer, number)
    assert sealed_checked > 0, "frames were checked while a legion was sealed"


def test_forms_translate_to_orders_and_garbage_to_a_refusable_order() -> None:
    order = {"kind": "recruit", "hero": "H05", "route": "location", "location": "R"}
    frame = {"HEADERS": {}, "action": "legions", "order": json.dumps(order)}
    assert screens.SCREENS.translate_form(frame) == {"type": "order", "order": order}
    for bad in ("{oops", "[1, 2]", "", None, '"text"'):
        message = screens.SCREENS.translate_form({"action": "legions", "order": bad})
        assert message == {"type": "order", "order": {}}
    assert screens.SCREENS.translate_form({"action": "take"}) is None
    # G8.3 on the phone: the two ticked legions (htmx sends one field as a list).
    ticked = {"action": "legions", "pick": "under", "slot": ["L03", "L12"]}
    assert screens.SCREENS.translate_form(ticked) == {
        "type": "order",
        "order": {"kind": "under", "legions": ["L03", "L12"]},
    }
    one = screens.SCREENS.translate_form({"action": "legions", "pick": "under", "slot": "L03"})
    assert one == {"type": "order", "order": {"kind": "under", "legions": ["L03"]}}  # refused


def play_to_the_end(client: TestClient, code: str, tokens: list[str], seed: int) -> set[str]:
    """Both seats play random legal orders through the API until the game is over; returns
    the prompt kinds met."""
    rng = random.Random(seed)
    kinds: set[str] = set()
    for _ in range(400):
        board = client.get(f"/api/rooms/{code}").json()
        if board["status"] != "playing":
            return kinds
        for seat in board["to_act"]:
            me = client.get(f"/api/rooms/{code}/me", headers=auth(tokens[seat])).json()
            kinds.add(me["prompt"]["kind"])
            order = choose(me["prompt"], rng)
            response = client.post(
                f"/api/rooms/{code}/orders", json=order, headers=auth(tokens[seat])
            )
            assert response.status_code == 202, response.text
    raise AssertionError("the game did not end")


def last_turn_marked(client: TestClient, rng: random.Random) -> bool | None:
    """A game played until the board marks its last turn: whether both phones mark it too
    (and no phone marked an earlier turn); None if the game ended first (5 banners)."""
    code, _host, tokens = start_legions(client)
    for _ in range(400):
        board = client.get(f"/api/rooms/{code}").json()
        if board["status"] != "playing":
            return None
        on_phones = []
        for token in tokens:
            client.cookies.set(f"pecet_seat_{code}", token)
            on_phones.append('data-testid="last-turn"' in client.get(f"/r/{code}").text)
            client.cookies.clear()
        if board["view"].get("last_turn"):
            return all(on_phones)
        assert not any(on_phones), board["view"]["turn"]
        for seat in board["to_act"]:
            me = client.get(f"/api/rooms/{code}/me", headers=auth(tokens[seat])).json()
            order = choose(me["prompt"], rng)
            sent = client.post(f"/api/rooms/{code}/orders", json=order, headers=auth(tokens[seat]))
            assert sent.status_code == 202, sent.text
    raise AssertionError("the game did not end")


def test_the_phones_say_it_is_the_last_turn_as_the_board_does(client: TestClient) -> None:
    """The board marks the last turn; the phones read only "Turn 11/12", and an unused
    stratagem is worth 2 VP at the end (G13.1). Both phones mark it, from that turn on."""
    rng = random.Random(3)
    for _ in range(5):  # a game may end on banners before its last turn
        marked = last_turn_marked(client, rng)
        if marked is not None:
            assert marked
            return
    raise AssertionError("five games ended before their last turn")


def test_each_phone_names_the_other_player_beside_their_score(client: TestClient) -> None:
    """The score line of the other side says whose it is: the side's icon alone left a
    newcomer to work out who sat there."""
    code, _host, tokens = start_legions(client, sides=["king", "necro"])
    for token, other, side in ((tokens[0], "Petr", "Necro-camp"), (tokens[1], "Ema", "King")):
        client.cookies.set(f"pecet_seat_{code}", token)
        page = client.get(f"/r/{code}").text
        name = re.search(r'data-testid="opponent" title="([^"]*)">([^<]*)<', page)
        assert name is not None
        assert name.group(2) == other
        assert name.group(1).startswith(f"{other} · ") and side in name.group(1)
    client.cookies.clear()


def test_a_sealed_phone_says_sealed_once_with_a_drawn_padlock(client: TestClient) -> None:
    """ "🔒 Sealed" over "Sealed. Waiting for the other seal…": the word twice, and the emoji an
    empty box where the device has no emoji font."""
    code, _host, tokens = start_legions(client, sides=["king", "necro"])
    me = client.get(f"/api/rooms/{code}/me", headers=auth(tokens[0])).json()
    sealed = client.post(
        f"/api/rooms/{code}/orders",
        json=me["prompt"]["options"][0]["order"],
        headers=auth(tokens[0]),
    )
    assert sealed.status_code == 202, sealed.text
    client.cookies.set(f"pecet_seat_{code}", tokens[0])
    page = client.get(f"/r/{code}").text
    locked = page[page.index('class="lg-locked"') :]
    locked = locked[: locked.index("</section>")]
    assert 'class="lock-icon"' in locked and "🔒" not in page
    assert "Waiting for the other seal…" in locked
    assert len(re.findall(r"\bSealed\b", re.sub(r"<[^>]+>", " ", locked))) == 1
    client.cookies.clear()


def test_pages_render_in_both_languages_through_a_whole_game(client: TestClient) -> None:
    """Every phone and board page of a game renders (each prompt kind met is drawn)."""
    code, _host, tokens = start_legions(client, sides=["king", "necro"])
    kinds = play_to_the_end(client, code, tokens, seed=7)
    assert {"seal", "place", "recruit", "take"} <= kinds
    for lang in ("en", "cs"):
        client.cookies.set("pecet_lang", lang)
        page = client.get(f"/b/{code}")
        assert page.status_code == 200 and 'data-testid="final"' in page.text
    client.cookies.clear()


@pytest.mark.parametrize(
    ("lang", "won", "lost", "wins"),
    [
        ("en", "You win!", "You lose", "{side} wins"),
        ("cs", "Vítězství!", "Prohra", "{side} vítězí"),
        ("hr", "Pobjeda!", "Poraz", "Pobjeđuje {side}"),
        ("ru", "Победа!", "Поражение", "{side} побеждает"),
    ],
)
def test_the_losing_phone_says_it_lost_and_which_side_won(
    client: TestClient, lang: str, won: str, lost: str, wins: str
) -> None:
    """The end of a game on both phones: the winner's reads that it won; the loser's read only
    "King wins", and a player had to work out which side was theirs. It says "You lose" first,
    the winning side beneath."""
    code, _host, tokens = start_legions(client)
    play_to_the_end(client, code, tokens, seed=5)
    board = client.get(f"/api/rooms/{code}").json()
    winner = board["outcome"]["winner"]
    client.cookies.set("pecet_lang", lang)
    with i18n.use_language(lang):
        winning_side = screens.side_name(board["view"]["players"][winner]["side"])
    for seat, token in enumerate(tokens):
        client.cookies.set(f"pecet_seat_{code}", token)
        page = client.get(f"/r/{code}").text
        result = page[page.index('id="phone-result"') :].split("</section>")[0]
        heading = re.search(r"<h1>(.*?)</h1>", result, re.S)
        assert heading is not None
        if seat == winner:
            assert heading.group(1).strip() == won
            assert 'data-testid="result-winner"' not in result
        else:
            assert heading.group(1).strip() == lost
            beneath = re.search(r'data-testid="result-winner">(.*?)<', result)
            assert beneath is not None and beneath.group(1) == wins.format(side=winning_side)
    client.cookies.clear()


STEP_OF = re.compile(r"step (\d+) of (\d+)", re.IGNORECASE)
WHERE = re.compile(r'data-testid="replay-where">([^<]*)<small>step (\d+) of (\d+)</small>')


def test_a_replay_opens_on_turn_1_and_names_one_position_at_every_step(
    client: TestClient,
) -> None:
    """The replay opened on "Turn 0 · step 1 of 1" (the deal, which nobody plays) beside "Step
    1 of 146", and the board in it read "Turn 2/12" at the step that ends turn 1 (both players
    "choosing…" turn 2's legion). It opens on turn 1, and every step names one position, its
    own, "Turn N" and "step k of M" of that turn, which the board in it names too."""
    code, _host, tokens = start_legions(client)
    play_to_the_end(client, code, tokens, seed=5)
    steps = client.get(f"/api/rooms/{code}/matches/1/replay").json()["steps"]
    rounds = [step["round"] for step in steps]
    assert rounds[0] == 1 and rounds == sorted(rounds)
    page = client.get(f"/b/{code}/replay/1").text
    assert 'data-testid="replay-round" data-round="0"' not in page and "Turn 0" not in page
    for index in range(len(steps)):
        fragment = client.get(f"/b/{code}/replay/1/step/{index}").text
        number, k, m = replay_position(steps, index)
        assert [found.groups() for found in STEP_OF.finditer(fragment)] == [(str(k), str(m))]
        where = WHERE.search(fragment)
        assert where is not None and where.group(1) == f"Turn {number}", index
        assert f'data-testid="turn">{number}<' in fragment, index
        if steps[index]["view"]["turn"] != number:  # ends the turn: the next one's start
            assert "The turn ends" in fragment and "choosing…" not in fragment, index
        # The board's status line says something at every step (a step between a
        # resolution's first and last has no decision open: it was empty).
        status = re.search(r'data-testid="step">([^<]*)<', fragment)
        assert status is not None and status.group(1).strip(), index
    client.cookies.set(f"pecet_seat_{code}", tokens[0])
    phone = client.get(f"/r/{code}/replay/1").text
    where = WHERE.search(phone)
    assert where is not None and where.groups() == ("Turn 1", "1", str(rounds.count(1)))
    assert "Turn 1/12" in phone and len(STEP_OF.findall(phone)) == 1
    client.cookies.clear()


def texts_in(value: object) -> list[str]:
    """The strings of a prompt or view that could be display text: every id, code and name of
    an order is one word, so a string with a space is a sentence or a name."""
    if isinstance(value, dict):
        return [text for item in value.values() for text in texts_in(item)]
    if isinstance(value, list):
        return [text for item in value for text in texts_in(item)]
    return [value] if isinstance(value, str) and len(value.split()) > 1 else []


def worded(prompt: JSON, view: JSON, lang: str) -> tuple[str, list[str]]:
    """The prompt's title and its buttons' texts as the phone shows them in ``lang``."""
    with i18n.use_language(lang):
        title = screens.prompt_title(prompt)
        shown = [screens.option_view(prompt, option, view) for option in prompt["options"]]
    for option, button in zip(prompt["options"], shown, strict=True):
        kind = option["order"]["kind"]
        assert button["text"] and button["text"] != kind, (lang, prompt["kind"], option)
        if kind == "stratagem":  # what it does, beside its name
            assert button["sub"] and "%(" not in button["sub"], (lang, option)
    return title, [f"{button['text']} {button['sub']}" for button in shown]


def test_issue_16_3_every_prompt_is_ids_and_the_screens_word_every_kind_met() -> None:
    """Issue 16.3: the engine's prompts and views hold ids and numbers, never text; the phone
    words every prompt by its kind and every option by its order, in English and in Czech. A
    kind the screens do not know fails here, where it once showed the engine's English."""
    rules = get_rules("legions")
    prompt_kinds: set[str] = set()
    order_kinds: set[str] = set()
    for seed in range(30):  # bots and random orders: every prompt and order kind (checked)
        state = rules.setup(2, seed, {})
        rng = Rng(seed)
        while rules.outcome(state) is None:
            seat = next(s for s in (0, 1) if rules.prompt(state, s) is not None)
            prompt = rules.prompt(state, seat)
            view = rules.view(state, seat)
            assert prompt is not None
            assert texts_in(prompt) == [] and texts_in(view) == [], prompt["kind"]
            english, buttons = worded(prompt, view, "en")
            czech, czech_buttons = worded(prompt, view, "cs")
            assert english and czech and czech != english, prompt["kind"]
            assert czech_buttons != buttons, prompt["kind"]
            prompt_kinds.add(prompt["kind"])
            order_kinds |= {option["order"]["kind"] for option in prompt["options"]}
            if seed % 2:
                order = rules.random_order(state, seat, rng)
            else:
                order = rules.bot_order(state, seat)
            state, _ = advance(rules, rules.submit(state, seat, order))
    every_order_kind = {kind for kinds in STAGE_ORDER_KINDS.values() for kind in kinds}
    assert prompt_kinds == set(STAGE_ORDER_KINDS)
    assert order_kinds == every_order_kind | {"stratagem"}


def a_turn_on_show() -> tuple[int, list[Any], dict[str, Any]]:
    """The last step of a turn on show: the turn, its steps and the room's fields of a
    payload (without ``view``) for a board and for Ann's phone."""
    rules = get_rules("legions")
    state = rules.setup(2, 11, {})
    while True:
        for seat in (0, 1):
            if rules.prompt(state, seat) is not None:
                state = rules.submit(state, seat, rules.bot_order(state, seat))
        steps = rules.resolve_steps(state)
        if steps[-1].state.turn > state.turn:  # this resolution ends the turn
            break
        state = steps[-1].state
    payload = room_fields(("Ann", "Ben"))
    payload["show"] = {
        "round": state.turn,
        "step": len(steps) - 1,
        "steps": len(steps),
        "step_ms": 1600,
    }
    payload["playback"] = [{"round": s.round, "events": []} for s in steps]
    return state.turn, steps, payload


def room_fields(names: tuple[str, str]) -> dict[str, Any]:
    """The room's fields of a payload (without ``view``) of a Legions match under way, its two
    seats played by ``names``; no show."""
    seats = [{"seat": seat, "name": name, "bot": False} for seat, name in enumerate(names)]
    return {
        "code": "ABCD",
        "game": "legions",
        "status": "playing",
        "seats": seats,
        "players": seats,
        "min_players": 2,
        "max_players": 2,
        "match": 1,
        "ready": [],
        "options": {},
        "show": None,
        "playback": [],
    }


def test_g15_a_turn_playing_out_is_the_turn_the_screens_name() -> None:
    """G15: at the last step of turn N on the board, the position shown is already turn
    N + 1's (the end of turn moved the counter). The phone said "Turn N plays out" over a
    header of "Turn N+1/12"; the phone and the board name turn N until the show ends."""
    from types import SimpleNamespace

    from app.pages import render_board_view, render_phone_view

    rules = get_rules("legions")
    turn, steps, payload = a_turn_on_show()
    live: Any = SimpleNamespace(game="legions", code="ABCD")
    phone = render_phone_view(
        live,
        {
            **payload,
            "view": rules.view(steps[-1].state, 0),
            "events": [],
            "you": {"seat": 0, "name": "Ann", "lang": "en"},
            "prompt": None,
        },
        "en",
    )
    assert f"turn {turn} plays out" in phone
    assert f"Turn {turn}/12" in phone and f"Turn {turn + 1}/12" not in phone
    board = render_board_view(
        live, {**payload, "view": rules.view(steps[-1].state, None)}, "en", host=False, join_url="x"
    )
    assert f'data-testid="turn">{turn}<' in board


def test_g15_a_phone_whose_own_decision_comes_after_the_show_waits_for_nobody() -> None:
    """A recruit (G8.3) is followed by its own side's legions under the hero: while the board
    plays the recruit out the phone has no prompt yet, and it said "Waiting…" over its own
    side's name, as if the other player were deciding."""
    from types import SimpleNamespace

    from app.pages import render_phone_view

    rules = get_rules("legions")
    _turn, _steps, payload = a_turn_on_show()
    state = rules.setup(2, 11, {})
    for _ in range(400):
        acting = next(seat for seat in (0, 1) if rules.prompt(state, seat) is not None)
        state, steps = advance(rules, rules.submit(state, acting, rules.bot_order(state, acting)))
        if steps and rules.view(state, acting).get("step", {}).get("seat") == acting:
            break
    else:
        raise AssertionError("no seat decided twice in a row")
    live: Any = SimpleNamespace(game="legions", code="ABCD")
    shown = {**payload, "show": {**payload["show"], "round": state.turn, "step": len(steps) - 1}}
    phone = render_phone_view(
        live,
        {
            **shown,
            "view": rules.view(state, acting),
            "events": [],
            "you": {"seat": acting, "name": "Ann", "lang": "en"},
            "prompt": None,
        },
        "en",
    )
    waiting = phone[phone.index('data-testid="waiting"') :].split("</section>")[0]
    assert "You decide next, once the board has finished:" in waiting
    assert "Waiting" not in waiting
    # The other phone waits for that player, named as the board names them, with the side.
    other = 1 - acting
    phone = render_phone_view(
        live,
        {
            **shown,
            "view": rules.view(state, other),
            "events": [],
            "you": {"seat": other, "name": ("Ann", "Ben")[other], "lang": "en"},
            "prompt": None,
        },
        "en",
    )
    waiting = phone[phone.index('data-testid="waiting"') :].split("</section>")[0]
    side = screens.side_name(rules.view(state, None)["players"][acting]["side"])
    assert f"Waiting for {('Ann', 'Ben')[acting]} ({side})…" in waiting, waiting


def test_the_host_menu_stays_folded_while_the_room_watches_a_show() -> None:
    """The host's Skip and Fast-forward stand by themselves during a show; the host menu
    (seats to hand to bots, the timer, the PINs) opened over the board's log at every show."""
    from types import SimpleNamespace

    from app.pages import render_board_view

    _turn, steps, payload = a_turn_on_show()
    live: Any = SimpleNamespace(game="legions", code="ABCD")
    view = get_rules("legions").view(steps[-1].state, None)
    board = render_board_view(live, {**payload, "view": view}, "en", host=True, join_url="x")
    menu = re.search(r"<details class=\"host-menu\"[^>]*>(.*?)</details>", board, re.S)
    assert menu is not None and " open" not in menu.group(0).split(">", 1)[0]
    assert 'data-testid="skip-show"' not in menu.group(1)
    controls = board.index('data-testid="host-show-controls"')
    assert controls < menu.start() and board.count('data-testid="skip-show"') == 1
    quiet = render_board_view(
        live, {**payload, "view": view, "show": None}, "en", host=True, join_url="x"
    )
    assert 'data-testid="host-show-controls"' not in quiet and "host-menu" in quiet


def test_g9_3_broker_shows_the_deck_top_once_in_the_order_put_back() -> None:
    """H04 Broker looks at the top of the legion deck and puts the cards back in any order:
    the phone lists the deck's top once, in the order put back, not the order seen as well
    (both stood under the same words, and lengthened a late game's screen)."""
    rules = get_rules("legions")
    state = rules.setup(2, 7, {})
    seen = state.legion_deck[:3]
    put_back = list(reversed(seen))
    me = state.players[0]
    me.notes = [
        {"kind": "heroes_seen", "heroes": state.hero_deck[:2]},
        {"kind": "broker", "cards": seen},
        {"kind": "broker_order", "cards": put_back},
    ]
    with i18n.use_language("en"):
        context = screens.SCREENS.context(
            {"view": rules.view(state, 0), "prompt": None, "events": [], "seats": []}, 0
        )
    deck_tops = [n for n in context["notes"] if n["text"].startswith("Top of the legion deck")]
    assert [[c["id"] for c in n["cards"]] for n in deck_tops] == [put_back]
    assert context["notes"][0]["text"] == "Heroes you looked at"


def attack_subs(state: LegionsState, seat: int, prompt: JSON) -> list[tuple[str, str]]:
    """Each take button's sub-line, with what the test expects it to say of the attack."""
    rules = get_rules("legions")
    view = rules.view(state, seat)
    foresight = (view.get("me") or {}).get("row_face_down")
    pairs = []
    for option in prompt["options"]:
        wanted = option["order"].get("card")
        if option["order"]["kind"] != "take":
            continue
        sub = screens.option_view(prompt, option, view)["sub"]
        if state.leader == seat:
            pairs.append((sub, ""))
            continue
        (left,) = [
            slot
            for slot in state.legion_row
            if not (not slot.face_up if wanted == "hidden" else slot.card == wanted)
        ]
        known = left.card if left.face_up or foresight else None
        where = None if known is None else rules.content.legions[known].location  # type: ignore[attr-defined]
        if known is None:
            expected = "leaves the face-down legion: it decides where you attack"
        elif where is None:
            expected = "you choose where to attack"
        else:
            expected = f"you attack the {screens.location_name(where)}"
        pairs.append((sub, expected))
    return pairs


def test_g6_4_the_attackers_take_says_where_the_legion_left_sends_the_attack() -> None:
    """The second player's take aims the attack (G6.4: the legion left in the row decides
    where); a newcomer did not see it. Each of its take buttons says what it leaves and where
    that attacks; the first player's take, which leaves two, says nothing of it."""
    rules = get_rules("legions")
    checked = {"first": 0, "second": 0}
    for seed in range(1, 4):
        state = rules.setup(2, seed, {})
        while rules.outcome(state) is None:
            for seat in (0, 1):
                prompt = rules.prompt(state, seat)
                if prompt is None:
                    continue
                if prompt["kind"] == "take":
                    for sub, expected in attack_subs(state, seat, prompt):
                        assert sub.endswith(expected) if expected else sub == "", (sub, expected)
                    checked["first" if state.leader == seat else "second"] += 1
                state = rules.submit(state, seat, rules.bot_order(state, seat))
            if rules.ready(state):
                state, _events = rules.resolve(state)
    assert checked["first"] > 10 and checked["second"] > 10, checked


def test_g6_4_in_russian_the_legion_left_is_named_as_a_legion() -> None:
    """A legion's label is its guild and number ("Воины 2"; "2 Воины" read as a count in the
    wrong case, after "останется" too: "2 warriors remains"). It is named as the legion it is."""
    rules = get_rules("legions")
    named = 0
    state = rules.setup(2, 1, {})
    while rules.outcome(state) is None and named < 5:
        for seat in (0, 1):
            prompt = rules.prompt(state, seat)
            if prompt is None:
                continue
            if prompt["kind"] == "take" and state.leader != seat:
                view = rules.view(state, seat)
                with i18n.use_language("ru"):
                    subs = [
                        screens.option_view(prompt, option, view)["sub"]
                        for option in prompt["options"]
                        if option["order"]["kind"] == "take"
                    ]
                for sub in subs:
                    if "рубашкой" not in sub:  # the face-down one is no label
                        assert re.search(r"останется легион «[^»\d]+ \d+»: ", sub), sub
                        named += 1
            state = rules.submit(state, seat, rules.bot_order(state, seat))
        if rules.ready(state):
            state, _events = rules.resolve(state)
    assert named >= 5, named


def test_g10_1_step_2_says_why_only_dont_recruit_is_offered_and_whether_a_stratagem_recruits() -> (
    None
):
    """Step 2 stays open while a stratagem is unused (G10.1): with no hero to recruit the
    usual way, the phone says why "Don't recruit" is the only other answer. With Royal
    Summons (K2: recruit with 2 legions at one location) it said no hero could be recruited
    beside a way to recruit one; it now says only the stratagem can."""
    skip = {"order": {"kind": "skip"}}

    def why(stratagem: str) -> str:
        used = {"order": {"kind": "stratagem", "stratagem": stratagem}, "stratagem": True}
        prompt = {"kind": "recruit", "seat": 0, "options": [skip, used]}
        return screens._no_hero_now(prompt, [{"kind": "skip"}])

    with i18n.use_language("en"):
        assert why("K2") == "Only your stratagem can recruit a hero now."
        assert why("K3") == "You cannot recruit a hero now."
        # A hero to recruit, or no stratagem beside "Don't recruit": nothing to explain.
        assert (
            screens._no_hero_now({"kind": "recruit", "options": [skip]}, [{"kind": "skip"}]) == ""
        )
        recruit = {"kind": "recruit"}
        assert screens._no_hero_now({"kind": "recruit", "options": [skip]}, [recruit]) == ""
    with i18n.use_language("cs"):
        assert why("K2") == "Hrdinu teď můžeš najmout jen svou lstí."


def test_g1_4_the_hexer_s_targets_say_where_each_legion_stands() -> None:
    """H16 routs one of the opponent's legions: the phone showed the legions alone, and two
    Ambassadors (white, they may stand anywhere) could not be told apart."""
    from engine.legions import RULES as rules
    from engine.legions.state import Stage

    state = rules.setup(2, 7, {})
    state.phase = "steps"
    ambassadors = [c for c, legion in rules.content.legions.items() if legion.location is None]
    for card, loc in zip(ambassadors[:2], ("Y", "P"), strict=True):
        for pile in (state.legion_deck, *(p.hand for p in state.players)):
            if card in pile:
                pile.remove(card)
        state.players[1].face_up[loc] = [*state.players[1].face_up[loc], card]
    state.stage = Stage(0, "power", {"hero": "H16"})
    prompt = rules.prompt(state, 0)
    assert prompt is not None
    with i18n.use_language("hr"):
        context = screens.SCREENS.context({"view": rules.view(state, 0), "prompt": prompt}, 0)
    # A short list shows it under each legion's button, a long one (five or more, in rows)
    # under each legion: both drawn from the options.
    choices = [o for o in context["options"] if o["kind"] == "power"]
    assert all(o["sub"] == o["where"]["name"] for o in choices)
    where = {o["cards"][0]["id"]: o["where"]["loc"] for o in choices}
    assert where == {ambassadors[0]: "Y", ambassadors[1]: "P"}
    with i18n.use_language("hr"):
        names = {o["where"]["name"] for o in choices}
    assert len(names) == 2 and all(names)


@pytest.mark.parametrize(
    ("lang", "label"),
    [("en", "9 Politicians"), ("cs", "Politici 9"), ("hr", "Političari 9"), ("ru", "Политики 9")],
)
def test_a_legion_s_label_puts_its_number_where_the_language_reads_it(
    lang: str, label: str
) -> None:
    """A number before a guild's plural name reads as a count in the wrong case in Czech,
    Croatian and Russian ("Король (9 Политики)" in the reveal's line): they name the guild
    first."""
    with i18n.use_language(lang):
        assert screens.card_label("L09") == label  # 9, blue: the Politicians

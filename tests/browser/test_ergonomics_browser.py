"""TV and phone ergonomics, measured in Chromium while every game is played through its pages.

For each game (Heirs of the Axis, Legions, Hidden Leaders Duel) and each language (English,
Czech, chosen per page with ``/lang/<code>?next=…``), a board at 1920×1080 and two phones at
390×844 play a real game on one server process per game, and the pages are measured as they
come: every decision screen a phone reaches, every TV screen, the Heirs map. The tests then
judge what was measured:

- phone: the decision's confirm control (``[data-confirm]``; the form's primary submit while a
  page lacks it) is on screen with the page at the top and half-way down (sticky), and the
  page is at most two screens high unless the decision is folded into ``<details>``;
- TV: no text a player reads is under 24 px (``ergonomics.TV_EXEMPT`` lists what is left out),
  the lobby's Start button and room code are in sight, and the Heirs map has no panel over a
  field and no heir token over a capital;
- every screen of every game is kept at both sizes and in both languages under
  ``test-artifacts/ergonomics/<game>/<lang>/<screen>-<tv|phone>.png`` (listed in ``index.md``);
- accessibility (issue 16): every page of a game, the first time the play meets it, has no
  serious or critical axe-core violation, fits its screen's width, and on a phone every
  control a thumb taps is a thumb's height (``GAME_SCREENS``; the pages outside a game are
  ``test_accessibility_browser``'s). The Heirs game ends with each page's replay, and the
  Legions game is a one-game tournament: its standings, and a seat handed to a bot and the
  way back to it, are audited too.

Each game is played once per language and its measurements are kept for all the checks.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect, sync_playwright
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from app import i18n
from tests.browser.ergonomics import (
    TV_MIN_TEXT_PX,
    Decision,
    Matrix,
    accessibility_violations,
    heirs_map,
    in_view,
    measure_decision,
    small_text,
)
from tests.browser.kit import BOARD_SIZE, PHONE_SIZE, AxeViolation, launch
from tests.browser.test_heirs_browser import seal, set_option, setup_phone
from tests.browser.test_legions_browser import pick_two, seal_first_legion
from tests.browser.test_tournament_browser import show_standings
from tests.conftest import ServerProcess
from tests.live import wait_for

pytestmark = pytest.mark.browser

GAMES = ("heirs", "legions", "hidden_leaders")
LANGS = i18n.LANGUAGES
CASES = [pytest.param(game, lang, id=f"{game}-{lang}") for game in GAMES for lang in LANGS]
TIMEOUT_MS = 15_000
TAP_ATTEMPTS = 3
TAP_TIMEOUT_MS = 8_000
STEP_SECONDS = {"heirs": 1.5, "legions": 1.5, "hidden_leaders": 4.0}
"""Slow enough that the board is still mid-show while it is measured and photographed; the
host then fast-forwards, so only one show a game is played at this pace. Hidden Leaders'
one show is its final scoring (L10.4), caught after the last turn: its factions are counted
slowly enough that the board is measured before the last one."""
PLAY_SECONDS = 150
"""Guards a stuck Legions game (tapping ends on the final, never on this clock)."""
END_SCREENS = ("lobby", "show", "end")
"""Screens every game must have photographed at both sizes (besides its decisions)."""
GAME_SCREENS = {
    "heirs": (
        *("lobby-tv", "lobby-phone", "setup-tv", "setup-phone", "orders-tv", "orders-phone"),
        *("end-tv", "end-phone", "replay-tv", "replay-phone"),
    ),
    "hidden_leaders": ("lobby-tv", "lobby-phone", "take-tv", "take-phone", "place-phone"),
    "legions": (
        *("lobby-tv", "lobby-phone", "seal-tv", "seal-phone", "turn-phone"),
        *("end-tv", "standings-tv", "handed-phone", "come-back-phone"),
    ),
}
"""The pages of each game that axe-core audits, as the play meets them (``turn-phone``: the
first Legions prompt of each kind, all of them as one screen)."""
AUDITS = [
    pytest.param(game, lang, screen, id=f"{game}-{lang}-{screen}")
    for game in GAMES
    for lang in LANGS
    for screen in GAME_SCREENS[game]
]


@dataclass
class Play:
    """What one game in one language showed, as measured while it was played."""

    game: str
    lang: str
    decisions: list[Decision] = field(default_factory=list)
    small: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    """TV screen → its text under the minimum."""
    lobby: dict[str, dict[str, Any] | None] = field(default_factory=dict)
    maps: dict[str, dict[str, Any]] = field(default_factory=dict)
    shots: set[str] = field(default_factory=set)
    """``<screen>-<tv|phone>`` photographed."""
    audited: dict[str, list[AxeViolation]] = field(default_factory=dict)
    """``GAME_SCREENS`` page → what axe-core (and the checks it leaves to people) found."""
    prompt_kinds: set[str] = field(default_factory=set)
    """The kinds of Legions prompt audited (as ``turn-phone``)."""


class Plays:
    """Plays each game once per language, on demand, and keeps what it measured."""

    def __init__(self, browser: Browser, tmp: Path, matrix: Matrix) -> None:
        self.browser = browser
        self.tmp = tmp
        self.matrix = matrix
        self.servers: dict[str, ServerProcess] = {}
        self.done: dict[tuple[str, str], Play | BaseException] = {}

    def get(self, game: str, lang: str) -> Play:
        if (game, lang) not in self.done:
            play = Play(game, lang)
            contexts: list[BrowserContext] = []
            try:
                driver: Callable[[Play, list[BrowserContext]], None] = getattr(self, f"play_{game}")
                driver(play, contexts)
                self.done[game, lang] = play
            except Exception as failed:  # every check of this game reports it, once played
                self.done[game, lang] = failed
            finally:
                for context in contexts:
                    context.close()
        found = self.done[game, lang]
        if isinstance(found, BaseException):
            raise AssertionError(f"playing {game} in {lang} failed: {found}") from found
        return found

    def server(self, game: str) -> ServerProcess:
        if game not in self.servers:
            process = ServerProcess(
                database_url=f"sqlite:///{self.tmp / f'{game}.sqlite3'}",
                log_path=self.tmp / f"{game}.log",
                step_seconds=STEP_SECONDS[game],
            )
            process.start()
            self.servers[game] = process
        return self.servers[game]

    def stop(self) -> None:
        for process in self.servers.values():
            process.stop()

    # ------------------------------------------------------------ pages and measurements

    def open_board(self, play: Play, contexts: list[BrowserContext]) -> tuple[Page, str]:
        context = self.browser.new_context(viewport=BOARD_SIZE)
        contexts.append(context)
        board = context.new_page()
        board.set_default_timeout(TIMEOUT_MS)
        board.goto(f"{self.server(play.game).base_url}/lang/{play.lang}?next=/")
        board.locator(f'button[name="game"][value="{play.game}"]').click()
        board.wait_for_url("**/b/*")
        code = board.locator("[data-testid=room-code]").inner_text().strip()
        return board, code

    def join(
        self, play: Play, contexts: list[BrowserContext], code: str, name: str, board: Page
    ) -> Page:
        context = self.browser.new_context(
            viewport=PHONE_SIZE, is_mobile=True, has_touch=True, device_scale_factor=2
        )
        contexts.append(context)
        phone = context.new_page()
        phone.set_default_timeout(TIMEOUT_MS)
        phone.goto(f"{self.server(play.game).base_url}/lang/{play.lang}?next=/j/{code}")
        if "join-phone" not in play.shots:
            self.shot(play, phone, "join")
        phone.fill('#join-form input[name="name"]', name)
        phone.locator("#join-form button[type=submit]").click()
        phone.wait_for_url(f"**/r/{code}")
        expect(board.locator("[data-testid=seats]")).to_contain_text(name)
        return phone

    def shot(self, play: Play, page: Page, screen: str) -> None:
        self.matrix.shot(page, play.game, play.lang, screen)
        size = "phone" if page.viewport_size == PHONE_SIZE else "tv"
        play.shots.add(f"{screen}-{size}")

    def audit(self, play: Play, page: Page, screen: str) -> None:
        """Audit a page of the game for accessibility, the first time the play meets it."""
        assert screen in GAME_SCREENS[play.game], screen
        if screen in play.audited:
            return
        expect(page.locator("html")).to_have_attribute("lang", play.lang)
        play.audited[screen] = accessibility_violations(page, phone=screen.endswith("-phone"))

    def audit_prompt(self, play: Play, phone: Page, kind: str) -> None:
        """A Legions prompt of a kind not met before: audited, and kept under ``turn-phone``
        with its kind named."""
        if kind in play.prompt_kinds:
            return
        play.prompt_kinds.add(kind)
        expect(phone.locator("html")).to_have_attribute("lang", play.lang)
        play.audited.setdefault("turn-phone", []).extend(
            replace(violation, help=f"({kind}) {violation.help}")
            for violation in accessibility_violations(phone, phone=True)
        )

    def audit_lobby(self, play: Play, board: Page, phone: Page) -> None:
        self.audit(play, board, "lobby-tv")
        self.audit(play, phone, "lobby-phone")

    def fast_forward(self, play: Play, board: Page, code: str) -> None:
        """The host plays every later round of the match at once (the host menu's
        fast-forward): ``show`` does it mid-show, this at any time."""
        response = board.request.post(
            f"{self.server(play.game).base_url}/b/{code}/show/skip",
            form={"all": "1"},
            headers={"HX-Request": "true"},
        )
        assert response.status == 204, response.text()

    def tv(self, play: Play, board: Page, screen: str) -> None:
        """Photograph the TV and measure its text (and, in Heirs, its map)."""
        self.shot(play, board, screen)
        play.small[screen] = small_text(board)
        if play.game == "heirs" and screen not in ("lobby", "setup"):
            play.maps[screen] = heirs_map(board)

    def lobby(self, play: Play, board: Page, phone: Page) -> None:
        for testid in ("start", "room-code"):
            play.lobby[testid] = in_view(board, f"[data-testid={testid}]")
        # The host's forms open long (a night of four games): Start stays in sight.
        tournament = board.locator("[data-testid=tournament-form] > summary")
        tournament.click()
        expect(board.locator("[data-testid=tournament-form] form")).to_be_visible()
        play.lobby["start, the tournament form open"] = in_view(board, "[data-testid=start]")
        # ... and so does the form's own button (it opened below the screen's edge).
        made = "[data-testid=make-tournament]"
        board.wait_for_function(
            "(selector) => document.querySelector(selector).getBoundingClientRect().bottom"
            " <= innerHeight",
            arg=made,
        )
        play.lobby["'Set the tournament', the form open"] = in_view(board, made)
        if board.locator("[data-testid=bot-form]").count():  # not once every seat is taken
            bots = in_view(board, "[data-testid=bot-form] button")
            play.lobby["'Add a bot', the tournament form open"] = bots
        tournament.click()
        expect(board.locator("[data-testid=tournament-form] form")).to_be_hidden()
        self.tv(play, board, "lobby")
        self.shot(play, phone, "lobby")

    def decide(self, play: Play, phone: Page, screen: str, root: str, board: Page) -> None:
        """Measure a decision screen; the first of its kind is photographed on both sizes."""
        measured = measure_decision(phone, play.game, play.lang, screen, root)
        if measured is None:
            return
        play.decisions.append(measured)
        if f"{screen}-phone" not in play.shots:
            self.shot(play, phone, screen)
            self.tv(play, board, screen)

    def show(self, play: Play, board: Page, phone: Page, code: str) -> None:
        """The board mid-show, then the host fast-forwards the rest of the match."""
        self.tv(play, board, "show")
        self.shot(play, phone, "show")
        self.fast_forward(play, board, code)

    def hand_to_bot(self, play: Play, board: Page, code: str, seat: int) -> None:
        """The host menu's "hand the seat to a bot", as htmx posts it: once every screen of
        a seat has been met, one phone playing on against a bot keeps this module fast."""
        response = board.request.post(
            f"{self.server(play.game).base_url}/b/{code}/seats/{seat}/kick",
            headers={"HX-Request": "true"},
        )
        assert response.status == 204, response.text()

    def end(self, play: Play, board: Page, phones: list[Page]) -> None:
        self.tv(play, board, "end")
        self.shot(play, phones[0], "end")

    # ------------------------------------------------------------ the games

    def play_heirs(self, play: Play, contexts: list[BrowserContext]) -> None:
        board, code = self.open_board(play, contexts)
        set_option(board, "opt-rounds", "6")
        phones = [self.join(play, contexts, code, name, board) for name in ("Anna", "Boris")]
        self.lobby(play, board, phones[0])
        self.audit_lobby(play, board, phones[0])
        board.locator("[data-testid=start]").click()
        expect(board.locator("[data-testid=heirs-board]")).to_be_visible()
        for phone in phones:
            phone.locator("[data-testid=setup-form]").wait_for()
            self.decide(play, phone, "setup", "[data-testid=setup-form]", board)
        self.audit(play, phones[0], "setup-phone")
        self.audit(play, board, "setup-tv")
        for phone in phones:
            setup_phone(phone, self.matrix.root, None)
        anna, boris = phones
        for round_number in range(1, 7):
            for phone in phones:
                phone.locator("[data-testid=orders-form]").wait_for()
                self.decide(play, phone, "orders", "[data-testid=orders-form]", board)
            self.audit(play, anna, "orders-phone")
            self.audit(play, board, "orders-tv")
            seal(anna)
            if round_number == 1:
                expect(anna.locator("[data-testid=sealed]")).to_be_visible()
                self.tv(play, board, "sealed")
                self.shot(play, anna, "sealed")
                seal(boris)
                board.locator("[data-testid=skip-show]").wait_for(state="attached")
                anna.locator("[data-testid=watch]").wait_for()
                self.show(play, board, anna, code)
                self.hand_to_bot(play, board, code, 1)  # Anna plays on against a bot
                phones = [anna]
        expect(board.locator("[data-testid=ending]")).to_be_visible(timeout=TIMEOUT_MS)
        expect(anna.locator("[data-testid=phone-ending]")).to_be_visible(timeout=TIMEOUT_MS)
        self.end(play, board, phones)
        self.audit(play, board, "end-tv")
        self.audit(play, anna, "end-phone")
        for page, where in ((board, "b"), (anna, "r")):
            page.locator("[data-testid=watch-again]").click()
            page.wait_for_url(re.compile(rf"/{where}/{code}/replay/1"))
            self.audit(play, page, "replay-tv" if page is board else "replay-phone")

    def play_hidden_leaders(self, play: Play, contexts: list[BrowserContext]) -> None:
        board, code = self.open_board(play, contexts)
        phones = [self.join(play, contexts, code, name, board) for name in ("Alice", "Bob")]
        self.lobby(play, board, phones[0])
        self.audit_lobby(play, board, phones[0])
        board.locator("[data-testid=start]").click()
        expect(board.locator(".table")).to_be_visible()
        scoring = board.locator(".scoring")

        def to_take() -> Page | None:
            return next((p for p in phones if p.locator("form.take-form").count()), None)

        turn = 0
        while True:
            wait_for(
                lambda: scoring.count() or to_take(),
                f"a TAKE form on a phone or the scoring, after turn {turn}",
                TIMEOUT_MS / 1000,
            )
            phone = to_take()
            if phone is None:
                break
            turn += 1
            if "waiting-phone" not in play.shots:
                self.shot(play, phones[1 - phones.index(phone)], "waiting")
            self.decide(play, phone, "take", "form.take-form", board)
            self.audit(play, phone, "take-phone")
            self.audit(play, board, "take-tv")
            take = phone.locator("form.take-form")
            count = int(take.get_attribute("data-take-count") or "2")
            free = take.locator("label.pick:not(:has(input:disabled)):not(:has(input:checked))")
            checked = take.locator("input[name=slot]:checked")
            for _tap in range(count + 3):  # a tap during a re-render may not register
                if checked.count() >= count:
                    break
                free.first.click()
            expect(take.locator('button[type="submit"]')).to_be_enabled()
            take.locator('button[type="submit"]').click()
            place = phone.locator("form.place-form")
            place.wait_for()
            self.decide(play, phone, "place", "form.place-form", board)
            self.audit(play, phone, "place-phone")
            for group in place.locator("[data-card-group]").all():
                group.locator("label.pick-card:not(.elsewhere)").first.click()
            place.locator('button[type="submit"]').click()
            place.wait_for(state="detached")
            if "show-tv" not in play.shots and board.locator("[data-testid=skip-show]").count():
                self.show(play, board, phone, code)
            if turn == 2:  # both phones have taken and placed: Alice plays on against a bot
                self.hand_to_bot(play, board, code, 1)
                del phones[1:]
        skip = board.locator("[data-testid=skip-show]")
        if "show-tv" not in play.shots:
            # The scoring plays out as the match's show (L10.4), with the host's Skip beside
            # it; it is measured and photographed mid-show, then skipped.
            wait_for(
                lambda: skip.count() or phones[0].locator("#phone-result").count(),
                "the scoring's show or the result",
                TIMEOUT_MS / 1000,
            )
            if skip.count():
                self.show(play, board, phones[0], code)
        # The standings fade in after the factions are counted one by one.
        expect(board.locator(".final")).to_have_css("opacity", "1", timeout=30_000)
        expect(phones[0].locator("#phone-result")).to_be_visible(timeout=TIMEOUT_MS)
        self.end(play, board, phones)

    def play_legions(self, play: Play, contexts: list[BrowserContext]) -> None:
        board, code = self.open_board(play, contexts)
        phones = [self.join(play, contexts, code, name, board) for name in ("Alice", "Bob")]
        bob = phones[1]
        self.lobby(play, board, phones[0])
        # A one-game tournament: its final standings are audited at the end.
        tournament = board.locator("[data-testid=tournament-form]")
        tournament.locator("summary").click()
        tournament.locator("[data-testid=make-tournament]").click()
        expect(board.locator("[data-testid=plan]")).to_be_visible()
        self.audit_lobby(play, board, phones[0])
        board.locator("[data-testid=start]").click()
        expect(board.locator("[data-testid=legions-board]")).to_be_visible()
        for phone in phones:
            expect(phone.locator("[data-testid=seal-form]")).to_be_visible()
            self.decide(play, phone, "seal", "[data-testid=prompt]", board)
        self.audit(play, phones[0], "seal-phone")
        self.audit(play, board, "seal-tv")
        tap_legions(phones[0])
        expect(phones[0].locator(".lg-locked")).to_be_visible()
        self.tv(play, board, "sealed")
        self.shot(play, phones[0], "sealed")
        final = board.locator("[data-testid=final]")
        skip = board.locator("[data-testid=skip-show]")
        deadline = time.monotonic() + PLAY_SECONDS
        while not final.count():
            assert time.monotonic() < deadline, f"Legions did not end in {PLAY_SECONDS} s"
            if "show-tv" not in play.shots and skip.count():
                self.show(play, board, phones[0], code)
                self.hand_to_bot(play, board, code, 1)  # Alice plays on against a bot
                del phones[1:]
            for phone in phones:
                prompt = phone.locator("[data-testid=prompt]")
                kind = prompt.get_attribute("data-kind") if prompt.count() else None
                if kind:
                    self.decide(play, phone, kind, "[data-testid=prompt]", board)
                    self.audit_prompt(play, phone, kind)
                    tap_legions(phone)
            # The board's show of a turn holds the next prompts back: stop for it too, once.
            wait_for(
                lambda: (
                    final.count()
                    or ("show-tv" not in play.shots and skip.count())
                    or any(p.locator("[data-testid=prompt]").count() for p in phones)
                ),
                "a prompt on a phone, the board's show or the final",
                TIMEOUT_MS / 1000,
            )
        expect(final).to_be_visible(timeout=TIMEOUT_MS)
        expect(phones[0].locator("[data-testid=phone-result]")).to_be_visible(timeout=TIMEOUT_MS)
        self.end(play, board, phones)
        self.audit(play, board, "end-tv")
        show_standings(board)
        self.audit(play, board, "standings-tv")
        # Bob's seat went to a bot mid-game: his phone says so, and shows the way back.
        expect(bob.locator("[data-testid=handed]")).to_be_visible()
        self.audit(play, bob, "handed-phone")
        bob.locator("[data-testid=come-back-link]").click()
        expect(bob).to_have_url(re.compile(rf"/j/{code}\?back=1"))
        expect(bob.locator("[data-testid=come-back-note]")).to_be_visible()
        self.audit(play, bob, "come-back-phone")


def tap_legions(phone: Page) -> None:
    """Tap through a Legions prompt once with a legal choice. It judges nothing: the checks
    are this module's tests, made on what was measured before the tap."""
    prompt = phone.locator("[data-testid=prompt]")
    handle = prompt.element_handle()
    kind = prompt.get_attribute("data-kind")
    if kind == "seal":
        seal_first_legion(phone, handle, TAP_TIMEOUT_MS)
    elif kind == "under":
        pick_two(phone)
    else:  # a one-tap option: a real choice first, else "go on" or "don't recruit"
        options = phone.locator("[data-testid=prompt] [data-testid=option]")
        plain = phone.locator(
            "[data-testid=prompt] [data-testid=option]:not(.quiet):not(.stratagem)"
        )
        # Frames that redraw the phone (the board's show, a seat coming and going) replace
        # the button under the pointer; on a busy machine a tap may keep missing it, so a
        # tap that did not land is tried again on the button drawn now.
        for attempt in range(1, TAP_ATTEMPTS + 1):
            try:
                (plain.first if plain.count() else options.first).click(timeout=TAP_TIMEOUT_MS)
                break
            except PlaywrightTimeout:
                if handle.is_hidden():
                    break
                if attempt == TAP_ATTEMPTS:
                    raise
    handle.wait_for_element_state("hidden", timeout=TIMEOUT_MS)  # swapped out by the socket


@pytest.fixture(scope="module")
def plays(tmp_path_factory: pytest.TempPathFactory, artifacts: Path) -> Iterator[Plays]:
    with sync_playwright() as playwright:
        browser = launch(playwright)
        found = Plays(
            browser, tmp_path_factory.mktemp("ergonomics"), Matrix(artifacts / "ergonomics")
        )
        try:
            yield found
        finally:
            browser.close()
            found.stop()
            index = found.matrix.write_index()
            print(f"\n{len(found.matrix.files)} ergonomics screenshots, listed in {index}")


def grouped(decisions: list[Decision], judge: Callable[[Decision], list[str]]) -> list[str]:
    """The first fault of each decision screen, with how many of its showings had one (a
    Hidden Leaders TAKE is measured on every turn)."""
    by_screen: dict[str, list[list[str]]] = {}
    for decision in decisions:
        by_screen.setdefault(decision.label, []).append(judge(decision))
    lines = []
    for faults in by_screen.values():
        bad = [f for f in faults if f]
        if bad:
            lines += [f"{line} [{len(bad)} of {len(faults)} showings]" for line in bad[0]]
    return lines


@pytest.mark.parametrize(("game", "lang"), CASES)
def test_phone_confirm_stays_in_reach(plays: Plays, game: str, lang: str) -> None:
    play = plays.get(game, lang)
    assert play.decisions, f"{game}/{lang}: no decision screen was measured"
    faults = grouped(play.decisions, lambda d: d.reach_faults())
    assert not faults, "the confirm control is out of reach:\n" + "\n".join(faults)


@pytest.mark.parametrize(("game", "lang"), CASES)
def test_phone_decision_fits_two_screens(plays: Plays, game: str, lang: str) -> None:
    play = plays.get(game, lang)
    faults = grouped(play.decisions, lambda d: [f for f in [d.size_fault()] if f])
    assert not faults, "decisions longer than two screens:\n" + "\n".join(faults)


@pytest.mark.parametrize(("game", "lang"), CASES)
def test_phone_decision_marks_its_confirm(plays: Plays, game: str, lang: str) -> None:
    play = plays.get(game, lang)
    faults = grouped(play.decisions, lambda d: [f for f in [d.marker_fault()] if f])
    assert not faults, "decisions without a [data-confirm] control:\n" + "\n".join(faults)


@pytest.mark.parametrize(("game", "lang"), CASES)
def test_tv_text_is_readable_across_the_room(plays: Plays, game: str, lang: str) -> None:
    play = plays.get(game, lang)
    assert play.small.keys() >= {"lobby", "show", "end"}, play.small.keys()
    # One line per element and size (its own tag and classes), with up to three of its texts
    # and the screens it was on: the same label on five screens is one fault.
    seen: dict[tuple[str, float], tuple[str, list[str], list[str]]] = {}
    for screen, found in play.small.items():
        for item in found:
            key = (item["where"].rsplit(" > ", 1)[-1], item["px"])
            _where, texts, screens = seen.setdefault(key, (item["where"], [], []))
            if item["text"] not in texts and len(texts) < 3:
                texts.append(item["text"])
            if screen not in screens:
                screens.append(screen)
    lines = [
        f"{px:>5} px  {where}  {' | '.join(map(repr, texts))}  (on {', '.join(screens)})"
        for (_element, px), (where, texts, screens) in sorted(seen.items(), key=lambda kv: kv[0][1])
    ]
    assert not lines, (
        f"{game}/{lang}: {len(lines)} kinds of TV text under {TV_MIN_TEXT_PX:.0f} px:\n"
        + "\n".join(lines)
    )


@pytest.mark.parametrize(("game", "lang"), CASES)
def test_tv_lobby_shows_start_and_code(plays: Plays, game: str, lang: str) -> None:
    play = plays.get(game, lang)
    faults = [
        f"{game}/{lang} lobby: {testid} "
        + (
            "is missing"
            if box is None
            else f"{box['text']!r} is at y={box['top']:.0f}..{box['bottom']:.0f}, "
            f"x={box['left']:.0f}..{box['right']:.0f}, not wholly inside 1920×1080"
        )
        for testid, box in play.lobby.items()
        if box is None or not box["inside"]
    ]
    assert not faults, "\n".join(faults)


@pytest.mark.parametrize("lang", LANGS)
def test_heirs_map_fields_stay_clear(plays: Plays, lang: str) -> None:
    play = plays.get("heirs", lang)
    assert play.maps.keys() >= {"orders", "sealed", "show", "end"}, play.maps.keys()
    faults = []
    for screen, found in play.maps.items():
        assert found["fields"], f"{screen}: no g.hx-field[data-field] on the map"
        for o in found["overlaps"]:
            faults.append(
                f"heirs/{lang} {screen}: {o['overlay']} {o['text']!r} (box x,y,w,h {o['box']}) "
                f"covers field {o['field']} by {o['w']}×{o['h']} px"
            )
        for c in found["covered"]:
            faults.append(
                f"heirs/{lang} {screen}: the heir token of seat {c['seat']} covers the capital "
                f"on {c['field']} by {c['w']}×{c['h']} px"
            )
        for b in found["badges"]:
            faults.append(
                f"heirs/{lang} {screen}: the pedestal of seat {b['seat']} covers the name of "
                f"{b['field']} by {b['w']}×{b['h']} px"
            )
    assert not faults, f"{len(faults)} overlaps on the map:\n" + "\n".join(faults)


@pytest.mark.parametrize(("game", "lang", "screen"), AUDITS)
def test_no_serious_or_critical_violation(plays: Plays, game: str, lang: str, screen: str) -> None:
    play = plays.get(game, lang)
    assert screen in play.audited, f"{game}/{lang}: the play did not reach {screen}"
    violations = play.audited[screen]
    assert not violations, f"{game}/{lang} {screen}:\n" + "\n".join(map(str, violations))


@pytest.mark.parametrize(("game", "lang"), CASES)
def test_screenshot_matrix_has_every_screen(plays: Plays, game: str, lang: str) -> None:
    play = plays.get(game, lang)
    decisions = {d.screen for d in play.decisions}
    wanted = {
        f"{screen}-{size}" for screen in (*END_SCREENS, *decisions) for size in ("tv", "phone")
    }
    wanted |= {"join-phone", "sealed-phone" if game != "hidden_leaders" else "waiting-phone"}
    missing = sorted(wanted - play.shots)
    assert not missing, f"{game}/{lang}: screens not photographed: {missing}"
    for shot in play.shots:
        assert (plays.matrix.root / game / lang / f"{shot}.png").stat().st_size > 0

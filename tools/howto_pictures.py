"""Take the pictures of the How to play pages (templates/howto/) from the real app.

    .venv/bin/python tools/howto_pictures.py [--out static/howto] [--lang en --lang cs]

Starts a server on a throwaway database, plays the first moments of each game through the
real pages with Debian's Chromium (a phone at 390×844, the TV at 1920×1080 shot at half
scale), and writes ``<out>/<lang>/{join,lobby,<game>-phone,<game>-board}.png``, reduced to
256 colours by Debian's ``pngquant`` when it is installed (the pictures stay small).
Run it again after a screen changes; the pictures are committed.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.i18n import LANGUAGES  # noqa: E402
from tests.browser.kit import BOARD_SIZE, PHONE_SIZE, launch  # noqa: E402
from tests.conftest import ServerProcess  # noqa: E402

WAIT_MS = 30_000


def context(browser: Browser, base_url: str, lang: str, *, tv: bool) -> BrowserContext:
    made = browser.new_context(
        viewport=BOARD_SIZE if tv else PHONE_SIZE,
        device_scale_factor=0.5 if tv else 1,
        is_mobile=not tv,
        has_touch=not tv,
    )
    made.add_cookies([{"name": "pecet_lang", "value": lang, "url": base_url}])
    made.set_default_timeout(WAIT_MS)
    return made


def shoot(page: Page, path: Path) -> None:
    # Let entrance animations settle: wait for every running animation to finish.
    page.wait_for_function(
        # A function, not an expression: the pages' CSP refuses eval.
        "() => document.getAnimations().every(a => a.playState !== 'running' || "
        "a.effect?.getComputedTiming().iterations === Infinity)"
    )
    page.screenshot(path=str(path), animations="disabled")
    if shutil.which("pngquant"):  # Debian's pngquant: a quarter of the bytes, the same look
        subprocess.run(
            [
                "pngquant",
                "--force",
                "--skip-if-larger",
                "--strip",
                "--output",
                str(path),
                "256",
                "--",
                str(path),
            ],
            check=False,  # 98: the quantized file would not be smaller; the original stays
        )


def host_room(board: Page, base_url: str, game: str) -> str:
    board.goto(base_url + "/")
    board.locator(f'button[name="game"][value="{game}"]').click()
    code = board.locator("[data-testid=room-code]").inner_text().strip()
    return code


def join(phone: Page, base_url: str, code: str, name: str, picture: Path | None) -> None:
    phone.goto(base_url + "/")
    phone.fill('input[name="code"]', code)
    phone.fill('input[name="name"]', name)
    if picture is not None:
        shoot(phone, picture)
    phone.locator("#join-form button[type=submit]").click()
    phone.wait_for_url(f"**/r/{code}")


def add_bot(board: Page, style: str | None = None) -> None:
    count = board.locator("[data-testid=seat-line]").count()
    if style:
        board.locator("[data-testid=bot-style]").select_option(style)
    board.locator("[data-testid=bot-form] button").click()
    board.locator("[data-testid=seat-line]").nth(count).wait_for()


def pictures(out: Path, lang: str) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        server = ServerProcess(
            database_url=f"sqlite:///{Path(tmp) / 'howto.sqlite3'}",
            bot_delay=0.3,
            step_seconds=0.05,
        )
        server.start()
        try:
            with sync_playwright() as playwright:
                browser = launch(playwright)
                base = server.base_url
                for game in ("heirs", "hidden_leaders", "legions"):
                    tv = context(browser, base, lang, tv=True).new_page()
                    phone = context(browser, base, lang, tv=False).new_page()
                    code = host_room(tv, base, game)
                    first = game == "heirs"
                    join(phone, base, code, "Jana", out / "join.png" if first else None)
                    tv.locator("[data-testid=seat-line]").first.wait_for()
                    if first:
                        add_bot(tv, "raider")
                        add_bot(tv, "expander")
                        shoot(tv, out / "lobby.png")
                    else:
                        add_bot(tv)
                    tv.locator("[data-testid=start]").click()
                    if game == "heirs":
                        phone.locator("[data-testid=seal-setup]").click()
                        phone.locator("[data-testid=seal]").wait_for()
                        tv.locator("g.hx-field[data-field]").first.wait_for()
                    elif game == "hidden_leaders":
                        phone.locator("#take-form").wait_for()
                    else:
                        phone.locator("[data-confirm]").first.wait_for()
                    shoot(phone, out / f"{game}-phone.png")
                    shoot(tv, out / f"{game}-board.png")
                    tv.context.close()
                    phone.context.close()
                browser.close()
        finally:
            server.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "static" / "howto")
    parser.add_argument("--lang", action="append", choices=LANGUAGES)
    args = parser.parse_args()
    for lang in args.lang or LANGUAGES:
        pictures(args.out / lang, lang)
        print(f"{lang}: {sorted(p.name for p in (args.out / lang).glob('*.png'))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""What a TV seen from the couch and a phone in one hand need, measured in Chromium.

The TV (1920×1080): no text a player must read is under 24 CSS px. The phone (390×844): a
decision fits in two screen heights, and its confirm control (``data-confirm``) is on screen
wherever the player has scrolled to.
"""

from __future__ import annotations

from playwright.sync_api import Page

TV_MIN_TEXT_PX = 24
PHONE_MAX_HEIGHT_PX = 2 * 844

SMALL_TEXT = """([scope, minimum]) => {
  // Every visible text node inside the game's own screen; the host's menu, the language
  // links and the sealed-order proofs are for the host and the curious, not the players.
  const root = document.querySelector(scope);
  if (!root) return ['no ' + scope + ' on the page'];
  const small = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    if (!node.textContent.trim()) continue;
    const el = node.parentElement;
    if (el.closest('.host-menu, .lang-links, .proofs, [hidden], svg')) continue;
    const box = el.getBoundingClientRect();
    if (!box.width || !box.height || box.bottom < 0 || box.top > innerHeight) continue;
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden' || style.display === 'none') continue;
    const size = parseFloat(style.fontSize);
    if (size < minimum) small.push(size + 'px "' + node.textContent.trim().slice(0, 30) + '"');
  }
  return small;
}"""

CONFIRM_ON_SCREEN = """() => [...document.querySelectorAll('[data-confirm]')].some(el => {
  const box = el.getBoundingClientRect();
  return box.height > 0 && box.top >= 0 && box.bottom <= innerHeight
    && getComputedStyle(el).visibility !== 'hidden';
})"""


def small_text(page: Page, scope: str) -> list[str]:
    """The texts on screen within ``scope`` under 24 CSS px (empty: readable from the couch)."""
    found: list[str] = page.evaluate(SMALL_TEXT, [scope, TV_MIN_TEXT_PX])
    return found


def phone_fit(page: Page) -> tuple[int, bool, bool]:
    """(document height, a confirm on screen at the top, one on screen at the bottom)."""
    page.locator("[data-confirm]").first.wait_for()  # not between two screens of a swap
    # A game's own stylesheet comes with its screen: measure once it applies.
    page.wait_for_function(
        "[...document.querySelectorAll('link[rel=stylesheet]')].every(link => link.sheet)"
    )
    page.evaluate("window.scrollTo(0, 0)")
    at_top: bool = page.evaluate(CONFIRM_ON_SCREEN)
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    at_bottom: bool = page.evaluate(CONFIRM_ON_SCREEN)
    page.evaluate("window.scrollTo(0, 0)")
    height: int = page.evaluate("document.documentElement.scrollHeight")
    return height, at_top, at_bottom

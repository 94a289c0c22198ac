"""Measuring a page as a person at the table meets it: a phone's decision in reach of a thumb,
the TV's text readable from the sofa, the Heirs map free of panels, and the screenshot matrix.

The TV (1920×1080): no text a player must read is under ``TV_MIN_TEXT_PX``, on the whole
board or within one part of it (``small_text``). The phone (390×844): a decision fits in
``PHONE_SCREENS_MAX`` screen heights, and its confirm control (``data-confirm``) is on screen
wherever the player has scrolled to (``measure_decision``; ``phone_fit`` for one decision
as it is played).

The measurements run in the page (one ``evaluate`` each) and come back as plain records, so
the tests can collect them while a game is played and judge them afterwards, each failure
naming the element, its text and its numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.sync_api import Page

from tests.browser.kit import PHONE_SIZE, AxeViolation, axe_violations, keep_screenshot

TV_MIN_TEXT_PX = 24.0
"""The smallest text a player must read on the TV from across the room (CSS px at 1920×1080)."""
PHONE_SCREENS_MAX = 2
"""A decision may run to two phone screens, unless it is folded into <details> sections."""
TV_EXEMPT = ", ".join(
    (
        "[data-small]",  # marked small on purpose by the template (a footnote, a fingerprint)
        '[aria-hidden="true"]',  # decoration that repeats what the words beside it say
        "form",  # the board takes no player input: every form on it is the host's control
        "summary",  # the host's menus (hand a seat to a bot, PINs, tournament)
        ".lang-links",  # the host's language switch
    )
)
"""What the TV text check leaves out, and why; keep it this short."""

SETTLE_JS = """async () => {
  // Wait for every finite animation (fades, slides, a token's move) to end; the spinners run
  // forever and are left alone. The cap only guards a page that keeps starting new ones.
  const finite = document.getAnimations().filter(a => {
    const timing = a.effect && a.effect.getComputedTiming();
    return timing && Number.isFinite(timing.endTime) && a.playState === 'running';
  });
  await Promise.race([
    Promise.all(finite.map(a => a.finished.catch(() => null))),
    new Promise(done => setTimeout(done, 5000)),
  ]);
}"""

PATH_JS = """const where = el => {
  const parts = [];
  for (let e = el; e && e !== document.body && parts.length < 3; e = e.parentElement) {
    let part = e.tagName.toLowerCase();
    if (e.id) part += '#' + e.id;
    const testid = e.getAttribute('data-testid');
    if (testid) part += `[data-testid=${testid}]`;
    const classes = typeof e.className === 'string' ? e.className.trim().split(/\\s+/) : [];
    if (classes[0]) part += '.' + classes.slice(0, 2).join('.');
    parts.unshift(part);
  }
  return parts.join(' > ');
};"""

DECISION_JS = (
    """([rootSelector]) => {
  """
    + PATH_JS
    + """
  const root = document.querySelector(rootSelector);
  if (!root) return null;
  const shown = e => e.checkVisibility({opacityProperty: true, visibilityProperty: true});
  let mode = 'data-confirm';
  let controls = [...document.querySelectorAll('[data-confirm]')].filter(shown);
  if (!controls.length) {
    mode = 'primary-submit';
    controls = [...root.querySelectorAll('button[type=submit].primary')].filter(shown);
  }
  if (!controls.length) {
    // Each option is its own submit (a Legions choice): tapping one is the decision.
    mode = 'options';
    controls = [...root.querySelectorAll('button[type=submit], button:not([type])')].filter(shown);
  }
  const page = document.scrollingElement;
  const box = e => {
    const r = e.getBoundingClientRect();
    return {top: r.top, bottom: r.bottom, left: r.left, right: r.right,
            text: e.textContent.replace(/\\s+/g, ' ').trim().slice(0, 50), where: where(e)};
  };
  page.scrollTo({top: 0, behavior: 'instant'});
  const atTop = controls.map(box);
  const height = page.scrollHeight;
  const middle = Math.max(0, Math.round((height - innerHeight) / 2));
  page.scrollTo({top: middle, behavior: 'instant'});
  const atMiddle = controls.map(box);
  page.scrollTo({top: height, behavior: 'instant'});
  const atBottom = controls.map(box);
  page.scrollTo({top: 0, behavior: 'instant'});
  const sections = [...root.querySelectorAll('details')];
  // What reaches past the phone's own width (a mobile browser then widens the page to fit).
  const wide = [...document.body.querySelectorAll('*')]
    .filter(e => e.getBoundingClientRect().right > screen.width + 0.5)
    .slice(0, 3).map(e => `${where(e)} to ${Math.round(e.getBoundingClientRect().right)}`);
  return {mode, atTop, atMiddle, atBottom, height, middle, viewport: innerHeight,
          width: innerWidth, sections: sections.length,
          open: sections.filter(d => d.open).length, wide};
}"""
)

TV_TEXT_JS = (
    """([exempt, minimum, scope]) => {
  """
    + PATH_JS
    + """
  // The whole page, or only the part a test looks at (scope, a selector).
  const root = scope ? document.querySelector(scope) : document.body;
  if (!root) return [{text: 'no ' + scope + ' on the page', px: 0, where: scope}];
  const small = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent.replace(/\\s+/g, ' ').trim();
    const el = node.parentElement;
    if (!text || !el || el.closest('script, style, template, noscript')) continue;
    // What is exempt is left out within the scope; a scope that is exempt itself (the host's
    // form at the end, say) is measured, since a test asked for it by name.
    const exempted = el.closest(exempt);
    if (exempted && exempted !== root && root.contains(exempted)) continue;
    if (!el.checkVisibility({opacityProperty: true, visibilityProperty: true})) continue;
    // Text for a screen reader only (a 1 px clipped box) is read out, never drawn.
    const box = el.getBoundingClientRect();
    if (box.width <= 1 && box.height <= 1) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    const r = range.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) continue;
    let px = parseFloat(getComputedStyle(el).fontSize);
    if (el instanceof SVGElement) {
      // SVG text is sized in the drawing's units: scale it as the map is drawn on screen.
      const m = el.getScreenCTM();
      if (m) px *= Math.sqrt(Math.abs(m.a * m.d - m.b * m.c));
    }
    if (px < minimum) small.push({text: text.slice(0, 60), px: Math.round(px * 10) / 10,
                                  where: where(el)});
  }
  return small;
}"""
)

STYLESHEETS_JS = "() => [...document.querySelectorAll('link[rel=stylesheet]')].every(l => l.sheet)"
"""True once every stylesheet applies (a game's own comes with its screen). A function, not
an expression: Playwright polls an expression with ``eval``, which the pages' policy
(``script-src 'self'``) refuses once a fresh page is in."""

IN_VIEW_JS = """(selector) => {
  const el = document.querySelector(selector);
  if (!el) return null;
  document.scrollingElement.scrollTo({top: 0, behavior: 'instant'});
  const r = el.getBoundingClientRect();
  return {top: r.top, bottom: r.bottom, left: r.left, right: r.right,
          text: el.textContent.replace(/\\s+/g, ' ').trim().slice(0, 40),
          inside: r.width > 0 && r.height > 0 && r.top >= 0 && r.left >= 0
                  && r.bottom <= innerHeight && r.right <= innerWidth};
}"""

HEIRS_MAP_JS = (
    """() => {
  """
    + PATH_JS
    + """
  const map = document.querySelector('svg.hx-map');
  if (!map) return null;
  const shown = e => e.checkVisibility({opacityProperty: true, visibilityProperty: true});
  const rect = e => e.getBoundingClientRect();
  const cut = (a, b) => ({w: Math.min(a.right, b.right) - Math.max(a.left, b.left),
                          h: Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top)});
  const round = n => Math.round(n);
  const fields = [...map.querySelectorAll('g.hx-field[data-field]')].map(g => ({
    id: g.dataset.field, box: rect(g.querySelector('polygon') || g)}));
  // Everything drawn over or beside the map that is not the map: banners, the side panel,
  // the log, the end's standings, and anything positioned on its own.
  const named = '.hx-banner, .hx-side, .log-panel, .hx-ending, .hx-host, #connection, .flash';
  const board = document.querySelector('[data-testid=heirs-board]') || document.body;
  const overlays = new Set([...document.querySelectorAll(named)]);
  for (const e of board.querySelectorAll('*')) {
    if (map.contains(e) || e.contains(map)) continue;
    if (['absolute', 'fixed', 'sticky'].includes(getComputedStyle(e).position)) overlays.add(e);
  }
  const overlaps = [];
  for (const o of overlays) {
    if (map.contains(o) || o.contains(map) || !shown(o)) continue;
    const b = rect(o);
    if (b.width < 1 || b.height < 1) continue;
    for (const f of fields) {
      const c = cut(b, f.box);
      if (c.w > 2 && c.h > 2) overlaps.push({
        overlay: where(o), text: o.textContent.replace(/\\s+/g, ' ').trim().slice(0, 40),
        field: f.id, w: round(c.w), h: round(c.h),
        box: [round(b.left), round(b.top), round(b.width), round(b.height)]});
    }
  }
  // A token on its way crosses fields, capitals too (a step may start between the settle and
  // this look): a token is checked where it stands, as the pedestals below are.
  const covered = [];
  const capitals = [...map.querySelectorAll('.hx-capital-glyph')].filter(shown);
  for (const token of map.querySelectorAll('g.hx-heir-token')) {
    if (token.getAnimations().length) continue;
    const body = rect(token.querySelector('.hx-token-body') || token);
    for (const capital of capitals) {
      const c = cut(body, rect(capital));
      if (c.w > 2 && c.h > 2) covered.push({
        seat: token.dataset.seat, field: capital.closest('[data-field]').dataset.field,
        w: round(c.w), h: round(c.h)});
    }
  }
  // A heir's pedestal number must not sit on a field's name.
  const labels = [...map.querySelectorAll('.hx-field-id')].filter(shown);
  const badges = [];
  for (const badge of map.querySelectorAll('.hx-pedestal')) {
    const token = badge.closest('g.hx-heir-token');
    if (!shown(badge) || token.getAnimations().length) continue;
    for (const label of labels) {
      const c = cut(rect(badge), rect(label));
      if (c.w > 2 && c.h > 2) badges.push({
        seat: token.dataset.seat, on: token.dataset.field,
        field: label.closest('[data-field]').dataset.field, w: round(c.w), h: round(c.h)});
    }
  }
  return {fields: fields.length, overlaps, covered, badges};
}"""
)


@dataclass
class Decision:
    """One decision screen as a phone showed it."""

    game: str
    lang: str
    screen: str
    mode: str
    """``data-confirm``, or the fallback used: ``primary-submit`` or ``options``."""
    at_top: list[dict[str, Any]]
    at_middle: list[dict[str, Any]]
    at_bottom: list[dict[str, Any]]
    height: int
    viewport: int
    width: int
    sections: int
    open: int
    wide: list[str] = field(default_factory=list)
    """Elements reaching past the phone's width, where any do."""

    @property
    def label(self) -> str:
        return f"{self.game}/{self.lang} {self.screen}"

    @property
    def max_height(self) -> int:
        """The tallest a decision may be: ``PHONE_SCREENS_MAX`` screens of this phone."""
        return PHONE_SCREENS_MAX * self.viewport

    def on_screen(self, box: dict[str, Any]) -> bool:
        """Whether a control's box is wholly on the phone's screen."""
        top, left, bottom, right = (float(box[k]) for k in ("top", "left", "bottom", "right"))
        return top >= 0 and left >= 0 and bottom <= self.viewport and right <= self.width

    def confirm_on_screen(self, boxes: list[dict[str, Any]]) -> bool:
        """Whether a ``data-confirm`` control is on screen (``at_top``, ``at_bottom`` ...)."""
        return self.mode == "data-confirm" and any(self.on_screen(b) for b in boxes)

    def reach_faults(self) -> list[str]:
        """One confirm control must be on screen at the top and half-way down (sticky). Where
        tapping an option is the decision (several confirm controls, or options as the
        fallback), every option must be on the first screen: none may need scrolling."""
        if not self.at_top:
            return [f"{self.label}: no confirm control found at all"]
        faults = []
        checks = [("top", self.at_top)]
        if len(self.at_top) == 1:
            checks = [("top", self.at_top), ("middle", self.at_middle)]
        for where, boxes in checks:
            for b in boxes:
                if not self.on_screen(b):
                    faults.append(
                        f"{self.label}: {self.mode} control {b['text']!r} ({b['where']}) is at "
                        f"y={b['top']:.0f}..{b['bottom']:.0f}, x={b['left']:.0f}..{b['right']:.0f}"
                        f" with the page scrolled to the {where}; the screen is "
                        f"{self.width}×{self.viewport} (page {self.height} px high)"
                        + (f"; wider than the phone: {', '.join(self.wide)}" if self.wide else "")
                    )
        return faults

    def size_fault(self) -> str | None:
        folded = self.sections >= 1 and self.open <= 1
        if self.height <= self.max_height or folded:
            return None
        return (
            f"{self.label}: the page is {self.height} px high, "
            f"{self.height / self.viewport:.2f} screens (limit {PHONE_SCREENS_MAX}), and not "
            f"folded ({self.sections} <details>, {self.open} open)"
        )

    def marker_fault(self) -> str | None:
        if self.mode == "data-confirm":
            return None
        first = self.at_top[0] if self.at_top else {"text": "", "where": "none"}
        return (
            f"{self.label}: no visible [data-confirm]; fell back to {self.mode} "
            f"{first['text']!r} ({first['where']})"
        )


def measure_decision(page: Page, game: str, lang: str, screen: str, root: str) -> Decision | None:
    """Measure the decision under ``root`` on a phone (the page is left scrolled to the top);
    None when the socket swapped the decision away meanwhile (it was just decided)."""
    page.evaluate(SETTLE_JS)
    # A frame drawn before its game's stylesheet applies is not what a player looks at.
    page.wait_for_function(STYLESHEETS_JS)
    found = page.evaluate(DECISION_JS, [root])
    if found is None:
        return None
    return Decision(
        game=game,
        lang=lang,
        screen=screen,
        mode=found["mode"],
        at_top=found["atTop"],
        at_middle=found["atMiddle"],
        at_bottom=found["atBottom"],
        height=int(found["height"]),
        viewport=int(found["viewport"]),
        width=int(found["width"]),
        sections=int(found["sections"]),
        open=int(found["open"]),
        wide=list(found["wide"]),
    )


def phone_fit(page: Page, game: str, screen: str) -> Decision:
    """Measure the decision a phone shows now, as it is played: once its ``data-confirm``
    control is there (not between two screens of a swap)."""
    page.locator("[data-confirm]").first.wait_for()
    lang: str = page.evaluate("document.documentElement.lang")
    found = measure_decision(page, game, lang, screen, "body")
    assert found is not None, "a page without a body"
    return found


def small_text(page: Page, scope: str | None = None) -> list[dict[str, Any]]:
    """Visible, not exempt text under ``TV_MIN_TEXT_PX`` on the page, or only within ``scope``
    (a selector; its absence is reported as a finding). ``TV_EXEMPT`` applies within the
    scope: a scope that is exempt itself is measured."""
    found: list[dict[str, Any]] = page.evaluate(TV_TEXT_JS, [TV_EXEMPT, TV_MIN_TEXT_PX, scope])
    return found


def in_view(page: Page, selector: str) -> dict[str, Any] | None:
    """Where ``selector`` is with the page at the top, and whether it is wholly on screen."""
    found: dict[str, Any] | None = page.evaluate(IN_VIEW_JS, selector)
    return found


def heirs_map(page: Page) -> dict[str, Any]:
    found: dict[str, Any] | None = page.evaluate(HEIRS_MAP_JS)
    assert found is not None, "no Heirs map (svg.hx-map) on the board"
    return found


@dataclass
class Matrix:
    """The screenshot matrix: ``<root>/<game>/<lang>/<screen>-<tv|phone>.png``."""

    root: Path
    files: list[Path] = field(default_factory=list)

    def shot(self, page: Page, game: str, lang: str, screen: str) -> Path:
        size = "phone" if page.viewport_size == PHONE_SIZE else "tv"
        path = self.root / game / lang / f"{screen}-{size}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        page.evaluate(SETTLE_JS)
        page.evaluate("document.scrollingElement.scrollTo({top: 0, behavior: 'instant'})")
        # A phone's whole page shows what lies below the first screen; the TV never scrolls.
        keep_screenshot(page, path, full_page=size == "phone")
        self.files.append(path)
        return path

    def write_index(self) -> Path:
        index = self.root / "index.md"
        lines = ["# Ergonomics screenshots", ""]
        lines += [f"- {path.relative_to(self.root)}" for path in sorted(self.files)]
        index.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return index


REFLOW_JS = """() => {
  const screen = document.documentElement.clientWidth;
  const wide = [];
  for (const element of document.body.querySelectorAll("*")) {
    const box = element.getBoundingClientRect();
    if (box.width > 0 && box.right > screen + 1 && getComputedStyle(element).position !== "fixed") {
      const name = element.tagName.toLowerCase() + (element.id ? "#" + element.id : "")
        + [...element.classList].map((c) => "." + c).join("");
      if (!wide.includes(name)) wide.push(name);
    }
  }
  return {extra: document.documentElement.scrollWidth - screen, wide: wide.slice(0, 5)};
}"""
"""How far the page reaches past the right edge of its screen, and the first elements that do."""


def reflow_violations(page: Page) -> list[AxeViolation]:
    """WCAG 1.4.10 (Reflow), which axe-core leaves to people: the page fits the width of its
    screen, nothing to scroll sideways (four language buttons once pushed every phone page
    wider than the phone)."""
    measured = page.evaluate(REFLOW_JS)
    if measured["extra"] <= 0:
        return []
    return [
        AxeViolation(
            rule="reflow",
            impact="serious",
            help=f"the page is {measured['extra']} px wider than the screen",
            targets=list(measured["wide"]),
            summary="WCAG 1.4.10: content must fit the viewport's width",
        )
    ]


TAP_HEIGHT = 44
"""CSS px a control a thumb taps on a phone is high at least (WCAG 2.5.5's target size)."""

TARGETS_JS = """least => [...document.querySelectorAll(
    'summary, button, a.button, select, label:has(> input[type=radio]),'
    + ' label:has(> input[type=checkbox])')]
  .filter(el => el.offsetParent && el.offsetHeight < least)
  .map(el => `${el.tagName.toLowerCase()} "${el.textContent.trim().slice(0, 40)}"`
    + ` ${el.offsetHeight} px`)"""
"""Layout heights: a control popping in (scaled by its animation) is measured at its size."""


def target_size_violations(page: Page) -> list[AxeViolation]:
    """WCAG 2.5.5 (Target Size) on a phone's page, which axe-core leaves to people: every
    control a thumb taps is a thumb's height (the fold of the Heirs "Your heir" was 25 px)."""
    small: list[str] = page.evaluate(TARGETS_JS, TAP_HEIGHT)
    if not small:
        return []
    return [
        AxeViolation(
            rule="target-size",
            impact="serious",
            help=f"controls under {TAP_HEIGHT} px high",
            targets=small,
            summary="WCAG 2.5.5: a control a thumb taps is at least 44 px high",
        )
    ]


def accessibility_violations(page: Page, *, phone: bool) -> list[AxeViolation]:
    """axe-core's serious and critical violations of the page as a player sees it now (its
    fades ended), with the checks axe-core leaves to people: the reflow, and on a phone the
    size of what a thumb taps."""
    page.evaluate(SETTLE_JS)  # a fading element is measured at its full colour
    found = axe_violations(page) + reflow_violations(page)
    if phone:
        found += target_size_violations(page)
    return found

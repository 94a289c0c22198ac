"""Names and texts of game content, in the reader's language: one lookup for every screen.

The engines name content by id only (``"H15"``, ``"sword_of_dawn"``, ``"IA"``). The English
name and text of each id live in ``seeds/``, read by the engine's own content loaders; the
translations live in the catalogs (``locale/``), each under a message context naming the game
and the kind of content (``"legions hero"``, ``"heirs artifact"``), so the same English word
in two games or two roles ("Market", "Oracle") can be translated apart.

:func:`content_name` and :func:`content_text` turn an id into words; :func:`extract_seeds` is
the Babel extraction method (``babel.cfg``) that puts every name and text of the seeds into
the catalogs, so translators see them beside the rest of the game's words.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import BinaryIO

from app import i18n
from engine.registry import engine_games
from engine.seeds import SEEDS_DIR


@dataclass(frozen=True, slots=True)
class Entry:
    """The English of one content item. A text that counts something has a plural form and
    the number it counts (``%(n)s``), which a variant may change (H13.1)."""

    name: str
    text: str = ""
    text_plural: str = ""
    number: int = 0


@dataclass(frozen=True, slots=True)
class Kind:
    """One kind of content of one game: the seed file it comes from and its entries by id,
    read from the game's content (with the named variants applied, where the game has any)."""

    game: str
    kind: str
    seed: str
    entries: Callable[[tuple[str, ...]], dict[str, Entry]]
    variant_sets: Callable[[], Sequence[tuple[str, ...]]] = lambda: [()]
    """The sets of named variants (H13.1) whose words the catalogs hold: each may word an
    item differently (the Elf's soldiers per point)."""

    @property
    def context(self) -> str:
        return f"{self.game} {self.kind}"


# ------------------------------------------------------------------ reading the content


@cache
def kinds() -> tuple[Kind, ...]:
    """Every kind of content a screen names, from every registered game's screens
    (``GameScreens.content_kinds``): a game's content is declared in its own package. A label
    in the seeds that no screen shows (a trick group's, a map ring's) is kept as ``_name``: a
    note for whoever edits the data, not a message."""
    from app.games import screens_for

    return tuple(kind for game in engine_games() for kind in screens_for(game).content_kinds())


@cache
def entries(game: str, kind: str, variants: tuple[str, ...] = ()) -> dict[str, Entry]:
    """The English of every item of one kind, by id (shared: do not mutate)."""
    found = next((k for k in kinds() if (k.game, k.kind) == (game, kind)), None)
    if found is None:
        raise KeyError((game, kind))
    return found.entries(variants)


# ------------------------------------------------------------------ the lookup


def content_name(game: str, kind: str, item_id: str | None, variants: Sequence[str] = ()) -> str:
    """The name of a content item in the current language (``i18n.use_language``); an
    unknown id is shown as itself."""
    entry = entries(game, kind, tuple(variants)).get(item_id or "")
    if entry is None:
        return item_id or ""
    context = f"{game} {kind}"
    return i18n.pgettext(context, entry.name)


def content_text(game: str, kind: str, item_id: str | None, variants: Sequence[str] = ()) -> str:
    """What a content item does, in the current language, with the numbers of the game's
    variants (H13.1: the Elf's soldiers per point); ``""`` for an item without a text."""
    entry = entries(game, kind, tuple(variants)).get(item_id or "")
    if entry is None or not entry.text:
        return ""
    context = f"{game} {kind}"
    if entry.text_plural:
        text = i18n.npgettext(context, entry.text, entry.text_plural, entry.number) % {
            "n": entry.number
        }
    else:
        text = i18n.pgettext(context, entry.text)
    # "+10 %" is one value: a narrow phone broke the line between the number and its sign.
    return text.replace(" %", "\u00a0%")


# ------------------------------------------------------------------ the extractor


Extracted = tuple[int, str, tuple[str, ...], list[str]]


def seed_messages() -> Iterator[tuple[Kind, str, str, tuple[str, ...]]]:
    """Every message of the seeds: its kind, the item's id, what it is (``name`` or ``text``)
    and the message (one text, or singular and plural). Texts a variant words differently
    are messages too."""
    seen: set[tuple[str, tuple[str, ...]]] = set()
    for kind in kinds():
        for variants in kind.variant_sets():
            for item_id, entry in entries(kind.game, kind.kind, variants).items():
                found: list[tuple[str, tuple[str, ...]]] = [("name", (entry.name,))]
                if entry.text_plural:
                    found.append(("text", (entry.text, entry.text_plural)))
                elif entry.text:
                    found.append(("text", (entry.text,)))
                for what, message in found:
                    if (kind.context, message) not in seen:
                        seen.add((kind.context, message))
                        yield kind, item_id, what, message


def extract_seeds(
    fileobj: BinaryIO, keywords: object, comment_tags: object, options: object
) -> Iterator[Extracted]:
    """Babel's extraction method for ``seeds/**.json`` (``babel.cfg``): the names and texts
    of the content read from this file, each under its context (``"legions hero"``) with the
    item's id as the translator's comment."""
    path = Path(getattr(fileobj, "name", "")).resolve()
    try:
        relative = path.relative_to(SEEDS_DIR).as_posix()
    except ValueError:
        return
    lines = fileobj.read().decode("utf-8").splitlines()
    for kind, item_id, what, message in seed_messages():
        if kind.seed != relative:
            continue
        lineno = next(
            (n for n, line in enumerate(lines, 1) if f'"{item_id}"' in line),
            1,
        )
        comment = [f"{what} of {kind.game} {kind.kind} {item_id}"]
        function = "npgettext" if len(message) == 2 else "pgettext"
        yield lineno, function, (kind.context, *message), comment

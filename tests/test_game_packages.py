"""Issue 14.3: a game lives in its own packages. What differs between games is asked of the
game's rules (``engine/core.py``) or its screens (``app/games``), never decided in shared code
by its id, so that a fourth game touches only ``engine/<game>/``, ``app/games/<game>.py`` and
``templates/games/<game>/`` (and the registry's one line)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from app.config import PROJECT_DIR
from app.content import kinds
from app.games import screens_for
from app.pages import environment
from engine.registry import engine_games

GAMES = engine_games()


def owner(path: Path) -> str | None:
    """The game whose own package holds ``path``; ``None`` for shared code."""
    parts = path.relative_to(PROJECT_DIR).parts
    for game in GAMES:
        if parts[:2] == ("engine", game) or parts == ("app", "games", f"{game}.py"):
            return game
        if parts[:3] == ("templates", "games", game):
            return game
    return None


def imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports, ``from a import b`` counted as ``a`` and ``a.b``."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def test_no_shared_module_imports_a_games_package() -> None:
    game_modules = {
        game: re.compile(rf"^(engine\.{game}|app\.games\.{game})(\.|$)") for game in GAMES
    }
    shared = [
        path
        for folder in ("app", "engine")
        for path in sorted((PROJECT_DIR / folder).rglob("*.py"))
        if owner(path) is None
    ]
    assert len(shared) > 20  # the scan found the shared code
    wrong = [
        f"{path.relative_to(PROJECT_DIR)} imports {module}"
        for path in shared
        for module in sorted(imported_modules(path))
        for game, pattern in game_modules.items()
        if pattern.match(module)
    ]
    assert wrong == []


def test_no_shared_template_names_a_games_own_templates() -> None:
    """A shared template reaches a game's templates only through the game's id in a
    variable (``"games/" ~ game ~ "/board.html"``), never by naming one game."""
    shared = [
        path for path in sorted((PROJECT_DIR / "templates").rglob("*.html")) if owner(path) is None
    ]
    assert any(path.name == "base.html" for path in shared)
    wrong = [
        f"{path.relative_to(PROJECT_DIR)} names games/{game}/"
        for path in shared
        for game in GAMES
        if f"games/{game}/" in path.read_text(encoding="utf-8")
    ]
    assert wrong == []


def test_each_games_content_is_declared_by_its_own_screens() -> None:
    declared = {(kind.game, kind.kind) for kind in kinds()}
    for game in GAMES:
        own = screens_for(game).content_kinds()
        assert own, game
        assert {kind.game for kind in own} == {game}
        assert {(kind.game, kind.kind) for kind in own} <= declared
    assert len(declared) == len(kinds()), "each kind of content declared once"


def test_each_games_template_names_are_its_own_and_reach_the_templates() -> None:
    seen: dict[str, str] = {}
    for game in GAMES:
        for name, function in screens_for(game).template_globals().items():
            assert name not in seen, f"{name} is {seen[name]}'s and {game}'s"
            seen[name] = game
            assert environment.globals[name] is function
    assert seen  # Hidden Leaders names its factions in its macros

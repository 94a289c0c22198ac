"""engine/ stays pure: the standard library only, and nothing that reads a clock, the global
random generator, the environment or the network (DESIGN: replays rest on this)."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "engine"
FORBIDDEN = {
    "random",
    "time",
    "datetime",
    "os",
    "socket",
    "subprocess",
    "threading",
    "asyncio",
    "secrets",
    "uuid",
    "sqlite3",
    "urllib",
    "http",
}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "__import__":
            found.add("__import__")
    return found


def test_engine_imports_only_the_standard_library_and_nothing_impure() -> None:
    files = sorted(ENGINE.rglob("*.py"))
    assert len(files) > 10
    for path in files:
        modules = imported_modules(path)
        outside = {m for m in modules if m != "engine" and m not in sys.stdlib_module_names}
        assert not outside, (path.name, outside)
        assert not modules & (FORBIDDEN | {"__import__"}), (path.name, modules & FORBIDDEN)


def test_the_check_sees_a_forbidden_import(tmp_path: Path) -> None:
    sample = tmp_path / "impure.py"
    sample.write_text("import time\nfrom random import choice\nimport numpy\n", encoding="utf-8")
    assert imported_modules(sample) == {"time", "random", "numpy"}

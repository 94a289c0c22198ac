"""The rule → tests table of ``engine/heirs/README.md`` names only tests that exist, and
every rule H1–H22 has a row with a test that cites that rule in its name."""

from __future__ import annotations

import ast
import fnmatch
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "engine" / "heirs" / "README.md"
TESTS = [
    *sorted((ROOT / "tests" / "engine").glob("test_heirs*.py")),
    ROOT / "tests" / "engine" / "test_conformance.py",  # H22 holds for every game
]

ROW = re.compile(r"^\|\s*(H\d+)\s*\|(.*)\|\s*$")
NAME = re.compile(r"`(test_[A-Za-z0-9_*]+)`")


def rule_table() -> dict[str, list[str]]:
    """Rule number → test names (or globs) of the README's "Rule → tests" table."""
    text = README.read_text(encoding="utf-8")
    section = text.split("## Rule → tests", 1)[1].split("\n## ", 1)[0]
    table: dict[str, list[str]] = {}
    for line in section.splitlines():
        match = ROW.match(line)
        if match:
            assert match.group(1) not in table, f"two rows for {match.group(1)}"
            table[match.group(1)] = NAME.findall(match.group(2))
    return table


def existing_test_names() -> set[str]:
    names: set[str] = set()
    for path in TESTS:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names |= {
            node.name
            for node in tree.body
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")
        }
    return names


def test_h22_readme_rule_table_names_only_existing_tests() -> None:
    table = rule_table()
    existing = existing_test_names()
    assert len(existing) > 90
    for rule, names in table.items():
        assert names, f"{rule} names no test"
        for name in names:
            assert fnmatch.filter(existing, name), f"{rule}: {name} is not a test"


def test_h22_readme_rule_table_covers_h1_to_h22_with_citing_tests() -> None:
    table = rule_table()
    existing = existing_test_names()
    for number in range(1, 23):
        rule = f"H{number}"
        assert rule in table, f"no row for {rule}"
        citing = [n for n in table[rule] if re.match(rf"test_h{number}_", n)]
        assert citing, f"no test in the {rule} row cites {rule} in its name"
        # …and a test citing the rule exists at all (not only in the table).
        assert any(n.startswith(f"test_h{number}_") for n in existing)


def test_e1_to_e10_each_have_a_test_named_after_the_example() -> None:
    existing = existing_test_names()
    for number in range(1, 11):
        assert any(re.search(rf"_e{number}(_|$)", n) for n in existing), f"E{number}"

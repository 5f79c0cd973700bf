"""The house's rules, checked on the code itself (issue 13): short functions, or a word
on why not; and the rules index is current (see tests/test_rules_index.py)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LONGEST = 60


def test_functions_over_60_lines_say_why() -> None:
    """No function in service/ over 60 lines without a `# long:` comment right above it
    saying why it is one piece."""
    unexplained = []
    for path in sorted((ROOT / "service").rglob("*.py")):
        lines = path.read_text().splitlines()
        for node in ast.walk(ast.parse("\n".join(lines))):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            if node.end_lineno is None or node.end_lineno - node.lineno + 1 <= LONGEST:
                continue
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            above = lines[first - 2].strip() if first >= 2 else ""
            if not above.startswith("# long:"):
                unexplained.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    assert unexplained == []

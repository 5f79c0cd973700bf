"""Writes docs/rules-index.md: for every numbered rule of the four rules texts the game
follows (11.18 long and short form, the Drang Nach Osten tracks, OCS 5.0 Modes), the
code that cites it and the tests that cite it, and the rules not modelled with the
reason. `--check` exits 1 when the committed index is stale.

Citations are how the code and the tests name a rule: "11.18.4", "11.18 short form",
"OCS 5.7c" (a list goes on without the prefix: "OCS 5.5a, 5.6a"), and seed 002's parts
by name ("seed 002 Initiative Track"). A test cites a rule in its name, docstring or
comments; code cites it anywhere (docstrings, comments, the `rule` of an error).

    .venv/bin/python scripts/rules_index.py          # rewrite docs/rules-index.md
    .venv/bin/python scripts/rules_index.py --check  # exit 1 if it is stale
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INDEX = ROOT / "docs" / "rules-index.md"


@dataclass(frozen=True)
class Rule:
    id: str  # the citation
    title: str
    text: str  # which rules text
    not_modelled: str = ""  # why, when the referee does not model it

    @property
    def modelled(self) -> bool:
        return not self.not_modelled


LONG = "11.18 Reorganization, long form"
SHORT = "11.18 Reorganization, short form"
DNO = "Drang Nach Osten: the Initiative and Impulse Tracks"
OCS = "OCS 5.0 Modes"

CATALOGUE: tuple[Rule, ...] = (
    Rule("11.18", "Reorganization points and costs; one reorganization per impulse", LONG),
    Rule("11.18.1", "ATR reorganization", LONG),
    Rule("11.18.2", "HQ reorganization", LONG),
    Rule("11.18.3", "Limited supply source reorganization", LONG),
    Rule("11.18.4", "Overseas reorganization", LONG),
    Rule("11.18.5", "Primary supply source reorganization (out of communication, out of "
         "supply)", LONG),
    Rule("11.18.6", "Railway reorganization", LONG),
    Rule("11.18.7", "Secondary supply source reorganization", LONG),
    Rule("11.18.8", "Supply units making an HQ a primary source", LONG),
    Rule("11.18.9", "TRS reorganization", LONG),
    Rule("11.18.10", "At sea reorganization", LONG),
    Rule("11.18.11", "Offensive chits and reorganization", LONG),
    Rule("11.18 short form", "Short form: minor ports 1 unit, primary sources 2 units, "
         "supply units expended, the reorganize-HQs chit", SHORT),
    Rule("11.18 fuel", "Fuel costs when reorganizing: the scenario's fuel stocks and costs "
         "per unit type (RULES-NOTES 30)", SHORT),
    Rule("seed 002 Initiative Track", "Three-sided initiative: dice, boxes, rerolls, ties, "
         "first/last and before/after, marker shifts", DNO),
    Rule("seed 002 Turn End", "The accumulated turn-end track, the threshold and the last "
         "die", DNO),
    Rule("seed 002 Effects of Passing", "Pass bonuses per turn-end die; neutral powers "
         "add nothing", DNO),
    Rule("seed 002 More Sides", "The threshold for two or more than three sides", DNO),
    Rule("OCS 5.0", "Modes: the section as a whole", OCS),
    Rule("OCS 5.1", "Units affected by mode", OCS),
    Rule("OCS 5.2", "General mode restrictions: one mode, orientation", OCS),
    Rule("OCS 5.3", "Voluntary and involuntary modes", OCS),
    Rule("OCS 5.4", "Mode change in the Movement Phase; involuntary modes", OCS),
    Rule("OCS 5.4a", "Reserve marker limits", OCS),
    Rule("OCS 5.5", "Combat Mode", OCS),
    Rule("OCS 5.5a", "Combat Mode units use no rail, air or shipping transport", OCS),
    Rule("OCS 5.5b", "Combat Mode for gauge conversion and engineering", OCS),
    Rule("OCS 5.5c", "Repl units and Transport Points cannot enter Combat Mode", OCS),
    Rule("OCS 5.5d", "Combat or Move Mode to land over the Amphibious Landing Table", OCS),
    Rule("OCS 5.5e", "Combat Mode exerts a ZOC", OCS),
    Rule("OCS 5.6", "Move Mode", OCS),
    Rule("OCS 5.6a", "Move Mode for rail, air and shipping transport", OCS),
    Rule("OCS 5.6b", "Repl units and Transport Points are always oriented to Move", OCS),
    Rule("OCS 5.6c", "Move or Combat Mode to land over the Amphibious Landing Table", OCS),
    Rule("OCS 5.7", "Reserve Mode: half strength, 1/4 MA", OCS),
    Rule("OCS 5.7a", "Reserve orientation", OCS),
    Rule("OCS 5.7b", "Releasing reserves (Exploitation and Reaction Phases)", OCS),
    Rule("OCS 5.7c", "No switch into Reserve in an enemy ZOC", OCS),
    Rule("OCS 5.7d", "Enemy contact removes Reserve markers", OCS),
    Rule("OCS 5.7e", "Reserve units use no rail, air or shipping transport", OCS),
    Rule("OCS 5.7f", "Transport Points cannot enter Reserve (Organic Trucks can)", OCS),
    Rule("OCS 5.7g", "No Reserve unit stacked with a hedgehog", OCS),
    Rule("OCS 5.8", "Strat Mode: twice the MA, no combat", OCS),
    Rule("OCS 5.8a", "Strat Mode and enemy ZOC", OCS),
    Rule("OCS 5.8b", "Strat Mode and supply; a Strat HQ throws no supply", OCS),
    Rule("OCS 5.8c", "Transport Points cannot enter Strat Mode", OCS),
    Rule("OCS 5.8d", "Strat units use no rail, air or shipping transport", OCS),
    Rule("OCS 5.9", "Exploitation Mode", OCS),
    Rule("OCS 5.9a", "Restrictions on gaining Exploitation Mode", OCS),
    Rule("OCS 5.9b", "Exploit marker ratings", OCS),
    Rule("OCS 5.9c", "Exploit units keep their ZOC", OCS),
    Rule("OCS 5.10", "Disorganized Mode", OCS),
    Rule("OCS 5.10a", "Entering DG Mode", OCS),
    Rule("OCS 5.10b", "Effects of DG", OCS),
    Rule("OCS 5.10c", "Transport Points are never DG", OCS),
    Rule("OCS 5.10d", "DG units use no rail, air or shipping transport", OCS),
    Rule("OCS 5.10e", "Engineering and rebuilding while DG", OCS),
)
BY_ID = {r.id: r for r in CATALOGUE}

_OCS_LIST = re.compile(r"OCS ((?:5\.\d+[a-g]?)(?:(?:, | / |-| and | or )5\.\d+[a-g]?)*)")
_OCS_NUMBER = re.compile(r"5\.\d+[a-g]?")
_WIF = re.compile(r"11\.18(?:\.(\d+))?(?![\d]|,? short form| fuel)")
_FUEL = re.compile(r"11\.18 fuel|11_18_fuel")
_SHORT = re.compile(r"11\.18,? short form|short form")
_SEED_002 = re.compile(r"seed 002,? (Initiative Track|Turn End|Effects of Passing|More Sides)")


def citations(text: str) -> set[str]:
    """The catalogue ids a text cites."""
    found: set[str] = set()
    for m in _OCS_LIST.finditer(text):
        found |= {f"OCS {n}" for n in _OCS_NUMBER.findall(m.group(1))}
    for m in _WIF.finditer(text):
        found.add("11.18" if m.group(1) is None else f"11.18.{m.group(1)}")
    if _SHORT.search(text):
        found.add("11.18 short form")
    if _FUEL.search(text):
        found.add("11.18 fuel")
    found |= {f"seed 002 {m.group(1)}" for m in _SEED_002.finditer(text)}
    return found


@dataclass
class Where:
    code: dict[str, set[str]] = field(default_factory=dict)  # rule -> "path" of code
    tests: dict[str, set[str]] = field(default_factory=dict)  # rule -> "path::test"


def _name_citations(name: str) -> str:
    """A test's name as text: `test_5_10c_...` cites OCS 5.10c, `..._11_18_4` 11.18.4."""
    text = re.sub(r"11_18_(\d+)", r"11.18.\1", name)
    text = re.sub(r"(?:^|_)5_(\d+)([a-g]?)(?=_|$)", r" OCS 5.\1\2 ", text)
    return text.replace("_", " ")


def _functions(tree: ast.AST) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node


def scan(root: Path = ROOT) -> Where:
    where = Where()
    for path in sorted((root / "service").rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        for rule in citations(path.read_text()):
            where.code.setdefault(rule, set()).add(rel)
    for path in sorted((root / "tests").rglob("test_*.py")):
        rel = path.relative_to(root).as_posix()
        source = path.read_text()
        lines = source.splitlines()
        for fn in _functions(ast.parse(source)):
            if not fn.name.startswith("test_"):
                continue
            body = "\n".join(lines[fn.lineno - 1:fn.end_lineno])
            for rule in citations(body + "\n" + _name_citations(fn.name)):
                where.tests.setdefault(rule, set()).add(f"{rel}::{fn.name}")
    return where


def _cell(items: set[str], limit: int) -> str:
    shown = sorted(items)[:limit]
    more = len(items) - len(shown)
    text = "<br>".join(f"`{i}`" for i in shown)
    return text + (f"<br>and {more} more" if more else "")


def packages(root: Path = ROOT) -> list[tuple[str, str]]:
    """Each package of `service/rules` with the first sentence of its docstring."""
    out = []
    for init in sorted((root / "service" / "rules").glob("*/__init__.py")):
        doc = ast.get_docstring(ast.parse(init.read_text())) or ""
        first = " ".join(doc.split())
        sentence = re.split(r"(?<=\.)\s", first, maxsplit=1)[0].rstrip(".")
        out.append((init.parent.relative_to(root).as_posix(), sentence))
    return out


def render(where: Where) -> str:
    out = [
        "# Rules index",
        "",
        "Every numbered rule of the rules texts the referee follows, with the code and the",
        "tests that cite it. Written by `scripts/rules_index.py` from the code and the tests",
        "(do not edit by hand); `tests/test_rules_index.py` fails when it is stale or when a",
        "rule cited in the code has no test. Options that settle gaps in these texts:",
        "`docs/rules-options.md`.",
        "",
    ]
    for text in (LONG, SHORT, DNO, OCS):
        out += [f"## {text}", "", "| rule | what | code | tests |", "|---|---|---|---|"]
        for rule in (r for r in CATALOGUE if r.text == text):
            if not rule.modelled:
                out.append(f"| {rule.id} | {rule.title} | not modelled: {rule.not_modelled} "
                           "| |")
                continue
            code = _cell(where.code.get(rule.id, set()), 4) or "**none**"
            tests = _cell(where.tests.get(rule.id, set()), 3) or "**none**"
            out.append(f"| {rule.id} | {rule.title} | {code} | {tests} |")
        out.append("")
    out += ["## Where the rules live", "",
            "The packages of `service/rules` (pure: no I/O, no clock, no randomness), each "
            "with what it owns.", "", "| package | what |", "|---|---|"]
    out += [f"| `{path}` | {what} |" for path, what in packages()]
    out.append("")
    return "\n".join(out)


def main(argv: list[str]) -> int:
    text = render(scan())
    if "--check" in argv:
        current = INDEX.read_text() if INDEX.exists() else ""
        if current != text:
            print("docs/rules-index.md is stale: run .venv/bin/python scripts/rules_index.py")
            return 1
        return 0
    INDEX.write_text(text)
    print(f"wrote {INDEX.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""The code blocks of README.md and docs/*.md, for the tests that run them (issue 32).

Every block is fenced and marked on the line above with `<!-- example: NAME -->` (a
name unique on its page); a test that runs a block registers it with `@runs(page,
name)`, and tests/test_doc_examples.py fails when a block is unmarked, indented
instead of fenced, or registered by no test. `agrees(shown, real)` compares what a
page shows with what a real server answered: every key shown is there, with the value
shown, where `<...>` in a shown string stands for anything, `...` for the rest, and
ids, hashes, tokens and times shown stand for any of their kind."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
MARK = re.compile(r"^<!-- example: ([a-z0-9-]+) -->$")
FENCE = re.compile(r"^(```|~~~)(\w*)")

F = TypeVar("F", bound=Callable[..., Any])
REGISTERED: dict[tuple[str, str], str] = {}  # (page, name) -> the test that runs it


@dataclass(frozen=True)
class Block:
    page: str  # relative to the repository: "README.md", "docs/api.md"
    name: str | None  # None: not marked
    lang: str
    text: str
    line: int  # of the opening fence, 1-based


def blocks(path: Path) -> Iterator[Block]:
    """The fenced blocks of a page, each with the name its marker gives it."""
    lines = path.read_text(encoding="utf-8").splitlines()
    page = str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else path.name
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith(opening[1]))
        mark = MARK.match(lines[i - 1]) if i else None
        yield Block(page, mark[1] if mark else None, opening[2], "\n".join(lines[i + 1:end]),
                    i + 1)
        i = end + 1


def indented_code(path: Path) -> list[int]:
    """The lines where an indented code block starts (four spaces after a blank line,
    not inside a list or a fenced block): each should be fenced and marked instead."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found, fenced = [], False
    for i, line in enumerate(lines):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if fenced or not line.startswith("    ") or not line.strip() or lines[i - 1].strip():
            continue
        above = next((lines[j] for j in range(i - 1, -1, -1) if lines[j].strip()), "")
        if not re.match(r"^(\s*[-*] |\s*\d+\. |\s{2,}\S)", above):
            found.append(i + 1)
    return found


def example(page: str, name: str) -> str:
    """The text of the block `name` of `page` ("docs/api.md")."""
    found = [b for b in blocks(ROOT / page) if b.name == name]
    assert len(found) == 1, f"{page}: {len(found)} blocks named {name!r}"
    return found[0].text


def runs(page: str, *names: str) -> Callable[[F], F]:
    """Register the decorated test as the one that runs these blocks of `page`."""
    def register(test: F) -> F:
        for name in names:
            REGISTERED[(page, name)] = test.__name__
        return test
    return register


# ---------------------------------------------------------------------- agreeing

_KINDS = [re.compile(p) for p in (
    r"^[0-9a-f]{64}$",  # a hash
    r"^[0-9a-f]{32}$",  # an id
    r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$",  # a time
    r"^[A-Za-z0-9_-]{43}$",  # a token or a key
    r"^[A-Za-z0-9_-]{86}$",  # a signature
    r"^srv-[0-9a-f]{16}$",  # a server key's id
)]


_TIME = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z"


def _pattern(shown: str) -> re.Pattern[str]:
    """A shown string as a pattern: `<...>` any text, `...` the rest, `{name}` a path
    segment, a time any time."""
    parts = re.split(rf"(<[^>]+>|\.\.\.|\{{[a-z_]+\}}|{_TIME})", shown)
    regex = "".join(".*" if p.startswith(("<", "...")) else "[^/?&]+" if p.startswith("{")
                    else _TIME if re.fullmatch(_TIME, p) else re.escape(p) for p in parts)
    return re.compile(f"^{regex}$", re.DOTALL)


def _same_kind(shown: str, real: str) -> bool:
    return any(k.match(shown) and k.match(real) for k in _KINDS)


def agrees(shown: Any, real: Any, where: str = "") -> list[str]:
    """Where `shown` (a page's example) differs from `real` (the server's), as JSON
    pointers with both values; [] when it agrees."""
    if isinstance(shown, dict):
        if not isinstance(real, dict):
            return [f"{where}: shown an object, is {real!r}"]
        out = []
        for key, value in shown.items():
            if key not in real:
                out.append(f"{where}/{key}: shown, but not in the answer")
            else:
                out += agrees(value, real[key], f"{where}/{key}")
        return out
    if isinstance(shown, list):
        if not isinstance(real, list) or len(real) < len(shown):
            return [f"{where}: shown {shown!r}, is {real!r}"]
        return [d for i, item in enumerate(shown) for d in agrees(item, real[i], f"{where}/{i}")]
    if isinstance(shown, str) and isinstance(real, str):
        if shown == real or _same_kind(shown, real) or _pattern(shown).match(real):
            return []
    elif shown == real and type(shown) is type(real):
        return []
    return [f"{where}: shown {shown!r}, is {real!r}"]


# ---------------------------------------------------------------------- transcripts


def transcript(text: str) -> list[tuple[str, list[str]]]:
    """A console block's commands (after `$ `, a trailing backslash continuing them)
    and the lines each prints."""
    steps: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        elif steps and steps[-1][0].endswith("\\") and not steps[-1][1]:
            steps[-1] = (steps[-1][0] + "\n" + line, [])
        else:
            assert steps, f"output before any command: {line!r}"
            steps[-1][1].append(line)
    return steps


def prints(shown: list[str], real: list[str]) -> bool:
    """Whether `real` lines are what a transcript shows: each line as `agrees` reads a
    string, a line `...` any number of lines."""
    if not shown:
        return not real
    if shown[0] == "...":
        return any(prints(shown[1:], real[i:]) for i in range(len(real) + 1))
    return bool(real) and agrees(shown[0], real[0]) == [] and prints(shown[1:], real[1:])

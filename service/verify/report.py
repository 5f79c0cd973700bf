"""What `verify` says: each check with its verdict, what a partial export kept it from
checking, and the verdict as an exit status."""

from __future__ import annotations

from dataclasses import dataclass, field

VERIFIED, FAILED, PARTIAL = 0, 1, 3  # the exit statuses of `verify`


@dataclass
class Check:
    name: str
    ok: bool
    detail: str


@dataclass
class Report:
    """The checks, and `unchecked`: what could not be checked (a player's export while a
    sealed window is open withholds it; events of another rules version than this
    verifier's are not decided again), so that it is never called verified."""

    checks: list[Check] = field(default_factory=list)
    unchecked: list[str] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return not all(c.ok for c in self.checks)

    @property
    def ok(self) -> bool:
        """Verified in full: every check passed and nothing was left unchecked."""
        return not self.failed and not self.unchecked

    @property
    def status(self) -> int:
        return FAILED if self.failed else PARTIAL if self.unchecked else VERIFIED

    def add(self, name: str, ok: bool, detail: str) -> None:
        self.checks.append(Check(name, ok, detail))

    def problems(self, name: str, problems: list[str], done: str) -> None:
        """A check that passes when `problems` is empty (the first five are shown)."""
        self.add(name, not problems,
                 done + (f"; {'; '.join(problems[:5])}" if problems else ""))

    def text(self) -> str:
        lines = [f"{'ok  ' if c.ok else 'FAIL'} {c.name}: {c.detail}" for c in self.checks]
        lines += [f"NOT CHECKED {what}" for what in self.unchecked]
        lines.append("verification FAILED" if self.failed else
                     "PARTIALLY verified: what is listed as not checked was not; see "
                     "why beside each" if self.unchecked
                     else "verified")
        return "\n".join(lines)

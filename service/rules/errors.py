"""Domain errors of the rules. Each carries a stable code, the rule it enforces (a seed
rule number such as 11.18.4 or OCS 5.7c, or a design section) and the offending items,
with the unit each item is about (`units`: item path -> unit id; `extra["unit"]` names
the unit of every item). `decide` adds the units' names (`unit_labels`) and names the
unit in the message: "cw-inf-3 (Commonwealth INF corps) is in an enemy ZOC".

`Refused`: not allowed in the current state (HTTP 409). `Malformed`: could never be
valid (HTTP 422). `Forbidden`: acting for a side or power not held (HTTP 403).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence


class RulesError(Exception):
    def __init__(
        self,
        code: str,
        message: str,
        *,
        rule: str | None = None,
        errors: Sequence[tuple[str, str]] = (),
        extra: Mapping[str, object] | None = None,
        units: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.rule = rule
        self.errors = list(errors)
        self.extra = dict(extra or {})
        self.units = dict(units or {})
        self.unit_labels: dict[str, dict[str, str]] = {}

    def unit_of(self, path: str) -> str | None:
        """The unit the item at `path` is about, if any."""
        found = self.units.get(path) or self.extra.get("unit")
        return found if isinstance(found, str) else None


class Refused(RulesError):
    """The order conflicts with the current state of the game."""


class Malformed(RulesError):
    """The order could never be valid."""


class Forbidden(RulesError):
    """The order acts for a side or power the player does not hold."""

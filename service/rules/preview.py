"""What a combat would fight at before it is sent (docs/api.md "Combats the referee
decides"): a dry run of a `report` with one combat item, through the same checks as the
order, giving the odds the referee computes and the cells the column could give. No
die is rolled and nothing is kept."""

from __future__ import annotations

from collections.abc import Mapping

from service.rules.command import Actor, Command
from service.rules.decide import check_order_allowed
from service.rules.evolve import evolve
from service.rules.flow import Flow
from service.rules.modes import PreviewShown, preview
from service.rules.state import State


def combat_preview(state: State, actor: Actor, item: Mapping[str, object], at: str
                   ) -> PreviewShown:
    """The preview of combat `item` for `actor` now (the refusals of the order)."""
    command = Command(kind="report", body={"combats": [dict(item)]}, actor=actor, at=at)
    check_order_allowed(state, command)
    return preview(Flow(state, None, evolve=evolve, actor=actor.id, at=at), command, item)

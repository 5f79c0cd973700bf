"""The body of the `reorg` order (11.18; docs/api.md "Order kinds"): the power that pays
and the items, each a unit and the method that reorganizes it, with the method's fields
(`methods.FIELDS` says which a method needs)."""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired

from annotated_types import MaxLen, MinLen
from typing_extensions import TypedDict

from service.rules.shapes import closed

Method = Literal["atr", "hq", "limited", "overseas", "primary", "rail", "secondary",
                 "supply_unit", "trs", "at_sea", "chit", "port_repair"]


@closed
class ReorgItem(TypedDict):
    """One unit reorganized (or, `port_repair`, one port repaired) by `method`."""

    method: Method
    unit: NotRequired[str]
    atr: NotRequired[str]
    hq: NotRequired[str]
    source: NotRequired[str]
    port: NotRequired[str]
    supply_unit: NotRequired[str]
    trs: NotRequired[str]


@closed
class ReorgBody(TypedDict):
    """`reorg`: all items or none; `power` pays the sum in RPs."""

    power: str
    items: Annotated[list[ReorgItem], MinLen(1), MaxLen(200)]

"""Seed 000's worked example (11.18, July/August 1944), as orders on the scenario
tests/scenarios/reorg-1944.json: hex 1332 is Monty's, 1333 Rouen, 1432 Boulogne; the
primary sources are Edinburgh 1126, Newcastle 1227, Hull 1229 and London 1231."""

from __future__ import annotations

from typing import Any

ROUEN, BOULOGNE = "1333", "1432"
EDINBURGH, NEWCASTLE, HULL, LONDON = "1126", "1227", "1229", "1231"
MONTY = "cw-hq-montgomery"

# (item, cost): the example's units, methods and costs, 33 RPs in all.
EXAMPLE: list[tuple[dict[str, Any], int]] = [
    # 1 British INF in Rouen traces overseas via Rouen back to Newcastle: 3 RPs.
    ({"unit": "cw-inf-50", "method": "overseas", "source": NEWCASTLE, "port": ROUEN}, 3),
    # A British PARA in Rouen, via Rouen back to Edinburgh: 5 RPs.
    ({"unit": "cw-para-1", "method": "overseas", "source": EDINBURGH, "port": ROUEN}, 5),
    # A British ATR flies to Rouen and reorganizes the American ARMdiv: 4 RPs for the CW.
    ({"unit": "usa-arm-2", "method": "atr", "atr": "cw-atr-1"}, 4),
    # A MOT unit in Boulogne traces out via that minor port to Hull: 4 RPs.
    ({"unit": "cw-mot-7", "method": "overseas", "source": HULL, "port": BOULOGNE}, 4),
    # Monty in hex 1332 reorganizes his 3 units: a FTR, a MOT and a 3 point LND, 9 RPs.
    ({"unit": "cw-ftr-3", "method": "hq", "hq": MONTY}, 2),
    ({"unit": "cw-mot-8", "method": "hq", "hq": MONTY}, 4),
    ({"unit": "cw-lnd-3", "method": "hq", "hq": MONTY}, 3),
    # Back in the UK, two 4 point LNDs are reorganized by London: 8 RPs.
    ({"unit": "cw-lnd-1", "method": "primary", "source": LONDON}, 4),
    ({"unit": "cw-lnd-2", "method": "primary", "source": LONDON}, 4),
]

# The limits the example names, each hit by one more item: (item, rule, reason).
LIMITS: list[tuple[dict[str, Any], str, str]] = [
    ({"unit": "cw-inf-51", "method": "overseas", "source": LONDON, "port": ROUEN}, "11.18.4",
     "Rouen already passed 2 units this impulse (a minor port passes 2 per impulse)"),
    ({"unit": "cw-inf-52", "method": "primary", "source": NEWCASTLE}, "11.18.5",
     "Newcastle already gave RPs to 1 corps this impulse (at most 1 corps per primary "
     "source)"),
    ({"unit": "cw-inf-52", "method": "primary", "source": EDINBURGH}, "11.18.5",
     "Edinburgh already gave RPs to 1 corps this impulse (at most 1 corps per primary "
     "source)"),
    ({"unit": "cw-inf-53", "method": "hq", "hq": MONTY}, "11.18.2",
     "HQ cw-hq-montgomery already reorganized 3 units this impulse; its reorganization "
     "value is 3"),
]

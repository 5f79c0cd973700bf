"""The table engine (docs/scenario.md "Combat: the tables"): a table is columns, dice,
modifiers, cells and a legend, read from the scenario's data and looked up for
strengths the caller computed. It knows no game: which result kinds a legend may name,
which inputs a modifier may read and what a result does are the caller's (the land
combat, overrun and barrage tables: `service.rules.scenario.tables` and
`service.rules.modes.odds`; an air-to-air or anti-aircraft table the same way, with its
own vocabulary).
"""

from service.rules.combat.reading import Problems, Vocabulary, read_dice, read_table, threshold
from service.rules.combat.table import (
    COLUMNS_BY,
    NO_RESULT,
    Band,
    Columns,
    ColumnsBy,
    DiceSpec,
    Effect,
    Modifier,
    Odds,
    Outcome,
    Row,
    Surprise,
    SurpriseSide,
    Table,
    TerrainEffect,
    fmt,
    odds,
    read,
)
from service.rules.combat.writing import table_to_json

__all__ = [
    "COLUMNS_BY", "NO_RESULT", "Band", "Columns", "ColumnsBy", "DiceSpec", "Effect",
    "Modifier", "Odds", "Outcome", "Problems", "Row", "Surprise", "SurpriseSide", "Table",
    "TerrainEffect", "Vocabulary", "fmt", "odds", "read", "read_dice", "read_table",
    "table_to_json", "threshold",
]

"""The built-in scenarios shipped with the package (`dno-demo`)."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from service.rules.scenario.reading import parse_scenario
from service.rules.scenario.types import Scenario


def _scenario_dir() -> Any:
    return resources.files(__name__.rpartition(".")[0]).joinpath("scenarios")


def builtin_scenario_ids() -> list[str]:
    """Ids of the scenarios shipped in ``service/rules/scenario/scenarios/``, sorted."""
    return sorted(
        p.name[: -len(".json")] for p in _scenario_dir().iterdir() if p.name.endswith(".json")
    )


@cache
def load_builtin_scenario(id: str) -> Scenario:
    """The built-in scenario `id` (KeyError if there is none)."""
    if id not in builtin_scenario_ids():
        raise KeyError(id)
    text = _scenario_dir().joinpath(f"{id}.json").read_text(encoding="utf-8")
    return parse_scenario(json.loads(text))

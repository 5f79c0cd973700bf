"""docs/api.md cannot drift from the code (issue 23, item 4): the stream's event names
it lists are `EventKind`'s, and so are the names the /play page listens for
(service/web/kinds.js); its retry schedule is the courier's."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path
from typing import Any, get_args

from service.referee import notifications
from service.rules import ACT_BODIES, EVENT_DATA, ORDER_BODIES
from service.rules.events import EventKind

ROOT = Path(__file__).resolve().parents[1]
API = (ROOT / "docs" / "api.md").read_text()


def test_the_documented_event_names_are_the_event_kinds() -> None:
    listed = API.split("<!-- event-kinds -->")[1].split("<!-- /event-kinds -->")[0]
    names = re.findall(r"`([a-z_.]+)`", listed)
    assert names == list(get_args(EventKind))


def test_the_play_page_listens_for_every_event_kind() -> None:
    source = (ROOT / "service" / "web" / "kinds.js").read_text()
    body = source.split("EVENT_KINDS = Object.freeze([")[1].split("]);")[0]
    assert re.findall(r'"([^"]+)"', body) == list(get_args(EventKind))


def test_the_documented_retry_schedule_is_the_couriers() -> None:
    units = {"s": "seconds", "min": "minutes", "h": "hours"}
    rows = re.findall(r"^\| (\d+) \| (at once|(\d+) (s|min|h)) \|", API, re.MULTILINE)
    assert [int(r[0]) for r in rows] == list(range(1, notifications.MAX_ATTEMPTS + 1))
    documented = tuple(timedelta(**{units[r[3]]: int(r[2])}) for r in rows[1:])
    assert documented == notifications.RETRY_DELAYS
    total = sum(notifications.RETRY_DELAYS, timedelta())
    assert "30 h 4 min" in API and "45 h 6 min" in API
    assert timedelta(hours=30, minutes=4) <= total * 0.8 < timedelta(hours=30, minutes=5)
    assert timedelta(hours=45, minutes=6) <= total * 1.2 < timedelta(hours=45, minutes=7)
    assert notifications.DISABLE_AFTER == timedelta(days=5) and "5 days" in API


def _spec() -> dict[str, Any]:
    from service.app import create_app
    from service.settings import Settings

    settings = Settings(database_url="postgresql+asyncpg://docs/docs")
    spec: dict[str, Any] = create_app(settings, database_url=settings.database_url).openapi()
    return spec


def test_every_route_of_the_openapi_document_is_in_the_api_document() -> None:
    """Issue 18, item 1: docs/api.md holds the whole contract, so every route is in it
    (by its path, or under /admin by its last part in the GM's table)."""
    missing = []
    for path in _spec()["paths"]:
        if path.startswith("/v1/games/{game_id}/admin/"):
            short = path.removeprefix("/v1/games/{game_id}/admin/")
            if f"`{short}`" not in API:
                missing.append(path)
        elif path.startswith("/v1/"):
            # The document writes `{id}` for the game's id, and lists query strings.
            if path.replace("{game_id}", "{id}") not in API:
                missing.append(path)
    assert missing == []


def test_every_order_kind_and_gm_act_is_in_the_api_document() -> None:
    for kind in (*ORDER_BODIES, *ACT_BODIES):
        assert f"| `{kind}` |" in API, kind



def test_every_event_kind_has_the_shape_of_its_data() -> None:
    """One registry (service/rules/event_data.py) gives each kind's `data`; the OpenAPI
    document's EventRecord is the union of one variant per kind, discriminated by kind.
    (The session's end checks every event its games logged against its kind's shape.)"""
    kinds = list(get_args(EventKind))
    assert list(EVENT_DATA) == kinds
    union = _spec()["components"]["schemas"]["EventRecord"]
    assert union["discriminator"]["propertyName"] == "kind"
    assert list(union["discriminator"]["mapping"]) == sorted(kinds)


def test_a_standing_combat_answer_is_declared_as_the_rules_take_it() -> None:
    """standing.armed's `answer` names every answer a standing combat-choice order may
    carry (RULES-NOTES 32), and nothing else."""
    from typing import get_type_hints

    from service.rules.event_data import StandingArmedData
    from service.rules.modes import STANDING_ANSWERS

    declared = get_type_hints(StandingArmedData)["answer"]
    taken = {a for answers in STANDING_ANSWERS.values() for a in answers}
    assert set(get_args(declared)) == taken

"""The OpenAPI document tells the truth (issue 18, item 4): the schemathesis command
line, with every check (server errors, status codes, content types, response schema
conformance, schema-valid requests accepted and invalid ones refused, ...), its
examples, coverage, fuzzing and stateful phases (the document's links), runs over the
whole API of a live server and reports no failure. The run's settings, and the one
documented exception, are in tests/api/schemathesis.toml; the project's own checks
(tests/api/schemathesis_checks.py: a 422 for a schema-valid request must be one the
documents describe, every error a whole Problem) run beside schemathesis's."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from tests.support import full_game

CONFIG = Path(__file__).with_name("schemathesis.toml")


def _game(live_url: str) -> dict[str, Any]:
    async def make() -> dict[str, Any]:
        async with httpx.AsyncClient(base_url=live_url) as client:
            game = await full_game(client)
            return {"id": game.id, "gm": game.gm_token}

    return asyncio.run(make())


def test_the_schemathesis_command_line_finds_no_failure(live_url: str) -> None:
    game = _game(live_url)
    command = [str(Path(sys.executable).with_name("schemathesis")), "--config-file",
               str(CONFIG), "run", f"{live_url}/openapi.json", "--checks", "all",
               "--phases", "examples,coverage,fuzzing,stateful", "--workers", "1"]
    env = {**os.environ, "WIF_GAME": game["id"], "WIF_TOKEN": game["gm"], "NO_COLOR": "1",
           "WIF_CHECKS": str(CONFIG.with_name("schemathesis_checks.py"))}
    run = subprocess.run(command, env=env, capture_output=True, text=True, timeout=420,
                         check=False)
    summary = run.stdout[-6000:]
    assert run.returncode == 0, summary
    assert " passed" in summary and "failure" not in summary.split("SUMMARY")[-1], summary


def _answer(status: int, problem: dict[str, Any], positive: bool = True) -> tuple[Any, Any]:
    """A response and a case as the project's checks read them (the run loads the checks
    from the configuration's `hooks`: a wrong path fails the run itself)."""
    response = SimpleNamespace(status_code=status, content=json.dumps(problem).encode(),
                               headers={"content-type": ["application/problem+json"]})
    schema = {"components": {"schemas": {"Problem": {"properties": dict.fromkeys(
        ("type", "title", "status", "detail", "code", "rule", "errors"), {})}}}}
    case = SimpleNamespace(
        meta=SimpleNamespace(generation=SimpleNamespace(mode=SimpleNamespace(
            is_positive=positive))),
        operation=SimpleNamespace(schema=SimpleNamespace(raw_schema=schema)))
    return response, case


def test_the_projects_checks_fail_what_the_documents_do_not_describe() -> None:
    checks = _checks()
    shape = {"type": "/problems/request/unknown_key", "title": "Invalid payload",
             "status": 422, "detail": "/x: unknown key", "code": "request/unknown_key"}
    game = {**shape, "type": "/problems/edit/unknown_unit", "code": "edit/unknown_unit"}
    with pytest.raises(AssertionError, match="the schema allows this request"):
        checks.documented_422(None, *_answer(422, shape))
    assert checks.documented_422(None, *_answer(422, shape, positive=False)) is None
    with pytest.raises(AssertionError, match="names no item"):
        checks.documented_422(None, *_answer(422, game))
    game["errors"] = [{"path": "/units/ger-inf-9", "message": "no such unit"}]
    assert checks.documented_422(None, *_answer(422, game)) is True
    assert checks.problem_document(None, *_answer(422, game)) is True
    with pytest.raises(AssertionError, match="does not declare"):
        checks.problem_document(None, *_answer(422, {**game, "secret": 1}))
    with pytest.raises(AssertionError, match="status 409"):
        checks.problem_document(None, *_answer(422, {**game, "status": 409}))


def _checks() -> Any:
    spec = importlib.util.spec_from_file_location("project_checks",
                                                  CONFIG.with_name("schemathesis_checks.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


"""The OpenAPI document tells the truth (issue 18, item 4): the schemathesis command
line, with every check (server errors, status codes, content types, response schema
conformance, schema-valid requests accepted and invalid ones refused, ...), its
examples, coverage, fuzzing and stateful phases (the document's links), runs over the
whole API of a live server and reports no failure. The run's settings, and the one
documented exception, are in tests/api/schemathesis.toml."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx

from tests.support import full_game

CONFIG = Path(__file__).with_name("schemathesis.toml")


def _game(live_url: str) -> dict[str, Any]:
    async def make() -> dict[str, Any]:
        async with httpx.AsyncClient(base_url=live_url) as client:
            game = await full_game(client)
            return {"id": game.id, "gm": game.gm_token}

    return asyncio.run(make())


def test_the_schemathesis_command_line_finds_no_failure(live_url: str, tmp_path: Path) -> None:
    game = _game(live_url)
    command = [str(Path(sys.executable).with_name("schemathesis")), "--config-file",
               str(CONFIG), "run", f"{live_url}/openapi.json", "--checks", "all",
               "--phases", "examples,coverage,fuzzing,stateful", "--workers", "1",
               "--report", "junit", "--report-dir", str(tmp_path)]
    env = {**os.environ, "WIF_GAME": game["id"], "WIF_TOKEN": game["gm"], "NO_COLOR": "1"}
    run = subprocess.run(command, env=env, capture_output=True, text=True, timeout=420,
                         check=False)
    summary = run.stdout[-6000:]
    assert run.returncode == 0, summary
    assert " passed" in summary and "failure" not in summary.split("SUMMARY")[-1], summary

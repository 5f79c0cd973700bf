"""Node, npm and the client kit's JavaScript tools for the tests: the kit (wif.js) run
by Node, and tools/js (openapi-typescript, tsc) installed by scripts/npm-tools.sh.
Where node or npm is missing, the tests that need them are skipped, saying so."""

from __future__ import annotations

import fcntl
import importlib.util
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
KIT = ROOT / "service" / "web" / "wif.js"
TYPES = ROOT / "service" / "web" / "wif-api.d.ts"
MISSING = ("{tool} is missing, so the client kit's JavaScript tests are skipped: install "
           "Node.js 20+ and npm (Debian: apt-get install nodejs npm)")


def node() -> str:
    """The node executable, or skip."""
    found = shutil.which("node")
    if found is None:
        pytest.skip(MISSING.format(tool="node"))
    return found


def npm_tools() -> tuple[Path, float]:
    """tools/js installed (`npm ci` unless its lock is installed already) and the seconds
    that took (waiting for another process's install included); skips without node or
    npm."""
    node()
    if shutil.which("npm") is None:
        pytest.skip(MISSING.format(tool="npm"))
    started = time.monotonic()
    # One install at a time: the suite's xdist workers may both need the tools at once.
    with (ROOT / "tools" / "js" / "package-lock.json").open() as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = subprocess.run([str(ROOT / "scripts" / "npm-tools.sh")], capture_output=True,
                              text=True, check=False)
    assert done.returncode == 0, f"scripts/npm-tools.sh failed:\n{done.stderr}"
    return Path(done.stdout.strip().splitlines()[-1]), time.monotonic() - started


def client_types_script() -> ModuleType:
    """scripts/client_types.py as a module."""
    spec = importlib.util.spec_from_file_location("client_types", ROOT / "scripts" /
                                                  "client_types.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["client_types"] = module
    spec.loader.exec_module(module)
    return module


def run_kit(body: str, data: Any = None, timeout: float = 60) -> Any:
    """Run `body`, the inside of an async function of `kit` (the module) and `data` (the
    JSON given), in Node; its return value, through JSON. A thrown error fails the test
    with its message."""
    script = (f"import * as kit from {json.dumps(KIT.as_uri())};\n"
              "const data = JSON.parse(await new Promise((resolve) => {\n"
              "  let text = ''; process.stdin.on('data', (c) => { text += c; });\n"
              "  process.stdin.on('end', () => resolve(text)); }));\n"
              f"const result = await (async () => {{\n{body}\n}})();\n"
              "process.stdout.write(JSON.stringify(result ?? null));\n")
    done = subprocess.run([node(), "--input-type=module", "-e", script],
                          input=json.dumps(data), capture_output=True, text=True,
                          timeout=timeout, check=False)
    assert done.returncode == 0, f"node failed:\n{done.stderr}"
    return json.loads(done.stdout)

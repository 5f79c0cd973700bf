"""What can be checked of the deployment files without a Docker engine, and the
project's conventions (the README's commands, CI, the pure rules package)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def _readme_commands() -> tuple[str, str]:
    text = (ROOT / "README.md").read_text()
    run = re.search(r"<!-- example: run -->\s*```sh\n(.+?)\n```", text, re.S)
    test = re.search(r"<!-- example: test -->\s*```sh\n(.+?)\n```", text, re.S)
    assert run and test, "README must mark its run and test commands"
    return run.group(1).strip(), test.group(1).strip()


def test_compose_has_postgres_and_the_service_with_healthchecks() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    assert set(services) == {"db", "service"}
    assert services["db"]["image"].startswith("postgres:")
    assert "healthcheck" in services["db"] and "healthcheck" in services["service"]
    assert services["service"]["depends_on"]["db"]["condition"] == "service_healthy"
    assert services["service"]["environment"]["DATABASE_URL"].startswith("postgresql+asyncpg://")


def test_the_image_starts_with_the_readme_run_command() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    cmd = re.search(r'^CMD \[(.+)\]$', dockerfile, re.M)
    assert cmd
    image_command = " ".join(part.strip().strip('"') for part in cmd.group(1).split(","))
    run, _ = _readme_commands()
    assert run.endswith(image_command.replace("python ", ".venv/bin/python ", 1))
    assert re.search(r"^USER (?!root)", dockerfile, re.M)


def test_rules_package_imports_nothing_impure() -> None:
    banned = re.compile(
        r"^\s*(from|import)\s+(sqlalchemy|fastapi|starlette|httpx|asyncpg|pydantic|alembic|"
        r"service\.(api|referee|store|crypto))\b|os\.urandom|random\.(random|randint|choice|"
        r"seed)\(|secrets\.|datetime\.now|time\.time\(", re.M)
    for path in (ROOT / "service" / "rules").rglob("*.py"):
        assert not banned.search(path.read_text()), path


def test_cli_help_lists_the_commands() -> None:
    out = subprocess.run([sys.executable, "-m", "service", "--help"], capture_output=True,
                         text=True, check=True).stdout
    for command in ("serve", "migrate", "verify", "simulate"):
        assert command in out


CONTRACTS = ("rules stay pure", "layers", "the API speaks HTTP and calls the referee",
             "no import cycles", "rules packages keep their insides")


def _lint_imports(root: Path) -> str:
    done = subprocess.run([str(Path(sys.executable).parent / "lint-imports")], cwd=root,
                          capture_output=True, text=True, check=False,
                          env={**os.environ, "PYTHONPATH": str(root)})
    return done.stdout


def test_import_contracts_hold() -> None:
    """pyproject's import-linter contracts: the rules stay pure, layers import one way, the
    API reaches no table, no module imports itself back, rules packages keep their
    insides."""
    out = _lint_imports(ROOT)
    for name in CONTRACTS:
        assert f"{name} KEPT" in out, out[-2000:]
    assert f"Contracts: {len(CONTRACTS)} kept, 0 broken." in out


def test_import_contracts_fail_on_a_cycle_and_on_sql_in_the_api(tmp_path: Path) -> None:
    """The contracts are not vacuous: a copy of the tree with an import cycle, an API
    module that imports the store and a reach into a rules package's insides breaks
    exactly those contracts."""
    shutil.copytree(ROOT / "service", tmp_path / "service",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "service" / "clock.py").write_text(
        (ROOT / "service" / "clock.py").read_text() + "\nfrom service import settings  # noqa\n")
    settings = tmp_path / "service" / "settings.py"
    settings.write_text(settings.read_text() + "\nfrom service import clock  # noqa\n")
    health = tmp_path / "service" / "api" / "health.py"
    health.write_text(health.read_text() + "\nfrom service.store import models  # noqa\n")
    view = tmp_path / "service" / "rules" / "view.py"
    view.write_text(view.read_text() + "\nfrom service.rules.reorg import plan  # noqa\n")
    out = _lint_imports(tmp_path)
    for name in ("the API speaks HTTP and calls the referee", "no import cycles",
                 "rules packages keep their insides"):
        assert f"{name} BROKEN" in out, out[-3000:]


def test_lint_and_strict_types() -> None:
    """STYLE.md habits: ruff (E, F, I, B, UP) on the tree, mypy --strict on service/."""
    bin_dir = Path(sys.executable).parent
    ruff = subprocess.run([str(bin_dir / "ruff"), "check", "."], cwd=ROOT, capture_output=True,
                          text=True, check=False)
    assert ruff.returncode == 0, ruff.stdout[-3000:]
    mypy = subprocess.run([str(bin_dir / "mypy"), "service"], cwd=ROOT, capture_output=True,
                          text=True, check=False)
    assert mypy.returncode == 0, mypy.stdout[-3000:]

#!/usr/bin/env bash
# Creates .venv when missing and installs the pinned dependencies and the project.
# Needs only Python 3.11+; re-running is cheap (a stamp records what was installed).
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$python" -m venv .venv
fi
stamp=".venv/.installed-$(cat requirements.lock pyproject.toml | sha256sum | cut -c1-16)"
if [ ! -f "$stamp" ]; then
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements.lock
  .venv/bin/python -m pip install --quiet --disable-pip-version-check --no-deps -e .
  rm -f .venv/.installed-*
  touch "$stamp"
fi
# The browser test (tests/web) drives Debian's chromium; install it when missing.
if [ ! -x /usr/bin/chromium ]; then
  ./scripts/install-browser.sh
fi

#!/usr/bin/env bash
# Installs what the end-to-end browser test needs (tests/web): Debian's chromium at
# /usr/bin/chromium (apt) and the Playwright Python package in .venv.
# Never runs `playwright install`: that downloads a browser build from the internet;
# the tests drive the system chromium through executable_path instead.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x /usr/bin/chromium ]; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-browser: /usr/bin/chromium is missing and apt-get is not available;" >&2
    echo "install chromium with your package manager (it must end up at /usr/bin/chromium)" >&2
    exit 1
  fi
  sudo=""
  if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update
  $sudo apt-get install -y --no-install-recommends chromium
fi
/usr/bin/chromium --version

python=.venv/bin/python
if [ ! -x "$python" ]; then
  echo "install-browser: no .venv yet; run scripts/bootstrap.sh first" >&2
  exit 1
fi
if ! "$python" -c "import playwright" 2>/dev/null; then
  # The pinned version lives in requirements.lock; this is the fallback for a venv
  # made before it was added.
  pin=$(grep -E '^playwright==' requirements.lock 2>/dev/null || echo "playwright")
  "$python" -m pip install --quiet --disable-pip-version-check "$pin"
fi
"$python" -c "from importlib.metadata import version; print('playwright', version('playwright'))"

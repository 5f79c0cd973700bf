#!/usr/bin/env bash
# Installs the client kit's JavaScript tools (tools/js: openapi-typescript, axe-core and
# typescript, the exact versions of tools/js/package-lock.json) into
# tools/js/node_modules with `npm ci`. Re-running is cheap: a stamp records which lock
# was installed, and `npm ci` runs again only when the lock changed.
# Needs node and npm (Debian: apt-get install nodejs npm). Prints the tools' folder.
set -euo pipefail
cd "$(dirname "$0")/../tools/js"
for tool in node npm; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "npm-tools: $tool is missing; install Node.js 20+ and npm (Debian: apt-get install nodejs npm)" >&2
    exit 3
  fi
done
stamp="node_modules/.installed-$(sha256sum package-lock.json | cut -c1-16)"
if [ ! -f "$stamp" ]; then
  npm ci --no-audit --no-fund --loglevel=error >&2
  touch "$stamp"
fi
pwd

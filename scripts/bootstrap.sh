#!/usr/bin/env bash
# Create .venv (if missing) and install the platform, the workflow service, the example outside
# module (examples/tramita-module-alvara, installed like a module team's package) and the dev tools.
# Set TRAMITA_WITHOUT_WORKFLOW=1 to leave the optional workflow service out.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
. .venv/bin/activate
stamp=.venv/.tramita-installed
example=./examples/tramita-module-alvara
want="$(cat pyproject.toml constraints.txt "$example/pyproject.toml" $( [ -f services/workflow/pyproject.toml ] && echo services/workflow/pyproject.toml ) | sha256sum | cut -c1-16)-${TRAMITA_WITHOUT_WORKFLOW:-0}"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  python -m pip install --quiet --disable-pip-version-check --upgrade pip setuptools wheel
  if [ "${TRAMITA_WITHOUT_WORKFLOW:-0}" = "1" ]; then
    python -m pip install --quiet --disable-pip-version-check -e '.[dev]' -e "$example" -c constraints.txt
  else
    python -m pip install --quiet --disable-pip-version-check -e '.[dev]' -e ./services/workflow \
      -e "$example" -c constraints.txt
  fi
  echo "$want" > "$stamp"
fi
# axe-core for the browser accessibility scans (tests/e2e/ui), when npm is available.
if [ -f package-lock.json ] && [ ! -d node_modules/axe-core ] && command -v npm >/dev/null 2>&1; then
  npm ci --prefer-offline --no-audit --no-fund --silent
fi
# The version page's diagram bundle (bpmn-js via esbuild); without npm the page shows only the list.
bash scripts/build_ui.sh || echo "bootstrap: scripts/build_ui.sh failed; pages work without the diagram" >&2

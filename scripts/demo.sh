#!/usr/bin/env bash
# Set up (first run only) and run the demo on the embedded defaults: SQLite, in-process delivery.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
. .venv/bin/activate
exec tramita demo "$@"

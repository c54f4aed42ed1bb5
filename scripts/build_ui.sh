#!/usr/bin/env bash
# Bundle the admin pages' browser code (the read-only BPMN diagram, bpmn-js) with esbuild into
# services/workflow/ui/static/vendor/ (not committed; see docs/ui.md). Without npm it builds
# nothing and says so: the pages still work, the version page shows its list without a diagram.
set -euo pipefail
cd "$(dirname "$0")/.."
src=services/workflow/ui/assets
out=services/workflow/ui/static/vendor
if [ ! -f "$src/diagram.js" ]; then
  exit 0  # the workflow service is not in this tree (.ci/without-service): nothing to build
fi
if ! command -v npm >/dev/null 2>&1; then
  echo "build_ui: npm not found; the version page will show no diagram (the list remains)" >&2
  exit 0
fi
# npm ci when a package is missing or package-lock.json changed since the last install.
if [ ! -d node_modules/bpmn-js ] || [ ! -d node_modules/esbuild ] || [ ! -d node_modules/axe-core ] \
  || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --prefer-offline --no-audit --no-fund --silent
fi
# Up to date when both outputs are newer than every input.
if [ -f "$out/diagram.js" ] && [ -f "$out/diagram.css" ] \
  && [ -z "$(find "$src" package-lock.json scripts/build_ui.sh -newer "$out/diagram.js" -print -quit)" ] \
  && [ -z "$(find "$src" package-lock.json scripts/build_ui.sh -newer "$out/diagram.css" -print -quit)" ]; then
  exit 0
fi
mkdir -p "$out"
esbuild=node_modules/.bin/esbuild
"$esbuild" "$src/diagram.js" --bundle --format=esm --minify --target=es2020 \
  --legal-comments=eof --log-level=warning --outfile="$out/diagram.js"
"$esbuild" "$src/diagram.css" --bundle --minify --legal-comments=eof --log-level=warning \
  --outfile="$out/diagram.css"
echo "build_ui: wrote $out/diagram.js and $out/diagram.css"

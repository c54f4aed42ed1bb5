#!/usr/bin/env bash
# Set up (first run only) and run the whole test suite: once on SQLite (with every test that
# needs no database), once more on PostgreSQL for every database test. PostgreSQL and Redis tests
# skip on a machine without them, except in CI (CI=true), where they fail instead.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh || exit 1
. .venv/bin/activate
export PYTHONDONTWRITEBYTECODE=1
# Many tests start `tramita` and worker processes; with bytecode writing off each of them would
# compile the project from source again (about half a second of CPU each). Compile it once here.
python -m compileall -q -j 0 contracts core services modules examples tests >/dev/null || exit 1

run() {
  python -m pytest "$@"
  code=$?
  if [ "$code" = 5 ]; then
    echo "pytest collected no tests for: $*" >&2
    return 1
  fi
  return "$code"
}

# Both cores: each pytest-xdist worker has its own databases (tests/conftest.py); an idle worker
# takes tests from a busy one. TRAMITA_TEST_WORKERS=0 runs in this process only.
workers=(-n "${TRAMITA_TEST_WORKERS:-2}" --dist worksteal)
# Coverage slows every test by about a quarter: measured on request (TRAMITA_TEST_COVERAGE=1).
cov_first=() cov_last=()
if [ "${TRAMITA_TEST_COVERAGE:-0}" = "1" ]; then
  cov_first=(--cov --cov-report=)
  cov_last=(--cov --cov-append --cov-report=term:skip-covered)
fi
status=0
echo "== tests on SQLite =="
TRAMITA_TEST_BACKEND=sqlite run -q -rfE "${workers[@]}" "${cov_first[@]}" "$@" || status=1
# The browser tests (tests/e2e/ui) run once, on SQLite: they check what a page shows and how it
# behaves in Chromium; what each page reads and writes is tested on both databases by the HTTP
# page tests in tests/e2e/api.
echo "== database tests on PostgreSQL =="
TRAMITA_TEST_BACKEND=postgresql run -q -rfE -m db --ignore=tests/e2e/ui "${workers[@]}" \
  "${cov_last[@]}" "$@" || status=1
# The example outside module's own suite, as its team runs it: from its folder, with its own
# pytest settings (its `tests` package would shadow ours in one session), on both databases.
echo "== the example outside module's own tests (examples/tramita-module-alvara) =="
(cd examples/tramita-module-alvara && TRAMITA_TEST_BACKEND=all run -q -p no:cacheprovider tests) \
  || status=1
exit $status

#!/usr/bin/env bash
# Bring every catalog (core/locale, services/workflow/locale, ...) up to date with the strings the
# code and templates use, and list what is still untranslated in pt-BR. Translate by editing the
# msgstr lines of the .po files; tests/unit/core/test_i18n.py fails while any is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
. .venv/bin/activate
python -m core.i18n_catalog

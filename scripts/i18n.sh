#!/usr/bin/env bash
# Bring every catalog (core/locale, services/workflow/locale, ...) up to date with the strings the
# code and templates use, and list what is still untranslated in pt-BR; then the same for the help
# of the commands (cli_locale/*/help.po, compiled to the committed help.mo: core.cli_help).
# Translate by editing the msgstr lines of the .po files (then run this again for help.mo);
# tests/unit/core/test_i18n.py and test_cli_help.py fail while any is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
. .venv/bin/activate
python -m core.i18n_catalog
python -m core.cli_help

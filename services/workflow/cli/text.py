"""The service's command-line text in the reader's language (``TRAMITA_LANG``, else pt-BR),
from the service's catalog; Babel is imported only when a command has text to show."""

from __future__ import annotations

import os
from pathlib import Path

LOCALE_DIR = Path(__file__).parent.parent / "locale"


def gettext(message: str) -> str:
    from core import i18n

    i18n.set_locale(os.environ.get("TRAMITA_LANG", "pt_BR"))
    i18n.add_catalog_directory(LOCALE_DIR)
    return i18n.gettext(message)


def N_(message: str) -> str:
    """Marks a msgid translated later (tables built at import time)."""
    return message

"""The kernel's command-line text in the reader's language (``TRAMITA_LANG``, else pt-BR), from
``core/locale``; Babel is imported only when a command has text to show (never by ``--help``)."""

from __future__ import annotations

import os


def gettext(message: str) -> str:
    from core import i18n

    i18n.set_locale(os.environ.get("TRAMITA_LANG", "pt_BR"))
    return i18n.gettext(message)

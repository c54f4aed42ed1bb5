"""click's own words (``Usage:``, ``Options``, its error messages) in the reader's language.

click marks its messages with the standard library's ``gettext`` (``from gettext import
gettext as _`` in each of its modules), i.e. gettext's default ``messages`` domain and the
language of the ``LANGUAGE`` environment variable. The CLI binds that domain to
``core/cli_locale`` and sets ``LANGUAGE`` from ``TRAMITA_LANG`` (:func:`install`); the catalog
there holds the msgids of click a person meets. The standard library reads only compiled
``.mo`` files, so ``messages.mo`` is committed beside its ``.po``:
``python -m core.cli_catalog`` rebuilds it, and ``tests/unit/core/test_cli_catalog.py`` fails
while the two differ or when a msgid is no longer one of click's.
"""

from __future__ import annotations

import gettext
import os
from pathlib import Path

LOCALE_DIR = Path(__file__).parent / "cli_locale"
DOMAIN = "messages"
"""gettext's default domain: the one click's ``gettext.gettext`` calls use."""


def language(tramita_lang: str | None) -> str:
    """``en`` for an English ``TRAMITA_LANG``, else pt-BR (the default, as ``core.i18n``)."""
    value = (tramita_lang or "").strip().lower().replace("-", "_")
    return "en" if value.split("_")[0] == "en" else "pt_BR"


def install() -> None:
    """Make click speak the language of ``TRAMITA_LANG`` in this process (cheap: nothing is
    read until click formats a message)."""
    os.environ["LANGUAGE"] = language(os.environ.get("TRAMITA_LANG"))
    gettext.bindtextdomain(DOMAIN, str(LOCALE_DIR))


def po_path(locale: str = "pt_BR") -> Path:
    return LOCALE_DIR / locale / "LC_MESSAGES" / f"{DOMAIN}.po"


def compile_catalog(locale: str = "pt_BR") -> bytes:
    """The ``.mo`` bytes of ``locale``'s ``.po`` (Babel: a development tool, not a start-up
    cost)."""
    import io

    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with po_path(locale).open("rb") as handle:
        catalog = read_po(handle, locale=locale, domain=DOMAIN)
    buffer = io.BytesIO()
    write_mo(buffer, catalog, use_fuzzy=False)
    return buffer.getvalue()


def main() -> None:
    for po_file in sorted(LOCALE_DIR.glob(f"*/LC_MESSAGES/{DOMAIN}.po")):
        locale = po_file.parent.parent.name
        po_file.with_suffix(".mo").write_bytes(compile_catalog(locale))
        print(f"{po_file.with_suffix('.mo').relative_to(LOCALE_DIR.parent.parent)} rebuilt")


if __name__ == "__main__":
    main()

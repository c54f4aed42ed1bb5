"""The catalogs' upkeep: extract every translatable string and bring the ``.po`` files up to date.

``python -m core.i18n_catalog`` (or ``bash scripts/i18n.sh``) extracts the msgids of each
package that shows text — ``_()``, ``N_()``, ``gettext``/``ngettext`` in Python, ``_()`` and
``{% trans %}`` in its Jinja2 templates, and, for the kernel, the title of every
``TramitaError`` (error pages show it) — and merges them into each locale's ``messages.po``,
keeping what translators wrote. ``untranslated()`` is what the catalog test asserts is empty.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

from contracts import errors
from core.i18n import DOMAIN, SUPPORTED

ROOT = Path(__file__).resolve().parent.parent
METHODS = [
    ("**/templates/**.html", "jinja2"),
    ("**/locale/**", "ignore"),
    ("**.py", "python"),
]
OPTIONS = {"**/templates/**.html": {"extensions": "jinja2.ext.i18n", "newstyle_gettext": "true"}}


def packages() -> list[tuple[Path, Path]]:
    """(source directory, its locale directory) of every package that ships a catalog."""
    found = []
    for locale_dir in sorted(ROOT.glob("**/locale")):
        if ".venv" in locale_dir.parts or "node_modules" in locale_dir.parts:
            continue
        if (locale_dir / SUPPORTED[0] / "LC_MESSAGES" / f"{DOMAIN}.po").is_file():
            found.append((locale_dir.parent, locale_dir))
    return found


def _error_titles() -> Iterator[str]:
    stack: list[type[errors.TramitaError]] = [errors.TramitaError]
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        if cls.__module__ == errors.__name__ and cls.title:
            yield cls.title


def extract(source: Path) -> Catalog:
    catalog = Catalog(
        domain=DOMAIN, project="Tramita", creation_date=datetime(2026, 1, 1, tzinfo=UTC)
    )
    for filename, lineno, message, comments, context in extract_from_dir(
        str(source), METHODS, OPTIONS, strip_comment_tags=True
    ):
        catalog.add(message, None, [(filename, lineno)], auto_comments=comments, context=context)
    if source == ROOT / "core":
        for title in _error_titles():
            catalog.add(title, None, [("contracts/errors.py", 0)])
    return catalog


def _po_path(locale_dir: Path, locale: str) -> Path:
    return locale_dir / locale / "LC_MESSAGES" / f"{DOMAIN}.po"


def read(locale_dir: Path, locale: str) -> Catalog:
    path = _po_path(locale_dir, locale)
    with path.open("rb") as handle:
        return read_po(handle, locale=locale, domain=DOMAIN)


def update(source: Path, locale_dir: Path) -> None:
    template = extract(source)
    for locale in SUPPORTED:
        path = _po_path(locale_dir, locale)
        if path.is_file():
            catalog = read(locale_dir, locale)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            catalog = Catalog(locale=locale, domain=DOMAIN, project="Tramita")
        catalog.update(template, no_fuzzy_matching=True)
        catalog.obsolete.clear()
        with path.open("wb") as handle:
            write_po(
                handle,
                catalog,
                width=100,
                omit_header=False,
                sort_output=True,
                include_lineno=False,
            )


def _translated(string: object) -> bool:
    if isinstance(string, str):
        return bool(string)
    return isinstance(string, tuple | list) and all(string)


def untranslated(source: Path, locale_dir: Path, locale: str = SUPPORTED[0]) -> list[str]:
    """msgids the code or templates use that the locale's catalog does not translate."""
    template = extract(source)
    catalog = read(locale_dir, locale)
    missing = []
    for message in template:
        if not message.id:
            continue
        key = message.id if isinstance(message.id, str) else message.id[0]
        found = catalog.get(message.id, context=message.context)
        if found is None or found.fuzzy or not _translated(found.string):
            missing.append(key)
    return sorted(missing)


def main() -> int:
    for source, locale_dir in packages():
        update(source, locale_dir)
        gaps = untranslated(source, locale_dir)
        rel = locale_dir.relative_to(ROOT)
        print(f"{rel}: {len(gaps)} untranslated in {SUPPORTED[0]}")
        for gap in gaps:
            print(f"  {gap}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Translations: gettext catalogs (Babel) for everything a person reads, pt-BR first.

Source strings (msgids) are English, as the code is; each package that shows text keeps its
catalogs beside it as ``locale/<lang>/LC_MESSAGES/messages.po`` (``core/locale`` for the
kernel, ``services/workflow/locale`` for the engine's pages and CLI). The ``.po`` files are the
only source: they are compiled on first use (the result cached under the hash of the ``.po``'s
content), so a stale ``.mo`` can never be shown.

The locale in force is a context variable: the web app sets it per request (the visitor's
choice in the ``tramita_lang`` cookie, else ``Accept-Language``, else pt-BR); the CLI sets it
from ``TRAMITA_LANG`` (else pt-BR). ``gettext`` and ``ngettext`` read it, and templates get
them through Jinja2's i18n extension (``{{ _("…") }}`` and ``{% trans %}``).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from pathlib import Path
from typing import Any

from babel import Locale, UnknownLocaleError
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import NullTranslations, Translations

from contracts.errors import FieldError, render_message

DEFAULT_LOCALE = "pt_BR"
SUPPORTED = ("pt_BR", "en")
"""The catalogs Tramita ships; English is the msgid language, so its catalog may stay empty."""

LANG_COOKIE = "tramita_lang"
DOMAIN = "messages"
CORE_LOCALE_DIR = Path(__file__).parent / "locale"

_current: ContextVar[str] = ContextVar("tramita_locale", default=DEFAULT_LOCALE)
_directories: list[Path] = [CORE_LOCALE_DIR]


def add_catalog_directory(directory: Path | str) -> None:
    """Make a package's ``locale/`` directory part of every locale's translations."""
    path = Path(directory)
    if path not in _directories:
        _directories.append(path)
        _translations.cache_clear()


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tramita" / "catalogs"


def _compile(po_file: Path, locale: str) -> Translations:
    """The ``.po`` compiled; the compiled bytes are kept in the user's cache under the hash of
    the ``.po``'s content, so a command skips the parse next time and a changed ``.po`` can
    never meet an old compilation (an unwritable cache only costs the parse)."""
    source = po_file.read_bytes()
    digest = hashlib.sha256(source + locale.encode()).hexdigest()[:32]
    cached = _cache_dir() / f"{digest}.mo"
    try:
        return Translations(io.BytesIO(cached.read_bytes()), domain=DOMAIN)
    except Exception:  # noqa: BLE001 - absent or damaged: compile again
        pass
    catalog = read_po(io.BytesIO(source), locale=locale, domain=DOMAIN)
    buffer = io.BytesIO()
    write_mo(buffer, catalog, use_fuzzy=False)
    with contextlib.suppress(OSError):
        cached.parent.mkdir(parents=True, exist_ok=True)
        partial = cached.with_suffix(f".{os.getpid()}.tmp")
        partial.write_bytes(buffer.getvalue())
        partial.replace(cached)
    buffer.seek(0)
    return Translations(buffer, domain=DOMAIN)


@cache
def _translations(locale: str) -> NullTranslations:
    merged: NullTranslations | None = None
    for directory in _directories:
        po_file = directory / locale / "LC_MESSAGES" / f"{DOMAIN}.po"
        if not po_file.is_file():
            continue
        compiled = _compile(po_file, locale)
        if merged is None:
            merged = compiled
        else:
            assert isinstance(merged, Translations)
            merged.merge(compiled)
    return merged if merged is not None else NullTranslations()


def normalise(value: str | None) -> str | None:
    """A supported locale for a tag such as ``pt-BR``, ``pt``, ``en-US``; None if unsupported."""
    if not value:
        return None
    try:
        parsed = Locale.parse(value.strip().replace("-", "_"))
    except (ValueError, UnknownLocaleError):
        return None
    exact = f"{parsed.language}_{parsed.territory}" if parsed.territory else parsed.language
    if exact in SUPPORTED:
        return exact
    for candidate in SUPPORTED:
        if candidate.split("_")[0] == parsed.language:
            return candidate
    return None


def negotiate(accept_language: str | None, chosen: str | None = None) -> str:
    """The visitor's explicit choice, else the best of ``Accept-Language``, else pt-BR."""
    explicit = normalise(chosen)
    if explicit:
        return explicit
    for tag in _accepted(accept_language or ""):
        found = normalise(tag)
        if found:
            return found
    return DEFAULT_LOCALE


def _accepted(header: str) -> Iterator[str]:
    """Language tags of an ``Accept-Language`` header, highest quality first."""
    weighted: list[tuple[float, int, str]] = []
    for position, part in enumerate(header.split(",")):
        tag, _, params = part.strip().partition(";")
        if not tag or tag == "*":
            continue
        quality = 1.0
        if params.strip().startswith("q="):
            try:
                quality = float(params.strip()[2:])
            except ValueError:
                quality = 0.0
        if quality > 0:
            weighted.append((-quality, position, tag))
    yield from (tag for _, _, tag in sorted(weighted))


def current_locale() -> str:
    return _current.get()


def set_locale(locale: str) -> None:
    _current.set(normalise(locale) or DEFAULT_LOCALE)


@contextmanager
def using(locale: str) -> Iterator[None]:
    token = _current.set(normalise(locale) or DEFAULT_LOCALE)
    try:
        yield
    finally:
        _current.reset(token)


def N_(message: str) -> str:
    """Marks a string for the catalog where it is defined; ``gettext`` translates it where it
    is shown (a message table built at import time, before any locale is known)."""
    return message


def gettext(message: str) -> str:
    return _translations(_current.get()).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    return _translations(_current.get()).ngettext(singular, plural, n)


OR = N_("or")
"""Joins alternatives in a field error's ``*_msg`` parameter ("a string or null")."""


def localized(error: FieldError) -> FieldError:
    """``error`` with its ``message`` in the current locale, when it carries a catalog
    ``template`` (its ``path`` and ``code`` never change); as it is otherwise."""
    if not error.template:
        return error
    try:
        message = render_message(error.template, error.params, gettext)
    except (KeyError, TypeError, ValueError):
        message = error.message
    return FieldError(
        path=error.path,
        code=error.code,
        message=message,
        template=error.template,
        params=error.params,
    )


def html_lang() -> str:
    """The ``lang`` attribute of a page in the current locale (``pt-BR``, ``en``)."""
    return _current.get().replace("_", "-")


def install(environment: Any) -> None:
    """Jinja2's i18n extension with our callables (new-style: ``_("x %(n)s", n=1)``)."""
    environment.add_extension("jinja2.ext.i18n")
    environment.install_gettext_callables(gettext, ngettext, newstyle=True)
    environment.globals["html_lang"] = html_lang
    environment.globals["current_locale"] = current_locale


def directories() -> Iterable[Path]:
    return tuple(_directories)

"""How a failed ``tramita`` command ends: one line on stderr, in the reader's language, and an
exit code a script can test. Imported only when something went wrong.

Exit codes: 0 done; 1 refused (a Tramita error: unknown id, invalid definition, conflict);
2 bad usage or input (missing argument, unreadable file, malformed JSON/YAML/XML, a plugin
that cannot load);
3 configuration or database unreachable (bad ``TRAMITA_DATABASE_URL``, host down);
70 unexpected error (a bug: the line names the error class; ``--verbose`` shows the traceback);
130 interrupted (Ctrl-C). Messages carry identifiers only, never the database URL or input data.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from pathlib import Path

import click

from contracts.errors import ConfigurationError, PluginError, TramitaError
from core.i18n import gettext as _
from core.i18n import localized, set_locale

EXIT_REFUSED = 1
EXIT_USAGE = 2
EXIT_UNAVAILABLE = 3
EXIT_SOFTWARE = 70
EXIT_INTERRUPTED = 130

_DATABASE_DOWN = frozenset({"OperationalError", "InterfaceError", "DatabaseError", "TimeoutError"})
_DATABASE_URL = frozenset({"ArgumentError", "NoSuchModuleError"})


def _names(exc: BaseException) -> set[str]:
    return {cls.__name__ for cls in type(exc).__mro__}


def _from_sqlalchemy(exc: BaseException) -> bool:
    return type(exc).__module__.startswith(("sqlalchemy", "psycopg", "sqlite3", "aiosqlite"))


def is_database_down(exc: BaseException) -> bool:
    """A database driver's error that says the server did not answer (down, refused, gone)."""
    return _from_sqlalchemy(exc) and bool(_names(exc) & _DATABASE_DOWN)


def _tramita(exc: TramitaError) -> str:
    line = _(exc.detail)
    problems = "; ".join(f"{e.path}: {e.message}" for e in map(localized, exc.errors))
    return f"{line} ({problems})" if problems else line


def describe(exc: BaseException) -> tuple[str, int]:
    """The one-line message (without the ``erro:`` prefix) and the exit code for ``exc``."""
    if isinstance(exc, click.MissingParameter) and exc.param is not None:
        name = exc.param.human_readable_name
        return _("missing %(what)s %(name)s") % {
            "what": _("argument") if isinstance(exc.param, click.Argument) else _("option"),
            "name": name if isinstance(exc.param, click.Option) else repr(name),
        }, EXIT_USAGE
    if isinstance(exc, click.BadParameter) and exc.param is not None:
        return _("invalid value for %(name)s: %(reason)s") % {
            "name": exc.param.human_readable_name,
            "reason": exc.message,
        }, EXIT_USAGE
    if isinstance(exc, click.exceptions.NoSuchCommand):
        return _("unknown command %(name)s") % {"name": repr(exc.command_name)}, EXIT_USAGE
    if isinstance(exc, click.NoSuchOption):
        return _("unknown option %(name)s") % {"name": exc.option_name}, EXIT_USAGE
    if isinstance(exc, click.ClickException):
        return exc.format_message(), EXIT_USAGE
    if isinstance(exc, click.exceptions.Abort | KeyboardInterrupt):
        return _("interrupted"), EXIT_INTERRUPTED
    if isinstance(exc, ConfigurationError):
        return _tramita(exc), EXIT_UNAVAILABLE
    if isinstance(exc, PluginError):
        return _tramita(exc), EXIT_USAGE
    if isinstance(exc, TramitaError):
        return _tramita(exc), EXIT_REFUSED
    if isinstance(exc, json.JSONDecodeError):
        return _("not valid JSON (line %(line)s, column %(column)s)") % {
            "line": exc.lineno,
            "column": exc.colno,
        }, EXIT_USAGE
    names = _names(exc)
    if "YAMLError" in names:
        return _("not valid YAML"), EXIT_USAGE
    if "ParseError" in names and type(exc).__module__.startswith("xml"):
        return _("not valid XML"), EXIT_USAGE
    if _from_sqlalchemy(exc) and names & _DATABASE_URL:
        return _("TRAMITA_DATABASE_URL is not a database URL Tramita can use"), EXIT_UNAVAILABLE
    if _from_sqlalchemy(exc) and names & _DATABASE_DOWN:
        return _("the database cannot be reached (%(error)s); check TRAMITA_DATABASE_URL") % {
            "error": type(exc).__name__
        }, EXIT_UNAVAILABLE
    if isinstance(exc, ConnectionError | TimeoutError):
        return _("a service cannot be reached (%(error)s)") % {
            "error": type(exc).__name__
        }, EXIT_UNAVAILABLE
    if isinstance(exc, OSError) and exc.filename is not None:
        return _("cannot read %(file)s: %(reason)s") % {
            "file": exc.filename,
            "reason": exc.strerror or type(exc).__name__,
        }, EXIT_USAGE
    return _("unexpected error (%(error)s); run again with --verbose to see the traceback") % {
        "error": type(exc).__name__
    }, EXIT_SOFTWARE


def _plugin_catalogs() -> None:
    """The ``locale/`` folders beside the loaded plugins (the service's messages live there)."""
    from importlib.metadata import entry_points

    from core.i18n import add_catalog_directory
    from core.plugins import GROUPS

    for group in GROUPS:
        for ep in entry_points(group=group):
            module = sys.modules.get(ep.module)
            if module is not None and module.__file__:
                folder = Path(module.__file__).parent / "locale"
                if folder.is_dir():
                    add_catalog_directory(folder)


def report(exc: BaseException, *, verbose: bool) -> int:
    """Print ``exc`` as one line on stderr (the traceback first when ``verbose``); the exit
    code. ``SystemExit`` keeps its own code: the command already said what happened."""
    if isinstance(exc, SystemExit):
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else EXIT_REFUSED)
    if isinstance(exc, click.exceptions.Exit):
        return exc.exit_code
    set_locale(os.environ.get("TRAMITA_LANG", "pt_BR"))
    _plugin_catalogs()
    if verbose and not isinstance(exc, click.ClickException):
        traceback.print_exception(exc, file=sys.stderr)
    message, code = describe(exc)
    one_line(message)
    return code


def one_line(message: str) -> None:
    """``erro: <message>`` on stderr, in the reader's language, on a single line."""
    set_locale(os.environ.get("TRAMITA_LANG", "pt_BR"))
    click.echo(_("error: %(message)s") % {"message": " ".join(message.split())}, err=True)

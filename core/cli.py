"""The ``tramita`` command line; optional services add their own subcommands through a hook.

Start-up is kept short: this module imports click and little else. The kernel's own commands and
every plugin command registered with ``registry.lazy(...)`` are imported only when they run, so
``tramita --help`` never imports the workflow service. Every failure a person can cause ends in
one line on stderr and a non-zero exit (``core.cli_errors``); ``--verbose`` adds the traceback
and the debug logs. Logs always go to stderr; stdout carries only the command's output.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import click

from core.cli_lazy import LazyCommand, LazyGroup

if TYPE_CHECKING:
    import asyncio

    from core.plugins import PluginHost

T = TypeVar("T")

KERNEL_COMMANDS = (
    LazyCommand("plugins", "core.cli_kernel:plugins_cmd", "List the discovered plugins."),
    LazyCommand("db", "core.cli_kernel:db_group", "Database schema management."),
    LazyCommand("demo", "core.cli_kernel:demo_cmd", "Run one case of each installed process."),
    LazyCommand("serve", "core.cli_kernel:serve_cmd", "Serve the HTTP API and pages."),
    LazyCommand("run", "core.cli_kernel:run_cmd", "Everything in one process (embedded)."),
    LazyCommand("audit", "core.cli_audit:audit_group", "The audit trail."),
    LazyCommand("user", "core.cli_identity:user_group", "Local users."),
    LazyCommand("token", "core.cli_identity:token_group", "API tokens."),
    LazyCommand("tenant", "core.cli_tenants:tenant_group", "Tenants (municipalities, bodies)."),
)
LONG_RUNNING = frozenset({"serve", "run", "tick", "worker", "relay"})
"""Commands that log at the configured level (servers); the others are quiet unless --verbose."""


def _loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop (libuv) unless ``TRAMITA_EVENT_LOOP=asyncio``: the processes spend much of their
    time in socket I/O, where it needs less CPU than the standard loop."""
    if os.environ.get("TRAMITA_EVENT_LOOP", "uvloop") == "asyncio":
        return None
    import uvloop

    factory: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    return factory


def run_async(factory: Callable[[], Awaitable[T]]) -> T:
    """Run a command's coroutine; a failure ends the command with one line on stderr and its
    exit code (``core.cli_errors``), also when the command is invoked without the root group."""
    import asyncio

    try:
        with asyncio.Runner(loop_factory=_loop_factory()) as runner:
            return runner.run(factory())  # type: ignore[arg-type]
    except Exception as exc:  # noqa: BLE001 -- every failure becomes one line
        from core.cli_errors import report

        sys.exit(report(exc, verbose=verbose()))


def _host() -> PluginHost:
    from core.plugins import PluginHost

    host = PluginHost()
    host.discover()
    return host


def verbose() -> bool:
    """Whether ``--verbose`` was given (also ``TRAMITA_VERBOSE=1``)."""
    return os.environ.get("TRAMITA_VERBOSE", "") in ("1", "true", "yes")


@dataclass(frozen=True)
class Invocation:
    """What the root group knows of the command line before its callback runs."""

    reads_only: bool


class ReadCommand(click.Command):
    """A command that only reads (``instance show``, ``instance list``): it runs without the
    structured logs, so neither structlog nor the logging configuration is loaded (a tenth of
    a second of start-up). A warning still reaches stderr, through the standard library's
    last-resort handler; ``--verbose`` configures the logs as for any command."""


def reads_only(ctx: click.Context, command: click.Command | None, args: list[str]) -> bool:
    """Whether ``args`` (what follows ``command``) end in a :class:`ReadCommand`."""
    rest = list(args)
    while isinstance(command, click.Group) and rest and not rest[0].startswith("-"):
        command, rest = command.get_command(ctx, rest[0]), rest[1:]
    return isinstance(command, ReadCommand)


class TramitaCLI(LazyGroup):
    """The root group: kernel and plugin commands by name, and the one place errors end."""

    _discovered = False

    def _ensure_lazy(self, ctx: click.Context) -> None:
        if self._discovered:
            return
        self._discovered = True
        collected = _host().commands()
        for command in collected.commands:
            self.add_command(command)
        for name, target, help_text in collected.lazy_commands:
            self.add_lazy(LazyCommand(name, target, help_text))

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        """click's, and whether the command only reads (``ctx.obj``: the root callback then
        leaves the logs alone)."""
        name, command, rest = super().resolve_command(ctx, args)
        ctx.obj = Invocation(reads_only=reads_only(ctx, command, rest))
        return name, command, rest

    def get_params(self, ctx: click.Context) -> list[click.Parameter]:
        """``--version`` first, built when asked so click's words for it are translated
        (``click.version_option`` would fix them when this module is imported)."""
        return [_version_option(), *super().get_params(ctx)]

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        from core.cli_catalog import install

        install()  # click's own words (Usage:, Options, its errors) in TRAMITA_LANG's language
        from core.cli_help import localize

        localize(self)  # and the help of Tramita's commands (core.cli_help)
        argv = list(sys.argv[1:] if args is None else args)
        if "--verbose" in argv or "-v" in argv:
            os.environ["TRAMITA_VERBOSE"] = "1"
        try:
            result = super().main(
                argv, prog_name or "tramita", complete_var, standalone_mode=False, **extra
            )
        except BaseException as exc:  # noqa: BLE001 -- the one place a failure becomes a line
            from core.cli_errors import report

            code = report(exc, verbose=verbose())
            if not standalone_mode and code == 0:
                return 0
            sys.exit(code)
        if not standalone_mode:
            return result
        sys.exit(result if isinstance(result, int) else 0)


@click.group(cls=TramitaCLI, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "-v", "--verbose", is_flag=True, help="Show debug logs and, on failure, the traceback."
)
@click.option(
    "--for",
    "tenant",
    default=None,
    metavar="TENANT",
    help=(
        "Act for this tenant: its database (TRAMITA_TENANT_DATABASES), the cases a command"
        " starts, the definitions it publishes; default: the deployment's own."
    ),
)
@click.pass_context
def main(ctx: click.Context, verbose: bool, tenant: str | None) -> None:
    """Tramita: durable workflows and approvals for public-sector platforms."""
    if tenant is not None:
        from core.cli_text import gettext as _
        from core.tenancy import ACTING_TENANT, KEY

        if not KEY.match(tenant):
            raise click.BadParameter(_("not a tenant key"), param_hint="--for")
        ACTING_TENANT.set(tenant)
    if not verbose and isinstance(ctx.obj, Invocation) and ctx.obj.reads_only:
        return
    from core.logging import configure_logging
    from core.settings import load_settings

    settings = load_settings()
    if verbose:
        settings = _with_level(settings, "DEBUG")
    elif ctx.invoked_subcommand not in LONG_RUNNING and settings.log_level in ("DEBUG", "INFO"):
        settings = _with_level(settings, "WARNING")
    configure_logging(settings)


VERSION = "0.1.0"


def _version_option() -> click.Option:
    from gettext import gettext as click_word  # click's msgids: core/cli_locale

    def show(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
        if value and not ctx.resilient_parsing:
            line = click_word("%(prog)s, version %(version)s")
            click.echo(line % {"prog": "tramita", "version": VERSION})
            ctx.exit()

    return click.Option(
        ["--version"],
        is_flag=True,
        expose_value=False,
        is_eager=True,
        callback=show,
        help=click_word("Show the version and exit."),
    )


def _with_level(settings: Any, level: str) -> Any:
    import msgspec

    return msgspec.structs.replace(settings, log_level=level)


for _entry in KERNEL_COMMANDS:
    main.add_lazy(_entry)


if __name__ == "__main__":
    main()

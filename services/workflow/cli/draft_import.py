"""``tramita workflow import FILE``: a BPMN file from any modeler becomes a draft of the editor.

The import refuses only what is outside the BPMN subset (every problem on its own line, exit
1, no draft). Anything inside it becomes a draft, even when Tramita-only data is missing: the
gaps (queue, handler, form, name, protocol prefix) are printed all at once against the BPMN
element and line, with the values other modelers' extensions suggest. ``--accept-suggestions``
confirms those values; ``--publish`` publishes the draft when nothing is missing (and prints
what publishing refused otherwise, exit 1). The draft stays in the editor either way.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from contracts.errors import FieldError, TramitaError
from services.workflow.cli.text import LOCALE_DIR
from services.workflow.cli.text import gettext as _
from services.workflow.definition.gaps import GAPS
from services.workflow.definition.messages import NOT_VALID

if TYPE_CHECKING:
    from core.app import Platform
    from services.workflow.bootstrap import WorkflowService

EXIT_REFUSED = 1


def problem_lines(errors: Sequence[FieldError]) -> list[str]:
    """One line per problem, ``where: what`` in the reader's language."""
    from core import i18n

    i18n.set_locale(os.environ.get("TRAMITA_LANG", "pt_BR"))
    i18n.add_catalog_directory(LOCALE_DIR)
    return [f"  {e.path}: {' '.join(e.message.split())}" for e in map(i18n.localized, errors)]


def refuse(detail: str, errors: Sequence[FieldError]) -> None:
    """The refusal on stderr: one line per problem, then the ``erro:`` line that sums them
    up (last, where a script or a person looks first), and exit 1; never a traceback."""
    from core.cli_errors import one_line

    for line in problem_lines(errors):
        click.echo(line, err=True)
    one_line(_(detail))
    raise SystemExit(EXIT_REFUSED)


def read_bpmn(file: Path) -> Any:
    """The import of ``file`` (``Imported``), or the refusal printed and exit 1."""
    from services.workflow.definition.bpmn import import_bpmn_with_sources

    try:
        return import_bpmn_with_sources(file.read_bytes())
    except TramitaError as exc:
        refuse(exc.detail, list(exc.errors) or [FieldError(path=file.name, code="", message="")])
        raise AssertionError("unreachable") from exc


@click.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--accept-suggestions",
    is_flag=True,
    help="Use the values suggested by the file's vendor extensions for the missing fields.",
)
@click.option("--publish", is_flag=True, help="Publish the draft when nothing is missing.")
def import_cmd(file: Path, accept_suggestions: bool, publish: bool) -> None:
    """Import a BPMN 2.0 file (any modeler) into a draft of the editor and list its gaps."""
    from services.workflow.definition.bpmn import remap_errors
    from services.workflow.definition.gaps import accept, gaps_of
    from services.workflow.reads.drafts import ImportReport

    click.echo(_("importing %(file)s…") % {"file": file.name}, err=True)
    imported = read_bpmn(file)
    document = imported.definition
    if accept_suggestions:
        document = accept(document, imported.suggestions)
    gaps = remap_errors(gaps_of(document, imported.suggestions), document, imported.sources)
    report = ImportReport(
        filename=file.name[:200], suggestions=imported.suggestions, notes=imported.notes
    )

    async def _run(platform: Platform, service: WorkflowService) -> tuple[Any, list[FieldError]]:
        from contracts.errors import DefinitionInvalid
        from core.tenancy import ACTING_TENANT
        from services.workflow.cli.workflow import CLI_ACTOR
        from services.workflow.handles import handles_of

        drafts = handles_of(platform).drafts
        draft = await drafts.create(
            key=str(document.get("key") or "imported"),
            base_version=None,
            document=document,
            actor=CLI_ACTOR,
            import_report=report,
            tenant=service.engine.publisher.owner(ACTING_TENANT.get()),
        )
        if not publish or gaps:
            return draft, []
        try:
            version, _created = await service.engine.publisher.publish(
                document, actor=CLI_ACTOR, tenant=ACTING_TENANT.get()
            )
        except DefinitionInvalid as exc:
            return draft, remap_errors(exc.errors, document, imported.sources) or [
                FieldError(path=file.name, code=exc.problem_type, message=exc.detail)
            ]
        await drafts.mark_published(draft.id, version.version, expected=1, actor=CLI_ACTOR)
        return version, []

    from services.workflow.cli.workflow import with_platform

    result, refused = with_platform(_run)
    for line in problem_lines(imported.notes):
        click.echo(_("note:") + line, err=True)
    if publish and (gaps or refused):
        click.echo(_("draft %(id)s saved; fill it in the editor") % {"id": result.id}, err=True)
        refuse(GAPS if gaps else NOT_VALID, gaps or refused)
    if publish:
        click.echo(_("%(key)s v%(version)s published") % vars_of(result))
        return
    click.echo(
        _("draft %(id)s created with %(count)s gaps") % {"id": result.id, "count": len(gaps)}
    )
    for line in problem_lines(gaps):
        click.echo(line)


def vars_of(version: Any) -> dict[str, Any]:
    return {"key": version.key, "version": version.version}

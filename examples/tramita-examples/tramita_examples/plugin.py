"""Registers what the definitions in ``examples/*.json`` name, so that each one publishes and
runs on a fresh install (``pip install -e examples/tramita-examples``):

* ``purchase_approval.json`` (``purchase.approval``): queues ``purchase.managers`` and
  ``purchase.approval.operators``, form ``purchase.review``, handlers ``stock.reserve``,
  ``stock.release``, ``payment.charge``, ``purchase.notify``;
* ``six_node.json`` (``document.publication``) and ``document_notice.bpmn`` (the same flow drawn
  in BPMN 2.0, ``document.notice``): queues ``documents.editors`` and
  ``documents.operators``, form ``document.review@1``, handlers ``gazette.publish``,
  ``document.notify``;
* ``parallel_review.json`` (``contract.review``): queues ``contracts.legal``,
  ``contracts.finance``, ``contracts.board``, ``contracts.directors``, ``contracts.operators``,
  handlers ``contract.sign``, ``contract.void``, ``contract.remind``.

The handlers are demonstrations: each effect is a value derived from the step's idempotency key
(the same on every retry), so they are idempotent by construction and call no partner. A real
module replaces them with its partners' clients (see docs/writing-a-module.md). The definitions
themselves are not registered: publish them with ``tramita workflow publish examples/<file>``
(a ``.bpmn`` file goes through the BPMN importer).
Not installed by ``scripts/bootstrap.sh``: the test suite's fakes register the same names.
"""

from __future__ import annotations

import hashlib

import structlog

from contracts.hookspecs import hookimpl
from contracts.registries import FormRegistrar, HandlerRegistrar, QueueRegistrar
from contracts.workflow import StepControl, WorkflowHandler
from contracts.workflow.types import StepInput, StepResult

log = structlog.get_logger("tramita.examples")

QUEUES: dict[str, str] = {
    "purchase.managers": "Compras — gestores",
    "purchase.approval.operators": "Compras — operadores",
    "documents.editors": "Documentos — editores",
    "documents.operators": "Documentos — operadores",
    "contracts.legal": "Contratos — jurídico",
    "contracts.finance": "Contratos — financeiro",
    "contracts.board": "Contratos — diretoria",
    "contracts.directors": "Contratos — diretores (escalonamento)",
    "contracts.operators": "Contratos — operadores",
}
FORMS: tuple[dict[str, object], ...] = (
    {
        "format": 1,
        "key": "purchase.review",
        "version": 1,
        "title": "Revisão da compra",
        "fields": [{"id": "approval_comment", "type": "long_text", "label": "Comentário"}],
    },
    {
        "format": 1,
        "key": "document.review",
        "version": 1,
        "title": "Revisão do documento",
        "fields": [{"id": "decision_note", "type": "long_text", "label": "Nota da decisão"}],
    },
)


class Derived:
    """A demonstration effect: ``output`` maps each produced key to ``<PREFIX>-<digest>`` of
    the idempotency key, so a retried step answers exactly what its first attempt did."""

    def __init__(self, **prefixes: str) -> None:
        self._prefixes = prefixes

    async def execute(self, step: StepInput, control: StepControl) -> StepResult:
        digest = hashlib.sha256(step.idempotency_key.encode()).hexdigest()[:10].upper()
        log.info("example_step", node=step.node_id, instance_id=step.instance_id)
        return StepResult(output={key: f"{p}-{digest}" for key, p in self._prefixes.items()})


HANDLERS: dict[str, WorkflowHandler] = {
    "stock.reserve": Derived(reservation_id="RES"),
    "stock.release": Derived(),
    "payment.charge": Derived(payment_id="PAY"),
    "purchase.notify": Derived(),
    "gazette.publish": Derived(edition="ED"),
    "document.notify": Derived(),
    "contract.sign": Derived(signature_id="SIG"),
    "contract.void": Derived(),
    "contract.remind": Derived(),
}


@hookimpl
def tramita_register_queues(registry: QueueRegistrar) -> None:
    for key, name in QUEUES.items():
        registry.add(key, name)


@hookimpl
def tramita_register_forms(registry: FormRegistrar) -> None:
    for form in FORMS:
        registry.add(form)


@hookimpl
def tramita_register_handlers(registry: HandlerRegistrar) -> None:
    for name, handler in HANDLERS.items():
        registry.add(name, handler)

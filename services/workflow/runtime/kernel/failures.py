"""Why an instance failed, in plain words: the stored codes turned into a pt-BR sentence.

``decide()`` keeps only stable codes in :class:`~services.workflow.runtime.kernel.state.FailureInfo`
(the engine's reason and, when a rule failed at run time, the rule's own code); this module is
the one place that explains them to people, for the instance page, the API and the CLI alike
(the instance page words one case itself, a business error a child passed outward, knowing the
definition: ``services.workflow.ui.failures``).
"""

from __future__ import annotations

from typing import Any

from contracts.errors import RuleError
from contracts.workflow.types import FailureView

RULE_CAUSES: dict[str, str] = {
    "timeout": "a regra excedeu o tempo limite e foi interrompida",
    "division_by_zero": "a regra fez uma divisão por zero",
    "activation_too_large": "os dados que a regra recebeu são grandes demais",
    "activation_too_deep": "os dados que a regra recebeu estão aninhados em níveis demais",
    "activation_type": "um campo contém um valor que a regra não consegue ler",
    "missing_variable": "falta um campo que a regra usa",
    "no_such_key": "falta um campo que a regra usa",
    "type_mismatch": "a regra recebeu valores de tipo incompatível",
    "index_out_of_range": "a regra acessou uma posição inexistente de uma lista",
    "overflow": "um cálculo da regra excedeu o limite numérico",
    "invalid_argument": "uma função da regra recusou o valor recebido",
    "result_too_large": "o resultado da regra é grande demais",
    "unsupported_result": "o resultado da regra não é um dado simples",
    "not_boolean": "a condição não resultou em verdadeiro ou falso",
    "not_a_time": "a regra não resultou em uma data e hora",
    "sandbox_failed": "o ambiente isolado de regras não respondeu",
    "evaluation_failed": "a regra não pôde ser avaliada",
}
"""The rule's own codes (``services.workflow.rules.errors``) a run-time failure can carry."""

REASONS: dict[str, str] = {
    "condition_error": "A condição de um desvio falhou",
    "condition_not_boolean": "A condição de um desvio falhou",
    "timer_error": "A regra de data de um temporizador falhou",
    "retry_ceiling": "Uma etapa automática esgotou as tentativas",
    "timeout": "Uma etapa automática esgotou as tentativas por tempo limite",
    "lease_expired": "Uma etapa automática esgotou as tentativas (o processamento parou)",
    "not_retryable": "Uma etapa automática falhou sem possibilidade de nova tentativa",
    "business_error": "Uma etapa automática terminou com um erro de negócio sem fluxo de erro",
    "abandoned": "Um operador desistiu de uma etapa que esgotou as tentativas",
}


def rule_cause(exc: RuleError) -> str:
    """The stable code of a rule failure (``evaluation_failed`` if it carries none)."""
    code = exc.fields.get("code")
    return code if isinstance(code, str) and code else "evaluation_failed"


def explain(reason: str, node_id: str | None, cause: str | None) -> str:
    """One sentence a clerk can act on; unknown codes are named rather than hidden."""
    head = REASONS.get(reason, f"O processo falhou ({reason})")
    where = f" na etapa {node_id}" if node_id else ""
    if cause is None:
        return f"{head}{where}."
    because = RULE_CAUSES.get(cause, f"erro {cause}")
    return f"{head}{where}: {because}."


def failure_view(state: dict[str, Any]) -> FailureView | None:
    """The stored state's failure, explained (``None`` while the instance has not failed)."""
    found = state.get("failure")
    if not isinstance(found, dict) or not isinstance(found.get("reason_code"), str):
        return None
    reason: str = found["reason_code"]
    node_id = found.get("node_id") if isinstance(found.get("node_id"), str) else None
    cause = found.get("cause") if isinstance(found.get("cause"), str) else None
    return FailureView(
        reason=reason, node_id=node_id, cause=cause, message=explain(reason, node_id, cause)
    )

"""XML namespaces the adapter reads and writes, in one place.

Modelers pick their own prefixes (``bpmn:``, ``bpmn2:``, none at all), so every comparison in
the adapter is on the namespace URI, never on a prefix.
"""

from __future__ import annotations

from typing import Final

BPMN: Final = "http://www.omg.org/spec/BPMN/20100524/MODEL"
BPMNDI: Final = "http://www.omg.org/spec/BPMN/20100524/DI"
DC: Final = "http://www.omg.org/spec/DD/20100524/DC"
DI: Final = "http://www.omg.org/spec/DD/20100524/DI"
XSI: Final = "http://www.w3.org/2001/XMLSchema-instance"

TRAMITA: Final = "https://tramita.dev/bpmn"
CAMUNDA: Final = "http://camunda.org/schema/1.0/bpmn"
ZEEBE: Final = "http://camunda.org/schema/zeebe/1.0"
SIGNAVIO: Final = "http://www.signavio.com"
FLOWABLE: Final = "http://flowable.org/bpmn"
ACTIVITI: Final = "http://activiti.org/bpmn"
SPIFF: Final = "http://spiffworkflow.org/bpmn/schema/1.0/core"
XINCLUDE: Final = "http://www.w3.org/2001/XInclude"

#: Vendor namespaces whose extensions the importer reads (as suggestions) or reports, by prefix.
VENDORS: Final = {
    CAMUNDA: "camunda",
    ZEEBE: "zeebe",
    FLOWABLE: "flowable",
    ACTIVITI: "activiti",
    SPIFF: "spiffworkflow",
}

#: ``language`` values on formal expressions that we read as CEL (absent also means CEL).
CEL_LANGUAGE: Final = "https://github.com/google/cel-spec"
CEL_LANGUAGES: Final = frozenset({CEL_LANGUAGE, "cel", "https://cel.dev", "urn:tramita:cel"})

#: Prefixes the exporter declares; readers must not depend on them.
EXPORT_NSMAP: Final = {
    "bpmn": BPMN,
    "bpmndi": BPMNDI,
    "dc": DC,
    "di": DI,
    "xsi": XSI,
    "tramita": TRAMITA,
}


def q(namespace: str, local: str) -> str:
    """Clark notation (``{ns}local``), the form lxml uses for tags and attributes."""
    return f"{{{namespace}}}{local}"


def split(tag: object) -> tuple[str, str]:
    """Namespace and local name of a tag; comments and PIs give ``("", "")``."""
    if not isinstance(tag, str):
        return "", ""
    if tag.startswith("{"):
        namespace, _, local = tag[1:].partition("}")
        return namespace, local
    return "", tag

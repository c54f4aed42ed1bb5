"""BPMN 2.0 subset adapter: import BPMN XML into definition dicts, export them back with DI.

The canonical format is the JSON definition (docs/definition-format.md); BPMN is only an
interchange view of it. What is supported, how it maps and what is refused is in docs/bpmn.md.
"""

from __future__ import annotations

from .exporter import export_bpmn
from .importer import (
    Imported,
    gaps_of_import,
    import_and_validate,
    import_bpmn,
    import_bpmn_with_sources,
    import_complete,
)
from .namespaces import TRAMITA
from .roundtrip import normalise
from .safe_xml import DEFAULT_LIMITS, XmlLimits, parse_xml
from .sources import Origin, SourceMap, remap_errors

__all__ = [
    "DEFAULT_LIMITS",
    "TRAMITA",
    "Imported",
    "Origin",
    "SourceMap",
    "XmlLimits",
    "export_bpmn",
    "gaps_of_import",
    "import_and_validate",
    "import_bpmn",
    "import_bpmn_with_sources",
    "import_complete",
    "normalise",
    "parse_xml",
    "remap_errors",
]

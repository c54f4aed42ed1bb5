"""Every table of the service, gathered on one ``MetaData``.

``tables.py`` holds the core runtime tables; feature areas keep theirs in ``tables_<area>.py``
modules on the same ``metadata``. Importing this module imports all of them, in name order.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

from services.workflow.persistence import tables

metadata = tables.metadata

for _info in sorted(pkgutil.iter_modules([str(Path(__file__).parent)]), key=lambda m: m.name):
    if _info.name.startswith("tables_"):
        importlib.import_module(f"services.workflow.persistence.{_info.name}")

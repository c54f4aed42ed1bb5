"""Runtime tests share the definition tests' kit (compilers, registered names, examples).

The kit lives beside the definition tests; it is put on ``sys.path`` here so this folder also
runs on its own (test folders are not packages in this repository).
"""

from __future__ import annotations

import sys
from pathlib import Path

_KIT = str(Path(__file__).resolve().parents[1] / "definition")
if _KIT not in sys.path:
    sys.path.insert(0, _KIT)

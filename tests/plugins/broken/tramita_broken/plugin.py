"""A plugin whose import fails, as a real broken installation would."""

raise RuntimeError("the broken plugin cannot start")

"""A plugin that exists only as an installed distribution with an entry point."""

from contracts.hookspecs import hookimpl


@hookimpl
def tramita_register_permissions(registry):
    registry.add("sample.touch", "Proves discovery through entry points")


@hookimpl
def tramita_demo_data(platform):
    async def _demo():
        return ["sample plugin was discovered and called"]

    return _demo()

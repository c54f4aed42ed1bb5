"""Maps the folder ``services/workflow`` onto the import name ``services.workflow``.

The package lives at its architectural place in the monorepo and is still its own distribution,
so the platform team can install or omit the engine. ``pyproject.toml`` holds the metadata.
"""

from setuptools import find_packages, setup

subpackages = find_packages(where=".", exclude=["build", "build.*", "*.egg-info"])
setup(
    packages=["services.workflow", *(f"services.workflow.{p}" for p in subpackages)],
    package_dir={"services.workflow": "."},
)

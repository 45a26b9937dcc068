"""Scenarios: the YAML scripting language (``model``), its ``loader`` and the pure ``matcher``.

The re-exported models are imported on first access, so importing a submodule (``behaviour``,
``lookups``) does not build the whole scenario language.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__all__ = ["Reply", "Rule", "Scenario", "When"]

if TYPE_CHECKING:
    from mockserver.scenario.model import Reply, Rule, Scenario, When


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module 'mockserver.scenario' has no attribute {name!r}")
    return getattr(import_module("mockserver.scenario.model"), name)

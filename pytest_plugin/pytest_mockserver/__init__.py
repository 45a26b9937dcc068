"""pytest plugin for mockserver (auto-loaded through the ``pytest11`` entry point).

The names below are for type annotations (``def test_x(mockserver: MockServer)``); they are
imported on first access, so loading the plugin stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_mockserver.builder import RuleBuilder
    from pytest_mockserver.calls import Call
    from pytest_mockserver.handle import MockServer
    from pytest_mockserver.session import MockServerSession

__all__ = ["Call", "MockServer", "MockServerSession", "RuleBuilder"]

_HOMES = {
    "Call": "pytest_mockserver.calls",
    "MockServer": "pytest_mockserver.handle",
    "MockServerSession": "pytest_mockserver.session",
    "RuleBuilder": "pytest_mockserver.builder",
}


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        return getattr(importlib.import_module(_HOMES[name]), name)
    raise AttributeError(f"module 'pytest_mockserver' has no attribute {name!r}")

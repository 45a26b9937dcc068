"""mockserver — a deterministic fake of the OpenAI Chat Completions and Responses APIs.

The public names are imported lazily so that ``import mockserver`` (e.g. by the pytest plugin
at collection time) costs almost nothing.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = ["Settings", "__version__", "create_app"]

_LAZY = {
    "Settings": "mockserver.settings",
    "create_app": "mockserver.app",
}

if TYPE_CHECKING:
    from mockserver.app import create_app
    from mockserver.settings import Settings


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'mockserver' has no attribute {name!r}")
    return getattr(import_module(module), name)

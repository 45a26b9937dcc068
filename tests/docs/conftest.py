"""The docs' examples run inner pytest sessions as the plugin's tests do: the same strict
options, and the same warm-up before pytester snapshots ``sys.modules``."""

from __future__ import annotations

from tests.plugin.conftest import _imports_warmed, run

__all__ = ["_imports_warmed", "run"]

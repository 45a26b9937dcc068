"""The Node clients of the Responses socket, installed by ``npm install`` in ``tests/node``
(``.ci/run`` does; no lockfile: see ``.npmrc``); a test skips, saying why, where they are not."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

NODE_DIR = Path(__file__).parent.parent / "node"
MODULES = NODE_DIR / "node_modules"


def node_or_skip() -> str:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    return node


def installed_or_skip(package: str) -> Path:
    """``node_modules/<package>``, or a skip telling how to install it."""
    path = MODULES / package
    if not (path / "package.json").is_file():
        pytest.skip(f"{package} is not installed: run `npm install` in tests/node")
    return path

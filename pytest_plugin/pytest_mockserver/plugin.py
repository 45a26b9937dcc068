"""The pytest plugin module. It imports nothing heavy at load time: the server is imported
inside the fixtures, so collection stays fast for suites that never use it."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "mockserver(scenario=None, seed=None, strict=None, assert_all_used=None): "
        "configure the mockserver fixture for this test",
    )

"""Every family's prompt reader takes what recording and importing pass it (a reader that
refused a keyword would be a TypeError those callers read as "not a model turn")."""

from __future__ import annotations

import importlib
import inspect

import pytest

from mockserver.families import FAMILIES

READERS = sorted({f.prompt for f in FAMILIES if f.prompt is not None})


def test_the_table_names_readers() -> None:
    assert len(READERS) >= 5


@pytest.mark.parametrize("reader", READERS)
def test_a_reader_takes_the_headers_and_the_provider(reader: str) -> None:
    module, name = reader.split(":")
    parameters = inspect.signature(getattr(importlib.import_module(module), name)).parameters
    assert parameters["headers"].kind is inspect.Parameter.KEYWORD_ONLY
    assert parameters["provider"].kind is inspect.Parameter.KEYWORD_ONLY

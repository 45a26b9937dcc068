"""instructor: JSON modes put the model's JSON Schema in a message and ask for
``response_format: json_object``; the reply follows that schema, so a valid model comes back
(as with its default tools mode)."""

from __future__ import annotations

from collections.abc import Iterator

import openai
import pytest
from pydantic import BaseModel, Field

from mockserver.http.server import BackgroundServer

instructor = pytest.importorskip(
    "instructor",
    reason="every instructor release requires openai < 3, and the test extra installs openai 3 "
    "(openai-agents needs it): run these with openai 2 and instructor installed",
)


class Invoice(BaseModel):
    customer: str
    total: float = Field(ge=0)
    items: list[str]


@pytest.fixture
def client(server: BackgroundServer, api_key: str) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=server.base_url, api_key=api_key, max_retries=0) as client:
        yield client


@pytest.mark.parametrize("mode", ["JSON", "JSON_SCHEMA", "TOOLS"])
def test_a_valid_model_comes_back(client: openai.OpenAI, mode: str) -> None:
    patched = instructor.from_openai(client, mode=getattr(instructor.Mode, mode))
    invoice = patched.chat.completions.create(
        model="gpt-4o-mini",
        response_model=Invoice,
        max_retries=0,  # a first answer that does not validate fails the test
        messages=[{"role": "user", "content": "Ada bought two lamps for 30 euros."}],
    )
    assert isinstance(invoice, Invoice)

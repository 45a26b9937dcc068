"""Which family's shape a request is answered in: its path's family's (a path under a
family's too), else, where several families are served, the one its client's headers name."""

from __future__ import annotations

import pytest

from mockserver.http.routes.base import error_shape


@pytest.mark.parametrize(
    ("path", "headers", "shape"),
    [
        ("/v1/messages", {}, "anthropic"),
        ("/v1/messages/count_tokens", {}, "anthropic"),
        ("/v1/messages/batches/x", {}, "anthropic"),
        ("/v1/chat/completions", {"anthropic-version": "2023-06-01"}, "openai"),
        ("/v1/models", {"anthropic-version": "2023-06-01"}, "anthropic"),
        ("/v1/models", {"x-goog-api-key": "k"}, "google"),
        ("/v1/models", {}, "openai"),
        ("/v1/nowhere", {}, "openai"),
        ("/v1beta/models/gemini-2.5-flash:generateContent", {}, "google"),
    ],
)
def test_a_request_is_answered_in_its_familys_shape(
    path: str, headers: dict[str, str], shape: str
) -> None:
    assert error_shape(path, headers, {}) == shape

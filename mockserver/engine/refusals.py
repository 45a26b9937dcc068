"""A refused request in the journal: its error as its family's API answers it (the family's
shape, ``render/errors.py``), with the headers it is sent with (its request id numbered after
the entry), so the journal keeps what was sent."""

from __future__ import annotations

from mockserver.errors import APIError, RecordedAnswer
from mockserver.render.errors import SHAPES
from mockserver.store import JournalEntry

__all__ = ["journal_error"]


def journal_error(
    entry: JournalEntry, error: APIError, *, seed: int, namespace: str, shape: str
) -> None:
    """Say ``error`` in ``entry`` (journaled already: its number is the request id's) as the
    family of ``shape`` answers it: its status, body and headers, and, in another family's
    words than OpenAI's, its summary. A recorded answer keeps its recorded headers."""
    entry.code = error.code
    if isinstance(error, RecordedAnswer):
        entry.response_headers = {k.lower(): v for k, v in error.recorded_headers.items()}
        return
    writer = SHAPES[shape]
    request_id = writer.request_id(seed, namespace, entry.seq, journal=True)
    answer = writer.error(error, request_id=request_id)
    entry.status = answer.status
    entry.response = answer.body
    entry.response_headers = answer.headers
    if shape != "openai":  # OpenAI's words are the error's own
        said = answer.body.get("error", {})
        if isinstance(said, str):  # Ollama's: the message alone
            said = {"message": said}
        entry.summary = f"{said.get('type', error.type)}: {said.get('message', '')}"

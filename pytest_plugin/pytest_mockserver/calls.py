"""The journal as a test sees it: one small frozen :class:`Call` per request."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from mockserver.families import family_at
from mockserver.prompt import Prompt
from mockserver.record.keys import prompt_of
from mockserver.scenario.terms import describe_text
from mockserver.store import JournalEntry

__all__ = ["Call"]


@dataclass(frozen=True, slots=True)
class Call:
    """One request as the server saw and answered it (read-only; ``request`` is the parsed body)."""

    #: Position in this test's journal, from 1.
    seq: int
    method: str
    path: str
    status: int
    #: The API (``"chat"``, ``"responses"``, ``"messages"``…; ``None`` for other endpoints and
    #: unreadable bodies).
    api: str | None
    model: str | None
    stream: bool
    request: Mapping[str, Any] | None
    response: Any
    #: The id of the scenario rule that answered (``None``: the fallback did, or an error).
    rule: str | None
    #: Why no rule matched (the server's own explanation), when none did.
    miss: str | None
    #: A short summary of the reply (text, tool calls, or the error).
    summary: str

    @classmethod
    def from_entry(cls, entry: JournalEntry) -> Call:
        requested = entry.requested()
        return cls(
            seq=entry.seq,
            method=entry.method,
            path=entry.path,
            status=entry.status,
            api=entry.api,
            model=entry.model or _str(requested, "model"),
            stream=entry.stream,
            request=requested if isinstance(requested, Mapping) else None,
            response=entry.answer(),
            rule=entry.rule,
            miss=entry.miss,
            summary=entry.summary,
        )

    def __repr__(self) -> str:
        rule = f" rule={self.rule!r}" if self.rule else (" (no rule matched)" if self.miss else "")
        return (
            f"<Call #{self.seq} {self.method} {self.path} → {self.status}{rule} "
            f"last_user={describe_text(self.last_user, 40)}>"
        )

    @property
    def ok(self) -> bool:
        return self.status < 400

    @property
    def prompt(self) -> Prompt | None:
        """The request as the matcher saw it (for a model's turn: chat, responses, messages…)."""
        return _prompt(self.path, self.request)

    @property
    def last_user(self) -> str:
        """The text of the last user message ("" when there is none)."""
        prompt = self.prompt
        return prompt.last_user_text if prompt is not None else ""

    @property
    def tools(self) -> tuple[str, ...]:
        """The names of the tools the request offered."""
        prompt = self.prompt
        return tuple(t.name for t in prompt.tools) if prompt is not None else ()

    @property
    def messages(self) -> tuple[tuple[str, str], ...]:
        """``(role, text)`` of every message of the request."""
        prompt = self.prompt
        return tuple((m.role, m.text) for m in prompt.messages) if prompt is not None else ()


def _str(body: Any, key: str) -> str | None:
    value = body.get(key) if isinstance(body, Mapping) else None
    return value if isinstance(value, str) else None


#: What a body that failed validation can raise when read as a prompt anyway.
_UNREADABLE = (KeyError, TypeError, ValueError, AttributeError, IndexError)


def _prompt(path: str, body: Mapping[str, Any] | None) -> Prompt | None:
    """The request read by its family's reader (the family table's), as the matcher read it:
    with the model a path names (Bedrock's, Gemini's, an Azure deployment) and the provider."""
    if body is None:
        return None
    family = family_at("POST", path)
    if family is None or family.prompt is None:
        return None
    try:
        return prompt_of(family.api, body, path=path)
    except _UNREADABLE:
        return None

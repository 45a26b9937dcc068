"""What the importers share: which recorded calls are OpenAI API calls, what was skipped and
why, and the located error a malformed file is. (Which headers are kept is recording's rule:
:mod:`mockserver.record.redact`.)"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from mockserver.errors import MockServerError
from mockserver.families import FAMILIES, family_of
from mockserver.record.exchange import Exchange
from mockserver.values import value_class

__all__ = [
    "Entry",
    "ImportFailed",
    "Imported",
    "Skip",
    "api_path",
    "number",
]


class ImportFailed(MockServerError):
    """A recording that cannot be imported, located: file, which entry, which field."""

    def __init__(
        self,
        message: str,
        *,
        file: str,
        line: int | None = None,
        entry: str | None = None,
        field: str | None = None,
    ) -> None:
        self.message = message
        self.file = file
        self.line = line
        #: e.g. ``interaction 3`` (0-based, as the file's list counts).
        self.entry = entry
        #: e.g. ``response.body.string``.
        self.field = field
        super().__init__(self.located())

    def located(self) -> str:
        """``file[:line]: interaction 3: response.body.string: message``."""
        file = self.file if self.line is None else f"{self.file}:{self.line}"
        parts = [file, *(p for p in (self.entry, self.field) if p)]
        return ": ".join([*parts, self.message])


class Entry:
    """Checks on one entry of a recording file, failing with its file, index and field."""

    #: What a mapping is called in the file's format ("a mapping" in YAML, "an object" in JSON).
    mapping_word = "a mapping"

    def __init__(self, file: str, entry: str) -> None:
        self.file = file
        self.entry = entry

    def fail(self, message: str, field: str) -> ImportFailed:
        return ImportFailed(message, file=self.file, entry=self.entry, field=field or None)

    def kind(self, value: Any) -> str:
        """How a message names what it found."""
        if isinstance(value, Mapping):
            return self.mapping_word
        names = {list: "a list", str: "text", bool: "a boolean", type(None): "nothing"}
        return names.get(type(value), type(value).__name__)

    def mapping(self, value: Any, field: str, what: str) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            raise self.fail(
                f"expected {what} as {self.mapping_word}, got {self.kind(value)}", field
            )
        return value

    def text(self, value: Any, field: str) -> str:
        if not isinstance(value, str) or not value:
            raise self.fail(f"expected text, got {self.kind(value)}", field)
        return value

    def status(self, value: Any, field: str) -> int:
        if not isinstance(value, int) or isinstance(value, bool) or not 100 <= value <= 599:
            raise self.fail(f"expected an HTTP status code, got {value!r}", field)
        return value


def number(value: Any) -> float | None:
    """``value`` if it is a positive number (HAR's -1, a missing field: ``None``)."""
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return float(value)
    return None


@value_class
class Skip:
    """A recorded call left out of the import, and why."""

    index: int
    method: str
    url: str
    reason: str


@value_class
class Imported:
    """What one recording file holds that a scenario can replay, and what it left out."""

    file: str
    exchanges: tuple[Exchange, ...]
    #: Where each exchange is in the file (its entry's index).
    indexes: tuple[int, ...]
    skipped: tuple[Skip, ...] = ()
    #: The credentials the file's requests carried (masked wherever else they appear).
    secrets: tuple[str, ...] = ()
    #: What the file calls one recorded call, and many.
    noun: tuple[str, str] = ("interaction", "interactions")

    def skipped_lines(self) -> list[str]:
        """One line per reason: ``cassette.yaml: skipped 2 interactions: not an OpenAI API
        call (GET https://example.com/health, …)``."""
        by_reason = Counter(s.reason for s in self.skipped)
        lines = []
        for reason, count in by_reason.items():
            examples = [
                f"#{s.index} {s.method} {s.url}" for s in self.skipped if s.reason == reason
            ]
            shown = ", ".join(examples[:3]) + (", …" if len(examples) > 3 else "")
            noun = self.noun[count != 1]
            lines.append(f"{self.file}: skipped {count} {noun}: {reason} ({shown})")
        return lines


#: The OpenAI API's resource families: a path ``…/v1/<family>/…`` is an OpenAI API call.
_FAMILIES = frozenset(
    {
        "assistants",
        "audio",
        "batches",
        "chat",
        "completions",
        "containers",
        "conversations",
        "embeddings",
        "evals",
        "files",
        "fine_tuning",
        "images",
        "models",
        "moderations",
        "organization",
        "realtime",
        "responses",
        "threads",
        "uploads",
        "vector_stores",
    }
)

#: The resources mockserver answers: each family's, and the stored objects and models beside
#: them (the rest are OpenAI calls it cannot replay).
_SERVED = frozenset(
    {family.path.split("/")[2] for family in FAMILIES if family.path.startswith("/v1/")}
    | {"conversations", "models"}
)


def api_path(url: str) -> tuple[str, str] | str:
    """``(path, query)`` of an API call, its base URL's prefix cut up to the ``/v1/`` that an
    API resource follows (``https://gateway/openai/v1/responses`` is ``/v1/responses``, an
    Anthropic gateway's ``…/v1/messages`` is ``/v1/messages``) or to the start of a path that
    names its parameters (Gemini's ``/v1beta/models/{model}:…``); else why it is not one."""
    parts = urlsplit(url)
    segments = parts.path.split("/")
    for at in range(1, len(segments) - 1):
        path = "/" + "/".join(segments[at:])
        named = family_of(path)
        if named is not None and named.templated:
            return path, parts.query
    for at in range(len(segments) - 1):
        if segments[at] == "v1" and segments[at + 1] in _FAMILIES | _SERVED:
            family, path = segments[at + 1], "/" + "/".join(segments[at:])
            if family not in _SERVED:
                return f"mockserver does not serve /v1/{family}"
            return path, parts.query
    return "not an OpenAI API call"

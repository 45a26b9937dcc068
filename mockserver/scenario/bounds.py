"""What reading one scenario (or fixture) may cost, and the checks that keep it there.

Bytes are decoded as UTF-8 only, with the first bad byte located; a character YAML cannot hold
(NUL, other control characters) is located too, before any parser sees it. A document may hold
at most :data:`NODE_LIMIT` values (counting what aliases repeat) nested at most
:data:`DEPTH_LIMIT` deep, and integers of at most :data:`INT_DIGITS` digits (Python refuses to
convert longer ones, and nothing in a scenario needs them). An upload also has a size and a time
bound (:class:`Bounds`): the server refuses a bigger body with a 413 and stops checking one that
takes longer, with a located error.
"""

from __future__ import annotations

import codecs
import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from mockserver.errors import ScenarioError
from mockserver.ids import monotonic
from mockserver.values import value_class

__all__ = [
    "DEPTH_LIMIT",
    "INT_DIGITS",
    "NODE_LIMIT",
    "Bounds",
    "Deadline",
    "check_characters",
    "check_data",
    "decode_text",
    "line_column",
]

#: Values a document may hold once its aliases are expanded (a "billion laughs" file holds
#: 10**9 in a few lines; a scenario of 10,000 rules, ~60,000).
NODE_LIMIT: Final = 100_000
#: How deep values may nest (a scenario nests ~10 deep; a reply's JSON a few more).
DEPTH_LIMIT: Final = 100
#: Digits an integer may have: enough for any 64-bit number (a seed, a count).
INT_DIGITS: Final = 20


_BOMS = (
    (codecs.BOM_UTF32_LE, "UTF-32"),
    (codecs.BOM_UTF32_BE, "UTF-32"),
    (codecs.BOM_UTF16_LE, "UTF-16"),
    (codecs.BOM_UTF16_BE, "UTF-16"),
)


@value_class
class Bounds:
    """The limits of one read. Files on disk have the default ones (no size or time bound);
    an upload gets ``max_bytes`` and ``seconds`` from the settings."""

    max_bytes: int | None = None
    seconds: float | None = None
    nodes: int = NODE_LIMIT
    depth: int = DEPTH_LIMIT


@dataclass(slots=True)
class Deadline:
    """When a read must stop (never, for ``seconds=None``)."""

    seconds: float | None
    clock: Callable[[], float] = monotonic
    ends: float = field(init=False)

    def __post_init__(self) -> None:
        self.ends = float("inf") if self.seconds is None else self.clock() + self.seconds

    def passed(self) -> bool:
        return self.seconds is not None and self.clock() > self.ends

    def remaining(self) -> float:
        return self.ends - self.clock()

    def error(self, *, source: str, line: int = 1, column: int | None = None) -> ScenarioError:
        return ScenarioError(
            f"checking the scenario took longer than {self.seconds:g} s, the limit of one "
            "upload (MOCKSERVER_SCENARIO_SECONDS): stopped here; send a smaller scenario, or "
            "load it with serve --scenario",
            file=source,
            line=line,
            column=column,
        )


def line_column(text: str, index: int) -> tuple[int, int]:
    """The 1-based line and column (in characters) of ``text[index]``."""
    line_start = text.rfind("\n", 0, index) + 1
    return text.count("\n", 0, index) + 1, index - line_start + 1


def _utf16_without_bom(raw: bytes) -> bool:
    """Text of mostly ASCII in UTF-16: every other byte of its start is NUL."""
    head = raw[:200]
    return len(head) >= 4 and (
        head[1::2].count(0) > len(head) // 3 or head[0::2].count(0) > len(head) // 3
    )


def decode_text(raw: bytes, *, source: str) -> str:
    """``raw`` as UTF-8 text (a UTF-8 byte order mark dropped), else a located error that says
    what the bytes look like."""
    for bom, name in _BOMS:
        if raw.startswith(bom):
            raise ScenarioError(
                f"not UTF-8 text: the file is {name} (it starts with a {name} byte order "
                "mark): save it as UTF-8",
                file=source,
                line=1,
                column=1,
            )
    try:
        return raw.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        good = raw[: exc.start].decode("utf-8")
        line, column = line_column(good + "?", len(good))
        if _utf16_without_bom(raw):
            hint = "it looks like UTF-16: save it as UTF-8"
        else:
            hint = "Latin-1 or Windows-1252, perhaps: save it as UTF-8"
        raise ScenarioError(
            f"not UTF-8 text: byte 0x{raw[exc.start]:02x} cannot start or continue a UTF-8 "
            f"character ({hint})",
            file=source,
            line=line,
            column=column,
        ) from None


@functools.cache
def _not_printable() -> re.Pattern[str]:
    """What YAML 1.1 does not allow in a document (it allows the printable set: tab, line
    breaks, and no other C0 or C1 control character, no surrogate, no U+FFFE/U+FFFF).

    Compiled on first use: this class of ranges takes ~4 ms to compile, a fifth of what
    ``serve`` may add to a cold start, and serving the built-in scenarios never reads a file.
    """
    return re.compile("[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def check_characters(text: str, *, source: str) -> None:
    """Refuse a character YAML does not allow, where it is (PyYAML says only its offset)."""
    bad = _not_printable().search(text)
    if bad is None:
        return
    char = bad.group()
    if char == "\x00" and _utf16_without_bom(text.encode("utf-8", "surrogatepass")):
        hint = ": the file looks like UTF-16; save it as UTF-8"
    else:
        hint = ""
    line, column = line_column(text, bad.start())
    raise ScenarioError(
        f"a control character U+{ord(char):04X}, which YAML does not allow{hint}",
        file=source,
        line=line,
        column=column,
    )


def check_data(data: Any, *, bounds: Bounds, source: str) -> None:
    """The same count and depth limits, for data that did not come from YAML (a JSON body)."""
    stack: list[tuple[Any, int]] = [(data, 1)]
    left = bounds.nodes
    while stack:
        value, depth = stack.pop()
        left -= 1
        if left < 0:
            raise ScenarioError(f"more than {bounds.nodes} values in one scenario", file=source)
        if depth > bounds.depth:
            raise ScenarioError(f"values nested more than {bounds.depth} deep", file=source)
        if isinstance(value, dict):
            stack += [(v, depth + 1) for v in value.values()]
        elif isinstance(value, list):
            stack += [(v, depth + 1) for v in value]

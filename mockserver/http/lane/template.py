"""A rendered answer with holes, for answering the same request again without deciding again.

Two identical requests get answers that differ only in a few values: the id (which numbers the
request), the creation time (or times: an Ollama stream's lines each say when they were made,
a fixed time after the first), and the stream frames' obfuscation padding (drawn from the id).
Rendering the reply once with *sentinels* in their place and cutting the bytes there gives a
:class:`Template`; filling it is a join. Sentinels are private-use characters (and one integer)
that no reply contains — and a template is only ever used after it reproduced, byte for byte,
the answer it was cut from (see ``Template.reproduces``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import field

from mockserver import ids
from mockserver.ids import Obfuscator
from mockserver.values import value_class

__all__ = ["CREATED", "ID", "Template", "item_sentinel", "pad_sentinel", "time_sentinel"]

#: Stands for the answer's id (``chatcmpl-…``, ``resp_…``).
ID = "\ue000id\ue001"
#: Stands for the creation time (an integer: 2**53 + 1, which no reply renders by chance).
CREATED = 9_007_199_254_740_993


def pad_sentinel(number: int, size: int) -> str:
    """Stands for frame ``number``'s obfuscation padding over a ``size``-character payload."""
    return f"\ue000{number}:{size}\ue001"


def item_sentinel(prefix: str, index: int) -> str:
    """Stands for the id of output item ``index`` (derived from the answer's id)."""
    return f"\ue000{prefix}{index}\ue001"


def time_sentinel(started: float, offset: int) -> str:
    """Stands for the instant ``offset`` nanoseconds after the answer's time, written as RFC
    3339 to the nanosecond (``ids.rfc3339_nano``, Ollama's ``created_at``); the template is
    then filled with the answer's time in nanoseconds. (``started``: the time it stands in
    for, unused: the signature of the ``rfc3339_nano`` it stands in for.)"""
    return f"\ue000@{offset}\ue001"


_SLOT = re.compile(
    rb"\xee\x80\x80id\xee\x80\x81|9007199254740993|\xee\x80\x80(\d+):(\d+)\xee\x80\x81"
    rb"|\xee\x80\x80([a-z]+_)(\d+)\xee\x80\x81|\xee\x80\x80@(\d+)\xee\x80\x81"
)
_PRIVATE = re.compile(rb"\xee\x80[\x80\x81]")

Pad = Callable[[int, int], str]
#: (prefix, index) → the id of an item derived from the answer's id.
Derive = Callable[[str, int], str]
#: A template's fill written out (see ``Template.fill``).
Fill = Callable[[str, int, Pad | None, Derive | None], bytes]


@value_class
class Template:
    #: Literal bytes, with an empty placeholder where each slot goes.
    parts: tuple[bytes, ...]
    ids: tuple[int, ...]
    created: tuple[int, ...]
    #: (part index, frame number, payload size) of each padding slot.
    pads: tuple[tuple[int, int, int], ...]
    #: (part index, prefix, item index) of each derived-id slot.
    items: tuple[tuple[int, str, int], ...] = ()
    #: (part index, nanoseconds after the answer's time) of each RFC 3339 time slot.
    times: tuple[tuple[int, int], ...] = ()
    #: The fill written out, once it is first needed (see :meth:`fill`).
    _fill: Fill | None = field(default=None, compare=False, repr=False)

    @classmethod
    def cut(cls, rendered: bytes) -> Template | None:
        """The template of an answer rendered with sentinels; ``None`` if a stray sentinel
        character (one that is not part of a slot) makes the cut ambiguous."""
        parts: list[bytes] = []
        ids: list[int] = []
        created: list[int] = []
        pads: list[tuple[int, int, int]] = []
        items: list[tuple[int, str, int]] = []
        times: list[tuple[int, int]] = []
        at = 0
        for slot in _SLOT.finditer(rendered):
            parts.append(rendered[at : slot.start()])
            index = len(parts)
            parts.append(b"")
            if slot.group(1) is not None:
                pads.append((index, int(slot.group(1)), int(slot.group(2))))
            elif slot.group(3) is not None:
                items.append((index, slot.group(3).decode(), int(slot.group(4))))
            elif slot.group(5) is not None:
                times.append((index, int(slot.group(5))))
            elif slot.group(0).startswith(b"\xee"):
                ids.append(index)
            else:
                created.append(index)
            at = slot.end()
        parts.append(rendered[at:])
        if any(_PRIVATE.search(part) for part in parts):
            return None
        return cls(
            tuple(parts), tuple(ids), tuple(created), tuple(pads), tuple(items), tuple(times)
        )

    def fill(
        self, answer_id: str, created: int, pad: Pad | None, derive: Derive | None = None
    ) -> bytes:
        """The answer with these values in its slots. A Responses stream's template has some
        forty slots, half of them ids derived from the answer's, and is filled on every
        replay: so it is filled by a function written out for it (one join of its parts and
        values, each derived id made once: :meth:`_written`). The loop over the slots
        (:meth:`fill_slot_by_slot`, which the tests compare it with) fills a template whose
        values are missing."""
        if (pad is None and self.pads) or (derive is None and self.items):
            return self.fill_slot_by_slot(answer_id, created, pad, derive)
        written = self._fill
        if written is None:
            written = self._written()
            object.__setattr__(self, "_fill", written)
        return written(answer_id, created, pad, derive)

    def fill_slot_by_slot(
        self, answer_id: str, created: int, pad: Pad | None, derive: Derive | None = None
    ) -> bytes:
        parts = list(self.parts)
        value = answer_id.encode()
        for index in self.ids:
            parts[index] = value
        value = str(created).encode()
        for index in self.created:
            parts[index] = value
        stamps = ids.rfc3339_nanos(created + offset for _, offset in self.times)
        for (index, _), stamp in zip(self.times, stamps, strict=True):
            parts[index] = stamp
        if pad is not None:
            for index, number, size in self.pads:
                parts[index] = pad(number, size).encode()
        if self.items:
            if derive is None:
                raise ValueError("this template has derived ids: fill needs derive")
            derived: dict[tuple[str, int], bytes] = {}
            for index, prefix, item in self.items:
                known = derived.get((prefix, item))
                if known is None:
                    known = derived[prefix, item] = derive(prefix, item).encode()
                parts[index] = known
        return b"".join(parts)

    def _written(self) -> Fill:
        """This template's fill as one function: ``join((part0, id, part2, created, …))``.
        It calls ``pad`` and ``derive`` in the order the slot-by-slot fill does (the pads,
        then each derived id once). Our own text, compiled once per template: the answer's
        literal parts are in it as bytes literals (``repr``), the rest is names and numbers."""
        scope: dict[str, object] = {
            "join": b"".join,
            "stamps": ids.rfc3339_nanos,
            "Obfuscator": Obfuscator,
        }
        values: dict[int, str] = dict.fromkeys(self.ids, "id_")
        values.update(dict.fromkeys(self.created, "created_"))
        lines = ["id_ = answer_id.encode()", "created_ = str(created).encode()"]
        if self.pads:  # read from an obfuscator's digest in one pass (see ``ids``)
            end, read = Obfuscator.written([(number, size) for _, number, size in self.pads])
            lines.append("if pad.__class__ is Obfuscator:")
            lines.append(f"    raw, text = pad.read({end})")
            lines += [f"    pad{n} = {expression}" for n, expression in enumerate(read)]
            lines.append("else:")
            for n, (index, number, size) in enumerate(self.pads):
                lines.append(f"    pad{n} = pad({number}, {size}).encode()")
                values[index] = f"pad{n}"
        if self.times:
            offsets = tuple(offset for _, offset in self.times)
            lines.append(f"times = stamps([created + offset for offset in {offsets!r}])")
        for n, (index, _) in enumerate(self.times):
            values[index] = f"times[{n}]"
        derived: dict[tuple[str, int], str] = {}
        for index, prefix, item in self.items:
            name = derived.get((prefix, item))
            if name is None:
                name = derived[prefix, item] = f"item{len(derived)}"
                lines.append(f"{name} = derive({prefix!r}, {item}).encode()")
            values[index] = name
        arguments = []
        for index, part in enumerate(self.parts):
            if index in values:
                arguments.append(values[index])
            elif part:  # a literal: the code's own constant, not a name looked up per fill
                arguments.append(repr(part))
        body = "\n    ".join([*lines, f"return join(({', '.join(arguments)},))"])
        exec(f"def fill(answer_id, created, pad, derive):\n    {body}\n", scope)
        written: Fill = scope["fill"]  # type: ignore[assignment]
        return written

    def reproduces(
        self,
        answer: bytes,
        answer_id: str,
        created: int,
        pad: Pad | None,
        derive: Derive | None = None,
    ) -> bool:
        """Does filling in these values give exactly ``answer``? (Checked before first use.)"""
        if (self.pads and pad is None) or (self.items and derive is None):
            return False
        return self.fill(answer_id, created, pad, derive) == answer

"""Regular expressions that cost a compiler unbounded memory or stack, in few bytes: a scenario
or a request holding one must be refused with a located error, never compiled."""

from __future__ import annotations

__all__ = ["HOSTILE_REGEXES", "hostile_scenario"]

#: Name → pattern: a huge repeat, and its cousins.
HOSTILE_REGEXES = {
    "repeat": "a{1000000000}",
    "nested-repeats": "(a{1000}){1000}",
    "three-nested-repeats": "(?:(?:a{200}){200}){200}",
    "repeated-class": "[^a][a-z0-9]{100000000}",
    "huge-class": "[" + "".join(chr(0x4E00 + i) for i in range(20_000)) + "]",
    "huge-backreference-group": "(x{10000000})\\1",
    "repeated-backreference": "(x)(?:\\1{10000}){10000}",
    "many-groups": "(a)" * 20_000,
    "deep-groups": "(" * 5_000 + "a" + ")" * 5_000,
}


def hostile_scenario(pattern: str) -> str:
    """A scenario whose one rule (``r``, on line 4) looks for ``pattern``."""
    return (
        "name: hostile\nrules:\n  - id: r\n"
        f"    when: {{last_user: {{regex: '{pattern}'}}}}\n"
        "    reply: {text: never}\n"
    )

"""One exchange as a scenario rule to paste: the ``when`` and the distilled reply a recording
writes (:mod:`mockserver.record.keys`, :mod:`mockserver.record.distill`), in the cassette's
YAML, the reply always inline (a paste has no fixture files beside it)."""

from __future__ import annotations

import yaml

from mockserver.record.cassette import _Dumper, _masked_when
from mockserver.record.distill import distilled_reply
from mockserver.record.exchange import Exchange
from mockserver.record.keys import when_of
from mockserver.values import Json

__all__ = ["rule_of", "rule_yaml"]


def rule_of(exchange: Exchange, *, rule_id: str) -> Json | None:
    """The rule a distilled recording would write for ``exchange``; ``None`` when it would
    write none (not a model turn, or an answer that says no reply we know)."""
    when = when_of(exchange, exact=False)
    reply = distilled_reply(exchange)
    if when is None or reply is None:
        return None
    return {"id": rule_id, "when": _masked_when(when), "reply": reply}


def rule_yaml(rule: Json) -> str:
    """``rule`` as one item of a scenario's ``rules:`` list."""
    text: str = yaml.dump([rule], Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
    return text

"""Input items as the API stores and lists them: with an ``id``, a ``status`` and content parts.

``input_items`` of a response and the items of a conversation are listed in this shape (the
SDK's ``ResponseItem`` / ``ConversationItem``): a string ``content`` becomes one text part, an
item sent without ``id`` gets one derived from its owner and position. Keys an item or a content
part does not have in the API (of the kinds whose fields :data:`_FIELDS` and
:data:`_PART_FIELDS` list) are dropped, as the request parser ignores them; the hosted tools'
items, whose many fields are not modelled, are kept as sent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from mockserver import ids
from mockserver.render.responses_hosted import HOSTED
from mockserver.values import Json

__all__ = ["stored_item"]


_PREFIXES: Final = {
    "message": "msg_",
    "function_call": "fc_",
    "function_call_output": "fco_",
    "custom_tool_call": "ctc_",
    "custom_tool_call_output": "ctco_",
    "reasoning": "rs_",
    "compaction": "cmp_",
    "computer_call_output": "cuo_",
    "shell_call_output": "sho_",
    "local_shell_call_output": "lsho_",
    "apply_patch_call_output": "apco_",
    "mcp_approval_response": "mcpa_",
    **{kind: entry.prefix for kind, entry in HOSTED.items()},
}
#: Item types whose stored form always has a ``status``.
_WITH_STATUS: Final = frozenset(
    {
        "message",
        "function_call",
        "function_call_output",
        "computer_call_output",
        "shell_call",
        "shell_call_output",
        "local_shell_call_output",
    }
)


#: The fields each item type has in the API; other keys are not kept.
_FIELDS: Final = {
    "message": frozenset({"id", "type", "role", "content", "status"}),
    "function_call": frozenset({"id", "type", "call_id", "name", "arguments", "status"}),
    "function_call_output": frozenset({"id", "type", "call_id", "output", "status"}),
    "custom_tool_call": frozenset({"id", "type", "call_id", "name", "input"}),
    "custom_tool_call_output": frozenset({"id", "type", "call_id", "output"}),
    "reasoning": frozenset({"id", "type", "summary", "content", "encrypted_content", "status"}),
    "compaction": frozenset({"id", "type", "encrypted_content", "created_by"}),
}
#: The fields each content part type has.
_PART_FIELDS: Final = {
    "input_text": frozenset({"type", "text"}),
    "input_image": frozenset({"type", "detail", "file_id", "image_url"}),
    "input_file": frozenset({"type", "file_data", "file_id", "file_url", "filename"}),
    "input_audio": frozenset({"type", "input_audio"}),
    "output_text": frozenset({"type", "text", "annotations", "logprobs"}),
    "refusal": frozenset({"type", "refusal"}),
}


def _known(raw: Mapping[str, Any], fields: frozenset[str] | None) -> Mapping[str, Any]:
    return raw if fields is None else {k: v for k, v in raw.items() if k in fields}


def _parts(role: str, content: Any) -> list[Any]:
    if not isinstance(content, str):
        return [_part(part) for part in content or []]
    if role == "assistant":
        return [{"type": "output_text", "annotations": [], "logprobs": [], "text": content}]
    return [{"type": "input_text", "text": content}]


def _part(part: Any) -> Any:
    """An output text part as the API lists it: with its ``annotations`` and ``logprobs``,
    empty where the input left them out."""
    if not isinstance(part, Mapping):
        return part
    part = _known(part, _PART_FIELDS.get(str(part.get("type"))))
    if part.get("type") != "output_text":
        return dict(part)
    return {"type": "output_text", "annotations": [], "logprobs": [], **part}


def stored_item(raw: Mapping[str, Any], *, owner: str, index: int) -> Json:
    """``raw`` (an input item, references resolved) in its stored, listable form."""
    kind = str(raw.get("type", "message"))
    raw = _known(raw, _FIELDS.get(kind))
    prefix = _PREFIXES.get(kind, "item_")
    # "input" keeps these apart from the owner's output items, which derive from the same owner
    item_id = raw.get("id") or ids.hex_id(prefix, owner, "input", index, length=50)
    item: Json = {"id": item_id, "type": kind}
    if kind in _WITH_STATUS:
        item["status"] = raw.get("status") or "completed"
    if kind == "message":
        item["content"] = _parts(str(raw.get("role")), raw.get("content"))
        item["role"] = raw.get("role")
    item.update({k: v for k, v in raw.items() if k not in item})
    return item

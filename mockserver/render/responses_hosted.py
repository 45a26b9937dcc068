"""Hosted-tool output items (web search, file search, MCP, shell, …): one table entry per type.

A reply carries them as ``{"type": ..., **fields}`` (scripted by a scenario). An entry says how
to complete such an item (id prefix, ``status``, required defaults) and which stream events
announce it: the lifecycle ``phases`` and, where the item has a streamed field, its deltas.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field
from typing import Any, Final

from mockserver import ids
from mockserver.values import Json, value_class

__all__ = ["DELTAS", "HOSTED", "Hosted", "hosted_item", "hosted_kind"]

#: A phase that stands for "the deltas and done event of the streamed field go here".
DELTAS: Final = "<deltas>"


@value_class
class Hosted:
    prefix: str
    #: Event type prefix of the lifecycle events (``<events>.in_progress``, …).
    events: str | None = None
    phases: tuple[str, ...] = ()
    #: ``(item field, event type prefix)`` of a streamed field (``<prefix>.delta`` / ``.done``).
    streamed: tuple[str, str] | None = None
    #: Whether the item has a ``status`` (``in_progress`` while streaming, then ``completed``).
    has_status: bool = True
    #: Whether the item needs a ``call_id`` (the client runs the tool and answers with it).
    has_call_id: bool = False
    defaults: Mapping[str, Any] = field(default_factory=dict)


_SEARCH: Final = ("in_progress", "searching", "completed")

HOSTED: Final[Mapping[str, Hosted]] = {
    "web_search_call": Hosted("ws_", "response.web_search_call", _SEARCH),
    "file_search_call": Hosted(
        "fs_", "response.file_search_call", _SEARCH, defaults={"queries": [], "results": None}
    ),
    "mcp_call": Hosted(
        "mcp_",
        "response.mcp_call",
        ("in_progress", DELTAS, "completed"),
        streamed=("arguments", "response.mcp_call_arguments"),
    ),
    "mcp_list_tools": Hosted(
        "mcpl_", "response.mcp_list_tools", ("in_progress", "completed"), has_status=False
    ),
    "mcp_approval_request": Hosted("mcpr_", has_status=False),
    "code_interpreter_call": Hosted(
        "ci_",
        "response.code_interpreter_call",
        ("in_progress", DELTAS, "interpreting", "completed"),
        streamed=("code", "response.code_interpreter_call_code"),
        defaults={"outputs": None},
    ),
    "image_generation_call": Hosted(
        "ig_",
        "response.image_generation_call",
        ("in_progress", "generating", "completed"),
        defaults={"result": None},
    ),
    "computer_call": Hosted("cu_", has_call_id=True, defaults={"pending_safety_checks": []}),
    "local_shell_call": Hosted("lsh_", has_call_id=True),
    "shell_call": Hosted("sh_", has_call_id=True, defaults={"environment": None}),
    "apply_patch_call": Hosted("apc_", has_call_id=True),
}
_UNKNOWN: Final = Hosted("item_")


def hosted_kind(item_type: str) -> Hosted:
    """The entry for ``item_type`` (an unknown type is emitted as given, with no events)."""
    return HOSTED.get(item_type, _UNKNOWN)


def hosted_item(raw: Mapping[str, Any], *, response_id: str, index: int) -> Json:
    """The finished output item: ``id`` and ``type`` first, defaults filled, ``status`` set."""
    kind = hosted_kind(str(raw["type"]))
    item: Json = {
        "id": raw.get("id") or ids.hex_id(kind.prefix, response_id, index, length=50),
        "type": raw["type"],
    }
    if kind.has_status:
        failed = raw.get("error") is not None
        item["status"] = raw.get("status") or ("failed" if failed else "completed")
    if kind.has_call_id:
        item["call_id"] = raw.get("call_id") or ids.opaque_id(
            "call_", response_id, index, length=24
        )
    item.update({k: v for k, v in kind.defaults.items() if k not in raw})
    item.update({k: v for k, v in raw.items() if k not in item})
    return item

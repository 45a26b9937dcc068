"""Which tools a generated reply calls: the policy that makes agent loops converge.

A real model calls a tool, reads its result, and then finishes. Frameworks finish in one of two
ways: a text answer (``tool_choice: auto``), or, when they may not accept text (``required``, a
named tool, an ``allowed_tools`` set), a call of an *output tool* they offer for the purpose —
pydantic-ai's ``final_result``, an ``final_answer`` of a ReAct agent. The policy:

- no tool result since the last user message: the tools whose names share a word with that
  message (several with ``parallel_tool_calls``), else one of the others, output tools last;
- a tool result since the last user message: an offered output tool if there is one (``auto``
  too: a framework that offers one wants it called), else, under ``auto``, text; else a tool not
  yet called since the last user message; else (every tool called once, none ends the run) the
  first allowed tool again, as a model bound to call one would.

So a loop over N offered tools ends after at most one call of each.
"""

from __future__ import annotations

import random
import re

from mockserver.prompt import Prompt, Tool

__all__ = ["MAX_PARALLEL_CALLS", "called_this_exchange", "choose_tools", "is_output_tool"]

MAX_PARALLEL_CALLS = 3
_WORDS = re.compile(r"[a-z0-9]+")
#: Names that say "calling me ends the run": a first word ``final`` (pydantic-ai's
#: ``final_result``, ``final_result_X`` for several output types; ``final_answer``,
#: ``FinalOutput``), or one of these.
_OUTPUT_NAMES = frozenset({"structured_output", "structuredoutput", "output", "respond"})
#: Descriptions that say so ("The final response which ends this conversation").
_OUTPUT_DESCRIPTION = re.compile(
    r"\bfinal (response|result|answer|output)\b|\bends? (this|the) (conversation|run)\b",
    re.IGNORECASE,
)


def _words(text: str) -> set[str]:
    return set(_WORDS.findall(re.sub(r"([a-z])([A-Z])", r"\1 \2", text).lower().replace("_", " ")))


def is_output_tool(tool: Tool) -> bool:
    """Does calling ``tool`` end the run (a framework's final-result tool)? By its name, else
    its description; custom (free-form) tools never are."""
    if tool.kind != "function":
        return False
    first = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", tool.name).lower().split("_")[0]
    if first == "final" or tool.name.lower() in _OUTPUT_NAMES:
        return True
    return bool(_OUTPUT_DESCRIPTION.search(tool.description or ""))


def called_this_exchange(prompt: Prompt) -> set[str]:
    """The names of the tools the assistant called since the last user message."""
    names: set[str] = set()
    for index in range(len(prompt.messages) - 1, -1, -1):
        message = prompt.messages[index]
        if message.role == "user":
            break
        names.update(call.name for call in message.tool_calls)
    return names


def _has_result_this_exchange(prompt: Prompt) -> bool:
    for message in reversed(prompt.messages):
        if message.role == "user":
            return False
        if message.role == "tool":
            return True
    return False


def choose_tools(prompt: Prompt, *, rng: random.Random) -> list[Tool]:
    """The tools a generated reply calls (empty: it answers in text)."""
    choice = prompt.tool_choice
    allowed = [t for t in prompt.tools if choice.allowed is None or t.name in choice.allowed]
    if choice.mode == "none" or not allowed:
        return []
    outputs = [t for t in allowed if is_output_tool(t)]
    if _has_result_this_exchange(prompt):
        if outputs:
            return outputs[:1]
        if choice.mode == "auto":
            return []  # the agent loop converges: a tool result is answered in text
        called = called_this_exchange(prompt)
        fresh = [t for t in allowed if t.name not in called]
        return [fresh[0] if fresh else allowed[0]]
    workers = [t for t in allowed if t not in outputs] or allowed
    wanted = _words(prompt.last_user_text)
    relevant = [t for t in workers if _words(t.name) & wanted]
    if prompt.parallel_tool_calls and len(relevant) > 1:
        return relevant[:MAX_PARALLEL_CALLS]
    if relevant:
        return relevant[:1]
    return [workers[0] if len(workers) == 1 else rng.choice(workers)]

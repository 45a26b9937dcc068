"""The API-neutral request view (``model``) and one converter per API family."""

from mockserver.prompt.model import (
    Api,
    Message,
    OutputFormat,
    Prompt,
    Tool,
    ToolCallRef,
    ToolChoice,
)

__all__ = ["Api", "Message", "OutputFormat", "Prompt", "Tool", "ToolCallRef", "ToolChoice"]

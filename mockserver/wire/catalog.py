"""The model ids each family lists: OpenAI's contract's (``ModelIdsShared``), Anthropic's
(the ``anthropic`` SDK's ``Model`` names) and the models an Ollama server has pulled; any
other name is accepted too, except by Ollama, which knows only its own and the scenario's."""

from __future__ import annotations

from mockserver.errors import InvalidRequestError

__all__ = [
    "ANTHROPIC_MODELS",
    "MODEL_IDS",
    "NON_REASONING",
    "OLLAMA_MODELS",
    "ollama_base",
    "ollama_catalog_has",
    "ollama_tagged",
    "owner_of",
    "reasons",
    "unsupported_reasoning",
]

MODEL_IDS: tuple[str, ...] = (
    "gpt-6-astra",
    "gpt-6-sol",
    "gpt-6-luna",
    "gpt-5.6-sol",
    "gpt-5.6-terra",
    "gpt-5.6-luna",
    "gpt-5.5",
    "gpt-5.5-2026-04-23",
    "gpt-5.4",
    "gpt-5.4-mini",
    "gpt-5.4-nano",
    "gpt-5.4-mini-2026-03-17",
    "gpt-5.4-nano-2026-03-17",
    "gpt-5.3-chat-latest",
    "gpt-5.2",
    "gpt-5.2-2025-12-11",
    "gpt-5.2-chat-latest",
    "gpt-5.2-pro",
    "gpt-5.2-pro-2025-12-11",
    "gpt-5.1",
    "gpt-5.1-2025-11-13",
    "gpt-5.1-codex",
    "gpt-5.1-mini",
    "gpt-5.1-chat-latest",
    "gpt-5",
    "gpt-5-mini",
    "gpt-5-nano",
    "gpt-5-2025-08-07",
    "gpt-5-mini-2025-08-07",
    "gpt-5-nano-2025-08-07",
    "gpt-5-chat-latest",
    "gpt-4.1",
    "gpt-4.1-mini",
    "gpt-4.1-nano",
    "gpt-4.1-2025-04-14",
    "gpt-4.1-mini-2025-04-14",
    "gpt-4.1-nano-2025-04-14",
    "o4-mini",
    "o4-mini-2025-04-16",
    "o3",
    "o3-2025-04-16",
    "o3-mini",
    "o3-mini-2025-01-31",
    "o1",
    "o1-2024-12-17",
    "o1-preview",
    "o1-preview-2024-09-12",
    "o1-mini",
    "o1-mini-2024-09-12",
    "gpt-4o",
    "gpt-4o-2024-11-20",
    "gpt-4o-2024-08-06",
    "gpt-4o-2024-05-13",
    "gpt-audio-mini",
    "gpt-audio-mini-2025-12-15",
    "gpt-4o-audio-preview",
    "gpt-4o-audio-preview-2024-10-01",
    "gpt-4o-audio-preview-2024-12-17",
    "gpt-4o-audio-preview-2025-06-03",
    "gpt-4o-mini-audio-preview",
    "gpt-4o-mini-audio-preview-2024-12-17",
    "gpt-4o-search-preview",
    "gpt-4o-mini-search-preview",
    "gpt-4o-search-preview-2025-03-11",
    "gpt-4o-mini-search-preview-2025-03-11",
    "chatgpt-4o-latest",
    "codex-mini-latest",
    "gpt-4o-mini",
    "gpt-4o-mini-2024-07-18",
    "gpt-4-turbo",
    "gpt-4-turbo-2024-04-09",
    "gpt-4-0125-preview",
    "gpt-4-turbo-preview",
    "gpt-4-1106-preview",
    "gpt-4-vision-preview",
    "gpt-4",
    "gpt-4-0314",
    "gpt-4-0613",
    "gpt-4-32k",
    "gpt-4-32k-0314",
    "gpt-4-32k-0613",
    "gpt-3.5-turbo",
    "gpt-3.5-turbo-16k",
    "gpt-3.5-turbo-0301",
    "gpt-3.5-turbo-0613",
    "gpt-3.5-turbo-1106",
    "gpt-3.5-turbo-0125",
    "gpt-3.5-turbo-16k-0613",
)


def owner_of(model: str) -> str:
    return (
        "system" if model.startswith(("gpt-", "o1", "o3", "o4", "chatgpt", "codex")) else "openai"
    )


#: The model families that do not reason (GPT-4 and before, the audio models): a request for
#: one of them that sets reasoning is refused. Every other name reasons (gpt-5, the o-series,
#: codex, and names the contract does not list, which are accepted as given).
NON_REASONING: tuple[str, ...] = ("gpt-4", "gpt-3.5", "chatgpt-", "gpt-audio")


def reasons(model: str) -> bool:
    """Does ``model`` reason (may a request set its reasoning effort or summary)?"""
    return not model.startswith(NON_REASONING)


def unsupported_reasoning(param: str) -> InvalidRequestError:
    """The API's 400 for a reasoning setting (``param``) sent for a model that does not reason."""
    return InvalidRequestError(
        f"Unsupported parameter: '{param}' is not supported with this model.",
        param=param,
        code="unsupported_parameter",
    )


#: Anthropic's models, newest first as its ``/v1/models`` lists them: ``(id, display name,
#: created_at)``. The dates are the dated ids' own where an id has one, else plausible ones
#: in the same order.
ANTHROPIC_MODELS: tuple[tuple[str, str, str], ...] = (
    ("claude-fable-5-2", "Claude Fable 5.2", "2026-11-18T00:00:00Z"),
    ("claude-mythos-5-2", "Claude Mythos 5.2", "2026-11-04T00:00:00Z"),
    ("claude-haiku-5-5", "Claude Haiku 5.5", "2026-10-21T00:00:00Z"),
    ("claude-sonnet-5-5", "Claude Sonnet 5.5", "2026-10-07T00:00:00Z"),
    ("claude-fable-5-1", "Claude Fable 5.1", "2026-09-23T00:00:00Z"),
    ("claude-opus-5-5", "Claude Opus 5.5", "2026-09-09T00:00:00Z"),
    ("claude-mythos-5-1", "Claude Mythos 5.1", "2026-08-26T00:00:00Z"),
    ("claude-sonnet-5", "Claude Sonnet 5", "2026-08-12T00:00:00Z"),
    ("claude-fable-5", "Claude Fable 5", "2026-07-29T00:00:00Z"),
    ("claude-mythos-5", "Claude Mythos 5", "2026-07-15T00:00:00Z"),
    ("claude-opus-5", "Claude Opus 5", "2026-07-01T00:00:00Z"),
    ("claude-opus-4-8", "Claude Opus 4.8", "2026-05-20T00:00:00Z"),
    ("claude-opus-4-7", "Claude Opus 4.7", "2026-04-16T00:00:00Z"),
    ("claude-mythos-preview", "Claude Mythos Preview", "2026-03-18T00:00:00Z"),
    ("claude-opus-4-6", "Claude Opus 4.6", "2026-02-05T00:00:00Z"),
    ("claude-sonnet-4-6", "Claude Sonnet 4.6", "2026-01-20T00:00:00Z"),
    ("claude-opus-4-5-20251101", "Claude Opus 4.5", "2025-11-01T00:00:00Z"),
    ("claude-haiku-4-5-20251001", "Claude Haiku 4.5", "2025-10-01T00:00:00Z"),
)


#: The models an Ollama server answers for unless a scenario names others (``docs/ollama.md``):
#: ``(name, family, parameter size, quantization, bytes on disk, capabilities)``. Any tag of
#: one of them (``llama3.2:1b``) is that model too.
OLLAMA_MODELS: tuple[tuple[str, str, str, str, int, tuple[str, ...]], ...] = (
    ("llama3.2", "llama", "3.2B", "Q4_K_M", 2_019_393_189, ("completion", "tools")),
    ("llama3.1", "llama", "8.0B", "Q4_K_M", 4_920_753_328, ("completion", "tools")),
    ("llama3", "llama", "8.0B", "Q4_0", 4_661_224_676, ("completion",)),
    ("llava", "llama", "7B", "Q4_0", 4_733_363_377, ("completion", "vision")),
    ("qwen3", "qwen3", "8.2B", "Q4_K_M", 5_225_388_164, ("completion", "tools", "thinking")),
    ("qwen2.5", "qwen2", "7.6B", "Q4_K_M", 4_683_087_332, ("completion", "tools")),
    ("qwen2.5-coder", "qwen2", "7.6B", "Q4_K_M", 4_683_087_519, ("completion", "tools")),
    ("deepseek-r1", "qwen2", "7.6B", "Q4_K_M", 4_683_075_271, ("completion", "thinking")),
    ("gemma3", "gemma3", "4.3B", "Q4_K_M", 3_338_801_804, ("completion", "vision")),
    ("mistral", "llama", "7.2B", "Q4_0", 4_113_301_824, ("completion", "tools")),
    ("phi4", "phi3", "14.7B", "Q4_K_M", 9_053_116_391, ("completion",)),
    ("gpt-oss", "gptoss", "20.9B", "MXFP4", 13_780_173_724, ("completion", "tools", "thinking")),
    ("nomic-embed-text", "nomic-bert", "137M", "F16", 274_302_450, ("embedding",)),
    ("all-minilm", "bert", "23M", "F16", 45_960_996, ("embedding",)),
    ("mxbai-embed-large", "bert", "334M", "F16", 669_615_493, ("embedding",)),
)


def ollama_base(model: str) -> str:
    """A model's name without its tag (``llama3.2:1b`` → ``llama3.2``; ``:latest`` too)."""
    return model.rpartition(":")[0] if ":" in model.rpartition("/")[2] else model


def ollama_tagged(model: str) -> str:
    """A model's name as Ollama lists it: with its tag (``llama3.2`` → ``llama3.2:latest``)."""
    return model if ":" in model.rpartition("/")[2] else f"{model}:latest"


def ollama_catalog_has(model: str) -> bool:
    """Is ``model`` (any tag of it) one of :data:`OLLAMA_MODELS`?"""
    base = ollama_base(model)
    return any(name == base for name, *_ in OLLAMA_MODELS)

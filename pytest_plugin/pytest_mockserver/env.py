"""Clients made at import time: ``OPENAI_BASE_URL`` and ``OPENAI_API_KEY`` for the whole
session, set before conftest files and test modules are imported, and undone at the end; and
what google-genai reads for the same (:func:`google_variables`: the Developer API's and
Vertex AI's base URLs, the server's root, and the keys), ``openai.AzureOpenAI``
(``AZURE_OPENAI_ENDPOINT``, ``AZURE_OPENAI_API_KEY`` and, unless set, ``OPENAI_API_VERSION``),
``anthropic.Anthropic`` (``ANTHROPIC_BASE_URL``, the server's root, and ``ANTHROPIC_API_KEY``)
the ``ollama`` package (:func:`ollama_variables`: ``OLLAMA_HOST``, the server's root, and
``OLLAMA_API_KEY``, which it sends as a bearer token: the namespace), and boto3's
``bedrock-runtime`` (:func:`aws_variables`: its endpoint, dummy credentials whose access key id
names the namespace, a region).

The session server's socket is bound here (so the URL is known before collection) and served
from the first test on; under pytest-xdist every worker binds a socket of its own, and the
controller, which runs no test, sets nothing. The key selects one namespace per process, the
one the ``mockserver`` fixture acts on when this is on; it is reset after every test.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass, field

__all__ = [
    "AZURE_ENDPOINT",
    "AZURE_KEY",
    "AZURE_VERSION",
    "BASE_URL",
    "DEFAULT_API_VERSION",
    "KEY",
    "ClientEnv",
    "Variables",
    "aws_variables",
    "azure_variables",
    "bind_loopback",
    "google_variables",
    "session_key",
    "set_variables",
]

BASE_URL = "OPENAI_BASE_URL"
KEY = "OPENAI_API_KEY"
#: What ``genai.Client()`` reads when given nothing: the Developer API's base URL, Vertex AI's
#: (``vertexai=True``, or ``GOOGLE_GENAI_USE_VERTEXAI``: express mode, an API key), and the key
#: it prefers to ``GEMINI_API_KEY``.
GEMINI_BASE_URL = "GOOGLE_GEMINI_BASE_URL"
VERTEX_BASE_URL = "GOOGLE_VERTEX_BASE_URL"
GEMINI_KEY = "GOOGLE_API_KEY"
#: The key google-genai reads when ``GOOGLE_API_KEY`` is unset (and litellm's ``gemini/``).
OTHER_GEMINI_KEY = "GEMINI_API_KEY"
ANTHROPIC_BASE_URL = "ANTHROPIC_BASE_URL"
ANTHROPIC_KEY = "ANTHROPIC_API_KEY"
#: What ``openai.AzureOpenAI()`` reads when given nothing.
AZURE_ENDPOINT = "AZURE_OPENAI_ENDPOINT"
AZURE_KEY = "AZURE_OPENAI_API_KEY"
AZURE_VERSION = "OPENAI_API_VERSION"
#: The ``api-version`` an Azure client is given (mockserver takes any).
DEFAULT_API_VERSION = "2024-10-21"
OLLAMA_HOST = "OLLAMA_HOST"
OLLAMA_KEY = "OLLAMA_API_KEY"
#: What boto3 reads for Bedrock Runtime: its endpoint (before any in a config file), the
#: credentials (before a profile's) and the region.
BEDROCK_ENDPOINT = "AWS_ENDPOINT_URL_BEDROCK_RUNTIME"
#: litellm's own name for it (its ``bedrock/…`` models build their URLs without boto3).
LITELLM_BEDROCK_ENDPOINT = "AWS_BEDROCK_RUNTIME_ENDPOINT"
AWS_KEY_ID = "AWS_ACCESS_KEY_ID"
AWS_SECRET_KEY = "AWS_SECRET_ACCESS_KEY"
AWS_REGIONS = ("AWS_REGION", "AWS_DEFAULT_REGION")
#: What boto3 would otherwise send or obey instead, unset where set: a real session token, a
#: Bedrock API key (boto3 prefers it to the signature, and refuses it over plain HTTP), and
#: the switch that ignores the endpoint variable.
AWS_UNSET = (
    "AWS_SESSION_TOKEN",
    "AWS_SECURITY_TOKEN",
    "AWS_BEARER_TOKEN_BEDROCK",
    "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS",
)
#: The secret and the region of the credentials a Bedrock client is given (none is checked).
AWS_SECRET = "mockserver-secret"
AWS_REGION = "us-east-1"
HOST = "127.0.0.1"

#: Environment variables to set, ``None`` for one to unset.
Variables = dict[str, str | None]


def azure_variables(base_url: str, api_key: str) -> dict[str, str]:
    """The Azure client's variables for a server whose OpenAI base URL is ``base_url`` (its
    endpoint is the server's root; the version, only where none is set)."""
    variables = {AZURE_ENDPOINT: base_url.removesuffix("/v1"), AZURE_KEY: api_key}
    if not os.environ.get(AZURE_VERSION):
        variables[AZURE_VERSION] = DEFAULT_API_VERSION
    return variables


def google_variables(root_url: str, api_key: str) -> dict[str, str]:
    """google-genai's variables for a server at ``root_url``: both base URLs, and the key it
    prefers; ``GEMINI_API_KEY`` too where it is set, so that no real key stays there for a
    library to send (google-genai then logs that both are set, and uses ``GOOGLE_API_KEY``)."""
    variables = {GEMINI_BASE_URL: root_url, VERTEX_BASE_URL: root_url, GEMINI_KEY: api_key}
    if os.environ.get(OTHER_GEMINI_KEY):
        variables[OTHER_GEMINI_KEY] = api_key
    return variables


def ollama_variables(root_url: str, api_key: str) -> dict[str, str]:
    """The ``ollama`` client's variables for a server at ``root_url``: its host, and the key it
    sends as a bearer token."""
    return {OLLAMA_HOST: root_url, OLLAMA_KEY: api_key}


def aws_variables(root_url: str, api_key: str) -> Variables:
    """boto3's variables for a Bedrock Runtime client of a server at ``root_url``: the
    endpoint (litellm's variable too), ``api_key`` as the access key id (the signature's, which
    names the namespace), a dummy secret and ``us-east-1``; what would send a real credential
    instead is unset."""
    variables: Variables = {
        BEDROCK_ENDPOINT: root_url,
        LITELLM_BEDROCK_ENDPOINT: root_url,
        AWS_KEY_ID: api_key,
        AWS_SECRET_KEY: AWS_SECRET,
        **dict.fromkeys(AWS_REGIONS, AWS_REGION),
    }
    variables.update({name: None for name in AWS_UNSET if name in os.environ})
    return variables


def set_variables(variables: Variables) -> None:
    """Set (or, for ``None``, unset) each variable."""
    for name, value in variables.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


def session_key() -> str:
    """The session's key: one namespace per process (per xdist worker)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    return f"sk-mock-session-{worker}" if worker else "sk-mock-session"


def bind_loopback(port: int, *, listen: bool = True) -> socket.socket:
    """A listening socket on loopback (as ``mockserver.http.server.bind`` makes, without importing
    the server yet); connections wait in its backlog until the server accepts them."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((HOST, port))
    except OSError as exc:
        sock.close()
        import pytest

        raise pytest.UsageError(
            f"mockserver: cannot listen on {HOST}:{port} ({exc.strerror}); "
            "choose another --mockserver-port, or 0 for any free port"
        ) from None
    if listen:
        sock.listen(2048)
    return sock


@dataclass
class ClientEnv:
    """What was set, and what was there before (restored by :meth:`undo`)."""

    base_url: str
    api_key: str
    #: The reserved socket, until the session server takes it (``None``: an external server).
    sock: socket.socket | None = None
    saved: dict[str, str | None] = field(default_factory=dict)
    #: ``False`` in xdist's controller: its variables are a placeholder.
    serving: bool = True

    @classmethod
    def install(cls, *, port: int, external_url: str | None, serve: bool = True) -> ClientEnv:
        """Set the variables; ``serve=False`` (xdist's controller): bind a port, never listen
        on it, so that a request there is refused at once."""
        sock = None
        if external_url is not None:
            base_url = external_url + "/v1"
        else:
            sock = bind_loopback(port if serve else 0, listen=serve)
            base_url = f"http://{HOST}:{sock.getsockname()[1]}/v1"
        made = cls(base_url=base_url, api_key=session_key(), sock=sock, serving=serve)
        root_url = made.base_url.removesuffix("/v1")
        values: Variables = {
            BASE_URL: made.base_url,
            KEY: made.api_key,
            **google_variables(root_url, made.api_key),
            ANTHROPIC_BASE_URL: root_url,
            ANTHROPIC_KEY: made.api_key,
            **azure_variables(made.base_url, made.api_key),
            **ollama_variables(root_url, made.api_key),
            **aws_variables(root_url, made.api_key),
        }
        made.saved = {name: os.environ.get(name) for name in values}
        set_variables(values)
        return made

    def shell(self) -> dict[str, str]:
        """The environment as the shell gave it, before these variables were set (what an
        upstream is reached with when recording: the real keys, not the mock's)."""
        environ = dict(os.environ)
        for name, value in self.saved.items():
            if value is None:
                environ.pop(name, None)
            else:
                environ[name] = value
        return environ

    def take_socket(self) -> socket.socket | None:
        """The reserved socket, for the session server (once)."""
        sock, self.sock = self.sock, None
        return sock

    def undo(self) -> None:
        set_variables(self.saved)
        if self.sock is not None:  # never served
            self.sock.close()
            self.sock = None

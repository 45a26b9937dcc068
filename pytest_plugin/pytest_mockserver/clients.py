"""The official clients a handle makes for its test's namespace: ``openai.OpenAI``,
``openai.AzureOpenAI`` and ``anthropic.Anthropic``, each sync or async, over the socket or
in-process; and boto3's ``bedrock-runtime``, over the socket.

Every client carries the test's key (a bearer token for OpenAI's, the ``api-key`` header for
Azure's, ``x-api-key`` or a bearer token for Anthropic's, the access key id of boto3's SigV4
signature), so its requests land in the test's namespace; the handle closes the clients it
owns at teardown.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from pytest_mockserver.env import AWS_REGION, AWS_SECRET, DEFAULT_API_VERSION

if TYPE_CHECKING:
    from pytest_mockserver.handle import MockServer

__all__ = [
    "CLIENT_TIMEOUT",
    "IN_PROCESS_ROOT",
    "IN_PROCESS_URL",
    "new_anthropic_client",
    "new_bedrock_client",
    "new_client",
    "require",
]

#: What a handle-made client is given unless the test says otherwise: never hang a test.
CLIENT_TIMEOUT = 30.0
IN_PROCESS_ROOT = "http://mockserver.in-process"
IN_PROCESS_URL = IN_PROCESS_ROOT + "/v1"
#: What a SigV4 credential's access key id can carry (``Credential=<id>/<date>/…``).
_ACCESS_KEY_ID = re.compile(r"[A-Za-z0-9_.-]+")


def new_client(
    handle: MockServer,
    *,
    azure: bool,
    asynchronous: bool,
    in_process: bool | None,
    options: dict[str, Any],
) -> Any:
    """A client of ``handle``'s namespace (see the module's docstring); ``options`` go to its
    constructor, but for what selects the namespace (the key and where to send)."""
    require("openai", "openai", "mockserver.client() and the other client makers")
    import openai

    if azure and "azure_endpoint" in options:
        raise TypeError("the handle sets azure_endpoint: it selects this test's namespace")
    ours = "http_client" not in options  # a client given its own is the test's to close
    local = _connect(handle, "openai", options, asynchronous=asynchronous, in_process=in_process)
    root = IN_PROCESS_ROOT if local else handle.root_url
    kind: Any
    if azure:
        options = {"azure_endpoint": root, "api_version": DEFAULT_API_VERSION, **options}
        kind = openai.AsyncAzureOpenAI if asynchronous else openai.AzureOpenAI
    else:
        options = {"base_url": root + "/v1", **options}
        kind = openai.AsyncOpenAI if asynchronous else openai.OpenAI
    client = kind(**{"timeout": CLIENT_TIMEOUT, **options, "api_key": handle.api_key})
    if ours or not asynchronous:
        handle._clients.append((client, asynchronous))
    return client


def new_anthropic_client(
    handle: MockServer, *, asynchronous: bool, in_process: bool | None, options: dict[str, Any]
) -> Any:
    """An ``anthropic.Anthropic`` (or ``AsyncAnthropic``) of ``handle``'s namespace, at the
    server's root (the SDK adds ``/v1/messages``); ``options`` go to its constructor."""
    require("anthropic", "anthropic", "mockserver.anthropic_client() and its async twin")
    import anthropic

    ours = "http_client" not in options
    local = _connect(handle, "anthropic", options, asynchronous=asynchronous, in_process=in_process)
    options = {"base_url": IN_PROCESS_ROOT if local else handle.root_url, **options}
    kind: Any = anthropic.AsyncAnthropic if asynchronous else anthropic.Anthropic
    client = kind(**{"timeout": CLIENT_TIMEOUT, **options, "api_key": handle.api_key})
    if ours or not asynchronous:
        handle._clients.append((client, asynchronous))
    return client


def new_bedrock_client(handle: MockServer, config: dict[str, Any]) -> Any:
    """boto3's ``bedrock-runtime`` client of ``handle``'s namespace, on the session's server
    (the key is the access key id its signature sends); ``config`` goes to botocore's
    ``Config`` (``retries=``, ``read_timeout=``, …)."""
    require("boto3", "boto3", "mockserver.bedrock_client()")
    import boto3  # type: ignore[import-untyped]
    from botocore.config import Config  # type: ignore[import-untyped]

    if not _ACCESS_KEY_ID.fullmatch(handle.api_key):  # never made so by the session
        raise ValueError(f"{handle.api_key!r} cannot be an access key id: give the handle another")
    client = boto3.client(
        "bedrock-runtime",
        region_name=AWS_REGION,
        endpoint_url=handle.root_url,
        aws_access_key_id=handle.api_key,
        aws_secret_access_key=AWS_SECRET,
        config=Config(**{"read_timeout": CLIENT_TIMEOUT, **config}),
    )
    handle._clients.append((client, False))
    return client


def _connect(
    handle: MockServer,
    sdk: str,
    options: dict[str, Any],
    *,
    asynchronous: bool,
    in_process: bool | None,
) -> bool:
    """Give ``options`` the HTTP client (of ``sdk``'s library) the client is to use, if it
    needs one of ours; whether it calls the app in-process."""
    local = handle._in_process(in_process, options)
    if local:
        options["http_client"] = _in_process_http(handle, sdk, asynchronous=asynchronous)
    elif "http_client" not in options and asynchronous:
        from pytest_mockserver.transport import http_module

        # No pooled connection outlives a request: the test's event loop may be gone by
        # teardown, and a socket left open on it is a ResourceWarning.
        module = http_module(sdk)
        options["http_client"] = module.AsyncClient(
            limits=module.Limits(max_keepalive_connections=0)
        )
    return local


def _in_process_http(handle: MockServer, sdk: str, *, asynchronous: bool) -> Any:
    """An HTTP client (of ``sdk``'s library) that calls the session's app without a socket."""
    from pytest_mockserver.transport import (
        SyncASGITransport,
        async_transport,
        http_module,
    )

    module = http_module(sdk)
    app = handle.session.app
    if asynchronous:
        return module.AsyncClient(transport=async_transport(module, app))
    transport = SyncASGITransport(module, app, handle.session.portal())
    return module.Client(transport=transport)


def require(module: str, package: str, what: str) -> None:
    """Say what to install when ``module`` is missing."""
    import importlib.util

    try:
        found = importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # a parent package is missing (``google``)
        found = False
    if not found:
        raise ModuleNotFoundError(
            f"{what} need the {package} package: pip install {package} (or talk to "
            "mockserver.base_url with any HTTP client)"
        )

"""The official clients a handle makes for its test's namespace (:class:`ClientMakers`, the
handle's methods): ``openai.OpenAI``, ``openai.AzureOpenAI`` and ``anthropic.Anthropic``, each
sync or async, over the socket or in-process; google-genai's ``Client``, ``ollama.Client`` and
its async twin, and boto3's ``bedrock-runtime``, over the socket.

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
    import anthropic
    import ollama
    import openai
    from google import genai

    from pytest_mockserver.session import MockServerSession

__all__ = [
    "CLIENT_TIMEOUT",
    "IN_PROCESS_ROOT",
    "IN_PROCESS_URL",
    "ClientMakers",
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


class ClientMakers:
    """Where a handle sends requests, and the clients it makes: the part of
    :class:`~pytest_mockserver.handle.MockServer` that knows each SDK (the handle sets the
    attributes declared here)."""

    session: MockServerSession
    api_key: str
    _clients: list[tuple[Any, bool]]

    # -- where to send requests ----------------------------------------------------------

    @property
    def base_url(self) -> str:
        """The OpenAI base URL of the session's server (``http://127.0.0.1:<port>/v1``)."""
        return self.session.base_url

    @property
    def headers(self) -> dict[str, str]:
        """The headers that select this test's namespace, for a hand-made HTTP client."""
        return {"Authorization": f"Bearer {self.api_key}"}

    @property
    def azure_endpoint(self) -> str:
        """The Azure OpenAI endpoint of the session's server (``http://127.0.0.1:<port>``),
        for ``openai.AzureOpenAI(azure_endpoint=…)``; send :attr:`api_key` as ``api-key``."""
        return self.root_url

    def client(self, *, in_process: bool | None = None, **options: Any) -> openai.OpenAI:
        """An ``openai.OpenAI`` for this namespace, closed at teardown.

        ``options`` go to the constructor (``max_retries=0``, ``timeout=5``, …).
        ``in_process=True`` skips the socket (default: ``--mockserver-in-process``).
        """
        made: openai.OpenAI = new_client(
            self, azure=False, asynchronous=False, in_process=in_process, options=options
        )
        return made

    def async_client(self, *, in_process: bool | None = None, **options: Any) -> openai.AsyncOpenAI:
        """An ``openai.AsyncOpenAI`` for this namespace, closed at teardown (like ``client``)."""
        made: openai.AsyncOpenAI = new_client(
            self, azure=False, asynchronous=True, in_process=in_process, options=options
        )
        return made

    def azure_client(self, *, in_process: bool | None = None, **options: Any) -> openai.AzureOpenAI:
        """An ``openai.AzureOpenAI`` for this namespace (its key in the ``api-key`` header),
        closed at teardown. ``options`` go to the constructor (``azure_deployment=``,
        ``api_version=``: any is taken, 2024-10-21 unless given, …), as for ``client``."""
        made: openai.AzureOpenAI = new_client(
            self, azure=True, asynchronous=False, in_process=in_process, options=options
        )
        return made

    def async_azure_client(
        self, *, in_process: bool | None = None, **options: Any
    ) -> openai.AsyncAzureOpenAI:
        """An ``openai.AsyncAzureOpenAI`` for this namespace (like ``azure_client``)."""
        made: openai.AsyncAzureOpenAI = new_client(
            self, azure=True, asynchronous=True, in_process=in_process, options=options
        )
        return made

    def anthropic_client(
        self, *, in_process: bool | None = None, **options: Any
    ) -> anthropic.Anthropic:
        """An ``anthropic.Anthropic`` for this namespace (its key), at the server's root,
        closed at teardown; ``options`` and ``in_process`` as for ``client``."""
        made: anthropic.Anthropic = new_anthropic_client(
            self, asynchronous=False, in_process=in_process, options=options
        )
        return made

    def async_anthropic_client(
        self, *, in_process: bool | None = None, **options: Any
    ) -> anthropic.AsyncAnthropic:
        """An ``anthropic.AsyncAnthropic`` for this namespace (like ``anthropic_client``)."""
        made: anthropic.AsyncAnthropic = new_anthropic_client(
            self, asynchronous=True, in_process=in_process, options=options
        )
        return made

    @property
    def root_url(self) -> str:
        """The session's server without an API's path (``http://127.0.0.1:<port>``): the
        base URL of clients that add their own version (google-genai's ``v1beta``…)."""
        return self.base_url.removesuffix("/v1")

    def gemini_client(self, **options: Any) -> genai.Client:
        """A ``google.genai.Client`` for this namespace (its key), on the session's server,
        closed at teardown; ``client.aio`` is its async side. ``options`` go to its
        ``HttpOptions`` (``retry_options``, ``api_version``, ``timeout`` in ms, …)."""
        require("google.genai", "google-genai", "mockserver.gemini_client()")
        import httpx
        from google import genai
        from google.genai import types

        if "base_url" in options:
            raise TypeError("the handle sets base_url: it is the session's server")
        if "httpx_async_client" not in options:  # httpx, not aiohttp (which warns about the
            # SDK's subclass of its session), with no pooled connection left at teardown
            limits = httpx.Limits(max_keepalive_connections=0)
            options["httpx_async_client"] = httpx.AsyncClient(limits=limits)
        http_options = types.HttpOptions(
            **{"timeout": int(CLIENT_TIMEOUT * 1000), **options, "base_url": self.root_url}
        )
        client = genai.Client(api_key=self.api_key, http_options=http_options)
        self._clients.append((client, False))
        return client

    def ollama_client(self, **options: Any) -> ollama.Client:
        """An ``ollama.Client`` for this namespace (its key, sent as a bearer token), on the
        session's server, closed at teardown. ``options`` go to its constructor (``timeout``,
        ``headers``, httpx's own)."""
        require("ollama", "ollama", "mockserver.ollama_client()")
        import ollama

        client = ollama.Client(**self._ollama_options(options))
        self._clients.append((client, False))
        return client

    def async_ollama_client(self, **options: Any) -> ollama.AsyncClient:
        """An ``ollama.AsyncClient`` for this namespace, closed at teardown (like
        ``ollama_client``)."""
        require("ollama", "ollama", "mockserver.async_ollama_client()")
        import httpx
        import ollama

        # no pooled connection outlives a request: the test's event loop may be gone by
        # teardown (httpx's own options reach its AsyncClient)
        options.setdefault("limits", httpx.Limits(max_keepalive_connections=0))
        client = ollama.AsyncClient(**self._ollama_options(options))
        self._clients.append((client, True))
        return client

    def bedrock_client(self, **config: Any) -> Any:
        """boto3's ``bedrock-runtime`` client for this namespace (:attr:`api_key` is its
        access key id, the secret a dummy, the region us-east-1), on the session's server,
        closed at teardown. ``config`` goes to botocore's ``Config``
        (``retries={"total_max_attempts": 1}``, ``read_timeout=``, …)."""
        return new_bedrock_client(self, config)

    def _ollama_options(self, options: dict[str, Any]) -> dict[str, Any]:
        if "host" in options:
            raise TypeError("the handle sets host: it is the session's server")
        headers = {**options.pop("headers", {}), "Authorization": f"Bearer {self.api_key}"}
        return {"timeout": CLIENT_TIMEOUT, **options, "host": self.root_url, "headers": headers}

    def _in_process(self, wanted: bool | None, options: dict[str, Any]) -> bool:
        for taken in ("api_key", "base_url"):
            if taken in options:
                raise TypeError(f"the handle sets {taken}: it selects this test's namespace")
        own_client = "http_client" in options
        if wanted and own_client:
            raise TypeError("give in_process=True or http_client=..., not both")
        return wanted if wanted is not None else self.session.in_process and not own_client


def new_client(
    handle: ClientMakers,
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
    handle: ClientMakers, *, asynchronous: bool, in_process: bool | None, options: dict[str, Any]
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


def new_bedrock_client(handle: ClientMakers, config: dict[str, Any]) -> Any:
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
    handle: ClientMakers,
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


def _in_process_http(handle: ClientMakers, sdk: str, *, asynchronous: bool) -> Any:
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

"""The network guard: a test that uses mockserver may not reach beyond this machine.

While a guarded test runs, ``socket.socket.connect`` and ``connect_ex`` refuse any address but
loopback (``127.0.0.0/8``, ``::1``, IPv4-mapped loopback), unix sockets and the external
server's host (``--mockserver-url``), and ``socket.getaddrinfo`` refuses to resolve any name
but ``localhost`` (so no DNS query leaves either). A refusal raises :class:`NetworkGuardError`
where the code under test connects (an ``OSError``, which HTTP clients turn into their
connection error; its message is short, as clients quote it in each error they wrap it in) and
is recorded: the plugin then fails the test with one message that names the host and how to
fix it, whatever the client made of the error (the OpenAI SDK retries and says only
"Connection error.").

Patched by hand rather than through pytest-socket: that plugin would load into every user's
suite, its allow-list compares strings (``::1`` cannot be allowed; ``127.0.0.2`` and
IPv4-mapped loopback are refused), it does not guard ``connect_ex`` or name resolution, and
its error, raised inside the client, is the one the SDK hides. The patch is installed for
one test at a time and undone after it, stacked over whatever was there before.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["NetworkGuard", "NetworkGuardError", "is_local"]

FIX = (
    "a test that uses mockserver may only connect to this machine (loopback). Point the code "
    "at mockserver (mockserver.client(), the mockserver_env fixture, or "
    "--mockserver-env for clients made at import time), or let this test out with "
    "@pytest.mark.mockserver(allow_network=True) (for every test: --mockserver-allow-network "
    "or ini mockserver_network_guard = false)"
)


class NetworkGuardError(OSError):
    """A connection (or a name lookup) the network guard refused."""


def _loopback_ip(host: str) -> bool:
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped.is_loopback
    return address.is_loopback


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False
    return True


def is_local(host: str) -> bool:
    """A loopback address, or a name that stands for one (``localhost``, ``*.localhost``)."""
    name = host.rstrip(".").lower()
    return _loopback_ip(name) or name == "localhost" or name.endswith(".localhost")


def _describe(address: Any) -> tuple[str, str]:
    """(host, ``host:port``) of a connect() address."""
    if isinstance(address, tuple) and len(address) >= 2:
        host = str(address[0])
        shown = f"[{host}]" if ":" in host else host
        return host, f"{shown}:{address[1]}"
    return str(address), str(address)


class NetworkGuard:
    """Refuses non-local connections while started; remembers what it refused."""

    def __init__(self, *, allowed_hosts: Iterable[str] = ()) -> None:
        #: Further hosts let through (the external server's), by name and by address.
        self.allowed = {h.lower() for h in allowed_hosts}
        self.refused: list[str] = []
        self._names: dict[str, str] = {}
        self._saved: tuple[Callable[..., Any], Callable[..., Any], Callable[..., Any]] | None = None

    @property
    def started(self) -> bool:
        return self._saved is not None

    def allow(self, host: str) -> None:
        """Let ``host`` through, and the addresses it resolves to now."""
        self.allowed.add(host.lower())
        try:
            infos = socket.getaddrinfo(host, None)
        except OSError:
            return
        self.allowed.update(str(info[4][0]) for info in infos)

    def _allowed(self, host: str) -> bool:
        return is_local(host) or host.lower() in self.allowed

    def _refuse(self, what: str, host: str) -> NetworkGuardError:
        name = self._names.get(host)
        target = f"{what} ({name})" if name and name != host else what
        self.refused.append(target)
        # Short: a client wraps it in errors of its own (httpx: two), each quoting it, and
        # retries; the test's report says the rest once (``failure``).
        return NetworkGuardError(f"refused by mockserver's network guard: {target}")

    def start(self) -> None:
        if self._saved is not None:
            return
        connect, connect_ex = socket.socket.connect, socket.socket.connect_ex
        getaddrinfo = socket.getaddrinfo
        self._saved = (connect, connect_ex, getaddrinfo)
        guard = self

        def check(sock: socket.socket, address: Any) -> None:
            if sock.family == getattr(socket, "AF_UNIX", None):
                return
            host, shown = _describe(address)
            if not guard._allowed(host):
                raise guard._refuse(shown, host)

        def guarded_connect(self: socket.socket, address: Any) -> None:
            check(self, address)
            connect(self, address)

        def guarded_connect_ex(self: socket.socket, address: Any) -> int:
            check(self, address)
            result: int = connect_ex(self, address)
            return result

        def guarded_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
            name = host.decode() if isinstance(host, bytes) else host
            if isinstance(name, str) and not _is_ip(name) and not guard._allowed(name):
                port = args[0] if args else kwargs.get("port")
                raise guard._refuse(f"{name}:{port}" if port is not None else name, name)
            infos = getaddrinfo(host, *args, **kwargs)
            if isinstance(name, str):
                for info in infos:
                    guard._names.setdefault(str(info[4][0]), name)
            return infos

        socket.socket.connect = guarded_connect  # type: ignore[method-assign,assignment]
        socket.socket.connect_ex = guarded_connect_ex  # type: ignore[method-assign,assignment]
        socket.getaddrinfo = guarded_getaddrinfo

    def stop(self) -> None:
        if self._saved is None:
            return
        connect, connect_ex, getaddrinfo = self._saved
        socket.socket.connect = connect  # type: ignore[method-assign]
        socket.socket.connect_ex = connect_ex  # type: ignore[method-assign]
        socket.getaddrinfo = getaddrinfo
        self._saved = None

    def take(self) -> list[str]:
        """What was refused since the last call."""
        refused, self.refused = self.refused, []
        return refused


def failure(refused: list[str]) -> str:
    """The test's failure: every refused host, then the fix."""
    hosts = ", ".join(dict.fromkeys(refused))
    return f"mockserver's network guard refused a connection to {hosts}: {FIX}"

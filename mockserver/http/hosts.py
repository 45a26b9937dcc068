"""Which ``Host`` names the control plane answers: the guard against DNS rebinding.

A web page on ``http://evil.example:8000`` whose name the attacker's DNS points at 127.0.0.1
talks to a loopback server as its own origin: the browser sends ``Host: evil.example:8000`` and
``Origin: http://evil.example:8000``, and reads the answers. Checking the ``Host`` name stops
it: such a page can only send its own name. Allowed, as Vite's ``server.allowedHosts`` does:

- loopback names: ``localhost`` and ``*.localhost`` (browsers resolve them to loopback
  themselves), ``127.0.0.0/8`` and ``[::1]``;
- any IP address literal: a page can only have it as its origin if it is served from that
  address, so no other site's DNS is involved (a phone on the Wi-Fi calling ``192.168.1.20``);
- the names the user lists (``--allowed-host``): ``api.test`` exactly, ``.example.com`` for
  that name and every name under it, ``*`` for any name at all (which gives the guard up).

Any port goes with an allowed name. A request with no ``Host`` (HTTP/1.0) is allowed: a browser
always sends one.
"""

from __future__ import annotations

import ipaddress

from mockserver.values import value_class

__all__ = ["HostPolicy", "host_name", "is_loopback_host"]


def host_name(host: str) -> str:
    """The name of a ``Host`` header value: without its port, brackets or final dot, in lower
    case (``[::1]:8000`` → ``::1``, ``LocalHost.:80`` → ``localhost``)."""
    value = host.strip().lower()
    if value.startswith("["):
        return value[1:].partition("]")[0]
    if value.count(":") == 1:
        value = value.partition(":")[0]
    return value.rstrip(".")


def is_loopback_host(host: str) -> bool:
    """``localhost``, ``127.0.0.0/8`` or ``::1`` (other names may resolve anywhere)."""
    name = host.strip("[]").lower()
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def _is_loopback_name(name: str) -> bool:
    return name == "localhost" or name.endswith(".localhost")


@value_class
class HostPolicy:
    """The names allowed besides loopback names and IP addresses."""

    exact: frozenset[str]
    #: Suffixes of listed ``.example.com`` entries (kept with their dot).
    domains: tuple[str, ...]
    any_host: bool

    @classmethod
    def from_list(cls, listed: tuple[str, ...]) -> HostPolicy:
        names = [entry.strip().lower() for entry in listed if entry.strip()]
        domains = tuple(n.rstrip(".") for n in names if n.startswith("."))
        exact = frozenset(host_name(n) for n in names if not n.startswith(".") and n != "*")
        return cls(exact, domains, "*" in names)

    def allows(self, host: str | None) -> bool:
        if host is None or self.any_host:
            return True
        name = host_name(host)
        if _is_loopback_name(name) or _is_ip(name) or name in self.exact:
            return True
        return any(name == d[1:] or name.endswith(d) for d in self.domains)

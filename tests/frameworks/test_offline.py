"""The guard these tests run behind refuses anything beyond loopback, names included."""

from __future__ import annotations

import socket

import httpx
import pytest

from mockserver.http.server import BackgroundServer


def test_connections_and_look_ups_beyond_loopback_are_refused(
    loopback_only: list[str], server: BackgroundServer
) -> None:
    with pytest.raises(httpx.ConnectError):
        httpx.get("http://192.0.2.1/", timeout=1)
    with pytest.raises(ConnectionRefusedError):
        socket.getaddrinfo("example.com", 443)
    assert loopback_only == ["192.0.2.1", "example.com"]
    loopback_only.clear()  # refused on purpose: the guard's verdict at teardown is for others
    assert httpx.get(server.url + "/__mockserver/health").status_code == 200

"""Raw HTTP/1.1 conversations with a server: the bytes written, the answers read whole."""

from __future__ import annotations

import re
import socket
import time

from mockserver.http.server import BackgroundServer

__all__ = ["conversation", "read_answer", "request"]

DATE = re.compile(rb"date: [^\r]*\r\n")


def request(path: str, body: bytes) -> bytes:
    return (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer sk-wire\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode() + body


def receive(sock: socket.socket) -> bytes:
    data = sock.recv(65536)
    if not data:
        raise ConnectionError("the server closed the connection")
    return data


def read_answer(sock: socket.socket, pending: bytearray) -> bytes:
    """One whole HTTP response (sized or chunked) from ``sock``."""
    while b"\r\n\r\n" not in pending:
        pending += receive(sock)
    head_end = pending.index(b"\r\n\r\n") + 4
    head = bytes(pending[:head_end])
    sized = re.search(rb"content-length: (\d+)\r\n", head)
    if sized:
        end = head_end + int(sized.group(1))
    else:
        while b"\r\n0\r\n\r\n" not in pending[head_end:]:
            pending += receive(sock)
        end = pending.index(b"\r\n0\r\n\r\n", head_end) + 7
    while len(pending) < end:
        pending += receive(sock)
    answer = bytes(pending[:end])
    del pending[:end]
    return DATE.sub(b"", answer)


def conversation(server: BackgroundServer, writes: list[bytes], answers: int) -> list[bytes]:
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
        for data in writes:
            sock.sendall(data)
            time.sleep(0.01)  # separate segments: the lane must wait for the whole body
        pending = bytearray()
        return [read_answer(sock, pending) for _ in range(answers)]

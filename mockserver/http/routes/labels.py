"""How the control plane shows a namespace without giving its key away.

A namespace is usually named by an API key. Lists (``/__mockserver/namespaces``, the event
feed the inspector reads) show it by two values that do not reveal it:

- its **label**, a fingerprint for people: the key's first three and last four characters
  (``sk-…a1b2``; a name of 8 characters or fewer keeps its first three only, ``sk-…``);
- its **handle**, an opaque id for programs: ``ns_`` and 16 hex digits of a hash of the name,
  which ``?namespace=`` takes in place of the name.

A client that knows a namespace's name (its own key, its session header) keeps using it; an
answer about one namespace says ``namespace`` the way the client named it, so a handle never
turns back into a key.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from typing import Final

from mockserver.errors import InvalidRequestError, NotFoundError

__all__ = ["ELLIPSIS", "handle", "is_handle", "label", "resolve"]

ELLIPSIS: Final = "\u2026"
_HANDLE = re.compile(r"ns_[0-9a-f]{16}")


def label(name: str) -> str:
    """``sk-…a1b2``: enough for a person to tell keys apart, too little to use one."""
    if len(name) <= 8:
        return name[:3] + ELLIPSIS
    return name[:3] + ELLIPSIS + name[-4:]


def handle(name: str) -> str:
    digest = hashlib.blake2b(name.encode("utf-8", "surrogatepass"), digest_size=8)
    return "ns_" + digest.hexdigest()


def is_handle(value: str) -> bool:
    return _HANDLE.fullmatch(value) is not None


def resolve(value: str, names: Iterable[str]) -> str:
    """The namespace ``?namespace=value`` means: the one of ``names`` with that handle, else
    the namespace called ``value``. A handle of no namespace is a 404, and a label a 400: each
    would otherwise quietly make a new, empty namespace."""
    if is_handle(value):
        for name in names:
            if handle(name) == value:
                return name
        raise NotFoundError(
            f"No namespace has the handle '{value}' (it may have been reset or dropped); "
            "GET /__mockserver/namespaces lists the current ones."
        )
    if ELLIPSIS in value:
        raise InvalidRequestError(
            f"'{value}' is a namespace's label, which names no namespace: send its handle "
            "(from GET /__mockserver/namespaces) or its full name.",
            param="namespace",
            code="mockserver_namespace_label",
        )
    return value

"""What the Store's behaviour tests share."""

from __future__ import annotations

from collections.abc import Callable

from mockserver.store import Store

#: Makes a store of the backend under test (on Redis: sharing the keys, like another process).
NewStore = Callable[..., Store]

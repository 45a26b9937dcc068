"""HTTP adapters: the only modules (with ``app``, ``server`` and ``cli``) that import Starlette."""

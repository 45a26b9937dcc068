"""The order of one request, per API family (``chat``, ``responses``) over a shared ``core``."""

from mockserver.engine.core import Engine
from mockserver.engine.turn import Turn

__all__ = ["Engine", "Turn"]

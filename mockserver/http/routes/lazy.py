"""Route families imported on their first request, so start-up pays only for what it serves.

Importing a family's module pulls in its wire models (pydantic schemas: time and memory), so
``mockserver serve`` mounts every family but the Chat Completions one through :class:`LazyRoutes`,
which knows only the path prefixes its routes live under.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cached_property
from importlib import import_module
from typing import Any

from starlette._utils import get_route_path
from starlette.datastructures import URLPath
from starlette.routing import BaseRoute, Match, NoMatchFound
from starlette.types import Receive, Scope, Send

__all__ = ["LazyRoutes"]


class LazyRoutes(BaseRoute):
    """The routes of ``modules`` (each has ``routes()``), matched in order, as if listed in place.

    A path outside ``prefixes`` never imports anything: it cannot match any of the routes.
    """

    def __init__(self, *modules: str, prefixes: Sequence[str]) -> None:
        self.modules = modules
        self.prefixes = tuple(prefixes)

    @cached_property
    def routes(self) -> list[BaseRoute]:
        found: list[BaseRoute] = []
        for name in self.modules:
            routes: Callable[[], list[BaseRoute]] = import_module(name).routes
            found += routes()
        return found

    def _best(self, scope: Scope) -> tuple[Match, Scope, BaseRoute | None]:
        """The first full match, else the first partial one (a 405), like a Router."""
        if not get_route_path(scope).startswith(self.prefixes):
            return Match.NONE, {}, None
        partial: tuple[Match, Scope, BaseRoute | None] = (Match.NONE, {}, None)
        for route in self.routes:
            match, child_scope = route.matches(scope)
            if match is Match.FULL:
                return match, child_scope, route
            if match is Match.PARTIAL and partial[2] is None:
                partial = (match, child_scope, route)
        return partial

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        match, child_scope, _ = self._best(scope)
        return match, child_scope

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        _, _, route = self._best(scope)
        assert route is not None, "the router only hands over a scope that matched"
        scope["route"] = route
        await route.handle(scope, receive, send)

    def url_path_for(self, name: str, /, **path_params: Any) -> URLPath:
        for route in self.routes:
            try:
                return route.url_path_for(name, **path_params)
            except NoMatchFound:
                pass
        raise NoMatchFound(name, path_params)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(self.modules)}, prefixes={self.prefixes!r})"

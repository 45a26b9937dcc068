"""``/v1/completions``: the legacy text completion, whole or streamed (also Azure OpenAI's)."""

from __future__ import annotations

from collections.abc import Mapping

from starlette.responses import Response
from starlette.routing import Route

from mockserver.engine.completions import CompletionResult, complete_text
from mockserver.engine.turn import Journaled
from mockserver.http.endpoint import Target, turn_route
from mockserver.http.lane.recipes import Key, Recipe
from mockserver.http.routes.encoded import Encoded
from mockserver.http.routes.rendered import OpenAITurn
from mockserver.prompt import Prompt
from mockserver.prompt.completions import prompts_from_completion
from mockserver.render.completions import CompletionMeta
from mockserver.store import Namespace
from mockserver.values import value_class
from mockserver.wire.completions import CompletionCreateParams, parse_completion_request
from mockserver.wire.json_body import Body

__all__ = ["Completions", "routes"]


@value_class
class Asked:
    """A checked request: its parameters, and a Prompt per prompt."""

    params: CompletionCreateParams
    prompts: tuple[Prompt, ...]


class Completions(OpenAITurn[Asked, CompletionMeta]):
    """``POST /v1/completions``: a text completion per prompt, ``n`` times each."""

    path = "/v1/completions"

    def check(self, body: Body, headers: Mapping[str, str], *, at: Target) -> Asked:
        params = parse_completion_request(body)
        provider = self.family.provider
        return Asked(params, prompts_from_completion(body, headers=headers, provider=provider))

    def take(
        self,
        space: Namespace,
        checked: Asked,
        body: Body,
        *,
        headers: Mapping[str, str],
        journal: Journaled,
    ) -> CompletionResult:
        return complete_text(self.engine, space, checked.prompts, checked.params, journal=journal)

    def recipe(
        self, key: Key, checked: Asked, encoded: Encoded[CompletionResult], response: Response
    ) -> Recipe | None:
        """None: a repeated request is answered by these steps again (the lane keeps no
        template of a legacy completion)."""
        return None


def routes() -> list[Route]:
    return [Route("/completions", turn_route(Completions.path), methods=["POST"])]

"""``/v1/completions``: the legacy text completion, whole or streamed (also Azure OpenAI's)."""

from __future__ import annotations

from collections.abc import Mapping

from starlette.responses import Response
from starlette.routing import Route

from mockserver.engine.completions import CompletionResult, complete_text
from mockserver.engine.turn import Journaled, Turn
from mockserver.http.endpoint import Target, TurnEndpoint, turn_route
from mockserver.http.lane.recipes import Key, Recipe
from mockserver.http.routes.encoded import Encoded, encode_body, encode_stream
from mockserver.prompt import Prompt
from mockserver.prompt.completions import prompts_from_completion
from mockserver.render import sse
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


class Completions(TurnEndpoint[Asked, CompletionResult]):
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

    def encode(self, result: CompletionResult) -> Encoded[CompletionResult]:
        if result.chunks is not None:
            frames = [sse.frame(c) for c in result.chunks]
            errors = [sse.frame(result.stream_error)] if result.stream_plan.cut else []
            return encode_stream(
                result, frames, [sse.DONE], plan=result.stream_plan, error_frames=errors
            )
        return encode_body(result, result.body, pretty=self.family.provider == "openai")

    @staticmethod
    def turn_of(result: CompletionResult) -> Turn:
        return result.turn

    def answer(self, encoded: Encoded[CompletionResult]) -> Response:
        result = encoded.result
        if encoded.frames is not None:
            return encoded.stream_response(
                plan=result.stream_plan,
                error_frames=[sse.frame(result.stream_error)],
                headers=result.headers,
            )
        return encoded.body_response(plan=result.body_plan, headers=result.headers)

    def recipe(
        self, key: Key, checked: Asked, encoded: Encoded[CompletionResult], response: Response
    ) -> Recipe | None:
        """None: a repeated request is answered by these steps again (the lane keeps no
        template of a legacy completion)."""
        return None


def routes() -> list[Route]:
    return [Route("/completions", turn_route(Completions.path), methods=["POST"])]

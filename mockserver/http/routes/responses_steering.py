"""Steering on a Responses socket: ``response.steer`` queues user input for what continues a
response the socket is streaming.

Input steered into a response that is being streamed is accepted (``response.steer.accepted``)
and continues it once it ends: when the response stops for the client's tool results, the input
stays queued (``response.steer.pending`` after its terminal event, with the results it waits
for) and is put in front of the input of the client's next ``response.create`` that continues
it on the same lane; otherwise a successor is created at once on the lane, with the response's
settings, continuing it with the input (its ``response.created`` is where the input is
committed; a successor that is refused returns it: ``response.steer.failed``). A response is
never cut short for steering: it ends as it would have. Steering a response the socket is not
streaming fails: ``response_already_completed`` once it ended, ``response_not_found`` if the
socket never streamed it; a response bound to a conversation cannot be steered.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final, NamedTuple

from mockserver import ids
from mockserver.render import responses_socket as messages
from mockserver.values import Json
from mockserver.wire.responses_socket import Create, Steer

if TYPE_CHECKING:
    from mockserver.http.routes.responses_socket import Session

__all__ = ["Steering", "Successor"]

#: Output items a response stops on until the client sends their results (what a
#: ``response.steer.pending`` event lists as required input).
_CLIENT_CALLS: Final = {
    "function_call": "function_call_output",
    "custom_tool_call": "custom_tool_call_output",
    "computer_call": "computer_call_output",
    "shell_call": "shell_call_output",
    "apply_patch_call": "apply_patch_call_output",
}
#: A response's settings that a successor does not inherit.
_NOT_INHERITED: Final = frozenset({"input", "previous_response_id", "conversation", "stream"})

Queued = tuple[str, Any]


class Successor(NamedTuple):
    """A response made to continue ``target`` with the input steered into it."""

    body: Json
    stream_id: str | None
    target: str
    steers: list[Queued]


class _Streaming:
    """A response the socket is streaming: the request that made it, its steered input."""

    def __init__(self, body: Json, stream_id: str | None) -> None:
        self.body = body
        self.stream_id = stream_id
        self.queued: list[Queued] = []


class Steering:
    """One socket's steering (see the module's docstring)."""

    def __init__(self, session: Session) -> None:
        self.session = session
        #: The request each lane is answering, then the response it is streaming.
        self.asked: dict[str | None, Json] = {}
        self.streaming: dict[str, _Streaming] = {}
        self.ended: set[str] = set()
        #: Input waiting for the client's next request continuing a response (and its lane).
        self.pending: dict[str, tuple[str | None, list[Queued]]] = {}
        self.steered: dict[str, int] = {}
        self.numbers = 0

    def prepend(self, asked: Create | Successor) -> Json:
        """The body to send for ``asked``: the input pending for the response it continues on
        its lane, in front of its own."""
        body = dict(asked.body)
        self.asked[asked.stream_id] = body
        previous = body.get("previous_response_id")
        waiting = self.pending.get(previous) if isinstance(previous, str) else None
        if waiting is None or waiting[0] != asked.stream_id or isinstance(asked, Successor):
            return body
        del self.pending[str(previous)]
        body["input"] = [*_items(q for _, q in waiting[1]), *_items([body.get("input") or []])]
        return body

    def seen(self, event: Json, stream_id: str | None) -> None:
        """A response's lifecycle event, sent on lane ``stream_id``."""
        response = event["response"]
        response_id = response.get("id")
        if event.get("type") == "response.created" and isinstance(response_id, str):
            body = self.asked.get(stream_id, {})
            self.streaming[response_id] = _Streaming(body, stream_id)

    async def after(self, response: Json | None, asked: Create | Successor) -> Successor | None:
        """Once ``asked`` is answered (``response``: the one it ended with, ``None`` if it
        was refused): what its steered input does now, and the successor to make, if any."""
        if response is None:
            if isinstance(asked, Successor):  # the input could not be committed: returned
                for steer_id, given in asked.steers:
                    await self._failed(
                        "successor_creation_failed",
                        "The successor response could not be created.",
                        steer_id=steer_id,
                        target=asked.target,
                        given=given,
                        stream_id=asked.stream_id,
                    )
            return None
        response_id = str(response.get("id"))
        streamed = self.streaming.pop(response_id, None)
        self.ended.add(response_id)
        if streamed is None or not streamed.queued:
            return None
        required = _required(response)
        if required:
            self.pending[response_id] = (streamed.stream_id, streamed.queued)
            for steer_id, _ in streamed.queued:
                self.numbers += 1
                await self.session.send(
                    messages.steer_pending(
                        self.numbers - 1,
                        steer_id,
                        response_id,
                        required=required,
                        stream_id=streamed.stream_id,
                    )
                )
            return None
        body = {k: v for k, v in streamed.body.items() if k not in _NOT_INHERITED}
        body.update(
            stream=True,
            previous_response_id=response_id,
            input=_items(given for _, given in streamed.queued),
        )
        return Successor(body, streamed.stream_id, response_id, streamed.queued)

    async def steer(self, event: Steer) -> None:
        target = event.previous_response_id
        streamed = self.streaming.get(target)
        if streamed is None:
            ended = target in self.ended or target in self.pending
            await self._failed(
                "response_already_completed" if ended else "response_not_found",
                "The response completed and is no longer accepting steering input."
                if ended
                else f"Response '{target}' is not available on this connection.",
                steer_id=None,
                target=target,
                given=event.input,
                stream_id=None,
            )
            return
        if streamed.body.get("conversation") is not None:
            await self._failed(
                "steering_not_supported",
                "Responses bound to a conversation do not support steering.",
                steer_id=None,
                target=target,
                given=event.input,
                stream_id=streamed.stream_id,
            )
            return
        count = self.steered[target] = self.steered.get(target, 0) + 1
        steer_id = ids.hex_id("steer_", target, count, length=40)
        streamed.queued.append((steer_id, event.input))
        self.numbers += 1
        await self.session.send(
            messages.steer_accepted(
                self.numbers - 1, steer_id, target, stream_id=streamed.stream_id
            )
        )

    async def _failed(
        self,
        code: str,
        message: str,
        *,
        steer_id: str | None,
        target: str,
        given: Any,
        stream_id: str | None,
    ) -> None:
        self.numbers += 1
        await self.session.send(
            messages.steer_failed(
                self.numbers - 1,
                code=code,
                message=message,
                steer_id=steer_id,
                target=target,
                given=given,
                stream_id=stream_id,
            )
        )


def _items(inputs: Any) -> list[Json]:
    """Input items, in order, of inputs that are each a string or a list of items."""
    items: list[Json] = []
    for given in inputs:
        if isinstance(given, str):
            items.append({"type": "message", "role": "user", "content": given})
        else:
            items.extend(given)
    return items


def _required(response: Json) -> list[Json]:
    """The results a response waits for from the client: one stub per call it made."""
    stubs: list[Json] = []
    for item in response.get("output") or ():
        kind = _CLIENT_CALLS.get(str(item.get("type"))) if isinstance(item, dict) else None
        if kind is None:
            continue
        stub: Json = {"type": kind, "call_id": item.get("call_id")}
        if kind == "function_call_output":
            stub["name"] = item.get("name")
        stubs.append(stub)
    return stubs

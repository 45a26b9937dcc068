"""The replay lane: requests answered without the ASGI stack.

A load test sends one request over and over; a test suite asks the same question in many tests.
When the engine says a turn was *settled* (``engine.Decision``: the same request would get the
same reply, whatever the counters say), its endpoint cuts the answer into a template and files
a :class:`~mockserver.http.lane.recipes.Recipe` under the request's exact bytes (path, headers,
body). The next identical request is answered by the :class:`Lane`: the engine re-checks the
namespace's state and commits the request (its number, rule hit, budgets and journal entry,
exactly as a full turn would), and the template is filled with the new id and time. Anything
the state no longer allows falls through to the full path. A new request to a turn endpoint is
answered by the endpoint's own steps (``fresh.py``). Either way the answer is byte for byte what
the full path would have sent, so the lane changes speed, never behaviour (the tests compare a
server with the lane on and off).

The lane is one optional layer in front of the app (``Settings.replay``): :class:`FastLane` in
the ASGI stack, and, where the installed uvicorn is the one it was written for, the HTTP
protocol itself (``protocol.py``), which answers before uvicorn makes an ASGI task.
"""

"""Everything that speaks HTTP: the app, its routes and endpoints, access, the lane, the server.

Nothing outside this package imports Starlette or uvicorn; the core below it (wire, prompt,
scenario, reply, faults, render, store, engine) is importable and testable without them.
"""

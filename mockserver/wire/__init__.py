"""HTTP bodies → typed wire models, rejected with the real API's exact 400s.

``json_body`` parses a body (no pydantic); ``plain`` lets the simplest chat requests through
without the models. ``validation`` is the API-neutral entry point (model validation, field
helpers); ``validation_issues`` and ``validation_errors`` turn a pydantic error into OpenAI's
words.
``chat`` is the Chat Completions request (``chat_messages``, ``chat_tools``) and its
cross-field checks (``chat_checks``); ``schemas`` checks the JSON schemas a request gives
(valid JSON Schemas; a strict one's Structured Outputs rules) for both APIs. Nothing here
generates replies or touches HTTP.
"""

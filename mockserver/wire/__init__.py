"""HTTP bodies → typed wire models, rejected with the real API's exact 400s.

``validation`` is the API-neutral entry point (JSON parsing, model validation, field helpers);
``validation_issues`` and ``validation_errors`` turn a pydantic error into OpenAI's words.
``chat`` is the Chat Completions request (``chat_messages``, ``chat_tools``) and its
cross-field checks (``chat_checks``). Nothing here generates replies or touches HTTP.
"""

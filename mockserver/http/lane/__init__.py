"""The replay lane: answers requests without the ASGI stack (see ``replay``)."""

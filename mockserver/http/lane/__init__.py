"""The replay lane: requests answered without the ASGI stack (``lane.py``), from a recipe
(``recipes.py``) or by a turn endpoint's own steps (``fresh.py``)."""

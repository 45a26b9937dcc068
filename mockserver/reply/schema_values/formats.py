"""Plausible strings and numbers: by ``format``, and by property name (faker)."""

from __future__ import annotations

import datetime as dt
import functools
import ipaddress
import random
import re
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from faker import Faker

_EPOCH = dt.datetime(2020, 1, 1, tzinfo=dt.UTC)


def _moment(rng: random.Random, fmt: str) -> str:
    return (_EPOCH + dt.timedelta(seconds=rng.randrange(6 * 365 * 86400))).strftime(fmt)


def _parses(parse: Callable[[str], object], text: str) -> bool:
    try:
        parse(text)
    except ValueError:
        return False
    return True


_Maker = Callable[[random.Random, "Faker"], str]
_FORMAT_MAKERS: dict[str, _Maker] = {
    "date-time": lambda r, f: _moment(r, "%Y-%m-%dT%H:%M:%SZ"),
    "date": lambda r, f: _moment(r, "%Y-%m-%d"),
    "time": lambda r, f: _moment(r, "%H:%M:%SZ"),
    "duration": lambda r, f: r.choice(("PT15M", "PT1H", "PT1H30M", "P1D", "P2W", "P3DT4H")),
    "email": lambda r, f: str(f.email()),
    "uri": lambda r, f: str(f.url()),
    "uuid": lambda r, f: str(uuid.UUID(int=r.getrandbits(128), version=4)),
    "ipv4": lambda r, f: str(f.ipv4()),
    "ipv6": lambda r, f: str(f.ipv6()),
    "hostname": lambda r, f: str(f.domain_name()),
}
_FORMAT_MAKERS |= {"url": _FORMAT_MAKERS["uri"], "iri": _FORMAT_MAKERS["uri"]}
_FORMAT_MAKERS |= {"idn-email": _FORMAT_MAKERS["email"], "uri-reference": _FORMAT_MAKERS["uri"]}


def _full(pattern: str, parse: Callable[[str], object] | None = None) -> Callable[[str], bool]:
    """A format check: ``pattern`` must match all of it and ``parse`` accept its group 1."""
    regex = re.compile(pattern)

    def ok(v: str) -> bool:
        match = regex.fullmatch(v)
        return match is not None and (parse is None or _parses(parse, match[1]))

    return ok


_OFFSET = r"(\.\d+)?([Zz]|[+-]\d\d:\d\d)"
_FORMAT_CHECKS: dict[str, Callable[[str], bool]] = {
    "date-time": _full(
        rf"(\d{{4}}-\d\d-\d\d[Tt]\d\d:\d\d:\d\d){_OFFSET}", dt.datetime.fromisoformat
    ),
    "date": _full(r"(\d{4}-\d\d-\d\d)", dt.date.fromisoformat),
    "time": _full(rf"(\d\d:\d\d:\d\d){_OFFSET}", dt.time.fromisoformat),
    "duration": _full(r"P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+S)?)?"),
    "email": _full(r"[^@\s]+@[^@\s]+"),
    "uri": _full(r"[A-Za-z][A-Za-z0-9+.-]*:\S+"),
    "uuid": _full(r"[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}"),
    "ipv4": _full(r"(.+)", ipaddress.IPv4Address),
    "ipv6": _full(r"(.+)", ipaddress.IPv6Address),
    "hostname": _full(
        r"(?=.{1,253}$)(?!-)[A-Za-z0-9-]{1,63}(?<!-)(\.(?!-)[A-Za-z0-9-]{1,63}(?<!-))*"
    ),
}
_FORMAT_CHECKS["iri"] = _FORMAT_CHECKS["uri"]  # "url" is no standard format: not asserted


_Text = Callable[["Faker", random.Random, str], str]
_CITIES = ("Boston", "Paris", "Tokyo", "London", "Berlin", "Madrid", "Toronto", "Sydney")
_LOCATIONS = ("Boston, MA", "San Francisco, CA", "New York, NY", "Paris, France", "Tokyo, Japan")


def _fake(method: str, **kwargs: Any) -> _Text:
    return lambda f, r, key: str(getattr(f, method)(**kwargs))


def _one_of(*options: str) -> _Text:
    return lambda f, r, key: r.choice(options)


def _id_like(f: Faker, r: random.Random, key: str) -> str:
    token = "".join(r.choice("abcdefghijkmnpqrstuvwxyz0123456789") for _ in range(10))
    stem = key.rsplit("_", 2)[-2] if key.count("_") and key.endswith(("_id", "_ids")) else ""
    return f"{stem[:3]}_{token}" if stem else token


def _words(f: Faker, r: random.Random, key: str) -> str:
    return " ".join(f.words(r.randint(1, 2)))


# First match wins; each alternative must start at a word start ("city" but not "ethnicity").
_TEXT_RULES: tuple[tuple[str, _Text], ...] = (
    ("country_?code|country_iso|iso_?code", _fake("country_code")),
    ("e_?mail", _fake("email")),
    ("phone|mobile|tel$|fax", _fake("phone_number")),
    ("first_?name|given_?name", _fake("first_name")),
    ("last_?name|surname|family_?name", _fake("last_name")),
    ("user_?name|login|handle|nickname", _fake("user_name")),
    ("file_?name|filename|path$", _fake("file_name")),
    ("company|organi[sz]ation|employer|org$|business|brand", _fake("company")),
    ("url|uri$|link|website|homepage|href|endpoint", _fake("url")),
    ("location|place(?![a-z])|destination|origin(?![a-z])|venue", _one_of(*_LOCATIONS)),
    ("city|town", _one_of(*_CITIES)),
    ("country|nation", _fake("country")),
    ("address|street", _fake("street_address")),
    ("zip|postal|post_?code", _fake("postcode")),
    ("currency", _fake("currency_code")),
    ("lang|language|locale", _one_of("en", "fr", "de", "es", "ja")),
    ("units?$|units?_|temperature_unit", _one_of("celsius", "fahrenheit")),
    ("status|state$", _one_of("active", "pending", "completed")),
    ("priority|severity|level|urgency", _one_of("low", "medium", "high")),
    ("sort_?order|sort_?dir|order$|direction", _one_of("asc", "desc")),
    ("colou?r", _fake("color_name")),
    ("timezone|tz$", _fake("timezone")),
    (
        "date_?time|timestamp|at$|created|updated|deadline|due$",
        lambda f, r, k: _moment(r, "%Y-%m-%dT%H:%M:%SZ"),
    ),
    ("date|birthday|dob$|day$", lambda f, r, k: _moment(r, "%Y-%m-%d")),
    ("time", lambda f, r, k: f"{r.randint(8, 19):02d}:{r.choice(('00', '15', '30', '45'))}"),
    ("id$|ids$|uuid|key$|token$|ref$", _id_like),
    ("name|author|owner|assignee|recipient|sender|customer|contact|person|user$", _fake("name")),
    ("title|subject|headline|heading", lambda f, r, k: str(f.sentence(nb_words=4)).rstrip(".")),
    (
        "desc|summary|text|content|message|body|comment|note|reason|explanation|answer|"
        "instruction|prompt|bio|detail|feedback|review",
        _fake("sentence"),
    ),
    ("query|search|keyword|topic|term|product|item|tag|category|label", _words),
    ("job|occupation|role|position|profession", _fake("job")),
)
_COMPILED_TEXT_RULES = tuple((re.compile(f"(?<![a-z])(?:{p})"), f) for p, f in _TEXT_RULES)

_NUM_RULES: tuple[tuple[str, float, float, int], ...] = (
    ("age$|age_", 18, 90, 0),
    ("years|experience|tenure", 1, 30, 0),
    ("year", 1990, 2030, 0),
    ("month", 1, 12, 0),
    ("day$|dom$|day_of", 1, 28, 0),
    ("hour", 0, 23, 0),
    ("minute|second", 0, 59, 0),
    ("lat$|lat_|latitude", -90, 90, 4),
    ("lon$|lng$|lon_|lng_|longitude", -180, 180, 4),
    ("temp", -10, 35, 1),
    ("percent|pct", 0, 100, 1),
    ("prob|confidence|likelihood|ratio|similarity|certainty|fraction", 0, 1, 2),
    ("price|cost|amount|total|salary|fee|balance|budget|revenue|subtotal", 1, 500, 2),
    ("rating|stars", 1, 5, 1),
    ("score", 0, 100, 0),
    ("quantity|qty|count(?!r)|num|n$|k$|top_k|limit|page|size", 1, 10, 0),
    ("max|min|guests|people|adults|children|days|nights", 1, 10, 0),
    ("id$|_id", 1, 99999, 0),
)
_COMPILED_NUM_RULES = tuple((re.compile(f"(?<![a-z])(?:{p[0]})"), p[1:]) for p in _NUM_RULES)
_DEFAULT_NUM: tuple[float, float, int] = (0, 100, 2)


@functools.lru_cache(maxsize=1024)
def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower().replace("-", "_").replace(" ", "_")


@functools.lru_cache(maxsize=1024)
def _text_rule(name: str) -> _Text:
    key = _snake(name)
    return next((f for p, f in _COMPILED_TEXT_RULES if p.search(key)), _words)


@functools.lru_cache(maxsize=1024)
def _num_rule(name: str | None) -> tuple[float, float, int]:
    key = _snake(name or "")
    return next((rule for p, rule in _COMPILED_NUM_RULES if p.search(key)), _DEFAULT_NUM)

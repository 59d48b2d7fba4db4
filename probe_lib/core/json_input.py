"""Parse JSON a user handed in, turning every way it can fail into one ``InputError`` line.

``json.loads`` fails in three ways, not one: ``JSONDecodeError`` for malformed text, a plain ``ValueError``
for an integer over Python's 4,300-digit conversion limit, and ``RecursionError`` for arrays or objects nested
about a thousand deep; and it accepts what JSON does not (``NaN``, ``Infinity``, ``1e999`` read as infinity), which
would go on as text no JSON reader takes. Every reader of user JSON goes through :func:`loads` so none of them ends
in a traceback.
"""

from __future__ import annotations

import json
import math
from typing import Any, NoReturn

from probe_lib.core.errors import InputError

#: How much of a wrong value an error message quotes: enough to find it, never a megabyte.
QUOTE_CHARS = 60


class _NotFinite(Exception):
    """A number JSON cannot hold, met while decoding; its text is the number as written."""


def _refuse(text: str) -> NoReturn:
    raise _NotFinite(text)


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        _refuse(text)
    return value


def loads(text: str | bytes, what: str, *, distinct_fields: bool = False) -> Any:
    """The JSON value in ``text``; ``what`` names the input in the error (e.g. ``"stdin"``, a file name).
    ``distinct_fields``: refuse an object with a field written twice (JSON keeps the last; a file the kit reads as
    YAML would be refused for it)."""
    hook = _distinct if distinct_fields else None
    try:
        return json.loads(text, parse_constant=_refuse, parse_float=_finite, object_pairs_hook=hook)
    except _Repeated as error:
        raise InputError(f"{what} writes the field {quote(str(error))} twice in one object; keep one") from None
    except _NotFinite as error:
        number = quote(str(error)).strip('"')
        raise InputError(f"{what} holds {number}, which is not a JSON number; write a number or null") from None
    except json.JSONDecodeError as error:
        raise InputError(f"{what} is not JSON ({error.msg} at line {error.lineno} column {error.colno})") from None
    except RecursionError:
        raise InputError(
            f"{what} nests arrays or objects too deeply for the kit (about 1,000 levels); flatten it"
        ) from None
    except UnicodeDecodeError as error:
        raise InputError(f"{what} is not UTF-8 ({error.reason} at byte {error.start})") from None
    except ValueError as error:  # an integer longer than sys.get_int_max_str_digits()
        raise InputError(
            f"{what} holds a number the kit cannot read ({str(error).split(';')[0]}); quote it as a string"
        ) from None


class _Repeated(ValueError):
    """A field written twice in one JSON object."""


def _distinct(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    for name, value in pairs:
        if name in fields:
            raise _Repeated(name)
        fields[name] = value
    return fields


def read_text(data: bytes, what: str) -> str:
    """``data`` decoded as UTF-8, or an ``InputError`` saying where it is not."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(f"{what} is not UTF-8 ({error.reason} at byte {error.start}); give UTF-8 JSON") from None


def quote(value: object) -> str:
    """``value`` as JSON for an error message, cut to ``QUOTE_CHARS`` characters."""
    try:
        text = json.dumps(value)
    except (ValueError, RecursionError):  # an integer past the digit limit, or nesting past the stack
        return f"a {type(value).__name__} too large to show"
    return text if len(text) <= QUOTE_CHARS else f"{text[:QUOTE_CHARS]}... ({len(text):,} characters)"

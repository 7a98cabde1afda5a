"""Refusing parameter values that no endpoint can use, before any of them reaches the database.

PostgreSQL cannot store or compare a NUL character (it raises, which would be
a 500), and a value of many kilobytes is never a filter, a cursor or an id:
both are refused with a 400 naming the parameter, for the query string, the
path and every string inside a JSON body.
"""

from typing import Any

from django.conf import settings
from django.utils.translation import gettext as _

from aitop.nul import NUL
from api.errors import BadParameter


def _refusal(value: str) -> str | None:
    # Its own pass, not aitop.nul's: the API bounds lengths too and names every bad value.
    if NUL in value:
        return _("Null characters are not allowed.")
    limit = settings.AITOP_API_MAX_PARAMETER_LENGTH
    if len(value) > limit:
        return _("Ensure this value has at most %(limit)d characters (it has %(length)d).") % {
            "limit": limit,
            "length": len(value),
        }
    return None


def _printable(name: str) -> str:
    return name.replace("\x00", "\\0")[:100]


def query_and_path_check(*, query: Any, path_kwargs: dict[str, Any], path: str) -> None:
    """Raise `BadParameter` for the first unusable query-string or path value."""
    errors: dict[str, list[str]] = {}
    if (reason := _refusal(path)) is not None:
        errors["path"] = [reason]
    for name, value in path_kwargs.items():
        if isinstance(value, str) and (reason := _refusal(value)) is not None:
            errors[name] = [reason]
    for name, values in query.lists():
        if (reason := _refusal(name)) is not None:
            errors[_printable(name)] = [reason]
            continue
        for value in values:
            if (reason := _refusal(value)) is not None:
                errors[name] = [reason]
                break
    if errors:
        raise BadParameter(errors)


def body_check(data: Any, prefix: str = "") -> None:
    """Raise `BadParameter` for a NUL character in any key or string of a parsed JSON body."""
    errors: dict[str, list[str]] = {}
    _walk(data, prefix, errors)
    if errors:
        raise BadParameter(errors)


def _walk(data: Any, prefix: str, errors: dict[str, list[str]]) -> None:
    if isinstance(data, str):
        # Over-long strings are the serializers' to refuse (each knows its limit).
        if "\x00" in data:
            errors[prefix or "body"] = [_("Null characters are not allowed.")]
    elif isinstance(data, dict):
        for key, value in data.items():
            name = f"{prefix}.{key}" if prefix else str(key)
            if "\x00" in str(key):
                errors[_printable(name)] = [_("Null characters are not allowed.")]
            else:
                _walk(value, name, errors)
    elif isinstance(data, list):
        for index, value in enumerate(data):
            _walk(value, f"{prefix}.{index}" if prefix else str(index), errors)

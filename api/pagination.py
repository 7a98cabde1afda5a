"""Keyset ("cursor") pagination: each page starts where the last one ended, by value.

A page is read as `WHERE (published_at, id) < (cursor values) ORDER BY … LIMIT n`
on an index, never with OFFSET, so reading page 50 costs what page 1 costs,
and items that arrive meanwhile neither repeat nor push others off a page.
Views name their sort keys (`keyset`); the last key must be unique (the id).
"""

import base64
import binascii
import datetime
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django.db.models import F, Q
from django.utils.translation import gettext as _
from rest_framework.pagination import BasePagination
from rest_framework.response import Response
from rest_framework.settings import api_settings

from api.errors import BadParameter

MAX_PAGE_SIZE = 100


@dataclass(frozen=True)
class Key:
    """One sort key of a keyset: a field (or annotation), its direction and its value type."""

    field: str
    descending: bool = True
    type: str = "int"  # "int", "str", "datetime" or "date"

    def dump(self, value: Any) -> Any:
        if self.type in {"datetime", "date"}:
            return value.isoformat()
        return value

    def load(self, value: Any) -> Any:
        if self.type == "datetime":
            moment = datetime.datetime.fromisoformat(value)
            if moment.tzinfo is None:
                raise ValueError("naive time")
            return moment
        if self.type == "date":
            return datetime.date.fromisoformat(value)
        if self.type == "int":
            if not isinstance(value, int) or isinstance(value, bool) or abs(value) >= 2**63:
                raise ValueError("not a 64-bit int")
            return value
        if not isinstance(value, str):
            raise ValueError("not a string")
        return value


def _value(row: Any, field: str) -> Any:
    return row[field] if isinstance(row, dict) else getattr(row, field)


def _beyond(keys: Sequence[Key], values: Sequence[Any], *, backwards: bool) -> Q:
    """Rows strictly after `values` in the keys' order (strictly before when `backwards`)."""
    condition = Q(pk__in=[])
    equal = Q()
    for key, value in zip(keys, values, strict=True):
        later = key.descending != backwards
        condition |= equal & Q(**{f"{key.field}__{'lt' if later else 'gt'}": value})
        equal &= Q(**{key.field: value})
    return condition


class KeysetPagination(BasePagination):
    """`?cursor=…&page_size=…` (1–100, default PAGE_SIZE); `next`/`previous` are full URLs."""

    cursor_query_param = "cursor"
    page_size_query_param = "page_size"

    def paginate_queryset(self, queryset, request, view=None):
        self.request = request
        self.keys: Sequence[Key] = view.keyset(request)
        self.signature = ",".join(key.field for key in self.keys)
        self.page_size = self._page_size(request)
        position, backwards = self._cursor(request)
        ordering = [
            F(key.field).desc() if key.descending != backwards else F(key.field).asc()
            for key in self.keys
        ]
        queryset = queryset.order_by(*ordering)
        if position is not None:
            queryset = queryset.filter(_beyond(self.keys, position, backwards=backwards))
        rows = list(queryset[: self.page_size + 1])
        more = len(rows) > self.page_size
        rows = rows[: self.page_size]
        if backwards:
            rows.reverse()
        self.rows = rows
        # Coming from a cursor there is always something on its other side.
        self.has_next = bool(rows) and (position is not None if backwards else more)
        self.has_previous = bool(rows) and (more if backwards else position is not None)
        return rows

    def get_paginated_response(self, data):
        return Response(
            {
                "next": self._link(forward=True),
                "previous": self._link(forward=False),
                "results": data,
            }
        )

    def get_paginated_response_schema(self, schema):
        link = {"type": "string", "format": "uri", "nullable": True}
        return {
            "type": "object",
            "required": ["next", "previous", "results"],
            "properties": {
                "next": {
                    **link,
                    "description": _page_doc("next"),
                    "example": "https://aitop.example/api/v1/items/?page_size=20&cursor=eyJvIjoicHVibGlzaGVkX2F0LGlkIn0",
                },
                "previous": {**link, "description": _page_doc("previous"), "example": None},
                "results": schema,
            },
        }

    def get_schema_operation_parameters(self, view):
        return [
            {
                "name": self.cursor_query_param,
                "in": "query",
                "required": False,
                "description": "Where the page starts: copy it from the `next` or `previous` link.",
                "schema": {"type": "string", "maxLength": 500},
            },
            {
                "name": self.page_size_query_param,
                "in": "query",
                "required": False,
                "description": f"How many results a page holds (default {api_settings.PAGE_SIZE}).",
                "schema": {"type": "integer", "minimum": 1, "maximum": MAX_PAGE_SIZE},
            },
        ]

    def _page_size(self, request) -> int:
        raw = request.query_params.get(self.page_size_query_param, "").strip()
        if not raw:
            return api_settings.PAGE_SIZE
        if not raw.isascii() or not raw.isdigit() or not 1 <= int(raw) <= MAX_PAGE_SIZE:
            raise BadParameter(
                {
                    self.page_size_query_param: [
                        _("Enter a whole number from 1 to %(max)d.") % {"max": MAX_PAGE_SIZE}
                    ]
                }
            )
        return int(raw)

    def _cursor(self, request) -> tuple[list[Any] | None, bool]:
        raw = request.query_params.get(self.cursor_query_param, "").strip()
        if not raw:
            return None, False
        try:
            decoded = json.loads(base64.urlsafe_b64decode(raw.encode("ascii") + b"=="))
            if decoded["o"] != self.signature or len(decoded["v"]) != len(self.keys):
                raise ValueError("cursor of another ordering")
            values = [key.load(value) for key, value in zip(self.keys, decoded["v"], strict=True)]
            return values, bool(decoded.get("b", False))
        except (ValueError, TypeError, KeyError, UnicodeError, binascii.Error, OverflowError):
            raise BadParameter(
                {
                    self.cursor_query_param: [
                        _("This cursor is not valid here: use a `next` or `previous` link as is.")
                    ]
                }
            ) from None

    def _link(self, *, forward: bool) -> str | None:
        if not (self.has_next if forward else self.has_previous):
            return None
        row = self.rows[-1] if forward else self.rows[0]
        cursor = {
            "o": self.signature,
            "v": [key.dump(_value(row, key.field)) for key in self.keys],
        }
        if not forward:
            cursor["b"] = True
        token = base64.urlsafe_b64encode(json.dumps(cursor, separators=(",", ":")).encode())
        params = [
            (name, value)
            for name, values in self.request.query_params.lists()
            if name != self.cursor_query_param
            for value in values
        ]
        params.append((self.cursor_query_param, token.decode().rstrip("=")))
        return self.request.build_absolute_uri(f"{self.request.path}?{urlencode(params)}")


def _page_doc(which: str) -> str:
    return f"The {which} page with the same filters, or null when there is none."

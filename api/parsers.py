"""The API's JSON parser, bounded in nesting so a hostile body is a 400, not a RecursionError."""

from django.utils.translation import gettext as _
from rest_framework import exceptions, parsers

# No body of ours nests past 3 levels; 32 leaves room and stops a stack-eating one.
MAX_DEPTH = 32


def json_depth_check(value, *, limit: int = MAX_DEPTH) -> None:
    """Raise ParseError when `value` nests lists or objects deeper than `limit`."""
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict | list):
            if depth > limit:
                raise exceptions.ParseError(
                    _("JSON nested deeper than %(limit)d levels.") % {"limit": limit}
                )
            children = node.values() if isinstance(node, dict) else node
            stack.extend((child, depth + 1) for child in children)


class JSONParser(parsers.JSONParser):
    """DRF's parser; too deep a body (even one that json cannot parse at all) is a 400."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise exceptions.ParseError(
                _("JSON nested deeper than %(limit)d levels.") % {"limit": MAX_DEPTH}
            ) from None
        json_depth_check(data)
        return data

"""The public site's filters, applied to API requests (the same `ItemFilter`, not a copy)."""

from api.errors import BadParameter
from feed.filters import ItemFilter, filters_asked
from feed.models import ItemQuerySet

#: The item list's `ordering` values: newest first, or hottest first.
ORDERINGS = ("latest", "hot")


def items_filtered(request, queryset: ItemQuerySet) -> ItemQuerySet:
    """`queryset` (already visible) narrowed by the request's reader filters, or a 400."""
    if not filters_asked(request.query_params):
        return queryset
    filterset = ItemFilter(request.query_params, queryset=queryset)
    if not filterset.is_valid():
        raise BadParameter({name: list(messages) for name, messages in filterset.errors.items()})
    return filterset.qs

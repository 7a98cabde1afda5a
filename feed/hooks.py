"""Extension points where apps above `feed` shape the public pages (feed never imports them).

An app registers a function in its `AppConfig.ready()`; the views call the
hooks, and with nothing registered each hook changes nothing.
"""

from collections.abc import Callable

_stream_filters: list[Callable] = []
_days_arrangers: list[Callable] = []
_card_decorators: list[Callable] = []
_related: list[Callable] = []


def register_stream_filter(function: Callable) -> None:
    """`function(queryset, request) -> queryset` narrows what the stream and day pages list."""
    _stream_filters.append(function)


def register_days_arranger(function: Callable) -> None:
    """`function(days, request) -> days` may reorder a page's days' items (no queries)."""
    _days_arrangers.append(function)


def register_card_decorator(function: Callable) -> None:
    """`function(items, request)` adds what cards show to the page's items, in fixed queries."""
    _card_decorators.append(function)


def register_related(function: Callable) -> None:
    """`function(item, limit) -> list[Item]` replaces the item page's related items."""
    _related.append(function)


def stream_filter(queryset, request):
    for function in _stream_filters:
        queryset = function(queryset, request)
    return queryset


def days_arrange(days, request):
    """Reorder the days' items, then decorate their cards."""
    for function in _days_arrangers:
        days = function(days, request)
    cards_decorate([item for day in days for item in day.items], request)
    return days


def cards_decorate(items, request) -> None:
    for function in _card_decorators:
        function(items, request)


def related_items(item, *, limit: int, default: Callable) -> list:
    """The item page's related items: the registered function's, else `default()`."""
    return list(_related[-1](item, limit=limit)) if _related else list(default())

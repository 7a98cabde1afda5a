"""What every public view shares: reading the filters, and refusing bad input with a 400."""

import datetime
import functools
from collections.abc import Sequence
from dataclasses import dataclass

from django import forms
from django.shortcuts import render
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_safe

from aitop.nul import nul_parameter
from feed.filters import ItemFilter, SiteDateField, filters_asked
from feed.links import NO_FILTERS, StreamQuery
from feed.models import Item, ItemQuerySet, Source
from feed.paging import Cursor
from feed.visibility import tag_names_visible

NUL_MESSAGE = _("Null characters are not allowed.")


class BadParameters(Exception):
    """The request names a filter value we cannot read; `errors` maps parameter to messages."""

    def __init__(self, errors: dict[str, list[str]]):
        super().__init__(errors)
        self.errors = errors


@dataclass(frozen=True)
class Filtered:
    """The visible items narrowed by the request's filters, and those filters."""

    items: ItemQuerySet
    query: StreamQuery


def filtered_items(request, queryset: ItemQuerySet) -> Filtered:
    """Apply the request's reader filters to `queryset` (already visible)."""
    if not filters_asked(request.GET):
        return Filtered(items=queryset, query=NO_FILTERS)
    filterset = ItemFilter(request.GET, queryset=queryset)
    if not filterset.is_valid():
        raise BadParameters({name: list(messages) for name, messages in filterset.errors.items()})
    return Filtered(
        items=filterset.qs,
        query=StreamQuery.from_cleaned(filterset.form.cleaned_data, request.GET),
    )


BEFORE_MESSAGE = _("Use the “older” link of a page, or a date as YYYY-MM-DD.")


def page_before(request) -> Cursor | datetime.date | None:
    """The `before` page boundary, if given: a cursor from an "older" link, or a YYYY-MM-DD date."""
    raw = request.GET.get("before", "").strip()
    if not raw:
        return None
    if "T" in raw:
        try:
            return Cursor.parse(raw)
        except ValueError:
            raise BadParameters({"before": [str(BEFORE_MESSAGE)]}) from None
    try:
        return SiteDateField(required=False).clean(raw)
    except forms.ValidationError as error:
        raise BadParameters({"before": error.messages}) from None


def bad_request(request, errors: dict[str, list[str]]):
    """The 400 page: which parameter is wrong, and why."""
    return render(
        request,
        "feed/bad_request.html",
        {"errors": sorted(errors.items())},
        status=400,
    )


def public_page(view):
    """GET/HEAD only; a NUL byte anywhere or an unreadable filter is a 400 naming it."""

    @require_safe
    @functools.wraps(view)
    def wrapper(request, *args, **kwargs):
        if (name := nul_parameter(request)) is not None:
            return bad_request(request, {name: [NUL_MESSAGE]})
        try:
            return view(request, *args, **kwargs)
        except BadParameters as bad:
            return bad_request(request, bad.errors)

    return wrapper


def filter_names(query: StreamQuery, *, items: Sequence[Item] = ()) -> tuple[dict[str, str], str]:
    """The names of the active tags (slug → name) and of the active source, as chips show them.

    `items` are what the filters let through, loaded for cards (`for_cards()`):
    each of them carries every active tag and comes from the active source,
    so the first one names them all without a query (the tag pages' sixth
    statement). Without items, the database is asked; a tag only drafts
    carry then stays unnamed (`tag_names_visible`).
    """
    if items:
        first = items[0]
        tag_names = {tag.slug: tag.name for tag in first.tags_sorted() if tag.slug in query.tags}
        source = first.source
        if len(tag_names) == len(query.tags) and (not query.source or source.slug == query.source):
            return tag_names, source.name if query.source else ""
    tag_names = tag_names_visible(slugs=list(query.tags))
    source_name = (
        Source.objects.filter(slug=query.source).values_list("name", flat=True).first() or ""
        if query.source
        else ""
    )
    return tag_names, source_name

"""The staff preview: a draft on the public stream and item page, before readers see it."""

from django.contrib.admin.views.decorators import staff_member_required
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, render
from django.views.decorators.cache import never_cache

from editorial import preview
from feed.models import Item


def _previewable(request, pk: int) -> Item:
    if not request.user.has_perm("feed.change_item"):
        raise PermissionDenied
    return get_object_or_404(Item.objects.for_cards(), pk=pk)


def _noindex(response):
    response["X-Robots-Tag"] = "noindex, nofollow"
    return response


@never_cache
@staff_member_required
def preview_stream(request, pk: int):
    """The item on the stream of its day, exactly as readers will see it."""
    item = _previewable(request, pk)
    return _noindex(render(request, preview.STREAM_TEMPLATE, preview.stream_context(request, item)))


@never_cache
@staff_member_required
def preview_item(request, pk: int):
    """The item's own page, exactly as readers will see it."""
    item = _previewable(request, pk)
    return _noindex(render(request, preview.ITEM_TEMPLATE, preview.item_context(request, item)))

"""One item's page, and the counted way out to its original."""

from django.http import Http404, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect
from django.views.decorators.cache import never_cache

from feed import hooks
from feed.clicks import item_count_click, item_original_url
from feed.conditional import public_cache
from feed.item_html import item_page_html
from feed.models import Item
from feed.pages import RELATED_LIMIT, item_page_context, related_items
from feed.views.common import public_page


@public_page
@public_cache
def item_detail(request, pk: int, slug: str):
    """One item with every field, its original link and related items; only visible ones."""
    item = get_object_or_404(Item.objects.visible().for_cards(), pk=pk)
    if slug != item.slug:
        return redirect(item, permanent=True)
    related = hooks.related_items(item, limit=RELATED_LIMIT, default=lambda: related_items(item))
    context = item_page_context(request=request, item=item, related=related)
    # templates/feed/item_detail.html's page, written without the template engine.
    return HttpResponse(item_page_html(request, context))


@public_page
def item_short(request, pk: int):
    """`/items/<id>/`: on to the canonical address (with the title), if readers may see the item."""
    item = get_object_or_404(Item.objects.visible().only("id", "title"), pk=pk)
    return redirect(item, permanent=True)


@never_cache
@public_page
def go(request, pk: int):
    """Count a reader's click, then send them on to the original (visible items only)."""
    # HEAD is what link checkers and previews send: answer it, count only real visits.
    url = item_count_click(pk=pk) if request.method == "GET" else item_original_url(pk=pk)
    if url is None:
        raise Http404("No such item.")
    return HttpResponseRedirect(url)

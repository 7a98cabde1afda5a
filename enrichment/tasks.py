"""Background enrichment, run by `manage.py db_worker` like every other task."""

from django.contrib.auth import get_user_model
from django.tasks import task

from enrichment.services import items_enrich
from feed.models import Item


@task()
def enrich_items_task(item_ids: list[int], regenerate: bool = False, user_id: int | None = None):
    """Enrich the given items (those still drafts); returns the summary as a dict."""
    by = get_user_model().objects.filter(pk=user_id).first() if user_id else None
    items = Item.objects.drafts().filter(pk__in=item_ids).order_by("pk")
    return items_enrich(items=items.iterator(), regenerate=regenerate, by=by).as_dict()

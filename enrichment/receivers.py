"""Queue enrichment when items arrive: after a fetch, or when one is added by hand.

Receivers only enqueue; the work (and every rule) is in `enrichment.services`.
"""

import functools
import logging

from django.conf import settings
from django.db import transaction
from django.db.models.signals import post_save
from django.dispatch import receiver

from enrichment.services import fetch_pending
from enrichment.tasks import enrich_items_task
from feed.models import Item
from feed.signals import items_ingested

logger = logging.getLogger(__name__)


def enrich_enqueue(item_ids: list[int]) -> None:
    """Queue one task for these items; a queue that is down is logged, never raised."""
    if not item_ids:
        return
    try:
        enrich_items_task.enqueue(item_ids)
    except Exception:
        logger.exception("could not queue enrichment of %d items", len(item_ids))


@receiver(items_ingested, dispatch_uid="enrichment_after_fetch")
def enrich_after_fetch(sender, *, fetches, **kwargs) -> None:
    """The drafts these fetches created or saw that are still pending (`enrich_items --pending`).

    One task for a whole batch of a worker's fetches (feed.signals.arrivals_gathered).
    """
    if not settings.AITOP_ENRICH_ON_INGEST:
        return
    # items_pending() leaves out items that failed AITOP_AI_MAX_ATTEMPTS times:
    # a feed shows an entry for days, and each fetch would pay for it again.
    enrich_enqueue(fetch_pending(fetches))


@receiver(post_save, sender=Item, dispatch_uid="enrichment_after_create")
def enrich_after_create(sender, *, instance: Item, created: bool, raw: bool = False, **kwargs):
    """An item added one by one (the admin, the API, an import) is enriched like a fetched one."""
    if created and not raw and settings.AITOP_ENRICH_ON_INGEST:
        transaction.on_commit(functools.partial(enrich_enqueue, [instance.pk]))

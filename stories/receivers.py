"""What the stories app does when something happens elsewhere: thin calls, after commit."""

import functools
import logging

from django.db import transaction
from django.db.models.signals import post_save

from feed.models import Item

logger = logging.getLogger(__name__)

# Heat after a save, a move or a click runs in the process that committed: a few
# indexed statements, so readers see it at once. Matching a fetch's new items
# costs milliseconds an item (their signatures, a candidate query each), so it
# is queued as one task per fetch: a fetch worker goes on to the next source,
# and the items (drafts) are in their stories by the time an editor opens them.


def _match(item_ids: list[int]) -> None:
    from stories.heat import heat_recompute
    from stories.membership import items_match

    items_match(item_ids=list(item_ids))
    heat_recompute(item_ids=list(item_ids))


def _recompute(item_ids: list[int]) -> None:
    from stories.heat import heat_recompute

    heat_recompute(item_ids=list(item_ids))


def on_items_arrived(sender, *, item_ids, **kwargs) -> None:
    from stories.tasks import match_items

    try:
        match_items.enqueue(list(item_ids))
    except Exception:
        # A queue that is down must not fail the fetch; `stories_index` catches up.
        logger.exception("could not queue story matching of %d items", len(item_ids))


def on_item_saved(sender, *, instance, created, raw=False, **kwargs) -> None:
    # Items made one at a time (the admin, the API, imports); ingestion's bulk
    # inserts send `items_arrived` instead.
    if created and not raw:
        transaction.on_commit(functools.partial(_match, [instance.pk]), robust=True)


def on_transition(sender, *, item, **kwargs) -> None:
    _recompute([item.pk])


def on_click(sender, *, item_id, **kwargs) -> None:
    _recompute([item_id])


def on_story_changed(sender, *, item_ids, **kwargs) -> None:
    _recompute(item_ids)


def connect() -> None:
    from editorial.signals import item_transitioned
    from feed import hooks
    from feed.signals import item_clicked, items_arrived
    from stories import related, site
    from stories.signals import story_changed

    items_arrived.connect(on_items_arrived, dispatch_uid="stories-items-arrived")
    post_save.connect(on_item_saved, sender=Item, dispatch_uid="stories-item-saved")
    item_transitioned.connect(on_transition, dispatch_uid="stories-transition")
    item_clicked.connect(on_click, dispatch_uid="stories-click")
    story_changed.connect(on_story_changed, dispatch_uid="stories-changed")
    hooks.register_stream_filter(site.stream_collapse)
    hooks.register_days_arranger(site.days_arrange)
    hooks.register_card_decorator(site.cards_add_coverage)
    hooks.register_related(related.item_related)

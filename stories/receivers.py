"""What the stories app does when something happens elsewhere: thin calls, after commit."""

import functools

from django.db import transaction
from django.db.models.signals import post_save

from feed.models import Item

# Run in the process that committed (a worker after a fetch, a web process after
# an editor's save or a reader's click): a few indexed statements, so readers see
# the story and the heat at once and the task queue carries only periodic work.


def _match(item_ids: list[int]) -> None:
    from stories.heat import heat_recompute
    from stories.membership import items_match

    items_match(item_ids=list(item_ids))
    heat_recompute(item_ids=list(item_ids))


def _recompute(item_ids: list[int]) -> None:
    from stories.heat import heat_recompute

    heat_recompute(item_ids=list(item_ids))


def on_items_arrived(sender, *, item_ids, **kwargs) -> None:
    _match(item_ids)


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
    from stories import site
    from stories.signals import story_changed

    items_arrived.connect(on_items_arrived, dispatch_uid="stories-items-arrived")
    post_save.connect(on_item_saved, sender=Item, dispatch_uid="stories-item-saved")
    item_transitioned.connect(on_transition, dispatch_uid="stories-transition")
    item_clicked.connect(on_click, dispatch_uid="stories-click")
    story_changed.connect(on_story_changed, dispatch_uid="stories-changed")
    hooks.register_stream_filter(site.stream_collapse)
    hooks.register_days_arranger(site.days_arrange)
    hooks.register_card_decorator(site.cards_add_coverage)
    hooks.register_related(site.item_related)

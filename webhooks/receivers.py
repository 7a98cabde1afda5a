"""The editorial workflow's hooks, turned into webhook deliveries.

The workflow sends its signals after the transaction commits; these
receivers only translate a signal into an event name and hand it to
`webhooks_notify`, which holds the rules.
"""

from webhooks.models import Event
from webhooks.tasks import webhooks_notify


def on_item_published(sender, *, item, **kwargs) -> None:
    webhooks_notify(event=Event.ITEM_PUBLISHED, item=item)


def on_item_featured(sender, *, item, **kwargs) -> None:
    webhooks_notify(event=Event.ITEM_FEATURED, item=item)


def on_item_unpublished(sender, *, item, **kwargs) -> None:
    webhooks_notify(event=Event.ITEM_UNPUBLISHED, item=item)


def connect() -> None:
    """Subscribe to the workflow's signals (called once, from the app's `ready()`)."""
    from editorial import signals

    signals.item_published.connect(on_item_published, dispatch_uid="webhooks.item_published")
    signals.item_featured.connect(on_item_featured, dispatch_uid="webhooks.item_featured")
    signals.item_unpublished.connect(on_item_unpublished, dispatch_uid="webhooks.item_unpublished")

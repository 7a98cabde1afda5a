"""Putting webhook deliveries on the task queue, and the tasks `manage.py db_worker` runs.

Everything that enqueues lives here; `webhooks.delivery` records and tries
deliveries and never imports this module, so the two do not import each other.
"""

import datetime
import functools

from django.db import transaction
from django.tasks import default_task_backend, task
from django.utils import timezone

from feed.models import Item
from webhooks import delivery as deliveries
from webhooks.models import Delivery


def webhooks_notify(
    *, event: str, item: Item, now: datetime.datetime | None = None
) -> list[Delivery]:
    """Record a delivery of `event` about `item` for each webhook that wants it; queue each."""
    created = deliveries.deliveries_record(event=event, item=item, now=now)
    for delivery in created:
        transaction.on_commit(functools.partial(delivery_enqueue, delivery=delivery))
    return created


def delivery_enqueue(*, delivery: Delivery, now: datetime.datetime | None = None) -> bool:
    """Queue the next try of `delivery`; False when it must wait for `deliveries_enqueue_due`.

    A try in the future is queued with `run_after` when the task backend can
    defer (django-tasks-db can); otherwise the sweeper queues it once due.
    """
    now = now or timezone.now()
    when = delivery.next_attempt_at
    if when is None or when <= now:
        deliver_webhook.enqueue(delivery.pk)
        return True
    if default_task_backend.supports_defer:
        deliver_webhook.using(run_after=when).enqueue(delivery.pk)
        return True
    return False


def deliveries_enqueue_due(*, now: datetime.datetime | None = None, limit: int = 500) -> list[int]:
    """Queue a try for every due delivery (a safety net; needed where the backend cannot defer)."""
    now = now or timezone.now()
    ids = list(
        Delivery.objects.filter(
            status__in=[Delivery.Status.PENDING, Delivery.Status.RETRYING],
            next_attempt_at__lte=now,
        )
        .order_by("next_attempt_at", "id")
        .values_list("pk", flat=True)[:limit]
    )
    for delivery_id in ids:
        deliver_webhook.enqueue(delivery_id)
    return ids


def delivery_retry_now(*, delivery: Delivery, now: datetime.datetime | None = None) -> None:
    """Put a failed or retrying delivery back in the queue at once (the admin's action)."""
    now = now or timezone.now()
    deliveries.delivery_reset(delivery=delivery, now=now)
    transaction.on_commit(functools.partial(delivery_enqueue, delivery=delivery, now=now))


@task()
def deliver_webhook(delivery_id: int) -> dict:
    """Try one delivery now; if it failed and may be tried again, queue the next try."""
    found = Delivery.objects.filter(pk=delivery_id).select_related("webhook").first()
    if found is None:
        return {"delivery_id": delivery_id, "status": "gone"}
    attempt = deliveries.delivery_attempt(delivery=found)
    if found.status == Delivery.Status.RETRYING:
        delivery_enqueue(delivery=found)
    return {
        "delivery_id": delivery_id,
        "status": found.status,
        "response_status": attempt.response_status if attempt else None,
    }


@task()
def send_due_webhooks() -> int:
    """Queue every delivery whose try is due; for a periodic runner of your own."""
    return len(deliveries_enqueue_due())

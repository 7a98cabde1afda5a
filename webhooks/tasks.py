"""Background work for webhooks, run by `manage.py db_worker` like every other task."""

from django.tasks import task

from webhooks import delivery as deliveries
from webhooks.models import Delivery


@task()
def deliver_webhook(delivery_id: int) -> dict:
    """Try one delivery now; if it failed and may be tried again, queue the next try."""
    found = Delivery.objects.filter(pk=delivery_id).select_related("webhook").first()
    if found is None:
        return {"delivery_id": delivery_id, "status": "gone"}
    attempt = deliveries.delivery_attempt(delivery=found)
    if found.status == Delivery.Status.RETRYING:
        deliveries.delivery_enqueue(delivery=found)
    return {
        "delivery_id": delivery_id,
        "status": found.status,
        "response_status": attempt.response_status if attempt else None,
    }


@task()
def send_due_webhooks() -> int:
    """Queue every delivery whose try is due; for a periodic runner of your own."""
    return len(deliveries.deliveries_enqueue_due())

"""Sending events to webhooks: record a delivery per receiver, try it, retry with backoff.

`deliveries_record` writes one delivery per interested receiver;
`delivery_attempt` makes one try and writes it to the log; `delivery_reset`
makes a failed delivery due again. Putting deliveries on the task queue is
`webhooks.tasks`' business (which imports this module, never the reverse).
"""

import datetime
import json
import logging
import time

import httpx
from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from aitop.backoff import backoff_seconds
from feed.models import Item
from webhooks.models import Attempt, Delivery, Event, Webhook
from webhooks.signing import DELIVERY_HEADER, EVENT_HEADER, SIGNATURE_HEADER, signature_header

logger = logging.getLogger(__name__)

# How much of a receiver's answer the log keeps (bytes): the rest is never read.
RESPONSE_KEEP = 2000


def claim_seconds() -> float:
    """While one worker tries a delivery, no other picks it up for this long."""
    return settings.WEBHOOK_CLAIM_SECONDS


USER_AGENT = "AITOP-Webhooks/1.0"


def backoff(attempts: int) -> datetime.timedelta:
    """The wait after the `attempts`-th failed try: BASE * 4**(attempts-1), capped at MAX."""
    seconds = backoff_seconds(
        tries=attempts,
        base=settings.WEBHOOK_BACKOFF_BASE,
        cap=settings.WEBHOOK_BACKOFF_MAX,
        factor=4,
    )
    return datetime.timedelta(seconds=seconds)


def deliveries_record(
    *, event: str, item: Item, now: datetime.datetime | None = None
) -> list[Delivery]:
    """Record a delivery of `event` about `item` for each active webhook that wants it.

    An item published for a later time is announced when that time comes.
    """
    now = now or timezone.now()
    wanted = [hook for hook in Webhook.objects.filter(is_active=True) if event in hook.events]
    if not wanted:
        return []
    due = now
    if event != Event.ITEM_UNPUBLISHED and item.published_at and item.published_at > now:
        due = item.published_at
    # Imported here: DRF and drf-spectacular cost every process that loads
    # the admin (a fetch worker among them) 0.15 s of start-up, for a payload
    # only a publish needs.
    from api.serializers.items import item_representation

    data = {"item": item_representation(item)}
    created = []
    with transaction.atomic():
        for hook in wanted:
            delivery = Delivery(webhook=hook, event=event, item_id=item.pk, next_attempt_at=due)
            delivery.body = json.dumps(
                {
                    "id": str(delivery.uuid),
                    "event": event,
                    "created_at": now.isoformat(),
                    "data": data,
                },
                ensure_ascii=False,
                separators=(",", ":"),
                cls=DjangoJSONEncoder,  # the item's representation carries datetimes
            )
            delivery.save()
            created.append(delivery)
    return created


def _still_true(delivery: Delivery, now: datetime.datetime) -> bool:
    """Whether the event still describes the item: a published item since rejected is not news."""
    if delivery.event == Event.ITEM_UNPUBLISHED or delivery.item_id is None:
        return True
    visible = Item.objects.visible(now=now).filter(pk=delivery.item_id)
    if delivery.event == Event.ITEM_FEATURED:
        visible = visible.featured()
    return visible.exists()


def _claim(delivery: Delivery, now: datetime.datetime) -> bool:
    """Take the delivery for one try; False if it is not due or another worker holds it."""
    claimed = Delivery.objects.filter(
        Q(next_attempt_at__isnull=True) | Q(next_attempt_at__lte=now),
        pk=delivery.pk,
        status__in=[Delivery.Status.PENDING, Delivery.Status.RETRYING],
    ).update(
        attempts=F("attempts") + 1,
        next_attempt_at=now + datetime.timedelta(seconds=claim_seconds()),
    )
    delivery.refresh_from_db()
    return bool(claimed)


def _post(delivery: Delivery, now: datetime.datetime) -> tuple[int | None, str, str]:
    """POST the body, signed now; the HTTP status (None if none came), the answer and the error.

    The answer is read as it comes, undecoded (`Accept-Encoding: identity`; a
    receiver that compresses anyway is kept compressed), and only its first
    RESPONSE_KEEP bytes: a huge or endless answer costs nothing.
    """
    from aitop.netguard import Deadline, guarded_client

    body = delivery.body.encode()
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "Accept-Encoding": "identity",
        EVENT_HEADER: delivery.event,
        DELIVERY_HEADER: str(delivery.uuid),
        SIGNATURE_HEADER: signature_header(
            secret=delivery.webhook.secret, body=body, timestamp=int(now.timestamp())
        ),
    }
    limit = settings.WEBHOOK_TIMEOUT
    kept = bytearray()
    try:
        with (
            Deadline(limit) as deadline,
            guarded_client(timeout=limit, allow_hosts=settings.WEBHOOK_ALLOW_HOSTS) as client,
            # No redirects: a receiver that moved must be updated in the admin.
            client.stream(
                "POST",
                delivery.webhook.url,
                content=body,
                headers=headers,
                follow_redirects=False,
                extensions={"trace": deadline.trace},
            ) as response,
        ):
            for chunk in response.iter_raw():
                kept += chunk
                if len(kept) >= RESPONSE_KEEP:
                    break
    except httpx.HTTPError as error:
        if deadline.expired:
            return None, "", f"no complete answer within {limit:g} s"
        return None, "", f"{type(error).__name__}: {error}"
    answer = bytes(kept[:RESPONSE_KEEP]).decode(response.encoding or "utf-8", errors="replace")
    # PostgreSQL text cannot hold NUL, which a binary (or compressed) answer has.
    answer = answer.replace("\x00", "\ufffd")
    if not response.is_success:
        return response.status_code, answer, f"the receiver answered HTTP {response.status_code}"
    return response.status_code, answer, ""


def delivery_attempt(*, delivery: Delivery, now: datetime.datetime | None = None) -> Attempt | None:
    """Make one try of `delivery` if it is due, log it, and set when (or whether) to try again."""
    now = now or timezone.now()
    if not _claim(delivery, now):
        return None
    if not _still_true(delivery, now):
        Delivery.objects.filter(pk=delivery.pk).update(
            status=Delivery.Status.CANCELLED, next_attempt_at=None, attempts=F("attempts") - 1
        )
        delivery.refresh_from_db()
        return None
    started = time.monotonic()
    status, answer, error = _post(delivery, now)
    succeeded = not error
    attempt = Attempt.objects.create(
        delivery=delivery,
        number=delivery.attempts,
        started_at=now,
        duration_ms=int((time.monotonic() - started) * 1000),
        response_status=status,
        response_body=answer,
        error=error,
        succeeded=succeeded,
    )
    if succeeded:
        delivery.status, delivery.delivered_at, delivery.next_attempt_at = (
            Delivery.Status.DELIVERED,
            now,
            None,
        )
    elif delivery.attempts >= settings.WEBHOOK_MAX_ATTEMPTS:
        delivery.status, delivery.next_attempt_at = Delivery.Status.FAILED, None
        logger.warning(
            "webhook delivery %s gave up after %d tries", delivery.uuid, delivery.attempts
        )
    else:
        delivery.status = Delivery.Status.RETRYING
        delivery.next_attempt_at = now + backoff(delivery.attempts)
    delivery.save(update_fields=["status", "delivered_at", "next_attempt_at"])
    return attempt


def delivery_reset(*, delivery: Delivery, now: datetime.datetime) -> None:
    """Make a failed or retrying delivery due at once (a delivered one stays as it is)."""
    Delivery.objects.filter(pk=delivery.pk).exclude(status=Delivery.Status.DELIVERED).update(
        status=Delivery.Status.RETRYING, next_attempt_at=now
    )
    delivery.refresh_from_db()

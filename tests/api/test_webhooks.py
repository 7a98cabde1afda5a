"""Webhooks: a published item reaches a receiver on 127.0.0.1, signed; failures are retried."""

import datetime
import json

import pytest

from editorial.workflow import item_feature, item_publish, item_reject
from tests.api.receiver import Receiver
from tests.factories import make_chief_editor, make_item
from webhooks.models import Delivery, Webhook
from webhooks.signing import signature_verify
from webhooks.tasks import deliveries_enqueue_due

pytestmark = pytest.mark.django_db


@pytest.fixture
def receiver(settings):
    """A receiver on 127.0.0.1, let through the network guard as tests (only) may."""
    settings.WEBHOOK_ALLOW_HOSTS = ["127.0.0.1"]
    settings.WEBHOOK_TIMEOUT = 5
    settings.WEBHOOK_BACKOFF_BASE = 30
    settings.WEBHOOK_MAX_ATTEMPTS = 3
    server = Receiver()
    yield server
    server.stop()


@pytest.fixture
def chief(db):
    return make_chief_editor()


def _hook(url: str, events=("item.published",)) -> Webhook:
    return Webhook.objects.create(
        name="Newsroom bot", url=url, secret="s3cret", events=list(events)
    )


def test_publishing_sends_a_signed_webhook_with_the_item(
    receiver, chief, clock, django_capture_on_commit_callbacks
):
    hook = _hook(receiver.url)
    item = make_item(title="长上下文 model", status="draft", tags=["大模型"])

    with django_capture_on_commit_callbacks(execute=True):
        item_publish(item=item, by=chief)

    assert len(receiver.received) == 1
    request = receiver.received[0]
    delivery = Delivery.objects.get(webhook=hook)
    assert request.path == "/hooks/aitop"
    assert request.headers["Content-Type"] == "application/json"
    assert request.headers["X-AITOP-Event"] == "item.published"
    assert request.headers["X-AITOP-Delivery"] == str(delivery.uuid)
    assert signature_verify(
        secret="s3cret",
        body=request.body,
        header=request.headers["X-AITOP-Signature"],
        now=clock.now.timestamp(),
    )
    payload = json.loads(request.body)
    assert payload["event"] == "item.published"
    assert payload["id"] == str(delivery.uuid)
    assert payload["data"]["item"]["id"] == item.pk
    assert payload["data"]["item"]["title"] == "长上下文 model"
    assert payload["data"]["item"]["status"] == "published"
    assert payload["data"]["item"]["tags"] == [{"slug": "大模型", "name": "大模型"}]
    assert delivery.status == Delivery.Status.DELIVERED
    assert list(delivery.tries.values_list("number", "response_status", "succeeded")) == [
        (1, 200, True)
    ]


def test_publishing_through_the_api_sends_the_webhook(
    receiver, chief, token_client, django_capture_on_commit_callbacks
):
    _hook(receiver.url)
    item = make_item(status="draft")

    with django_capture_on_commit_callbacks(execute=True):
        response = token_client(chief).post(f"/api/v1/items/{item.pk}/publish/", {}, format="json")

    assert response.status_code == 200
    assert [json.loads(r.body)["data"]["item"]["id"] for r in receiver.received] == [item.pk]


def test_a_failing_receiver_is_retried_with_backoff_and_every_try_is_logged(
    receiver, chief, clock, django_capture_on_commit_callbacks
):
    receiver.script = [500, 503]
    _hook(receiver.url)
    item = make_item(status="draft")

    with django_capture_on_commit_callbacks(execute=True):
        item_publish(item=item, by=chief)
    delivery = Delivery.objects.get()
    assert delivery.status == Delivery.Status.RETRYING
    assert delivery.next_attempt_at == clock.now + datetime.timedelta(seconds=30)

    # Not due yet: nothing is sent.
    assert deliveries_enqueue_due() == []
    clock.move(datetime.timedelta(seconds=30))
    deliveries_enqueue_due()
    delivery.refresh_from_db()
    assert delivery.next_attempt_at == clock.now + datetime.timedelta(seconds=120)
    clock.move(datetime.timedelta(seconds=120))
    deliveries_enqueue_due()

    delivery.refresh_from_db()
    assert delivery.status == Delivery.Status.DELIVERED
    assert len(receiver.received) == 3
    # The same delivery id every time, so the receiver can drop repeats.
    assert {r.headers["X-AITOP-Delivery"] for r in receiver.received} == {str(delivery.uuid)}
    tries = list(delivery.tries.order_by("number"))
    assert [(t.number, t.response_status, t.succeeded) for t in tries] == [
        (1, 500, False),
        (2, 503, False),
        (3, 200, True),
    ]
    assert tries[0].error == "the receiver answered HTTP 500"
    assert tries[0].response_body == "receiver is down"


def test_delivery_gives_up_after_the_last_try(
    receiver, chief, clock, django_capture_on_commit_callbacks
):
    receiver.script = [500, 500, 500]
    _hook(receiver.url)

    with django_capture_on_commit_callbacks(execute=True):
        item_publish(item=make_item(status="draft"), by=chief)
    for wait in (30, 120):
        clock.move(datetime.timedelta(seconds=wait))
        deliveries_enqueue_due()

    delivery = Delivery.objects.get()
    assert delivery.status == Delivery.Status.FAILED
    assert delivery.next_attempt_at is None
    assert delivery.tries.count() == 3


def test_receiver_that_is_not_listening_is_logged_and_retried(
    chief, settings, clock, django_capture_on_commit_callbacks
):
    settings.WEBHOOK_ALLOW_HOSTS = ["127.0.0.1"]
    gone = Receiver()
    url = gone.url
    gone.stop()
    _hook(url)

    with django_capture_on_commit_callbacks(execute=True):
        item_publish(item=make_item(status="draft"), by=chief)

    delivery = Delivery.objects.get()
    attempt = delivery.tries.get()
    assert delivery.status == Delivery.Status.RETRYING
    assert attempt.response_status is None
    assert attempt.error.startswith("ConnectError")


def test_the_network_guard_refuses_a_receiver_on_a_loopback_address(
    chief, settings, django_capture_on_commit_callbacks
):
    settings.WEBHOOK_ALLOW_HOSTS = []
    server = Receiver()
    try:
        _hook(server.url)
        with django_capture_on_commit_callbacks(execute=True):
            item_publish(item=make_item(status="draft"), by=chief)
    finally:
        server.stop()

    attempt = Delivery.objects.get().tries.get()
    assert server.received == []
    assert (
        attempt.error
        == "BlockedAddressError: refused to connect to 127.0.0.1: not a public address"
    )


def test_only_subscribed_events_are_sent(receiver, chief, django_capture_on_commit_callbacks):
    published_only = _hook(receiver.url, events=["item.published"])
    featured_and_gone = _hook(receiver.url, events=["item.featured", "item.unpublished"])
    item = make_item(status="published")

    with django_capture_on_commit_callbacks(execute=True):
        item_feature(item=item, by=chief)
    with django_capture_on_commit_callbacks(execute=True):
        item_reject(item=item, by=chief, reason="Wrong story.")

    assert not published_only.deliveries.exists()
    assert sorted(featured_and_gone.deliveries.values_list("event", flat=True)) == [
        "item.featured",
        "item.unpublished",
    ]
    assert sorted(r.headers["X-AITOP-Event"] for r in receiver.received) == [
        "item.featured",
        "item.unpublished",
    ]


def test_a_scheduled_item_is_announced_when_it_appears(
    receiver, chief, clock, django_capture_on_commit_callbacks
):
    _hook(receiver.url)
    later = clock.now + datetime.timedelta(hours=2)

    with django_capture_on_commit_callbacks(execute=True):
        item_publish(item=make_item(status="draft"), by=chief, at=later)
    assert receiver.received == []
    assert Delivery.objects.get().next_attempt_at == later

    clock.move(datetime.timedelta(hours=2))
    deliveries_enqueue_due()

    assert len(receiver.received) == 1


def test_an_item_rejected_before_its_announcement_is_not_announced(
    receiver, chief, clock, django_capture_on_commit_callbacks
):
    _hook(receiver.url)
    item = make_item(status="draft")
    with django_capture_on_commit_callbacks(execute=True):
        item_publish(item=item, by=chief, at=clock.now + datetime.timedelta(hours=1))
    item_reject(item=item, by=chief, reason="Not news after all.")

    clock.move(datetime.timedelta(hours=1))
    deliveries_enqueue_due()

    assert receiver.received == []
    assert Delivery.objects.get().status == Delivery.Status.CANCELLED


def test_inactive_webhooks_receive_nothing(receiver, chief, django_capture_on_commit_callbacks):
    hook = _hook(receiver.url)
    hook.is_active = False
    hook.save()

    with django_capture_on_commit_callbacks(execute=True):
        item_publish(item=make_item(status="draft"), by=chief)

    assert receiver.received == []
    assert not Delivery.objects.exists()

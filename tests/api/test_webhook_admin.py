"""Webhooks in the admin: editors register a receiver; the delivery log shows every try."""

import pytest

from tests.factories import make_user
from webhooks.models import Attempt, Delivery, Webhook

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client):
    client.force_login(make_user(is_staff=True, is_superuser=True))
    return client


def test_admin_registers_a_webhook_with_its_events(admin_client):
    response = admin_client.post(
        "/admin/webhooks/webhook/add/",
        {
            "name": "Newsroom bot",
            "url": "https://hooks.example/aitop",
            "events": ["item.published", "item.featured"],
            "secret": "a-long-shared-secret",
            "is_active": "on",
        },
    )

    assert response.status_code == 302
    hook = Webhook.objects.get()
    assert hook.events == ["item.published", "item.featured"]
    assert hook.secret == "a-long-shared-secret"


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8000/hook",
        "http://10.1.2.3/hook",
        "http://[::1]/hook",
        "http://localhost/hook",
        "http://169.254.169.254/latest/meta-data",
        "ftp://hooks.example/x",
    ],
)
def test_admin_refuses_a_webhook_url_that_is_not_public(admin_client, url):
    response = admin_client.post(
        "/admin/webhooks/webhook/add/",
        {"name": "x", "url": url, "events": ["item.published"], "secret": "s", "is_active": "on"},
    )

    assert response.status_code == 200
    assert response.context["adminform"].form.errors["url"]
    assert not Webhook.objects.exists()


def test_delivery_log_shows_each_try(admin_client):
    from django.utils import timezone

    hook = Webhook.objects.create(
        name="Bot", url="https://hooks.example/", events=["item.published"]
    )
    delivery = Delivery.objects.create(webhook=hook, event="item.published", body="{}", attempts=2)
    Attempt.objects.create(
        delivery=delivery,
        number=1,
        started_at=timezone.now(),
        response_status=502,
        error="HTTP 502",
    )
    Attempt.objects.create(
        delivery=delivery, number=2, started_at=timezone.now(), response_status=200, succeeded=True
    )

    listing = admin_client.get("/admin/webhooks/delivery/")
    page = admin_client.get(f"/admin/webhooks/delivery/{delivery.pk}/change/")

    assert listing.status_code == 200
    assert page.status_code == 200
    html = page.content.decode()
    assert "502" in html and "HTTP 502" in html


def test_an_editor_registers_a_webhook(client):
    from tests.factories import make_editor

    editor = make_editor()
    client.force_login(editor)

    response = client.post(
        "/admin/webhooks/webhook/add/",
        {
            "name": "Bot",
            "url": "https://hooks.example/",
            "events": ["item.published"],
            "secret": "s",
        },
    )

    assert response.status_code == 302
    assert Webhook.objects.get().created_by == editor
    assert client.get("/admin/webhooks/delivery/").status_code == 200

"""The staff preview: a draft shown with the public templates, to staff who may edit it."""

import datetime
import re

import pytest
from django.utils import timezone

from feed.models import Item
from tests.factories import make_editor, make_item, make_user

pytestmark = pytest.mark.django_db

EN = {"accept-language": "en"}


def earlier_today() -> datetime.datetime:
    """A moment before now on today's date in the site's zone (an hour ago may be yesterday)."""
    now = timezone.localtime()
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    return midnight + (now - midnight) / 2


def preview_urls(item: Item) -> list[str]:
    return [f"/editorial/preview/{item.pk}/stream/", f"/editorial/preview/{item.pk}/item/"]


@pytest.fixture
def draft():
    return make_item(
        status="draft",
        title="Lumen-4 未发布稿",
        summary="A summary nobody outside has read.",
        tags=["大模型"],
        category="model",
    )


def test_the_stream_preview_shows_the_draft_among_the_day_with_a_banner(client, draft):
    make_item(title="Published this morning", published_at=earlier_today())
    client.force_login(make_editor())

    html = client.get(preview_urls(draft)[0], headers=EN).text

    assert '<div class="preview-banner" role="status">' in html
    assert "“Lumen-4 未发布稿” is draft: this is how readers will see it" in html
    assert f'<a href="/editorial/preview/{draft.pk}/item/">Lumen-4 未发布稿</a>' in html
    assert "A summary nobody outside has read." in html
    assert "Published this morning" in html
    # Previewed in English, the card's links lead to the English site.
    assert '<li class="tag--category"><a href="/en/?category=model">AI models</a></li>' in html
    assert html.index("Lumen-4 未发布稿</a>") < html.index("Published this morning")


def test_the_item_preview_renders_the_public_item_page(client, draft):
    client.force_login(make_editor())

    response = client.get(preview_urls(draft)[1], headers=EN)

    assert response.status_code == 200
    assert '<h1 class="item-page-title">Lumen-4 未发布稿</h1>' in response.text
    assert "A summary nobody outside has read." in response.text
    assert "Preview" in response.text
    assert response["X-Robots-Tag"] == "noindex, nofollow"
    assert "no-cache" in response["Cache-Control"]


def test_a_scheduled_item_is_previewed_at_its_time(client):
    at = timezone.now() + datetime.timedelta(days=3)
    item = make_item(title="For later", published_at=at)
    client.force_login(make_editor())

    html = client.get(preview_urls(item)[0]).text

    assert f'<time datetime="{timezone.localtime(at).isoformat(timespec="seconds")}"' in html


def test_previewing_changes_nothing_stored(client, draft):
    client.force_login(make_editor())

    client.get(preview_urls(draft)[0])

    stored = Item.objects.get(pk=draft.pk)
    assert (stored.status, stored.published_at) == ("draft", None)


@pytest.mark.parametrize("which", [0, 1])
def test_anonymous_visitors_are_sent_to_log_in(client, draft, which):
    response = client.get(preview_urls(draft)[which])

    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/")


@pytest.mark.parametrize("which", [0, 1])
def test_staff_without_change_permission_are_refused(client, draft, which):
    client.force_login(make_user(is_staff=True, perms=["feed.view_item"]))

    assert client.get(preview_urls(draft)[which]).status_code == 403


@pytest.mark.parametrize("which", [0, 1])
def test_a_reader_account_is_not_staff_and_cannot_preview(client, draft, which):
    client.force_login(make_user(perms=["feed.change_item"]))

    response = client.get(preview_urls(draft)[which])

    assert response.status_code == 302
    assert "Lumen-4" not in response.text


def test_an_unknown_item_is_a_404(client):
    client.force_login(make_editor())

    assert client.get("/editorial/preview/999999/item/").status_code == 404


def test_the_public_site_still_hides_the_draft(client, draft):
    assert "Lumen-4" not in client.get("/").text
    assert client.get(draft.get_absolute_url()).status_code == 404


def test_the_stream_preview_has_the_sidebar_readers_will_see(client, draft):
    make_item(title="Published this morning", tags=["推理", "开源"], published_at=earlier_today())
    make_item(title="And another", tags=["推理"], published_at=earlier_today())
    client.force_login(make_editor())

    html = client.get(preview_urls(draft)[0], headers=EN).text
    aside = html[html.index('<aside class="layout-aside"') : html.index("</aside>")]

    names = re.findall(r'<span class="facet-name">(.*?)</span>', aside)
    # The tags of the page's items, the draft's among them as it will be, most used first.
    assert names == ["推理", "大模型", "开源"]

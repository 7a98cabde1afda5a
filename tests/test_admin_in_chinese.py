"""The Chinese desk: every admin page an editor, a chief or the admin opens reads in Chinese,
and every time on it is on the site's clock (Asia/Shanghai), not UTC."""

import datetime
from html.parser import HTMLParser

import pytest
from django.contrib import admin
from django.urls import reverse

from editorial.workflow import item_publish
from feed.demo import demo_load
from feed.models import FetchAttempt, Item, Source
from tests.factories import make_chief_editor, make_item, make_user

pytestmark = pytest.mark.django_db

#: English that the Chinese admin showed before it was translated (the page walk found them).
ENGLISH_LEAKS = [
    "Tasks Database Backend",  # django-tasks-db's app name
    "Task Result",
    "queue name",
    "- Select an option -",  # Django 6.1's empty choice, not in its zh_Hans catalogue
    "Filter by",  # the date hierarchy's heading, likewise
    "Guid",
    "Expected version",
    "the server answered HTTP",  # a fetch error as the worker stored it
    "not a public address",
    "fetched a moment ago",
]

#: Pages only the superuser reaches, whose words are a library's own (see the report).
THIRD_PARTY_APPS = {"axes", "auth", "taggit", "authtoken"}


class _VisibleText(HTMLParser):
    """The text a reader sees: text nodes and the attributes read aloud, no scripts."""

    def __init__(self):
        super().__init__()
        self.parts: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.hidden += 1
        self.parts += [value for name, value in attrs if name in {"title", "placeholder"} and value]

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self.hidden -= 1

    def handle_data(self, data):
        if not self.hidden:
            self.parts.append(data)


def visible_text(html: str) -> str:
    parser = _VisibleText()
    parser.feed(html)
    return " ".join(" ".join(parser.parts).split())


def admin_pages() -> list[str]:
    """Every model's list, add, change and history page, and the index."""
    urls = ["/admin/"]
    for model in admin.site._registry:
        info = f"{model._meta.app_label}_{model._meta.model_name}"
        urls.append(reverse(f"admin:{info}_changelist"))
        urls.append(reverse(f"admin:{info}_add"))
        obj = model._default_manager.order_by("pk").first()
        if obj is not None:
            urls.append(reverse(f"admin:{info}_change", args=[obj.pk]))
            urls.append(reverse(f"admin:{info}_history", args=[obj.pk]))
    return urls


@pytest.fixture
def desk(clock):
    """The demo content, a failing source with its fetch history, and a published draft."""
    demo_load()
    source = Source.objects.order_by("pk").first()
    error = "the server answered HTTP 500 Internal Server Error"
    Source.objects.filter(pk=source.pk).update(
        last_status="failed", consecutive_failures=6, last_error=error, last_fetched_at=clock.now
    )
    FetchAttempt.objects.create(
        source=source,
        started_at=clock.now,
        duration=datetime.timedelta(seconds=1),
        status="failed",
        http_status=500,
        error=error,
        skipped_reasons={"another entry of this feed has the same id": 2},
    )
    item_publish(item=make_item(status="draft", source=source), by=make_chief_editor())
    return source


def english_on(client, url: str) -> list[str]:
    response = client.get(url, headers={"accept-language": "zh-hans"})
    if response.status_code != 200:
        return []
    text = visible_text(response.text)
    return [phrase for phrase in ENGLISH_LEAKS if phrase in text]


def test_every_admin_page_reads_in_chinese_for_the_admin(client, desk):
    client.force_login(make_user(is_staff=True, is_superuser=True))

    leaks = {
        url: found
        for url in admin_pages()
        if url.split("/")[2] not in THIRD_PARTY_APPS and (found := english_on(client, url))
    }

    assert leaks == {}


def test_every_admin_page_reads_in_chinese_for_a_chief_editor(client, desk):
    client.force_login(make_chief_editor())

    leaks = {url: found for url in admin_pages() if (found := english_on(client, url))}

    assert leaks == {}


def test_the_task_queue_has_a_chinese_name_in_the_admin(admin_client):
    index = admin_client.get("/admin/", headers={"accept-language": "zh-hans"}).text

    assert "后台任务" in index and "Tasks Database Backend" not in index


def test_the_history_of_an_item_is_on_the_sites_clock(client, clock):
    # 04:30 UTC is 12:30 in Shanghai.
    clock.now = datetime.datetime(2026, 6, 20, 4, 30, tzinfo=datetime.UTC)
    chief = make_chief_editor()
    item = item_publish(item=make_item(status="draft"), by=chief)
    client.force_login(chief)

    page = client.get(reverse("admin:feed_item_change", args=[item.pk])).text

    assert "2026-06-20 12:30" in page
    assert "04:30" not in page


def test_the_fetch_history_on_a_source_is_on_the_sites_clock(admin_client, clock):
    source = Source.objects.create(
        name="Lab", slug="lab", kind="blog", feed_url="https://lab.example/"
    )
    FetchAttempt.objects.create(
        source=source,
        duration=datetime.timedelta(seconds=1),
        status="ok",
        started_at=datetime.datetime(2026, 6, 20, 4, 30, 5, tzinfo=datetime.UTC),
    )

    page = admin_client.get(reverse("admin:feed_source_change", args=[source.pk])).text

    assert "2026-06-20 12:30:05" in page
    assert "04:30:05" not in page
    assert Item.objects.count() == 0


def test_the_admins_time_zone_note_is_in_chinese(admin_client):
    # Shown only to a reader whose clock is not the site's; Django 6.1's own words.
    catalogue = admin_client.get("/admin/jsi18n/", headers={"accept-language": "zh-hans"}).text

    assert "\\u8bf7\\u6309 %(timezone)s" in catalogue or "请按 %(timezone)s" in catalogue

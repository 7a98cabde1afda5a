"""Property: whatever items exist, in whatever states, nothing hidden reaches a reader.

Hypothesis draws items (status, publish time, source, tags) and then editorial
moves (publish, feature, unfeature, reject, restore, delete, time passing).
Before and after the moves, every public page, feed, sitemap, search and
anonymous API answer is crawled through the same cache (so a stale cached page
counts as a leak), and no hidden item's id, title, URL or tag name may appear.

"Hidden" is worked out here, independently of `Item.objects.visible()`: not
published or featured, or published for a time still to come.
AITOP_LEAK_EXAMPLES sets how many examples run (default 8, about 5 s each).
"""

import contextlib
import datetime
import itertools
import os

import pytest
from django.db import transaction
from django.urls import reverse
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from editorial import workflow
from editorial.errors import WorkflowError
from feed.models import Item
from tests.conftest import SHANGHAI
from tests.factories import make_chief_editor, make_item, make_source

pytestmark = pytest.mark.django_db

NOW = datetime.datetime(2026, 6, 20, 12, 0, tzinfo=SHANGHAI)
STATUSES = ["draft", "published", "featured", "rejected"]
# Names that differ from their slugs, so a page echoing a slug never shows the name.
TAGS = ["Topic Alpha", "Topic Beta", "Topic Gamma", "Topic Delta"]
MOVES = ["publish", "feature", "unfeature", "reject", "restore", "delete", "time"]
WORD = "模型"
_tokens = itertools.count(1)

item_specs = st.lists(
    st.fixed_dictionaries(
        {
            "status": st.sampled_from(STATUSES),
            # Hours from now: negative is the past, positive a scheduled time.
            "hours": st.integers(min_value=-80, max_value=30),
            "source": st.integers(min_value=0, max_value=1),
            "tags": st.lists(st.sampled_from(TAGS), max_size=2, unique=True),
        }
    ),
    min_size=1,
    max_size=7,
)
move_specs = st.lists(
    st.tuples(st.sampled_from(MOVES), st.integers(min_value=0, max_value=6)), max_size=6
)


def _is_visible(item: Item, now: datetime.datetime) -> bool:
    return item.status in {"published", "featured"} and item.published_at <= now


def _urls(items: list[Item], sources, now: datetime.datetime) -> list[str]:
    """Every public address worth asking, for these items."""
    from taggit.models import Tag

    days = {item.published_at.astimezone(SHANGHAI).date() for item in items if item.published_at}
    days.add(now.astimezone(SHANGHAI).date())
    slugs = list(Tag.objects.values_list("slug", flat=True))
    urls = [
        reverse("feed:stream"),
        f"{reverse('feed:stream')}?q={WORD}",
        f"{reverse('feed:stream')}?featured=1",
        reverse("feed:tag-index"),
        reverse("feed:source-index"),
        reverse("feed:rss"),
        reverse("feed:atom"),
        reverse("feed:json"),
        f"{reverse('feed:json')}?q={WORD}",
        "/sitemap.xml",
        "/sitemap-items.xml",
    ]
    for slug in slugs:
        urls += [f"{reverse('feed:stream')}?tag={slug}", f"{reverse('feed:rss')}?tag={slug}"]
        urls.append(reverse("feed:tag", kwargs={"slug": slug}))
    for source in sources:
        urls.append(f"{reverse('feed:stream')}?source={source.slug}")
    for day in sorted(days):
        urls.append(reverse("feed:day", kwargs={"day": day}))
    for item in items:
        urls.append(f"/items/{item.pk}/{item.slug}/")
    return urls


API_URLS = [
    "/api/v1/items/?page_size=100",
    f"/api/v1/items/?q={WORD}&page_size=100",
    "/api/v1/items/?ordering=hot&page_size=100",
    "/api/v1/tags/",
    "/api/v1/days/",
    "/api/v1/sources/",
]


def _crawl(client, api, items: list[Item], sources, now: datetime.datetime) -> None:
    """Ask every address; fail on any sign of a hidden item."""
    from taggit.models import Tag

    hidden = [item for item in items if not _is_visible(item, now)]
    shown = {item.pk for item in items if _is_visible(item, now)}
    carried = {
        tag
        for item in items
        if _is_visible(item, now)
        for tag in item.tags.values_list("name", flat=True)
    }
    secret_tags = set(Tag.objects.values_list("name", flat=True)) - carried
    for url in _urls(items, sources, now):
        response = client.get(url, follow=True)
        assert response.status_code in {200, 404}, (url, response.status_code)
        _assert_clean(_unechoed(response.content.decode(), url), hidden, secret_tags, where=url)
    for item in items:
        page = client.get(f"/items/{item.pk}/{item.slug}/", follow=True)
        assert page.status_code == (200 if item.pk in shown else 404), item.status
        # The way out to the original: only for what a reader can see.
        out = client.get(f"/go/{item.pk}/")
        assert out.status_code == (302 if item.pk in shown else 404), item.status
    for url in API_URLS:
        response = api.get(url)
        assert response.status_code == 200, url
        _assert_clean(response.content.decode(), hidden, secret_tags, where=url)
        if url.startswith("/api/v1/items/"):
            assert {row["id"] for row in response.json()["results"]} <= shown
    for item in hidden:
        assert api.get(f"/api/v1/items/{item.pk}/").status_code == 404


def _unechoed(body: str, url: str) -> str:
    """The body without the address the reader asked for (a page may echo it, e.g. a 404)."""
    from urllib.parse import quote

    for form in {url, quote(url, safe="/?=&"), quote(url.split("?")[0], safe="/")}:
        body = body.replace(form, "")
    return body


def _assert_clean(body: str, hidden: list[Item], secret_tags: set[str], *, where: str) -> None:
    for item in hidden:
        assert item.title not in body, (where, item.status, item.published_at)
        assert item.url not in body, where
        assert f"/items/{item.pk}/" not in body, where
        assert f"/go/{item.pk}/" not in body, where
    for name in secret_tags:
        assert name not in body, (where, name)


def _move(kind: str, item: Item, chief, clock) -> None:
    """One editorial move (or time passing); a move the workflow refuses changes nothing."""
    if kind == "time":
        clock.move(datetime.timedelta(hours=12))
        return
    if kind == "delete":
        item.delete()
        return
    calls = {
        "publish": lambda: workflow.item_publish(item=item, by=chief),
        "feature": lambda: workflow.item_feature(item=item, by=chief),
        "unfeature": lambda: workflow.item_unfeature(item=item, by=chief),
        "reject": lambda: workflow.item_reject(item=item, by=chief, reason="off topic"),
        "restore": lambda: workflow.item_restore(item=item, by=chief),
    }
    with contextlib.suppress(WorkflowError):
        calls[kind]()


@settings(
    max_examples=int(os.environ.get("AITOP_LEAK_EXAMPLES", "8")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    # Each example is a database and two crawls: shrinking a failure is worth
    # a little time, not the whole suite's.
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target],
)
@given(specs=item_specs, moves=move_specs)
def test_no_hidden_item_reaches_any_public_answer_before_or_after_moves(
    specs, moves, client, clock, django_capture_on_commit_callbacks
):
    from django.core.cache import cache

    cache.clear()
    clock.now = NOW
    api = APIClient()
    with transaction.atomic():
        sources = [make_source(name=f"Lab {n}", slug=f"lab-{n}") for n in range(2)]
        chief = make_chief_editor()
        items = []
        for spec in specs:
            token = f"leak{next(_tokens):06d}x"
            when = NOW + datetime.timedelta(hours=spec["hours"])
            items.append(
                make_item(
                    title=f"{WORD} {token}",
                    url=f"https://news.example/{token}",
                    source=sources[spec["source"]],
                    status=spec["status"],
                    published_at=when if spec["status"] != "draft" or spec["hours"] % 2 else None,
                    tags=spec["tags"],
                )
            )

        _crawl(client, api, items, sources, clock.now)
        pks = [item.pk for item in items]
        before = {item.pk: Item(pk=item.pk, title=item.title, url=item.url) for item in items}

        for kind, index in moves:
            live = [item for item in items if Item.objects.filter(pk=item.pk).exists()]
            if not live:
                break
            item = live[index % len(live)]
            item.refresh_from_db()
            with django_capture_on_commit_callbacks(execute=True):
                _move(kind, item, chief, clock)
        remaining = Item.objects.in_bulk(pks)
        # A deleted item stays in the crawl, as hidden: nothing may still show it.
        after = [remaining.get(pk) or _gone(before[pk]) for pk in pks]
        _crawl(client, api, after, sources, clock.now)
        transaction.set_rollback(True)
    cache.clear()


def _gone(item: Item) -> Item:
    """What the crawl checks for a deleted item: its last id, title and URL, never visible."""
    item.status = "deleted"
    return item

"""`manage.py bench_seed` fills an empty database with what the benchmark needs."""

import re
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from feed.models import Item, Source, TaggedItem
from tests.factories import make_item

pytestmark = pytest.mark.django_db


def _seed(**options) -> str:
    out = StringIO()
    call_command("bench_seed", stdout=out, **options)
    return out.getvalue()


def test_bench_seed_makes_the_requested_items_sources_and_tags():
    output = _seed(items=600, days=3, sources=12)

    assert Item.objects.count() == 600
    assert Source.objects.count() == 12
    tagged = TaggedItem.objects.count()
    assert 600 <= tagged <= 4 * 600
    assert not Item.objects.filter(tagged_items__isnull=True).exists()
    assert re.match(rf"600 items \({tagged} tags on them\) over 3 days, 12 sources, ", output)


def test_bench_seed_spreads_items_over_the_days_with_every_status():
    _seed(items=3000, days=3)
    now = timezone.now()

    statuses = dict.fromkeys(["draft", "rejected", "published", "featured"], 0)
    for status in Item.objects.values_list("status", flat=True):
        statuses[status] += 1
    days = {timezone.localdate(at) for at in Item.objects.values_list("created_at", flat=True)}
    scheduled = Item.objects.scheduled(now=now).count()

    assert all(count > 0 for count in statuses.values()), statuses
    assert 2400 < statuses["published"] + statuses["featured"] < 2850
    assert scheduled > 0
    assert len(days) == 3
    assert not Item.objects.filter(status__in=["draft", "rejected"], published_at__isnull=False)


def test_bench_seed_writes_chinese_and_english_text_that_search_finds():
    _seed(items=200, days=1)

    titles = list(Item.objects.values_list("title", flat=True))
    assert any(re.search(r"[\u4e00-\u9fff]{4}", title) for title in titles)
    assert any(re.fullmatch(r"[A-Za-z0-9 .-]+", title) for title in titles)
    assert Item.objects.search("模").exists()
    assert Item.objects.visible().search("open").exists()


def test_bench_seed_continues_the_id_sequence_for_new_items():
    _seed(items=50, days=1, sources=2)

    item = make_item(title="After the seed")

    assert item.pk > max(Item.objects.exclude(pk=item.pk).values_list("pk", flat=True))


def test_bench_seed_refuses_a_database_that_holds_items_and_changes_nothing():
    make_item(title="Real news")

    with pytest.raises(CommandError, match="seed an empty one"):
        _seed(items=10)

    assert list(Item.objects.values_list("title", flat=True)) == ["Real news"]
    assert Source.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_bench_seed_leaves_postgresql_vacuumed_as_autovacuum_would():
    # Without it, on a server with autovacuum off, every index-only scan of the
    # benchmark read the table's pages too (docs/benchmarks.md, stop 37).
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("VACUUM and the visibility map are PostgreSQL's")
    _seed(items=300, days=2, sources=5)

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT relname FROM pg_stat_user_tables"
            " WHERE relname IN ('feed_item', 'feed_taggeditem') AND last_vacuum IS NOT NULL"
        )
        vacuumed = sorted(name for (name,) in cursor.fetchall())
        cursor.execute("SELECT relallvisible, relpages FROM pg_class WHERE relname = 'feed_item'")
        all_visible, pages = cursor.fetchone()
    assert vacuumed == ["feed_item", "feed_taggeditem"]
    assert all_visible == pages > 0

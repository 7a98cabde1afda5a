"""Related items by shared tags: what one read of the window ranks equals a plain count over it."""

import datetime
import math
import random

import pytest

from feed.models import Item
from stories import related
from tests.conftest import SHANGHAI
from tests.factories import make_item, make_source

pytestmark = pytest.mark.django_db
TAGS = ["agents", "rl", "gpu", "robots", "safety", "chips"]
WINDOW = 20


@pytest.fixture
def small_window(monkeypatch):
    """A window of 20 items, so a site of 60 has items on both sides of it."""
    monkeypatch.setattr(related, "RELATED_WINDOW", WINDOW)
    for cached in (related._window_sql, related._pairs_sql):
        cached.cache_clear()
    yield
    for cached in (related._window_sql, related._pairs_sql):
        cached.cache_clear()


def expected(item: Item, *, limit: int) -> list[str]:
    """The ranking counted in Python over every visible item, as the page promises it."""
    visible = sorted(
        Item.objects.visible().prefetch_related("tags"), key=lambda i: (i.published_at, i.pk)
    )
    before = [i for i in visible if i.published_at <= item.published_at][::-1][: WINDOW // 2]
    after = [i for i in visible if i.published_at > item.published_at][: WINDOW // 2]
    window = before + after
    wanted = {tag.pk for tag in item.tags.all()}
    shared = {i.pk: sorted(t.pk for t in i.tags.all() if t.pk in wanted) for i in window}
    uses = {tag: sum(tag in found for found in shared.values()) for tag in wanted}
    weight = {tag: 1.0 / math.log(2 + uses[tag]) for tag in wanted}
    scored = [
        (-sum(weight[tag] for tag in shared[i.pk]), -i.published_at.timestamp(), -i.pk, i.title)
        for i in window
        if shared[i.pk] and i.pk != item.pk
    ]
    return [title for *_, title in sorted(scored)[:limit]]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_ranking_equals_a_count_over_the_window(clock, small_window, seed):
    rng = random.Random(seed)
    sources = [make_source() for _ in range(3)]
    start = datetime.datetime(2026, 6, 1, tzinfo=SHANGHAI)
    items = []
    for n in range(60):
        status = rng.choice(["published"] * 5 + ["draft"])
        items.append(
            make_item(
                title=f"Item {n}",
                source=rng.choice(sources),
                tags=rng.sample(TAGS, rng.randint(0, 3)),
                status=status,
                # Some share a moment, so the newest-first and id order decides.
                published_at=start + datetime.timedelta(hours=rng.randint(0, 200))
                if status == "published"
                else None,
            )
        )
    subjects = [i for i in items if i.status == "published" and i.tags.exists()]
    assert len(subjects) > 10

    for subject in rng.sample(subjects, 8):
        subject = Item.objects.get(pk=subject.pk)
        got = [other.title for other in related.item_related(subject, limit=6)]

        assert got == expected(subject, limit=6)
        assert all(other.source.name for other in related.item_related(subject, limit=6))


def test_an_item_whose_tags_no_other_carries_has_no_related_items(clock):
    subject = make_item(title="Alone", tags=["only-here"])
    make_item(title="Other", tags=["elsewhere"])

    assert related.item_related(Item.objects.get(pk=subject.pk)) == []

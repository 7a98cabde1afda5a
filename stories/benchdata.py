"""Stories over the benchmark's synthetic items (`manage.py bench_seed_stories`).

A desk's stream is not a list of unrelated items: the same news arrives from
several sources and the site shows it once, with the others as its coverage
(stories/site.py). Without stories the benchmark would time the stream's
"each story once" condition and the cards' coverage against empty tables.
So one item in `STORY_EVERY` leads a story with the one to three items
published just after it, which `feed.benchdata` gives to other sources:
about three items in ten are in a story, rank 0 first.

Here rather than in `feed.benchdata` because `feed` never imports the apps
above it; bench/site.py runs this after `bench_seed`.
"""

import random
from collections.abc import Callable, Iterator

from django.db import transaction

from feed.models import Item
from stories.models import Story, StoryItem

STORY_EVERY = 10
MORE_MEMBERS = (1, 3)
BATCH = 5000


def _groups(ids: list[int], rng: random.Random) -> Iterator[list[int]]:
    """The members of each story, lead first: the first ids of every run of STORY_EVERY."""
    for start in range(0, len(ids), STORY_EVERY):
        yield ids[start : start + 1 + rng.randint(*MORE_MEMBERS)]


def bench_stories(
    *,
    seed: int = 42,
    progress: Callable[[Iterator, int, str], Iterator] = lambda it, total, desc: it,
) -> tuple[int, int]:
    """Put the seeded items into stories; (stories, members) made."""
    if StoryItem.objects.exists():
        raise ValueError("the database already holds stories")
    rng = random.Random(seed)  # noqa: S311 - test data, not secrets
    source_of = dict(Item.objects.order_by("id").values_list("id", "source_id"))
    groups = [group for group in _groups(list(source_of), rng) if len(group) > 1]
    with transaction.atomic():
        batches = range(0, len(groups), BATCH)
        for start in progress(iter(batches), len(batches), "stories"):
            batch = groups[start : start + BATCH]
            stories = Story.objects.bulk_create(
                Story(
                    lead_id=group[0],
                    source_count=len({source_of[pk] for pk in group}),
                )
                for group in batch
            )
            StoryItem.objects.bulk_create(
                StoryItem(
                    item_id=pk,
                    story_id=story.pk,
                    rank=rank,
                    matched_by=StoryItem.Reason.TEXT,
                    score=0.9,
                )
                for story, group in zip(stories, batch, strict=True)
                for rank, pk in enumerate(group)
            )
    return len(groups), sum(len(group) for group in groups)

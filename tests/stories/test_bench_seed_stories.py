"""`manage.py bench_seed_stories` puts the benchmark's items into stories the site collapses."""

import re
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from stories.models import Story, StoryItem

pytestmark = pytest.mark.django_db


def _run(command: str, **options) -> str:
    out = StringIO()
    call_command(command, stdout=out, **options)
    return out.getvalue()


def test_three_in_ten_seeded_items_are_in_stories_of_two_to_four(client):
    _run("bench_seed", items=400, days=1, sources=12)

    output = _run("bench_seed_stories")

    stories = list(Story.objects.all())
    members = StoryItem.objects.count()
    assert len(stories) == 40  # one item in ten leads one
    assert 80 <= members <= 160
    assert output.startswith(f"40 stories ({members} items in them) on ")
    for story in stories:
        links = list(story.members.order_by("rank"))
        assert 2 <= len(links) <= 4
        assert [link.rank for link in links] == list(range(len(links)))
        assert story.lead_id == links[0].item_id
        assert story.source_count == len({link.item.source_id for link in links})
    # The stream shows each story once: no two cards of one story.
    page = client.get("/").content.decode()
    cards = [int(pk) for pk in re.findall(r'<article class="item[^"]*" id="item-(\d+)"', page)]
    by_story = dict(StoryItem.objects.filter(item_id__in=cards).values_list("item_id", "story_id"))
    assert len(by_story) == len(set(by_story.values())) > 0


def test_bench_seed_stories_refuses_to_run_twice():
    _run("bench_seed", items=50, days=1, sources=3)
    _run("bench_seed_stories")
    before = StoryItem.objects.count()

    with pytest.raises(CommandError, match="already holds stories"):
        _run("bench_seed_stories")

    assert StoryItem.objects.count() == before

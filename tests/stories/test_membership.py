"""Items into stories through the persisted index: on arrival, from any source."""

import datetime

import pytest
from django.core.management import call_command

from feed.models import Item
from stories.membership import item_match
from stories.models import StoryItem, StorySignal
from tests.factories import make_item, make_source

pytestmark = pytest.mark.django_db


def _story(item: Item) -> int | None:
    return StoryItem.objects.filter(item=item).values_list("story_id", flat=True).first()


def test_the_same_address_from_two_sources_is_one_story_led_by_the_heavier_source():
    light, heavy = make_source(weight=30), make_source(weight=90)
    first = make_item(source=light, url="https://www.wire.example/gpt-5/", title="GPT-5 is out")
    second = make_item(source=heavy, url="http://wire.example/gpt-5", title="OpenAI GPT-5")
    item_match(item=first)

    link = item_match(item=second)

    assert link is not None and _story(first) == _story(second)
    assert link.story.lead_id == second.pk
    assert link.story.source_count == 2


def test_an_arxiv_paper_and_its_pdf_from_another_feed_are_one_story():
    abs_item = make_item(url="https://arxiv.org/abs/2507.10541v1", title="REST: stress testing")
    pdf_item = make_item(url="https://arxiv.org/pdf/2507.10541v2", title="REST (v2)")
    item_match(item=abs_item)
    item_match(item=pdf_item)

    assert _story(abs_item) == _story(pdf_item) is not None


def test_translated_coverage_joins_the_story_when_the_matcher_says_so():
    english = make_item(title="Introducing Claude Opus 4.5", summary="Best at coding.")
    chinese = make_item(title="Anthropic 发布 Claude Opus 4.5，编程能力登顶")
    item_match(item=english)
    item_match(item=chinese)

    assert _story(english) == _story(chinese) is not None


def test_two_different_papers_on_one_topic_stay_two_stories():
    one = make_item(
        url="https://arxiv.org/abs/1306.4664v1",
        title="Efficient Two-Stage Group Testing Algorithms for Genetic Screening",
    )
    two = make_item(
        url="https://arxiv.org/abs/1106.3680v1",
        title="Efficient Two-Stage Group Testing Algorithms for DNA Screening",
    )
    item_match(item=one)

    assert item_match(item=two) is None
    assert _story(one) is None and _story(two) is None


def test_matching_reads_candidates_from_the_index_not_every_item(django_assert_max_num_queries):
    now = datetime.datetime(2026, 6, 20, tzinfo=datetime.UTC)
    source = make_source()
    others = Item.objects.bulk_create(
        Item(
            source=source,
            title=f"Unrelated note number {n} about gardening",
            url=f"https://garden.example/{n}",
            kind="blog",
            status="draft",
            original_published_at=now,
        )
        for n in range(300)
    )
    for other in others[:50]:
        item_match(item=other)
    new = make_item(title="Introducing Claude Opus 4.5", original_published_at=now)

    # Its old keys, its new keys, the candidates, their text: the same few whatever the archive.
    with django_assert_max_num_queries(6):
        item_match(item=new)
    assert StorySignal.objects.filter(item=new).count() >= 24


def test_stories_index_command_indexes_items_that_arrived_before_the_app():
    one = make_item(url="https://wire.example/a", title="Introducing Claude Opus 4.5")
    two = make_item(url="https://other.example/b", title="Anthropic 发布 Claude Opus 4.5")

    call_command("stories_index")

    assert _story(one) == _story(two) is not None
    assert not Item.objects.filter(story_signals__isnull=True).exists()


def test_an_item_saved_by_hand_is_matched_once_its_transaction_commits(
    django_capture_on_commit_callbacks,
):
    first = make_item(url="https://wire.example/a", title="Introducing Claude Opus 4.5")
    item_match(item=first)
    with django_capture_on_commit_callbacks(execute=True):
        second = make_item(url="https://other.example/b", title="Anthropic 发布 Claude Opus 4.5")

    assert _story(first) == _story(second) is not None


def test_a_fetchs_items_are_matched_together_with_each_signature_computed_once(monkeypatch):
    import stories.index
    from stories.membership import items_match

    computed = []
    real = stories.index.signature_of

    def counting(**kwargs):
        computed.append(kwargs["title"])
        return real(**kwargs)

    monkeypatch.setattr(stories.index, "signature_of", counting)
    source = make_source()
    items = [
        make_item(
            source=make_source() if n % 2 else source,
            title="OpenAI releases GPT-5 to every ChatGPT user" + " today" * (n % 2),
            url=f"https://wire{n}.example/gpt-5",
        )
        for n in range(12)
    ]

    joined = items_match(item_ids=[item.pk for item in items])

    # Every item was everyone's candidate, and still each was read once.
    assert len(computed) == len(items)
    assert joined >= 11
    assert len({_story(item) for item in items}) == 1


def test_a_fetch_queues_its_matching_for_a_worker_instead_of_doing_it_in_the_fetch(settings):
    from django_tasks_db.models import DBTaskResult

    from feed.signals import items_arrived

    settings.TASKS = {
        "default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default"]}
    }
    one = make_item(title="Anthropic ships Claude 5", url="https://a.example/claude-5")
    two = make_item(title="Anthropic ships Claude 5 today", url="https://b.example/claude-5")
    StorySignal.objects.all().delete()
    StoryItem.objects.all().delete()

    # What ingestion sends once its transaction has committed.
    items_arrived.send(sender=Item, item_ids=[one.pk, two.pk])

    queued = DBTaskResult.objects.filter(task_path="stories.tasks.match_items")
    assert _story(one) is None
    assert [row.args_kwargs["args"][0] for row in queued] == [[one.pk, two.pk]]

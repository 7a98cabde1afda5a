"""Search finds exactly what a plain case-insensitive substring scan finds, through an index."""

import datetime
import importlib
import types

import pytest
from django.db import connection
from rest_framework.test import APIClient

from feed import freshness
from feed.freshness import generation_in_cache
from feed.models import Item
from feed.search import SEARCHED_FIELDS, search_words
from feed.search_schema import search_schema_repair
from tests.factories import make_item, make_source

pytestmark = pytest.mark.django_db

# Titles, summaries, "why" and authors with the characters readers type: short
# Chinese words, mixed-case English, punctuation and LIKE's own wildcards.
TEXTS = [
    ("分布式训练的新方法", "在千卡集群上训练大模型。", "值得一读。", "Lin Qiao"),
    ("OpenAI releases GPT-5", "The model beats GPT-4o on MMLU.", "Big news.", "Sam Altman"),
    ("模型量化：4-bit 推理", "量化让推理更快。", "", "Tim Dettmers"),
    ("Llama 4 的长上下文", "Meta 发布 Llama 4，支持 1M tokens。", "开源模型新高度", "Meta AI"),
    ("RLHF, explained", "Reward models and PPO; 100% of the basics.", "", "Nathan Lambert"),
    ("强化学习与推理", "DeepSeek-R1 用 RL 训练推理能力", "国产之光", "DeepSeek"),
    ("snake_case and under_scores", "a_b is not a-b; 50% off", "", "Ada Moreau"),
    ("C++ 与 CUDA 内核", "写一个 GEMM kernel。", '"Quoted" advice', "O'Brien"),
    ("Agents 智能体", "多智能体协作框架", "", ""),
    ("视觉语言模型 VLM", "图像理解与生成", "看这里", "Qwen 团队"),
    ("A tiny model", "小模型也能打", "", "Ai2"),
    ("新闻", "旧闻", "", ""),
]
QUERIES = [
    "模",
    "训练",
    "推理",
    "大模型",
    "分布式训练",
    "智能体 框架",
    "gpt",
    "GPT-4O",
    "Llama",
    "lLaMa 上下文",
    "RL",
    "a",
    "ai",
    "AI 模型",
    "%",
    "_",
    "50%",
    "a_b",
    "100%",
    "%_%",
    "\\",
    "c++",
    "'",
    '"quoted"',
    "o'brien",
    "：",
    "，",
    "1m tokens",
    "新闻",
    "闻",
    "no such words",
    "训练 gpt",
    "axb",
    "ab",
]


def _scan(items: list[Item], text: str) -> set[int]:
    """The reference: every word a substring of some field, ignoring case."""
    words = search_words(text)
    return {
        item.pk
        for item in items
        if all(
            any(word in getattr(item, name).lower() for name in SEARCHED_FIELDS) for word in words
        )
    }


@pytest.fixture
def corpus(clock):
    """Each text as a visible item, and again as a draft, a rejected and a scheduled one."""
    source = make_source(slug="corpus")
    visible, hidden = [], []
    for n, (title, summary, why, authors) in enumerate(TEXTS):
        fields = dict(
            source=source, title=title, summary=summary, recommendation=why, authors=authors
        )
        visible.append(
            make_item(
                url=f"https://corpus.example/{n}",
                status="featured" if n % 4 == 0 else "published",
                published_at=clock.now - datetime.timedelta(hours=n + 1),
                **fields,
            )
        )
        hidden.append(make_item(url=f"https://corpus.example/{n}/draft", status="draft", **fields))
        hidden.append(
            make_item(url=f"https://corpus.example/{n}/rejected", status="rejected", **fields)
        )
        hidden.append(
            make_item(
                url=f"https://corpus.example/{n}/later",
                status="published",
                published_at=clock.now + datetime.timedelta(days=1),
                **fields,
            )
        )
    return visible, hidden


@pytest.mark.parametrize("text", QUERIES)
def test_search_finds_exactly_what_a_substring_scan_finds(corpus, text):
    visible, _ = corpus

    found = set(Item.objects.visible().search(text).values_list("pk", flat=True))

    assert found == _scan(visible, text)


def test_the_parity_corpus_exercises_both_index_paths_and_empty_answers(corpus):
    visible, _ = corpus
    answers = {text: _scan(visible, text) for text in QUERIES}

    assert len(answers["模"]) >= 4  # a one-character word, several answers
    assert len(answers["分布式训练"]) == 1  # a word for the trigram index
    assert answers["no such words"] == set()
    assert answers["a_b"] and not answers["axb"]  # `_` is a character, not a wildcard


@pytest.mark.parametrize("text", ["训练", "模", "gpt", "%"])
def test_unpublished_items_are_never_found(corpus, text):
    _, hidden = corpus

    found = set(Item.objects.visible().search(text).values_list("pk", flat=True))

    assert found.isdisjoint(item.pk for item in hidden)


def test_api_q_answers_the_same_items_newest_first(corpus):
    visible, _ = corpus
    expected = sorted(
        (item for item in visible if item.pk in _scan(visible, "推理")),
        key=lambda item: item.published_at,
        reverse=True,
    )

    response = APIClient().get("/api/v1/items/", {"q": "推理"})

    assert [row["title"] for row in response.json()["results"]] == [item.title for item in expected]


def test_stream_q_shows_the_matching_titles_only(client, corpus):
    response = client.get("/", {"q": "智能体"})

    html = response.content.decode()
    assert "Agents 智能体" in html
    assert "分布式训练的新方法" not in html


def test_an_edited_item_is_found_by_its_new_words_only(corpus):
    item = corpus[0][1]
    Item.objects.filter(pk=item.pk).update(title="Claude 发布", summary="", recommendation="")

    assert list(Item.objects.visible().search("claude").values_list("pk", flat=True)) == [item.pk]
    assert item.pk not in set(Item.objects.visible().search("gpt-5").values_list("pk", flat=True))


def test_a_deleted_item_is_no_longer_found(corpus):
    item = corpus[0][0]
    item.delete()

    assert not Item.objects.visible().search("分布式训练").exists()


@pytest.mark.parametrize("text", ["模", "训练", "大模型", "训练 推理"])
def test_api_search_runs_the_same_queries_as_the_plain_list(
    corpus, text, django_assert_num_queries
):
    freshness.generation_current()  # the corpus's bump lands first, as after a commit
    # The generation (a primary-key query without a shared cache), the items, their tags.
    with django_assert_num_queries((0 if generation_in_cache() else 1) + 2):
        response = APIClient().get("/api/v1/items/", {"q": text})

    assert response.status_code == 200


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's indexes")
def test_postgresql_serves_rare_words_from_its_search_indexes(corpus, clock):
    filler = make_item(title="Filler", url="https://filler.example/0", summary="Plain text.")
    with connection.cursor() as cursor:
        # Enough rows that the planner prefers an index, copied in one statement.
        cursor.execute(
            """INSERT INTO feed_item (source_id, title, url, guid, authors, summary,
                recommendation, body, kind, category, status, heat, published_at, clicks,
                cluster_key, edited_fields, created_at, updated_at, version)
            SELECT source_id, title || n, url || n, '', authors, summary, recommendation, body,
                kind, category, status, heat, published_at - n * interval '1 minute', clicks,
                cluster_key, edited_fields, created_at, updated_at, version
            FROM feed_item, generate_series(1, 20000) AS n WHERE id = %s""",
            [filler.pk],
        )
        cursor.execute("ANALYZE feed_item")
        # The copied rows wait in the GIN indexes' pending lists until a VACUUM
        # (autovacuum, in a deployment) merges them, and the planner prices
        # reading a long pending list above a scan of the table: merge them now.
        cursor.execute(
            "SELECT gin_clean_pending_list('item_search_trgm_idx'),"
            " gin_clean_pending_list('item_search_grams_idx')"
        )

    for text, index in [("分布式训练", "item_search_trgm_idx"), ("训练", "item_search_grams_idx")]:
        plan = Item.objects.visible().search(text).newest_first()[:50].explain()

        assert index in plan, plan
        assert "Seq Scan" not in plan, plan


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's FTS5 table")
def test_sqlite_index_is_rebuilt_when_a_migration_dropped_its_triggers(corpus):
    with connection.cursor() as cursor:
        cursor.execute("DROP TRIGGER feed_item_search_public_insert")
    make_item(title="写在触发器丢失时", url="https://corpus.example/lost", status="published")

    assert search_schema_repair(connection=connection) is True
    assert Item.objects.visible().search("触发器").count() == 1


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's FTS5 table")
def test_sqlite_index_holds_public_items_only_and_follows_every_move(corpus, clock):
    """A draft edited before it is published is found by its published words only."""
    source = corpus[0][0].source
    draft = make_item(
        source=source,
        url="https://corpus.example/moves",
        status="draft",
        title="草稿标题 draftword",
    )
    assert fts_rows("draftword") == set()

    Item.objects.filter(pk=draft.pk).update(title="发布标题 liveword")
    Item.objects.filter(pk=draft.pk).update(status="published", published_at=clock.now)
    assert fts_rows("liveword") == {draft.pk}
    assert fts_rows("draftword") == set()
    assert list(Item.objects.visible().search("liveword").values_list("pk", flat=True)) == [
        draft.pk
    ]

    Item.objects.filter(pk=draft.pk).update(title="改过的标题 editedword")
    assert (fts_rows("liveword"), fts_rows("editedword")) == (set(), {draft.pk})

    Item.objects.filter(pk=draft.pk).update(status="rejected")
    assert fts_rows("editedword") == set()
    Item.objects.filter(pk=draft.pk).update(status="featured")
    assert fts_rows("editedword") == {draft.pk}

    Item.objects.filter(pk=draft.pk).delete()
    assert fts_rows("editedword") == set()
    with connection.cursor() as cursor:
        cursor.execute("INSERT INTO feed_item_search(feed_item_search) VALUES ('integrity-check')")


def fts_rows(word: str) -> set[int]:
    """SQLite: the rows the FTS5 index itself answers for `word` (not filtered by feed_item)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT rowid FROM feed_item_search WHERE feed_item_search MATCH %s", [f'"{word}"']
        )
        return {rowid for (rowid,) in cursor.fetchall()}


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's FTS5 table")
def test_sqlite_index_of_an_older_database_is_refilled_with_public_items_only(corpus):
    visible, hidden = corpus
    migration = importlib.import_module("feed.migrations.0010_search_index_public_items")
    # Back to the triggers of before, which indexed every row, drafts too.
    migration.every_row(None, types.SimpleNamespace(connection=connection))
    assert fts_rows("分布式训练") == {visible[0].pk, *(item.pk for item in hidden[:3])}

    assert search_schema_repair(connection=connection) is True

    assert fts_rows("分布式训练") == {visible[0].pk, hidden[2].pk}  # the scheduled one is public
    assert Item.objects.visible().search("分布式训练").count() == 1

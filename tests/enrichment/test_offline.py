"""The offline backend on real feed text: a Chinese feed and an arXiv response."""

from pathlib import Path

import pytest
from django.utils import timezone

from enrichment.backends import OfflineBackend
from enrichment.models import Enrichment, Run
from enrichment.services import item_enrich
from enrichment.text import extractive_summary, plain_text, text_language
from feed.ingest.normalise import entries_normalise
from feed.ingest.parse import parse_feed
from feed.ingest.upsert import items_upsert
from feed.models import Item, KeywordRule
from tests.factories import make_item, make_source

pytestmark = pytest.mark.django_db

DATA = Path(__file__).resolve().parents[1] / "data" / "feeds"
ZH_FEED = "aitop-zh-sample.xml"
ARXIV = "arxiv.py__id_1605.08386_s0_m100_199195aa31ad.body.xml"
ARXIV_FIRST_THREE = (
    "Graphs on lattice points are studied whose edges come from a finite set of allowed moves "
    "of arbitrary length. We show that the diameter of these graphs on fibers of a fixed "
    "integer matrix can be bounded from above by a constant. We then study the mixing "
    "behaviour of heat-bath random walks on these graphs."
)


def ingest_file(name: str, *, source=None, **source_fields) -> list[Item]:
    """The items of a fetch of this corpus file (by a new source unless given), oldest first."""
    source = source or make_source(**source_fields)
    parsed = parse_feed((DATA / name).read_bytes(), url="https://feed.example/feed")
    entries, _ = entries_normalise(
        parsed.entries, base_url="https://feed.example/feed", now=timezone.now(), limit=50
    )
    items_upsert(source=source, entries=entries, now=timezone.now())
    return list(Item.objects.filter(source=source).order_by("original_published_at", "id"))


def test_a_chinese_entry_gets_its_title_as_headline_and_a_flag_for_the_why(settings):
    settings.AITOP_CONTENT_LANGUAGE = "zh-hans"
    item, _ = ingest_file(ZH_FEED, default_category="model", default_tags=["开源"])
    feed_summary = item.summary

    result = item_enrich(item=item, backend=OfflineBackend())

    assert result.status == "done"
    item.refresh_from_db()
    enrichment = item.enrichment
    assert enrichment.headline == "示例实验室发布开源大模型“青松-7B”，支持十二万字上下文"
    assert item.title == "示例实验室发布开源大模型“青松-7B”，支持十二万字上下文"
    # Short enough already: the feed's own text, untouched.
    assert item.summary == feed_summary
    assert item.edited_fields == []  # so the feed may still correct its own text
    assert item.summary.startswith("示例实验室今天公开了青松-7B 的权重和训练代码")
    assert item.recommendation == ""
    assert enrichment.needs_editor == ["recommendation"]
    assert item.category == "model"
    assert [tag.name for tag in item.tags.all()] == ["开源"]
    run = Run.objects.get(item=item)
    assert (run.backend, run.tokens_in, run.tokens_out, str(run.cost)) == (
        "offline",
        0,
        0,
        "0.000000",
    )


def test_keyword_rules_and_source_defaults_tag_an_item_added_by_hand():
    KeywordRule.objects.create(pattern="RAG", tag="检索增强")
    source = make_source(default_tags=["知识库"], default_category="tip")
    text = (DATA / ZH_FEED).read_text(encoding="utf-8")
    summary = plain_text(text.split("<![CDATA[")[2].split("]]>")[0])
    item = make_item(
        source=source, title="用检索增强生成搭建内部知识库", summary=summary, status="draft"
    )

    item_enrich(item=item, backend=OfflineBackend())

    item.refresh_from_db()
    assert sorted(tag.name for tag in item.tags.all()) == ["检索增强", "知识库"]
    assert item.category == "tip"


def test_an_english_paper_is_summarised_by_its_leading_sentences_in_english(settings):
    settings.AITOP_CONTENT_LANGUAGE = "zh-hans"
    (item,) = ingest_file(ARXIV, kind="paper")

    item_enrich(item=item, backend=OfflineBackend())

    item.refresh_from_db()
    assert item.summary == ARXIV_FIRST_THREE
    assert item.title == "Heat-bath random walks with Markov bases"
    assert item.category == "paper"
    # No Chinese headline, summary or why can be written without a model.
    assert item.enrichment.headline == ""
    assert item.enrichment.needs_editor == ["headline", "recommendation", "summary"]
    assert item.field_drafts.get(field="summary").replaced.endswith(
        "is an expander in fixed dimension."
    )


def test_with_english_as_content_language_the_english_title_is_the_headline(settings):
    settings.AITOP_CONTENT_LANGUAGE = "en"
    (item,) = ingest_file(ARXIV)

    item_enrich(item=item, backend=OfflineBackend())

    enrichment = Enrichment.objects.get(item=item)
    assert enrichment.headline == "Heat-bath random walks with Markov bases"
    assert enrichment.needs_editor == ["category", "recommendation"]


def test_offline_enrichment_twice_runs_once():
    item, _ = ingest_file(ZH_FEED)

    results = [item_enrich(item=item, backend=OfflineBackend()).status for _ in range(2)]

    assert results == ["done", "skipped"]
    assert Run.objects.filter(item=item).count() == 1


def test_an_editors_why_survives_a_later_offline_run():
    item, _ = ingest_file(ZH_FEED)
    item_enrich(item=item, backend=OfflineBackend())
    Item.objects.filter(pk=item.pk).update(recommendation="编辑写的推荐理由。")

    item_enrich(item=item, backend=OfflineBackend(), regenerate=False)
    item_enrich(item=item, backend=OfflineBackend(), regenerate=True)

    item.refresh_from_db()
    # Even "regenerate" leaves it: the offline backend writes no "why" at all.
    assert item.recommendation == "编辑写的推荐理由。"


def test_chinese_text_is_cut_at_whole_sentences():
    text = "示例实验室今天公开了青松-7B 的权重和训练代码，采用宽松的开源许可证。该模型在长文档问答评测中表现稳定，上下文长度可达十二万字。"  # noqa: E501

    assert extractive_summary(text, limit=60) == (
        "示例实验室今天公开了青松-7B 的权重和训练代码，采用宽松的开源许可证。"
    )
    assert extractive_summary("一" * 80, limit=20) == "一" * 19 + "…"
    assert (
        extractive_summary("Mixture of experts " * 20, limit=30) == "Mixture of experts Mixture of…"
    )


def test_the_language_of_a_text():
    assert text_language("OpenAI 发布了新的 GPT 模型，支持更长的上下文") == "zh-hans"
    assert text_language("Heat-bath random walks with Markov bases") == "en"
    assert text_language("") == "en"


def test_plain_text_strips_tags_scripts_and_encoded_tags():
    assert plain_text("<p>一</p><p>二<script>x()</script></p> &amp; &lt;b&gt;三&lt;/b&gt;") == (
        "一 二 & 三"
    )

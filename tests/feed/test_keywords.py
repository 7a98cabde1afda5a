"""Keyword rules: a pattern gives a tag to new entries, and to existing items on request."""

import pytest

from feed.ingest.keywords import (
    KeywordTagger,
    keyword_regex,
    keyword_rule_apply,
    keyword_rule_preview,
)
from feed.models import KeywordRule
from tests.factories import make_item


@pytest.mark.parametrize(
    ("pattern", "text", "matches"),
    [
        ("RAG", "Better RAG pipelines", True),
        ("RAG", "Cheaper storage for everyone", False),
        ("rag", "RAG, explained", True),
        ("diffusion model", "A new Diffusion   Model arrives", True),
        ("diffusion model", "diffusion modelling", False),
        ("大模型", "国产大模型发布", True),
        ("GPT-5", "OpenAI ships GPT-5 today", True),
        ("GPT-5", "GPT-50 is not a thing", False),
        ("C++", "Why C++ still matters", True),
    ],
)
def test_patterns_match_whole_words_at_latin_edges_and_anywhere_in_chinese(pattern, text, matches):
    assert bool(keyword_regex(pattern).search(text)) is matches


def test_a_tagger_gives_every_matching_rules_tag_once():
    tagger = KeywordTagger([("LLM", "大模型"), ("language model", "大模型"), ("agent", "智能体")])

    assert tagger.tags_for("An LLM agent", "a large language model") == ["大模型", "智能体"]
    assert tagger.tags_for("Nothing here", "") == []


@pytest.mark.django_db
def test_a_preview_counts_the_items_a_rule_would_tag_with_a_sample():
    for n in range(12):
        make_item(title=f"Agents, part {n}", status="draft")
    make_item(title="Agents, already tagged", tags=["智能体"])
    make_item(title="Reagents in chemistry")

    preview = keyword_rule_preview(pattern="agents", tag="智能体")

    assert preview.count == 12
    assert len(preview.sample) == 10
    assert all(item.title.startswith("Agents, part") for item in preview.sample)
    assert KeywordRule.objects.count() == 0


@pytest.mark.django_db
def test_applying_a_rule_tags_the_existing_items_it_matches_once():
    tagged = make_item(title="Inside a mixture of experts")
    untouched = make_item(title="Experts say little")
    rule = KeywordRule.objects.create(pattern="mixture of experts", tag="MoE")

    assert keyword_rule_apply(rule=rule) == 1
    assert keyword_rule_apply(rule=rule) == 0
    assert list(tagged.tags.names()) == ["MoE"]
    assert list(untouched.tags.names()) == []


@pytest.mark.django_db
def test_a_rule_reuses_an_existing_tag_of_another_case():
    item = make_item(title="Small moe models", tags=["MoE"])
    other = make_item(title="Another moe paper")
    rule = KeywordRule.objects.create(pattern="moe", tag="moe")

    assert keyword_rule_apply(rule=rule) == 1
    assert list(other.tags.names()) == ["MoE"]
    assert list(item.tags.names()) == ["MoE"]

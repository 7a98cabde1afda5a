"""The matcher on pairs of texts: strong signals, hard negatives and the labelled sets."""

import datetime
from pathlib import Path

import pytest

from stories.evaluation import PairError, pairs_evaluate, pairs_read
from stories.matching.signature import signature_of
from stories.matching.verdict import candidates_meet, verdict

DATA = Path(__file__).resolve().parents[1] / "data" / "stories"
T = datetime.datetime(2026, 6, 20, 8, tzinfo=datetime.UTC)


def _same(a: dict, b: dict) -> bool:
    one = signature_of(at=T, **a)
    other = signature_of(at=T + datetime.timedelta(hours=3), **b)
    return candidates_meet(one, other) and verdict(other, one).same


def test_one_arxiv_paper_by_abs_and_pdf_and_any_version_is_one_story():
    assert _same(
        {"title": "Sparse delta sync for RL", "url": "https://arxiv.org/abs/2507.10541v1"},
        {"title": "论文：稀疏同步", "url": "https://arxiv.org/pdf/2507.10541v3"},
    )


def test_two_different_papers_on_one_topic_are_two_stories_however_alike_their_titles():
    assert not _same(
        {
            "title": "Efficient Two-Stage Group Testing Algorithms for Genetic Screening",
            "url": "https://arxiv.org/abs/1306.4664v1",
        },
        {
            "title": "Efficient Two-Stage Group Testing Algorithms for DNA Screening",
            "url": "https://arxiv.org/abs/1106.3680v1",
        },
    )


def test_the_same_address_written_differently_is_one_story():
    assert _same(
        {"title": "A", "url": "https://www.gadgetwire.example/openai-gpt-5/"},
        {"title": "B", "url": "http://gadgetwire.example/openai-gpt-5"},
    )


def test_chinese_coverage_of_an_english_launch_is_one_story():
    assert _same(
        {"title": "Introducing Claude Opus 4.5", "summary": "State of the art on coding."},
        {"title": "Anthropic 发布 Claude Opus 4.5，编程与智能体任务登顶", "summary": ""},
    )


def test_same_raise_by_two_companies_is_two_stories():
    assert not _same(
        {"title": "Foldwise raises $50M Series B for home robots"},
        {"title": "Tidybot raises $50M Series B for home robots"},
    )


def test_one_company_two_rounds_is_two_stories():
    assert not _same(
        {"title": "Voxa raises $20M to build voice agents"},
        {"title": "Voxa raises $80M to build voice agents"},
    )


def test_a_model_and_its_next_version_are_two_stories():
    assert not _same({"title": "Introducing GPT-5"}, {"title": "GPT-5.1: a warmer ChatGPT"})


def test_a_labs_release_a_month_later_is_another_story():
    one = signature_of(title="Lumen-3 发布：推理成本下降四成", at=T)
    later = signature_of(title="Lumen-3 发布：推理成本下降四成", at=T + datetime.timedelta(days=30))
    assert not verdict(later, one).same


@pytest.mark.parametrize(
    ("name", "precision", "recall"),
    [("pairs.jsonl", 0.979, 0.959), ("heldout.jsonl", 0.916, 0.846)],
)
def test_the_labelled_sets_keep_the_figures_docs_heat_md_reports(name, precision, recall):
    pairs = pairs_read(DATA / name)
    result = pairs_evaluate(pairs)

    assert len(pairs) >= (200 if name == "pairs.jsonl" else 80)
    assert result.precision >= precision, result.wrong
    assert result.recall >= recall, result.wrong


def test_a_pairs_file_with_a_broken_line_is_refused_naming_the_line(tmp_path):
    path = tmp_path / "pairs.jsonl"
    path.write_text('{"id": "x", "same": true, "a": {"title": "a"}, "b": {"title": "b"}}\n{oops\n')

    with pytest.raises(PairError, match="line 2"):
        pairs_read(path)

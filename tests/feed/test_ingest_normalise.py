"""Normalising: what a feed says, turned into what we store."""

import datetime
import json
import re
from urllib.parse import urljoin

import pytest

from feed.html import clean_html
from feed.ingest.normalise import (
    BODY_MAX,
    SUMMARY_MAX,
    TITLE_FROM_TEXT_MAX,
    Skip,
    body_cut,
    cluster_key_for,
    entries_normalise,
    entry_normalise,
    first_sentence,
    summary_cut,
    text_clean,
    text_of_clean_html,
    text_plain,
    text_start_of_clean_html,
    url_canonical,
)
from feed.ingest.parse import ParseError, RawEntry, parse_feed
from tests.loopback import FEEDS

NOW = datetime.datetime(2026, 12, 1, 8, 0, tzinfo=datetime.UTC)


@pytest.mark.parametrize(
    ("url", "canonical"),
    [
        ("HTTPS://News.Example.COM/A/Story", "https://news.example.com/A/Story"),
        (
            "https://news.example/a?utm_source=rss&utm_medium=feed&id=7",
            "https://news.example/a?id=7",
        ),
        (
            "https://news.example/a?fbclid=x&gclid=y&page=2#comments",
            "https://news.example/a?page=2",
        ),
        ("http://news.example:80/a", "http://news.example/a"),
        ("https://news.example:8443/a", "https://news.example:8443/a"),
        ("https://user:secret@news.example/a", "https://news.example/a"),
        ("https://news.example", "https://news.example/"),
        ("https://news.example/a b", "https://news.example/a%20b"),
        ("https://news.example/%E4%B8%AD", "https://news.example/%E4%B8%AD"),
        ("https://bücher.example/", "https://xn--bcher-kva.example/"),
        ("  https://news.example/a\x00  ", "https://news.example/a"),
    ],
)
def test_urls_are_made_canonical(url, canonical):
    assert url_canonical(url) == canonical


def test_relative_links_are_resolved_against_the_base():
    assert url_canonical("../b?x=1", base="https://news.example/feeds/a/") == (
        "https://news.example/feeds/b?x=1"
    )


def canonical_joined_as_before(url: str, base: str) -> str | None:
    """url_canonical as it was: every link through urljoin first."""
    url = text_clean(url).strip()
    if not url:
        return None
    try:
        return url_canonical(urljoin(base, url))
    except ValueError:
        return None


def corpus_entries() -> list[RawEntry]:
    entries = []
    for doc in json.loads((FEEDS / "manifest.json").read_text()):
        try:
            parsed = parse_feed((FEEDS / doc["file"]).read_bytes(), url="https://f.example/")
        except ParseError:
            continue
        entries.extend(parsed.entries)
    return entries


def corpus_links() -> list[str]:
    return [entry.link for entry in corpus_entries() if entry.link]


def _summary_and_title(text: str) -> tuple[str, str]:
    return summary_cut(text), first_sentence(text, TITLE_FROM_TEXT_MAX)


# Cuts that fall inside a word split by a tag, on an entity, after a full stop
# that the whole text continues ("3.14"), and inside a block that adds a space.
LONG_BODIES = [
    "<p>" + "word " * 130 + "spl<b>it</b> more</p>" * 20,
    "<p>" + "x" * 498 + "&amp;&lt;tail</p><p>next</p>" * 5,
    "<p>" + "a " * 249 + "3.<b>14</b> is pi. " * 40 + "</p>",
    "<ul>" + "<li>item</li>" * 400 + "</ul>",
    "<p>" + "长" * 600 + "。" + "<br>" * 10 + "</p>" * 3,
]


@pytest.mark.parametrize("body", LONG_BODIES)
def test_a_long_body_s_summary_is_read_from_its_start_as_from_the_whole(body):
    body = clean_html(body)
    whole = text_of_clean_html(body)

    start = text_start_of_clean_html(body, SUMMARY_MAX)

    assert whole.startswith(start)
    assert len(start) > SUMMARY_MAX
    assert _summary_and_title(start) == _summary_and_title(whole)


def test_every_corpus_entry_s_summary_is_the_same_read_from_the_start():
    bodies = [
        clean_html(text_clean(entry.content or entry.summary), base_url="https://f.example/")
        for entry in corpus_entries()
        if entry.content or entry.summary
    ]
    long_ones = 0
    for body in bodies:
        whole = text_of_clean_html(body)
        start = text_start_of_clean_html(body, SUMMARY_MAX)
        long_ones += start != whole

        assert whole.startswith(start)
        assert _summary_and_title(start) == _summary_and_title(whole)
    # The corpus has bodies long enough to be read only in part.
    assert long_ones > 20


ODD_LINKS = [
    "http:///no-host",
    "https:no-slashes",
    "HTTPS://Upper.example/a",
    "http://news.example/a;",
    "http://news.example/a;p=1?q=2#f",
    "https://news.example/./a/../b",
    "https://news.example?",
    "https://news.example/#",
    "https://news.example/a\tb",
    "https://[::1/",
    "https://exa\uff0fmple.com/",
    "//cdn.example/x",
    "/root",
    "../up",
    "?page=2",
    "#top",
    "https://news.example:443/a?utm_source=x&id=1",
]
BASES = ["https://news.example/feeds/a/", "http://news.example/feed", "https://[::1/", ""]


def test_links_resolve_against_the_base_as_urljoin_resolves_them():
    links = corpus_links() + ODD_LINKS
    assert len(links) > 800

    for base in BASES:
        for link in links:
            assert url_canonical(link, base=base) == canonical_joined_as_before(link, base), (
                link,
                base,
            )


@pytest.mark.parametrize(
    "url", ["javascript:alert(1)", "mailto:a@b.example", "ftp://x.example/", "", "https://"]
)
def test_urls_that_are_not_http_are_not_usable(url):
    assert url_canonical(url) is None


def test_titles_lose_markup_entities_and_extra_whitespace():
    assert text_plain("  <b>GPT&#8209;5</b> &amp; friends:\n\t a &lt;review&gt;  ") == (
        "GPT‑5 & friends: a <review>"
    )


def test_nul_and_control_characters_never_reach_the_database():
    raw = RawEntry(
        link="https://news.example/a",
        title="Bad\x00 title\x1b\x7f here\ud800",
        summary="Sum\x00mary\x08.",
        content="<p>Bo\x00dy</p>",
        authors=["Ann\x00"],
        guid="g\x00uid",
    )

    entry = entry_normalise(raw, base_url="", now=NOW)

    assert entry.title == "Bad title here"
    assert entry.summary == "Summary."
    assert entry.body == "<p>Body</p>"
    assert (entry.authors, entry.guid) == ("Ann", "guid")


def test_every_field_is_cut_to_its_column():
    raw = RawEntry(
        link="https://news.example/a",
        title="word " * 300,
        authors=[f"Author {n}" for n in range(300)],
        guid="g" * 900,
        summary="text " * 1000,
    )

    entry = entry_normalise(raw, base_url="", now=NOW)

    assert len(entry.title) <= 500
    assert entry.title.endswith("…")
    assert len(entry.authors) <= 1000
    assert len(entry.guid) <= 500
    assert entry.guid.startswith("sha256:")
    assert len(entry.summary) <= 500


def test_an_over_long_url_is_skipped_not_cut():
    raw = RawEntry(link="https://news.example/" + "a" * 3000, title="Long")

    assert entry_normalise(raw, base_url="", now=NOW) == Skip(
        "link longer than 2000 characters", "Long"
    )


def test_a_summary_is_cut_at_a_sentence_boundary():
    text = "First sentence here. Second one is longer than the first. " + "Third " * 100

    assert summary_cut(text, 80) == "First sentence here. Second one is longer than the first."


def test_a_chinese_summary_is_cut_at_a_chinese_full_stop():
    text = "第一句话说明了模型。第二句话更长一些，讲述了训练的细节。" + "第三句" * 100

    assert summary_cut(text, 40) == "第一句话说明了模型。第二句话更长一些，讲述了训练的细节。"


def test_a_summary_without_sentences_is_cut_at_a_word():
    assert summary_cut("word " * 200, 50) == ("word " * 9).strip() + "…"


@pytest.mark.parametrize(
    ("published", "expected", "from_feed"),
    [
        (
            datetime.datetime(
                2026, 11, 30, 9, 50, tzinfo=datetime.timezone(datetime.timedelta(hours=8))
            ),
            datetime.datetime(2026, 11, 30, 1, 50, tzinfo=datetime.UTC),
            True,
        ),
        (None, NOW, False),
        (datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC), NOW, False),
        (datetime.datetime(2031, 1, 1, tzinfo=datetime.UTC), NOW, False),
    ],
    ids=["aware", "missing", "too-old", "future"],
)
def test_publication_times_are_utc_and_absurd_ones_fall_back_to_the_fetch_time(
    published, expected, from_feed
):
    raw = RawEntry(link="https://news.example/a", title="T", published=published)

    entry = entry_normalise(raw, base_url="", now=NOW)

    assert (entry.published_at, entry.published_from_feed) == (expected, from_feed)
    assert entry.published_at.tzinfo == datetime.UTC


def test_entries_without_a_usable_link_get_an_identity_from_what_they_have():
    entries, skips = entries_normalise(
        [
            RawEntry(title="No link"),
            RawEntry(link="mailto:x@y.example", title="Mail"),
            RawEntry(link="https://news.example/empty"),
            RawEntry(link="https://news.example/ok", title="Fine"),
        ],
        base_url="https://feed.example/rss",
        now=NOW,
        limit=10,
    )

    assert [e.title for e in entries] == ["No link", "Mail", "news.example/empty", "Fine"]
    assert [e.url.split("#")[0] for e in entries] == [
        "https://feed.example/rss",
        "https://feed.example/rss",
        "https://news.example/empty",
        "https://news.example/ok",
    ]
    assert skips == []


def test_without_a_feed_url_an_entry_without_a_link_is_skipped():
    entries, skips = entries_normalise([RawEntry(title="No link")], base_url="", now=NOW, limit=1)

    assert entries == []
    assert [s.reason for s in skips] == ["no link"]


def test_at_most_the_limit_of_entries_is_taken_from_one_fetch():
    raws = [RawEntry(link=f"https://news.example/{n}", title=f"Story {n}") for n in range(5)]

    entries, skips = entries_normalise(raws, base_url="", now=NOW, limit=3)

    assert [e.title for e in entries] == ["Story 0", "Story 1", "Story 2"]
    assert [s.reason for s in skips] == ["over the limit of 3 entries per fetch"] * 2


def test_the_same_entry_twice_in_one_feed_is_taken_once():
    raws = [
        RawEntry(link="https://news.example/a?utm_source=x", title="A"),
        RawEntry(link="https://news.example/a", title="A again"),
    ]

    entries, skips = entries_normalise(raws, base_url="", now=NOW, limit=10)

    assert [e.title for e in entries] == ["A"]
    assert skips[0].reason == "the same entry appears twice in this feed"


def test_the_same_story_from_two_sites_shares_a_cluster_key():
    assert cluster_key_for(title="OpenAI releases GPT-5 today") == cluster_key_for(
        title="OpenAI Releases GPT-5, Today!"
    )
    assert cluster_key_for(title="OpenAI releases GPT-5 today") != cluster_key_for(
        title="Anthropic releases Claude today"
    )
    assert cluster_key_for(title="国产大模型正式发布") == cluster_key_for(
        title="国产大模型，正式发布"
    )
    assert cluster_key_for(title="v0.2.0") == ""
    assert cluster_key_for(title="x", arxiv_id="2611.01234") == cluster_key_for(
        title="y", arxiv_id="2611.01234"
    )
    assert len(cluster_key_for(title="OpenAI releases GPT-5 today")) <= 64


def test_a_long_body_is_cut_before_a_tag_with_its_elements_closed():
    paragraph = '<p>Ring all-reduce <a href="https://r.example/a">halves</a> the traffic.</p>'
    raw = RawEntry(
        title="Long", link="https://news.example/long", content="<blockquote>" + paragraph * 2000
    )

    body = entry_normalise(raw, base_url="https://news.example/", now=NOW).body

    assert BODY_MAX - len(paragraph) < len(body) <= BODY_MAX + len("…</a></p></blockquote>")
    assert body.startswith("<blockquote><p>Ring all-reduce")
    # Marked as cut, inside the element the cut fell in, before the closing tags.
    assert re.search(r"…(</(a|p|blockquote)>)+$", body) and body.endswith("</blockquote>")
    # Every element that was opened is closed, every link whole.
    assert body.count("<p>") == body.count("</p>")
    assert body.count("<a ") == body.count("</a>") == body.count("<p>")


def test_a_long_text_without_markup_is_not_cut_inside_an_entity():
    text = "a" * (BODY_MAX - 3) + "&amp;" + "b" * 100

    assert body_cut(text) == "a" * (BODY_MAX - 3) + "…"
    assert body_cut("x" * 30_000) == "x" * BODY_MAX + "…"

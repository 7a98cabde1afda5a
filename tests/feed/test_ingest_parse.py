"""Parsing: every format we promise, publishers' quirks, and hostile documents."""

import datetime
import json
import sys
import tracemalloc

import pytest

from feed.html import clean_html
from feed.ingest.normalise import entries_normalise
from feed.ingest.parse import ParseError, parse_feed
from tests.feed.hostile import BILLION_LAUGHS, EXTERNAL_ENTITY, PARAMETER_ENTITY, quadratic_blowup
from tests.loopback import FEEDS

NOW = datetime.datetime(2026, 12, 1, 8, 0, tzinfo=datetime.UTC)


def entries_of(body: bytes, *, url="https://feeds.example/feed", content_type=""):
    parsed = parse_feed(body, content_type=content_type, url=url)
    entries, skips = entries_normalise(parsed.entries, base_url=url, now=NOW, limit=200)
    return parsed, entries, skips


ARXIV_RSS = b"""<?xml version="1.0" encoding="UTF-8"?>
<rss xmlns:arxiv="http://arxiv.org/schemas/atom" xmlns:dc="http://purl.org/dc/elements/1.1/"
     version="2.0">
<channel><title>cs.LG updates on arXiv.org</title><link>http://rss.arxiv.org/rss/cs.LG</link>
<item>
  <title>Sparse Routing for Mixture Models</title>
  <link>https://arxiv.org/abs/2611.01234</link>
  <description>arXiv:2611.01234v2 Announce Type: replace
Abstract: We study how routing tokens to few experts changes training. Results hold.</description>
  <guid isPermaLink="false">oai:arXiv.org:2611.01234v2</guid>
  <category>cs.LG</category>
  <category>stat.ML</category>
  <pubDate>Mon, 30 Nov 2026 00:00:00 -0500</pubDate>
  <arxiv:announce_type>replace</arxiv:announce_type>
  <dc:creator>Ada Lovelace, Alan Turing, Grace Hopper</dc:creator>
</item>
</channel></rss>"""


def test_an_arxiv_rss_listing_gives_id_abstract_page_authors_and_categories():
    _, (entry,), _ = entries_of(ARXIV_RSS)

    assert entry.guid == "2611.01234"
    assert entry.url == "https://arxiv.org/abs/2611.01234"
    assert entry.title == "Sparse Routing for Mixture Models"
    assert entry.authors == "Ada Lovelace, Alan Turing, Grace Hopper"
    assert entry.tags == ["cs.LG", "stat.ML"]
    assert entry.summary.startswith("We study how routing tokens")
    assert entry.published_at == datetime.datetime(2026, 11, 30, 5, 0, tzinfo=datetime.UTC)


def test_the_arxiv_api_gives_id_abstract_page_authors_and_categories():
    body = (FEEDS / "arxiv.py__id_1605.08386_s0_m100_199195aa31ad.body.xml").read_bytes()

    _, (entry,), _ = entries_of(body)

    assert entry.guid == "1605.08386"
    assert entry.url == "https://arxiv.org/abs/1605.08386"
    assert entry.title == "Heat-bath random walks with Markov bases"
    assert entry.authors == "Caprice Stanley, Tobias Windisch"
    assert entry.tags[:2] == ["math.CO", "math.ST"]


def test_an_old_style_arxiv_id_is_kept_whole():
    body = (FEEDS / "arxiv.py__id_astro-ph_0601001_s0_m100_3150dca9dc76.body.xml").read_bytes()

    _, (entry,), _ = entries_of(body)

    assert entry.guid == "astro-ph/0601001"
    assert entry.url == "https://arxiv.org/abs/astro-ph/0601001"


def test_an_arxiv_api_error_is_skipped_with_the_error_as_reason():
    body = (FEEDS / "arxiv.py__id_abc_s0_m100_b79c8dcf6bc3.body.xml").read_bytes()

    _, entries, (skip,) = entries_of(body)

    assert entries == []
    assert skip.reason == "arXiv API error: incorrect id format for abc"


GITHUB_COMMITS = b"""<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="en-US">
  <id>tag:github.com,2008:/acme/llm-kit/commits/main</id>
  <link type="text/html" rel="alternate" href="https://github.com/acme/llm-kit/commits/main"/>
  <title>Recent Commits to llm-kit:main</title>
  <updated>2026-11-30T12:00:00Z</updated>
  <entry>
    <id>tag:github.com,2008:Grit::Commit/0123456789abcdef0123456789abcdef01234567</id>
    <link type="text/html" rel="alternate"
          href="https://github.com/acme/llm-kit/commit/0123456789abcdef0123456789abcdef01234567"/>
    <title>
        Speed up the tokenizer

        by caching merges
    </title>
    <updated>2026-11-30T12:00:00Z</updated>
    <author><name>octo-dev</name><uri>https://github.com/octo-dev</uri></author>
    <content type="html">&lt;pre style='white-space:pre-wrap'&gt;Speed up the tokenizer
by caching merges&lt;/pre&gt;</content>
  </entry>
</feed>"""


def test_a_github_commits_feed_gives_one_item_per_commit():
    parsed, (entry,), _ = entries_of(GITHUB_COMMITS)

    assert parsed.format == "atom10"
    assert entry.guid.startswith("tag:github.com,2008:Grit::Commit/")
    assert entry.url.endswith("/commit/0123456789abcdef0123456789abcdef01234567")
    assert entry.title == "Speed up the tokenizer by caching merges"
    assert entry.authors == "octo-dev"
    assert entry.body.startswith("<pre>Speed up the tokenizer")


def test_github_releases_keep_their_tag_uri_as_guid():
    body = (FEEDS / "feed-rs__atom__atom_example_6.xml").read_bytes()

    _, entries, _ = entries_of(body)

    assert entries[0].guid == "tag:github.com,2008:Repository/90976281/v0.2.0"
    assert entries[0].url == "https://github.com/feed-rs/feed-rs/releases/tag/v0.2.0"


def test_json_feed_1_1_with_authors_and_tags():
    body = json.dumps(
        {
            "version": "https://jsonfeed.org/version/1.1",
            "title": "A JSON feed",
            "items": [
                {
                    "id": "42",
                    "url": "https://blog.example/posts/42?utm_source=feed",
                    "title": "Forty-two",
                    "content_html": "<p>Hello <script>alert(1)</script>world</p>",
                    "date_published": "2026-11-30T09:50:00+08:00",
                    "authors": [{"name": "Ann"}, {"name": "Bo"}],
                }
            ],
        }
    ).encode()

    parsed, (entry,), _ = entries_of(body, content_type="application/feed+json")

    assert parsed.format == "json11"
    assert (entry.guid, entry.url, entry.title) == (
        "42",
        "https://blog.example/posts/42",
        "Forty-two",
    )
    assert entry.authors == "Ann, Bo"
    assert entry.body == "<p>Hello world</p>"
    assert entry.published_at == datetime.datetime(2026, 11, 30, 1, 50, tzinfo=datetime.UTC)


def test_json_feed_1_0_author_and_text_only_items():
    body = json.dumps(
        {
            "version": "https://jsonfeed.org/version/1",
            "author": {"name": "Feed Author"},
            "items": [
                {
                    "id": "https://micro.example/1",
                    "content_text": "A short post without a title. Second sentence.",
                }
            ],
        }
    ).encode()

    _, (entry,), _ = entries_of(body)

    assert entry.url == "https://micro.example/1"
    assert entry.title == "A short post without a title."
    assert entry.authors == "Feed Author"
    assert entry.body == "<p>A short post without a title. Second sentence.</p>"


def test_a_json_document_that_is_not_a_feed_is_refused():
    with pytest.raises(ParseError, match="not a JSON Feed"):
        parse_feed(b'{"hello": "world"}')
    with pytest.raises(ParseError, match="not a JSON Feed"):
        parse_feed(b"[" * 100_000)


def test_an_html_page_is_not_a_feed():
    with pytest.raises(ParseError, match="not a feed"):
        parse_feed((FEEDS / "node-feedparser__notafeed.html").read_bytes())


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (BILLION_LAUGHS, "refers to other entities"),
        (quadratic_blowup(), "would expand to too much text"),
        (EXTERNAL_ENTITY, "external entity"),
        (PARAMETER_ENTITY, "parameter entity"),
        (BILLION_LAUGHS.decode().encode("utf-16"), "refers to other entities"),
    ],
    ids=["billion-laughs", "quadratic-blowup", "external-entity", "parameter-entity", "utf-16"],
)
def test_xml_bombs_are_refused_without_using_up_memory(body, reason):
    tracemalloc.start()
    try:
        with pytest.raises(ParseError, match=reason):
            parse_feed(body)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()

    assert peak < 20 * len(body) + 1024 * 1024


def test_a_harmless_text_entity_in_the_doctype_is_expanded():
    body = (FEEDS / "feedparser__wellformed__rss__entity_in_doctype.xml").read_bytes()

    parsed = parse_feed(body)

    assert parsed.entries[0].guid == "tag:example.com,2006-05-04:/blog/"


def test_invalid_utf8_is_read_with_what_can_be_read_and_a_warning():
    body = (
        b'<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><item>'
        b"<title>Caf\xe9 \xff\xfe opens</title><link>https://news.example/cafe</link>"
        b"</item></channel></rss>"
    )

    parsed, (entry,), _ = entries_of(body)

    assert parsed.warning
    assert entry.title.startswith("Caf")
    assert entry.title.endswith("opens")
    entry.title.encode("utf-8")  # nothing a database would refuse


def test_a_wrong_declared_encoding_still_gives_readable_text():
    # Declared UTF-8, written in windows-1252: feedparser falls back and says so.
    body = (
        '<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><item>'
        "<title>Naïve “quotes” café</title><link>https://news.example/q</link>"
        "</item></channel></rss>"
    ).encode("windows-1252")

    parsed, (entry,), _ = entries_of(body)

    assert entry.title == "Naïve “quotes” café"
    assert "not well-formed" in parsed.warning


@pytest.mark.parametrize(
    "name",
    [
        "feedparser__wellformed__sanitize__entry_content_script.xml",
        "feedparser__wellformed__sanitize__item_description_crazy.xml",
        "feedparser__wellformed__sanitize__entry_content_onclick.xml",
    ],
)
def test_the_corpus_sanitiser_tests_leave_nothing_that_runs(name):
    raw = parse_feed((FEEDS / name).read_bytes()).entries[0]

    html = clean_html(raw.content or raw.summary).lower()

    for forbidden in ("<script", "onload", "onclick", "onmouseover", "javascript:", "alert("):
        assert forbidden not in html


def test_script_styles_event_handlers_and_bad_urls_are_gone_after_sanitising():
    hostile = (
        b'<rss version="2.0"><channel><item><title>t</title><link>https://x.example/1</link>'
        b"<description>&lt;p&gt;ok&lt;img src=x onerror=alert(1)&gt;"
        b'&lt;a href="javascript:alert(1)"&gt;js&lt;/a&gt;'
        b'&lt;a href="data:text/html,x"&gt;d&lt;/a&gt;'
        b"&lt;style&gt;body{}&lt;/style&gt;&lt;script&gt;alert(2)&lt;/script&gt;"
        b"&lt;a href=/rel&gt;rel&lt;/a&gt;&lt;/p&gt;</description></item></channel></rss>"
    )

    _, (entry,), _ = entries_of(hostile)

    assert entry.body == (
        '<p>ok<img src="https://feeds.example/x"><a rel="noopener nofollow">js</a>'
        '<a rel="noopener nofollow">d</a>'
        '<a href="https://feeds.example/rel" rel="noopener nofollow">rel</a></p>'
    )
    # The summary is the text alone: no script or style content either.
    assert entry.summary == "okjsdrel"


def test_relative_links_are_resolved_against_the_feed():
    body = (FEEDS / "node-feedparser__rss-with-relative-urls.xml").read_bytes()

    _, entries, _ = entries_of(body, url="https://www.example.com/feeds/rss.xml")

    assert all(entry.url.startswith("https://") for entry in entries)


def test_rss_ttl_is_read():
    body = (
        b'<rss version="2.0"><channel><title>t</title><ttl>180</ttl>'
        b"<item><title>a</title><link>https://x.example/1</link></item></channel></rss>"
    )

    assert parse_feed(body).ttl_minutes == 180


def test_an_empty_body_is_refused():
    with pytest.raises(ParseError, match="empty document"):
        parse_feed(b"  \n")


class _ImportsSeen:
    """A meta path finder that only writes down the modules asked for."""

    def __init__(self):
        self.names = []

    def find_spec(self, name, path=None, target=None):
        self.names.append(name)
        return None


def test_a_document_feedparser_reads_is_read_without_looking_for_python_2s_libxml2():
    # feedparser's default asks for "drv_libxml2" first: a failed import, a
    # search of sys.path, for every document, before it takes expat.
    atom_0_3 = (
        b'<?xml version="1.0"?><feed version="0.3" xmlns="http://purl.org/atom/ns#">'
        b"<title>Old</title><entry><title>One</title>"
        b'<link rel="alternate" href="https://old.example/one"/>'
        b"<id>tag:old.example,2004:one</id></entry></feed>"
    )
    seen = _ImportsSeen()
    sys.meta_path.insert(0, seen)
    try:
        parsed = parse_feed(
            atom_0_3, content_type="application/atom+xml", url="https://old.example/"
        )
    finally:
        sys.meta_path.remove(seen)

    assert parsed.format == "atom03"
    assert [entry.link for entry in parsed.entries] == ["https://old.example/one"]
    assert "drv_libxml2" not in seen.names

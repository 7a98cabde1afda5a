"""The lxml fast path reads every document it accepts exactly as feedparser does.

Each file of the shared corpus goes through `parse_feed` twice, once as it
runs (fast path where it applies) and once with the fast path switched off;
after normalising, the entries must be equal field by field, with the same
<ttl> and warning. Files the fast path refuses go to feedparser, so they
are the same by construction; the test also checks that the fast path does
take the common formats, so that it cannot pass by refusing everything.
"""

import dataclasses
import datetime

import pytest

from feed.ingest import parse
from feed.ingest.fastparse import fast_parse
from feed.ingest.normalise import entries_normalise
from tests.loopback import FEEDS

NOW = datetime.datetime(2026, 12, 1, tzinfo=datetime.UTC)
URL = "https://example.com/feed.xml"
CORPUS = sorted(path.name for path in FEEDS.iterdir() if path.suffix != ".md")


def _read(body: bytes) -> tuple:
    try:
        parsed = parse.parse_feed(body, url=URL)
    except parse.ParseError as error:
        return ("error", str(error))
    entries, skips = entries_normalise(parsed.entries, base_url=URL, now=NOW, limit=10_000)
    return (
        [dataclasses.asdict(entry) for entry in entries],
        [dataclasses.asdict(skip) for skip in skips],
        parsed.ttl_minutes,
        parsed.warning,
        parsed.format,
        parsed.title,
    )


@pytest.mark.parametrize("name", CORPUS)
def test_the_fast_path_reads_each_corpus_file_as_feedparser_does(name, monkeypatch):
    body = (FEEDS / name).read_bytes()
    fast = _read(body)
    monkeypatch.setattr(parse, "fast_parse", lambda body: None)

    slow = _read(body)

    if fast[0] != "error":
        # Entry by entry, field by field, so that a failure names the field.
        assert len(fast[0]) == len(slow[0])
        for fast_entry, slow_entry in zip(fast[0], slow[0], strict=True):
            for field, value in slow_entry.items():
                assert fast_entry[field] == value, (field, slow_entry["url"])
    assert fast == slow


def test_the_fast_path_takes_the_corpus_rss_rdf_and_atom_files():
    taken = [name for name in CORPUS if fast_parse((FEEDS / name).read_bytes()) is not None]

    assert len(taken) >= 54
    # RSS 1.0 and 0.90 (RDF), RSS 0.91/0.92, and Atom with xml:base.
    for name in (
        "rss-parser__craigslist.rss",
        "feed-rs__rss1__rss_1.0_biorxiv.xml",
        "miniflux__parser__rdf_UTF8.xml",
        "rome__rss_0.9.xml",
        "rome__rss_0.92.xml",
        "feed-rs__rss0__rss_0.91_spec_1.xml",
        "rome__atom_1.0_b.xml",
        "rss-parser__reddit-home.rss",
    ):
        assert name in taken, name
    assert "node-feedparser__rss2sample.xml" in taken
    assert "rss-parser__heise.atom" in taken
    # FeedBurner's feeds, and big feeds whose posts merely mention arXiv.
    assert "rss-parser__feedburner.atom" in taken
    assert "miniflux__parser__large_atom.xml" in taken


def test_the_fast_path_reads_feedburners_original_links():
    body = (
        b'<?xml version="1.0"?><rss version="2.0" '
        b'xmlns:feedburner="http://rssnamespace.org/feedburner/ext/1.0"><channel><title>T</title>'
        b"<item><title>A post</title><link>https://feeds.feedburner.com/~r/blog/~3/abc</link>"
        b"<feedburner:origLink>https://blog.example/a-post</feedburner:origLink></item>"
        b"</channel></rss>"
    )
    assert fast_parse(body) is not None

    (entry,) = parse.parse_feed(body, url=URL).entries

    assert entry.link == "https://blog.example/a-post"


def test_an_original_link_with_attributes_is_not_read_on_either_path(monkeypatch):
    # feedparser keeps such an element's attributes, not its text; the item's
    # own link stands (this used to stop the feedparser path with a TypeError).
    body = (
        b'<?xml version="1.0"?><rss version="2.0" '
        b'xmlns:feedburner="http://rssnamespace.org/feedburner/ext/1.0"><channel><title>T</title>'
        b"<item><title>A post</title><link>https://feeds.feedburner.com/~r/blog/~3/abc</link>"
        b'<feedburner:origLink xml:base="https://blog.example/">a-post</feedburner:origLink>'
        b"</item></channel></rss>"
    )
    fast, slow = _both_ways(body, monkeypatch)

    assert [e.link for e in fast.entries] == ["https://feeds.feedburner.com/~r/blog/~3/abc"]
    assert fast.entries == slow.entries


def test_the_fast_path_leaves_atom_0_3_and_broken_xml_to_feedparser():
    for name in (
        "rome__atom_0.3.xml",
        "feedparser__illformed__rss_incomplete_cdata.xml",
        # arXiv's own documents (its rules were written against feedparser's
        # reading of them), and items nested inside items.
        "xiv__arxiv_response.xml",
        "node-feedparser__illegally-nested.xml",
    ):
        assert fast_parse((FEEDS / name).read_bytes()) is None, name


def _both_ways(body: bytes, monkeypatch) -> tuple:
    fast = parse.parse_feed(body, url=URL)
    with monkeypatch.context() as patched:
        patched.setattr(parse, "fast_parse", lambda body: None)
        slow = parse.parse_feed(body, url=URL)
    return fast, slow


def test_links_and_ids_are_resolved_against_xml_base_as_feedparser_does(monkeypatch):
    body = b"""<?xml version="1.0"?>
<feed xmlns="http://www.w3.org/2005/Atom" xml:base="https://blog.example/">
  <title>T</title>
  <entry xml:base="posts/">
    <id>one</id><title>One</title><link href="one.html"/>
    <content type="html" xml:base="media/">&lt;img src="a.png"&gt;</content>
  </entry>
  <entry><id>https://blog.example/two</id><title>Two</title>
    <link rel="alternate" href="/two.html"/></entry>
</feed>"""
    assert fast_parse(body) is not None

    fast, slow = _both_ways(body, monkeypatch)

    assert [(e.guid, e.link, e.base) for e in fast.entries] == [
        (
            "https://blog.example/posts/one",
            "https://blog.example/posts/one.html",
            "https://blog.example/posts/media/",
        ),
        ("https://blog.example/two", "https://blog.example/two.html", URL),
    ]
    assert fast.entries == slow.entries


def test_a_base_set_where_no_parent_had_one_stays_in_force_after_it(monkeypatch):
    # feedparser's stack of bases returns to the parent's only when that is
    # not empty: the second entry's relative link is resolved against the
    # first entry's base.
    body = b"""<?xml version="1.0"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>T</title>
  <entry xml:base="https://one.example/"><id>x:1</id><link href="a"/></entry>
  <entry><id>x:2</id><link href="b"/></entry>
</feed>"""
    fast, slow = _both_ways(body, monkeypatch)

    assert [e.link for e in fast.entries] == ["https://one.example/a", "https://one.example/b"]
    assert fast.entries == slow.entries


def test_rss_1_0_items_are_read_with_rdf_about_as_their_id(monkeypatch):
    body = b"""<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
  xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/"
  xmlns:dcterms="http://purl.org/dc/terms/">
  <channel rdf:about="https://news.example/"><title>News</title></channel>
  <item rdf:about="https://news.example/1"><title>First</title>
    <link>https://news.example/1?a=1&amp;b=2</link><dc:date>2026-11-30T10:00:00Z</dc:date>
    <dcterms:issued>2026-11-29T09:00:00Z</dcterms:issued><dc:creator>Ann</dc:creator></item>
</rdf:RDF>"""
    assert fast_parse(body) is not None

    fast, slow = _both_ways(body, monkeypatch)

    (entry,) = fast.entries
    assert (fast.format, fast.title) == ("rss10", "News")
    assert (entry.guid, entry.link, entry.authors) == (
        "https://news.example/1",
        "https://news.example/1?a=1&b=2",
        ["Ann"],
    )
    # dcterms:issued is the publication date; dc:date only the update.
    assert entry.published == datetime.datetime(2026, 11, 29, 9, tzinfo=datetime.UTC)
    assert (fast.format, fast.title, fast.entries) == (slow.format, slow.title, slow.entries)


def test_documents_using_base_attributes_feedparser_reads_its_own_way_go_to_feedparser():
    for body in (
        # A "base" attribute outside the xml namespace is a base for feedparser.
        b'<feed xmlns="http://www.w3.org/2005/Atom"><entry base="https://x.example/">'
        b"<id>1</id></entry></feed>",
        # A div inside escaped content: feedparser's stack of bases loses its step.
        b'<rss version="2.0"><channel xml:base="https://x.example/"><item>'
        b"<description><div>text</div></description></item></channel></rss>",
    ):
        assert fast_parse(body) is None, body

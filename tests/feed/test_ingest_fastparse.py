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
    )


@pytest.mark.parametrize("name", CORPUS)
def test_the_fast_path_reads_each_corpus_file_as_feedparser_does(name, monkeypatch):
    body = (FEEDS / name).read_bytes()
    fast = _read(body)
    monkeypatch.setattr(parse, "fast_parse", lambda body: None)

    assert fast == _read(body)


def test_the_fast_path_takes_the_corpus_rss_2_and_atom_files():
    taken = [name for name in CORPUS if fast_parse((FEEDS / name).read_bytes()) is not None]

    assert len(taken) >= 42
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


def test_the_fast_path_leaves_rss_0_9_rdf_and_broken_xml_to_feedparser():
    for name in (
        "rome__rss_0.9.xml",
        "miniflux__parser__rdf_UTF8.xml",
        "feedparser__illformed__rss_incomplete_cdata.xml",
        # arXiv's own documents (its rules were written against feedparser's
        # reading of them), and items nested inside items.
        "xiv__arxiv_response.xml",
        "node-feedparser__illegally-nested.xml",
    ):
        assert fast_parse((FEEDS / name).read_bytes()) is None, name

"""clean_html answers exactly as nh3 did when it was called with its options on every call."""

import json
import random
import sys
import threading
from urllib.parse import urljoin, urlsplit

import nh3
import pytest

from feed import html
from feed.html import ALLOWED_ATTRIBUTES, ALLOWED_TAGS, ALLOWED_URL_SCHEMES, clean_html
from feed.ingest.parse import ParseError, parse_feed
from tests.loopback import FEEDS


def nh3_per_call(text: str, *, base_url: str = "") -> str:
    """clean_html as it was: nh3.clean with every option, and a new filter, on each call."""

    def absolute(tag, attribute, value):
        if attribute not in {"href", "src"} or urlsplit(value).scheme:
            return value
        joined = urljoin(base_url, value)
        return joined if urlsplit(joined).scheme in {"http", "https"} else None

    return nh3.clean(
        text,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes=ALLOWED_URL_SCHEMES,
        link_rel="noopener nofollow",
        strip_comments=True,
        attribute_filter=absolute if base_url else None,
    )


class _NotCalled:
    def clean(self, text):
        raise AssertionError(f"nh3 was asked to parse {text!r}")


@pytest.fixture
def without_nh3(monkeypatch):
    """Fails any call that reaches nh3: what passes is answered by clean_html itself."""
    monkeypatch.setattr(html, "_CLEANER", _NotCalled())
    monkeypatch.setattr(html, "_RESOLVING_CLEANER", _NotCalled())


PARSED = set("<&\x00\r")


def every_character_but_markup() -> list[str]:
    """Every code point nh3 can take, but those that send text to the parser, in runs of 256."""
    characters = [
        chr(code)
        for code in range(sys.maxunicode + 1)
        if not 0xD800 <= code <= 0xDFFF and chr(code) not in PARSED
    ]
    return ["".join(characters[n : n + 256]) for n in range(0, len(characters), 256)]


def test_text_without_markup_is_answered_without_nh3_as_nh3_answers_it(without_nh3):
    for run in every_character_but_markup():
        # Inside a text, and as it starts (a BOM there is the parser's business).
        for text in (f"a{run}b", run.lstrip("\ufeff")):
            assert clean_html(text) == nh3_per_call(text), repr(text)
            assert clean_html(text, base_url="https://e.example/") == nh3_per_call(text)


def test_mixtures_of_the_characters_nh3_changes_come_out_as_nh3_gives_them():
    alphabet = ["a", " ", "\n", "\t", ">", "\xa0", '"', "'", "=", "\ufeff", "é", "\U0001f600"]
    alphabet += ["<", "&", "\r", "\x00", "&amp;", "&gt;", "&nbsp;", "<b>", "</p>", "<!-- c -->"]
    alphabet += ['<a href="/x">', '<img src="y.png">', "<script>", "&#62;", "\r\n"]
    alphabet += ['<a href="https://e.example/a?b#c">', '<img src="//cdn.example/i.png">']
    alphabet += [
        '<a href="../up">',
        '<a href="javascript:x">',
        '<a href="https://bücher.example/">',
    ]
    rng = random.Random(13)
    for _ in range(5000):
        text = "".join(rng.choices(alphabet, k=rng.randint(0, 12)))
        assert clean_html(text) == nh3_per_call(text), repr(text)
        base = "https://e.example/feed/"
        assert clean_html(text, base_url=base) == nh3_per_call(text, base_url=base), repr(text)


def corpus_texts() -> list[tuple[str, str]]:
    """(text, base URL) for every title, summary and content of every corpus document."""
    texts = []
    for doc in json.loads((FEEDS / "manifest.json").read_text()):
        url = f"https://feeds.example/{doc['file']}"
        try:
            parsed = parse_feed((FEEDS / doc["file"]).read_bytes(), url=url)
        except ParseError:
            continue
        for entry in parsed.entries:
            for text in (entry.title, entry.summary, entry.content):
                if text:
                    texts.append((text, entry.base or url))
    return texts


def test_every_text_of_the_corpus_is_cleaned_as_nh3_cleaned_it():
    texts = corpus_texts()
    without_markup = [text for text, _ in texts if not html._NEEDS_PARSE.search(text)]
    # Compared on plenty of texts, over a thousand of them with no markup.
    assert len(texts) > 1500
    assert len(without_markup) > 1000

    for text, base in texts:
        assert clean_html(text) == nh3_per_call(text)
        assert clean_html(text, base_url=base) == nh3_per_call(text, base_url=base)


def test_text_that_nh3_refuses_is_still_refused():
    with pytest.raises(UnicodeEncodeError):
        clean_html("a lone surrogate \ud800")


def test_threads_cleaning_at_once_each_resolve_against_their_own_base():
    results: dict[str, set[str]] = {}
    start = threading.Barrier(4)

    def clean(host):
        start.wait()
        results[host] = {
            clean_html('<p><a href="/story">s</a></p>', base_url=f"https://{host}/feed")
            for _ in range(300)
        }

    hosts = ["a.example", "b.example", "c.example", "d.example"]
    threads = [threading.Thread(target=clean, args=(host,)) for host in hosts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert results == {
        host: {f'<p><a href="https://{host}/story" rel="noopener nofollow">s</a></p>'}
        for host in hosts
    }


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.parametrize("link", ["http://[::1/feed", "https://exa\uff0fmple.com/", "http://]x/"])
def test_a_link_that_urllib_cannot_read_is_dropped_as_before(link):
    text = f'<a href="{link}">story</a>'
    base = "https://e.example/"

    assert clean_html(text, base_url=base) == nh3_per_call(text, base_url=base)
    assert clean_html(text, base_url=base) == '<a rel="noopener nofollow">story</a>'

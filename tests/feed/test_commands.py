"""The feed commands: fetch_sources, import_opml, export_opml, import_items."""

import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from feed.models import Item, Source, Tombstone
from tests.factories import make_item, make_source
from tests.loopback import rss, rss_item

pytestmark = pytest.mark.django_db


def run(*args) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


@pytest.mark.parametrize(
    "command", ["fetch_sources", "import_opml", "export_opml", "import_items", "fetch_scheduler"]
)
def test_every_command_explains_itself(command, capsys):
    with pytest.raises(SystemExit) as exit_:
        call_command(command, "--help")

    assert exit_.value.code == 0
    assert "usage:" in capsys.readouterr().out


def test_fetch_sources_fetches_the_named_sources_and_prints_a_table(server, fetching):
    server.serve("/a", rss(rss_item(1), rss_item(2)))
    server.serve("/b", b"gone", status=410, content_type="text/plain")
    a = make_source(slug="alpha", feed_url=server.url("/a"))
    make_source(slug="beta", feed_url=server.url("/b"))
    make_source(slug="gamma", feed_url=server.url("/a"))

    out = run("fetch_sources", "--source", "alpha", "beta")

    lines = out.splitlines()
    assert lines[0].split() == [
        "source",
        "status",
        "new",
        "updated",
        "unchanged",
        "skipped",
        "seconds",
        "error",
    ]
    assert lines[2].split()[:6] == ["alpha", "ok", "2", "0", "0", "0"]
    assert lines[3].split()[:2] == ["beta", "failed"]
    assert "HTTP 410" in lines[3]
    assert lines[-1] == "2 sources fetched: 2 new, 0 updated, 0 skipped, 1 failed."
    assert Item.objects.filter(source=a).count() == 2
    assert server.hits("/a") == 1  # gamma was not asked for


def test_fetch_sources_without_arguments_fetches_the_due_ones_and_all_fetches_every_active(
    server, fetching
):
    server.serve("/a", rss(rss_item(1)))
    make_source(slug="due", feed_url=server.url("/a"))
    make_source(slug="off", feed_url=server.url("/a"), is_active=False)

    first = run("fetch_sources")
    again = run("fetch_sources")
    every = run("fetch_sources", "--all")

    assert "due" in first
    assert "off" not in first
    assert again == "No source to fetch.\n"
    assert every.splitlines()[-1].startswith("1 sources fetched")


def test_fetch_sources_refuses_unknown_slugs():
    with pytest.raises(CommandError, match="No source with the slug nope"):
        run("fetch_sources", "--source", "nope")


OPML = """<?xml version="1.0" encoding="UTF-8"?>
<opml version="2.0">
  <head><title>My feeds</title></head>
  <body>
    <outline text="Paper" title="Paper">
      <outline type="rss" text="arXiv cs.LG" xmlUrl="https://rss.arxiv.org/rss/cs.LG"
               htmlUrl="https://arxiv.org/list/cs.LG/recent"/>
    </outline>
    <outline text="Research labs">
      <outline type="rss" text="A lab blog" xmlUrl="https://lab.example/feed.xml"
               category="/ai/labs,机器学习"/>
      <outline type="rss" text="Local file" xmlUrl="file:///etc/passwd"/>
    </outline>
    <outline type="rss" text="Loose feed" xmlUrl="https://loose.example/atom"/>
  </body>
</opml>""".encode()


def test_import_opml_adds_sources_with_kinds_and_tags_from_folders(tmp_path):
    path = tmp_path / "feeds.opml"
    path.write_bytes(OPML)

    out = run("import_opml", str(path))

    assert out.splitlines()[-1] == "3 sources added, 0 already there, 1 refused."
    arxiv = Source.objects.get(feed_url="https://rss.arxiv.org/rss/cs.LG")
    assert (arxiv.name, arxiv.kind, arxiv.homepage_url) == (
        "arXiv cs.LG",
        "paper",
        "https://arxiv.org/list/cs.LG/recent",
    )
    lab = Source.objects.get(feed_url="https://lab.example/feed.xml")
    assert (lab.kind, sorted(lab.default_tags.names())) == (
        "blog",
        ["Research labs", "ai", "labs", "机器学习"],
    )
    assert not Source.objects.filter(feed_url__startswith="file:").exists()
    assert "only http and https" in out

    assert run("import_opml", str(path)).splitlines()[-1] == (
        "0 sources added, 3 already there, 1 refused."
    )


def test_import_opml_refuses_xml_with_a_doctype(tmp_path):
    path = tmp_path / "bomb.opml"
    path.write_bytes(b'<?xml version="1.0"?><!DOCTYPE opml [<!ENTITY a "b">]><opml/>')

    with pytest.raises(CommandError, match="refused"):
        run("import_opml", str(path))


def test_import_opml_says_when_the_file_is_missing(tmp_path):
    with pytest.raises(CommandError, match="Cannot read"):
        run("import_opml", str(tmp_path / "none.opml"))


def test_export_then_import_gives_back_the_same_sources(tmp_path):
    make_source(name="Lab blog", feed_url="https://lab.example/feed.xml", default_tags=["研究"])
    make_source(name="Papers", kind="paper", feed_url="https://rss.arxiv.org/rss/cs.CL")
    make_source(name="By hand", feed_url="")
    path = tmp_path / "out.opml"

    call_command("export_opml", str(path), stderr=io.StringIO())
    before = sorted(
        (s.name, s.kind, s.feed_url, sorted(s.default_tags.names()))
        for s in Source.objects.exclude(feed_url="")
    )
    Source.objects.all().delete()
    run("import_opml", str(path))

    after = sorted(
        (s.name, s.kind, s.feed_url, sorted(s.default_tags.names())) for s in Source.objects.all()
    )
    assert after == before


def test_import_items_imports_good_lines_and_reports_bad_ones_by_number(tmp_path):
    make_source(slug="lab")
    make_item(url="https://lab.example/deleted").delete()
    lines = [
        {"source": "lab", "url": "https://lab.example/1", "title": "One", "tags": ["研究"]},
        "not json at all",
        {"source": "nowhere", "url": "https://x.example/", "title": "Lost"},
        {"source": "lab", "title": "No URL"},
        {
            "source": "lab",
            "url": "https://lab.example/2?utm_source=x",
            "title": "Two",
            "published": "2026-11-30T09:50:00+08:00",
            "authors": ["Ann", "Bo"],
        },
        {"source": "lab", "url": "https://lab.example/deleted", "title": "Deleted"},
        {"source": "lab", "url": "https://lab.example/2", "title": "Two again"},
        {"source": "lab", "url": "https://lab.example/3", "title": "Bad time", "published": "soon"},
    ]
    path = tmp_path / "items.jsonl"
    path.write_text(
        "\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + "\n"
    )

    out = run("import_items", str(path))

    assert sorted(Item.objects.values_list("url", "title", "status")) == [
        ("https://lab.example/1", "One", "draft"),
        ("https://lab.example/2", "Two", "draft"),
    ]
    assert list(Item.objects.get(url="https://lab.example/1").tags.names()) == ["研究"]
    assert Item.objects.get(url="https://lab.example/2").authors == "Ann, Bo"
    problems = [line.split(None, 2) for line in out.splitlines()[2:8]]
    assert problems == [
        ["2", "bad", "line  not JSON: Expecting value: line 1 column 1 (char 0)"],
        ["3", "bad", "line  no source with the slug 'nowhere'"],
        ["4", "bad", "line  'url' is missing"],
        ["6", "skipped", "deleted by an editor"],
        ["7", "skipped", "the same item appears on an earlier line"],
        ["8", "bad", "line  'published' is not an ISO 8601 time"],
    ]
    assert out.splitlines()[-1].split() == ["8", "2", "0", "0", "2", "4"]
    assert Tombstone.objects.count() == 1


def test_fetch_scheduler_once_queues_the_due_sources(
    server, fetching, django_capture_on_commit_callbacks
):
    server.serve("/a", rss(rss_item(1)))
    make_source(slug="due", feed_url=server.url("/a"))

    # The tests' task backend runs each queued fetch as soon as it is queued,
    # which is after the scheduler's transaction commits.
    with django_capture_on_commit_callbacks(execute=True):
        out = run("fetch_scheduler", "--once")

    assert out == "Queued 1 due sources.\n"
    assert Item.objects.count() == 1

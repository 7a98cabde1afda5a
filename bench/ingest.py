"""Ingestion benchmark: how fast we parse and upsert, and how fetching scales with workers.

    .venv/bin/python bench/ingest.py                      # SQLite, in a temporary file
    .venv/bin/python bench/ingest.py --database-url postgres://postgres@127.0.0.1:5432/aitop_bench

Two measurements (README, "Benchmark", gives figures):

1. One 10,000-entry RSS document, parsed, normalised and upserted into an
   empty database, then the same document again (every entry known):
   entries per second for each step, and the process's peak memory.
2. 200 sources served by loopback servers on 127.0.0.1, queued by the
   scheduler and fetched by 1, then 2, real `manage.py db_worker` processes:
   wall time, sources and entries per second, and the peak memory of the
   largest worker process.

The benchmark only ever touches rows it creates (sources with slugs that
start with "bench-", their items under https://bench.invalid/) and removes
them again, so any database you can spare will do; a new SQLite file is the
default. It is not a test: nothing here passes or fails.
"""

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))

BENCH_PREFIX = "bench-"
ITEM_BASE = "https://bench.invalid/"


def configure(database_url: str) -> dict:
    env = {
        "DATABASE_URL": database_url,
        "DATABASE_POOL": "0",
        "DJANGO_SETTINGS_MODULE": "aitop.settings",
        "SECRET_KEY": "benchmark-only-not-a-secret",
        "DEBUG": "0",
        "AITOP_ENVIRONMENT": "test",  # loopback feeds, a local cache: not production
        "STATIC_MANIFEST": "0",
        "TASKS_BACKEND": "database",
        "AITOP_FETCH_ALLOW_HOSTS": "127.0.0.1",
        "AITOP_FETCH_HOST_GAP": "0",
        "LOG_LEVEL": "WARNING",
    }
    os.environ.update(env)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    return env


def rss_document(entries: int, *, source: str = "feed") -> bytes:
    """A realistic RSS 2.0 document: titles, links, dates, HTML summaries, categories."""
    parts = [
        '<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0" '
        'xmlns:dc="http://purl.org/dc/elements/1.1/"><channel>'
        f"<title>Bench {source}</title><link>{ITEM_BASE}</link><ttl>60</ttl>"
    ]
    for n in range(entries):
        parts.append(
            f"<item><title>Story {n} from {source}: a model that reasons about "
            f"agents &amp; tools</title>"
            f"<link>{ITEM_BASE}{source}/{n}?utm_source=rss&amp;utm_medium=feed</link>"
            f'<guid isPermaLink="false">{source}-{n}</guid>'
            f"<pubDate>Mon, 30 Nov 2026 {n % 24:02d}:{n % 60:02d}:00 GMT</pubDate>"
            f"<dc:creator>Author {n % 97}, Author {n % 89}</dc:creator>"
            "<category>AI</category><category>Research</category>"
            "<description>&lt;p&gt;This is the summary of the story. It explains what the "
            "&lt;b&gt;new model&lt;/b&gt; does, why it matters, and how it compares with "
            'earlier work. &lt;a href="/more"&gt;Read more&lt;/a&gt; about its training data, '
            "evaluation and the licence it ships under.&lt;/p&gt;"
            "&lt;p&gt;A second paragraph adds detail.&lt;/p&gt;</description></item>"
        )
    parts.append("</channel></rss>")
    return "".join(parts).encode()


def peak_rss_mb(who=resource.RUSAGE_SELF) -> float:
    return resource.getrusage(who).ru_maxrss / 1024  # Linux reports kB


def cleanup() -> None:
    from django_tasks_db.models import DBTaskResult

    from feed.models import FetchAttempt, FetchHost, Item, Source, Tombstone

    sources = Source.objects.filter(slug__startswith=BENCH_PREFIX)
    FetchAttempt.objects.filter(source__in=sources).delete()
    Item.objects.filter(source__in=sources).delete()
    Tombstone.objects.filter(url__startswith=ITEM_BASE).delete()
    DBTaskResult.objects.filter(
        task_path="feed.tasks.fetch_source",
        args_kwargs__args__0__in=list(sources.values_list("pk", flat=True)),
    ).delete()
    sources.delete()
    FetchHost.objects.filter(host__startswith="127.0.0.1:").delete()


def bench_parse_and_upsert(entries: int) -> None:
    import datetime

    from django.conf import settings
    from django.db import transaction
    from django.utils import timezone

    from feed.ingest.normalise import entries_normalise
    from feed.ingest.parse import parse_feed
    from feed.ingest.upsert import items_upsert
    from feed.models import KeywordRule, Source

    settings.FETCH_MAX_ENTRIES = entries
    body = rss_document(entries)
    source = Source.objects.create(name="Bench big feed", slug=f"{BENCH_PREFIX}big", weight=60)
    source.default_tags.set(["bench"])
    rules = [
        KeywordRule.objects.create(pattern=p, tag=t)
        for p, t in [("agents", "智能体"), ("diffusion", "扩散模型"), ("reasons", "推理")]
    ]
    rss_before = peak_rss_mb()
    print(f"\n1. Parse and upsert one feed of {entries:,} entries ({len(body) / 1e6:.1f} MB)")
    print(
        f"   {'pass':<7}{'parse':>8}{'normalise':>11}{'upsert':>9}{'total':>9}"
        f"{'entries/s':>11}{'CPU s':>8}{'entries/CPU-s':>15}"
    )
    try:
        for label in ("new", "known"):
            now = timezone.now() + datetime.timedelta(minutes=1 if label == "known" else 0)
            cpu = time.process_time()
            t0 = time.perf_counter()
            parsed = parse_feed(body, content_type="application/rss+xml", url=ITEM_BASE + "feed")
            t1 = time.perf_counter()
            normalised, skips = entries_normalise(
                parsed.entries, base_url=ITEM_BASE + "feed", now=now, limit=entries
            )
            t2 = time.perf_counter()
            with transaction.atomic():
                counts = items_upsert(source=source, entries=normalised, now=now)
            t3 = time.perf_counter()
            cpu = time.process_time() - cpu
            if skips or counts.new + counts.unchanged != entries:
                raise SystemExit(f"the benchmark lost entries: {skips[:3]} {counts}")
            print(
                f"   {label:<7}{t1 - t0:>7.2f}s{t2 - t1:>10.2f}s{t3 - t2:>8.2f}s{t3 - t0:>8.2f}s"
                f"{entries / (t3 - t0):>11,.0f}{cpu:>7.2f}s{entries / cpu:>15,.0f}"
            )
            del parsed, normalised
        limit = settings.FETCH_MAX_BYTES / 1e6
        print(
            f"   peak memory of this process: {peak_rss_mb():.0f} MB "
            f"({rss_before:.0f} MB before the feed; body limit {limit:.0f} MB)"
        )
    finally:
        for rule in rules:
            rule.delete()


def start_servers(sources: int, servers: int, entries: int):
    """Loopback servers, each its own host (port); source n is served by server n % servers."""
    from tests.loopback import LoopbackServer

    running = [LoopbackServer() for _ in range(servers)]
    urls = [
        running[n % servers].serve(f"/feed/{n}", rss_document(entries, source=f"s{n}"))
        for n in range(sources)
    ]
    return running, urls


def manage_process(env: dict, *args: str) -> subprocess.Popen:
    return subprocess.Popen(  # noqa: S603 (our own manage.py)
        [sys.executable, "manage.py", *args],
        cwd=PROJECT,
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
    )


def bench_workers(env: dict, *, sources: int, entries: int, worker_counts: list[int]) -> None:
    from feed.models import FetchAttempt, Item, Source

    hosts = 20
    servers, urls = start_servers(sources, hosts, entries)
    print(
        f"\n2. Fetch {sources} sources of {entries} entries each from {hosts} loopback "
        f"servers, queued by fetch_scheduler, fetched by db_worker processes"
    )
    print(f"   {'workers':<9}{'wall':>8}{'sources/s':>11}{'entries/s':>11}{'peak MB':>9}")
    try:
        for workers in worker_counts:
            cleanup()
            for n, url in enumerate(urls):
                Source.objects.create(name=f"Bench {n}", slug=f"{BENCH_PREFIX}{n}", feed_url=url)
            started = time.perf_counter()
            # As in production: the scheduler queues what is due (again, when a
            # fetch was deferred because its host was busy); workers run it.
            processes = [manage_process(env, "fetch_scheduler", "--interval", "0.2")]
            processes += [
                manage_process(
                    env,
                    "db_worker",
                    "--interval",
                    "0.05",
                    "--no-startup-delay",
                    "--no-reload",
                    "--verbosity",
                    "0",
                    "--worker-id",
                    f"bench-{workers}-{w}",
                )
                for w in range(workers)
            ]
            fetched = FetchAttempt.objects.filter(
                source__slug__startswith=BENCH_PREFIX, status="ok"
            )
            deadline = time.monotonic() + 600
            while fetched.count() < sources and time.monotonic() < deadline:
                time.sleep(0.1)
            wall = time.perf_counter() - started
            for process in processes:
                process.terminate()
            for process in processes:
                process.wait()
            items = Item.objects.filter(source__slug__startswith=BENCH_PREFIX).count()
            if fetched.count() != sources or items != sources * entries:
                raise SystemExit(f"only {fetched.count()} sources and {items} items were fetched")
            print(
                f"   {workers:<9}{wall:>7.1f}s{sources / wall:>11.1f}{items / wall:>11,.0f}"
                f"{peak_rss_mb(resource.RUSAGE_CHILDREN):>9.0f}"
            )
    finally:
        for server in servers:
            server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", help="default: a new SQLite file in a temporary folder")
    parser.add_argument("--entries", type=int, default=10_000, help="entries of the big feed")
    parser.add_argument("--sources", type=int, default=200)
    parser.add_argument("--source-entries", type=int, default=50, help="entries per source")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        url = args.database_url or f"sqlite:///{folder}/bench.sqlite3"
        env = configure(url)
        from django.db import connection

        print(f"Database: {connection.vendor} ({connection.settings_dict['NAME']})")
        cleanup()
        try:
            bench_parse_and_upsert(args.entries)
            cleanup()
            bench_workers(
                env, sources=args.sources, entries=args.source_entries, worker_counts=args.workers
            )
        finally:
            cleanup()


if __name__ == "__main__":
    threading.current_thread().name = "bench"
    main()

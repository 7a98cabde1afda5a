"""Ingestion benchmark: parsing and writing speed, workers over many hosts, and newsboat beside us.

    .venv/bin/python bench/ingest.py                      # SQLite, in a temporary file
    .venv/bin/python bench/ingest.py --database-url postgres://postgres@127.0.0.1:5432/aitop_bench

Three measurements (docs/ingestion.md gives figures and how to read them):

1. One 10,000-entry RSS document, parsed, normalised and upserted into an
   empty database, then the same document again (every entry known):
   entries per second for each step, CPU seconds, and peak memory.
2. 1,000 sources of 20 entries each, served by 50 loopback hosts
   (127.0.0.2–127.0.0.51), fetched by 1, then 2, `manage.py fetch_worker
   --until-idle` processes, and reloaded by newsboat (Debian's, `-x reload`,
   with a cache and config of its own in a temporary folder), in turns:
   wall time (process start-up included), items stored, entries per second.
   One more line times a worker that is already running, as a deployed
   one is: from the moment the sources fall due until the last is stored.
3. The same for the 106 documents of ../shared/feeds (all but the recorded
   arXiv API answers), spread over the same hosts.

The benchmark only ever touches rows it creates (sources with slugs that
start with "bench-", their items) and removes them again, so any database
you can spare will do; a new SQLite file is the default. It is not a test:
nothing here passes or fails.
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
        "AITOP_FETCH_ALLOW_HOSTS": "127.0.0.0/8",
        "AITOP_FETCH_HOST_GAP": "0",
        "LOG_LEVEL": "WARNING",
    }
    os.environ.update(env)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    return env


# The project's packages that a worker imports.
PACKAGES = ("aitop", "api", "editorial", "enrichment", "feed", "stories", "webhooks")


def bytecode_compile() -> None:
    """Compile the project's modules, as a deployment does (README, "Production").

    With PYTHONDONTWRITEBYTECODE set, or a read-only checkout, every process
    started compiles them again: 0.1 s of each worker's start-up here.
    """
    import compileall

    for package in PACKAGES:
        compileall.compile_dir(PROJECT / package, quiet=1)


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


def cleanup(*, hosts: bool = True) -> None:
    """Remove the benchmark's sources, items and fetch history; with `hosts`, the hosts' slot rows.

    Between rounds the slot rows stay, as on a deployed desk, where a host's
    rows are made at its first fetch. Deleted under a running worker, they sent
    each of its first claims down the path that remakes them (a failed UPDATE,
    a SELECT, an INSERT): work that only this benchmark caused.
    """
    from django_tasks_db.models import DBTaskResult

    from feed.models import FetchAttempt, FetchHost, Item, Source, Tombstone

    sources = Source.objects.filter(slug__startswith=BENCH_PREFIX)
    items = Item.objects.filter(source__in=sources)
    urls = list(items.values_list("url", flat=True))
    FetchAttempt.objects.filter(source__in=sources).delete()
    items.delete()
    # Deleting an item leaves a tombstone, so that a feed cannot bring it back:
    # the next run must see these entries as new again.
    for start in range(0, len(urls), 500):
        Tombstone.objects.filter(url__in=urls[start : start + 500]).delete()
    Tombstone.objects.filter(url__startswith=ITEM_BASE).delete()
    DBTaskResult.objects.filter(
        task_path="feed.tasks.fetch_source",
        args_kwargs__args__0__in=list(sources.values_list("pk", flat=True)),
    ).delete()
    sources.delete()
    if hosts:
        FetchHost.objects.filter(host__startswith="127.0.0.").delete()
    _vacuum([Item, FetchAttempt, Tombstone, DBTaskResult, Source, FetchHost])


def _vacuum(models: list) -> None:
    """On PostgreSQL, clear the dead rows the clean-up left in these models' tables and indexes.

    Each round inserts and deletes thousands of rows in seconds, faster than
    autovacuum comes by, which a desk's own traffic never does: left there,
    the dead index entries made the planner's estimates wrong (the look-up
    of a batch's pending drafts read 400,000 dead entries of the status
    index, 14 ms instead of a fraction of one).
    """
    from django.db import connection

    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        for model in models:
            cursor.execute(f"VACUUM ANALYZE {connection.ops.quote_name(model._meta.db_table)}")


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
    # The refusal of huge documents (5,000 entries by default) would stop this feed.
    settings.FETCH_MAX_DOCUMENT_ENTRIES = max(entries, settings.FETCH_MAX_DOCUMENT_ENTRIES)
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


HOSTS = [f"127.0.0.{n}" for n in range(2, 52)]  # 50 loopback hosts (brief: 127.0.0.2-60)


def start_hosts(count: int) -> list:
    """One loopback server on each of `count` addresses 127.0.0.2…: that many hosts."""
    from tests.loopback import LoopbackServer

    return [LoopbackServer(host=host) for host in HOSTS[:count]]


def serve_round_robin(servers: list, documents: list[tuple[str, bytes]]) -> list[str]:
    """Serve each (name, body) from the next host in turn; their URLs."""
    urls = []
    for n, (name, body) in enumerate(documents):
        server = servers[n % len(servers)]
        server.serve(f"/{name}", body)
        urls.append(server.url(f"/{name}", host=server.httpd.server_address[0]))
    return urls


def sources_reset(urls: list[str], *, active: bool = True) -> None:
    """Bench sources for these URLs, never fetched, with nothing stored yet."""
    from feed.models import Source

    cleanup(hosts=False)
    Source.objects.bulk_create(
        Source(name=f"Bench {n}", slug=f"{BENCH_PREFIX}{n}", feed_url=url, is_active=active)
        for n, url in enumerate(urls)
    )


def manage_process(env: dict, *args: str) -> subprocess.Popen:
    return subprocess.Popen(  # noqa: S603 (our own manage.py)
        [sys.executable, "manage.py", *args],
        cwd=PROJECT,
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
    )


def aitop_run(env: dict, *, workers: int) -> float:
    """`fetch_worker --until-idle` in `workers` processes at once; wall s, start-up included."""
    started = time.perf_counter()
    processes = [manage_process(env, "fetch_worker", "--until-idle") for _ in range(workers)]
    for process in processes:
        if process.wait(timeout=900) != 0:
            raise SystemExit("a fetch_worker failed")
    return time.perf_counter() - started


def aitop_running_run(env: dict, urls: list[str]) -> float:
    """Seconds from the sources falling due to the last one stored, by a worker already running.

    The caller has made the sources, inactive (`sources_reset(urls, active=False)`).
    They are scheduled a few seconds ahead, as a deployed worker's are, and
    the worker (default settings) is started before that moment: it sleeps
    until they fall due (feed.ingest.due.idle_seconds).
    """
    import datetime
    import signal

    from django.utils import timezone

    from feed.models import Source

    bench_sources = Source.objects.filter(slug__startswith=BENCH_PREFIX)
    due = timezone.now() + datetime.timedelta(seconds=4)
    bench_sources.update(is_active=True, next_fetch_at=due)
    worker = manage_process(env, "fetch_worker")
    try:
        time.sleep(max(due.timestamp() - time.time(), 0))
        if worker.poll() is not None:
            raise SystemExit("the running fetch_worker stopped")
        # A look at a thousand rows, five times a second: the servers run in
        # this process, and a heavier poll slowed the worker it waits for.
        while bench_sources.filter(last_fetched_at__isnull=True).exists():
            if time.time() - due.timestamp() > 900:
                raise SystemExit("the running fetch_worker did not finish")
            time.sleep(0.2)
        # The end is when the last source was stored, read from what the
        # worker wrote (same clock): the poll's 0.2 s steps would add up to
        # 0.2 s to a run of under a second.
        return last_stored_at() - due.timestamp()
    finally:
        worker.send_signal(signal.SIGTERM)
        worker.wait(timeout=60)


def last_stored_at() -> float:
    """The wall-clock moment the last benchmark source's fetch was written (epoch seconds).

    Its items' write time, or for a fetch without new items the end of its
    read (its history row's start and duration): the write follows within
    milliseconds.
    """
    from django.db.models import F, Max

    from feed.models import FetchAttempt, Item

    ended = FetchAttempt.objects.filter(source__slug__startswith=BENCH_PREFIX).aggregate(
        last=Max(F("started_at") + F("duration"))
    )["last"]
    written = Item.objects.filter(source__slug__startswith=BENCH_PREFIX).aggregate(
        last=Max("created_at")
    )["last"]
    return max(moment for moment in (ended, written) if moment is not None).timestamp()


def aitop_stored() -> tuple[int, int]:
    """(sources fetched, items stored) by the last run."""
    from feed.models import FetchAttempt, Item

    fetched = FetchAttempt.objects.filter(source__slug__startswith=BENCH_PREFIX)
    items = Item.objects.filter(source__slug__startswith=BENCH_PREFIX)
    return fetched.values("source").distinct().count(), items.count()


def newsboat_run(urls: list[str], *, threads: int) -> tuple[float, int]:
    """`newsboat -x reload` of `urls` with a cache and config of its own; (wall s, items stored)."""
    import sqlite3

    with tempfile.TemporaryDirectory() as home:
        folder = Path(home)
        (folder / "urls").write_text("\n".join(urls) + "\n")
        (folder / "config").write_text(f"reload-threads {threads}\n")
        command = ["newsboat", "-u", "urls", "-c", "cache.db", "-C", "config", "-x", "reload"]
        started = time.perf_counter()
        subprocess.run(  # noqa: S603 (Debian's newsboat)
            command,
            cwd=folder,
            env={**os.environ, "HOME": home},
            check=True,
            timeout=900,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wall = time.perf_counter() - started
        with sqlite3.connect(folder / "cache.db") as db:
            (items,) = db.execute("SELECT COUNT(*) FROM rss_item").fetchone()
    return wall, items


def _cpu_seconds(who) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def postgres_cpu_seconds() -> float | None:
    """CPU seconds used so far by a local PostgreSQL server (its processes, and those it reaped).

    None when no postgres process can be read here (another machine, SQLite).
    """
    ticks = os.sysconf("SC_CLK_TCK")
    total, found = 0, False
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        name, fields = text[text.index("(") + 1 : text.rindex(")")], text.rsplit(")", 1)[1].split()
        if name != "postgres" and not name.startswith("postgres:"):
            continue
        found = True
        # utime, stime, and the children's cutime, cstime (a backend, once it exits)
        total += sum(int(value) for value in fields[11:15])
    return total / ticks if found else None


def _database_cpu_seconds() -> float | None:
    from django.db import connection

    return postgres_cpu_seconds() if connection.vendor == "postgresql" else None


class CPUUse:
    """CPU seconds a block took of this process (the servers), its children and PostgreSQL."""

    def __enter__(self):
        self.start = (
            _cpu_seconds(resource.RUSAGE_SELF),
            _cpu_seconds(resource.RUSAGE_CHILDREN),
            _database_cpu_seconds(),
        )
        return self

    def __exit__(self, *exc):
        servers, children, database = self.start
        self.servers = _cpu_seconds(resource.RUSAGE_SELF) - servers
        self.children = _cpu_seconds(resource.RUSAGE_CHILDREN) - children
        now = _database_cpu_seconds()
        self.database = now - database if now is not None and database is not None else None

    @property
    def total(self) -> float:
        """Every CPU second the run cost: workers and readers, feed servers, database server."""
        return self.children + self.servers + (self.database or 0.0)


def median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]


def side_by_side(
    env: dict, *, title: str, urls: list[str], worker_counts: list[int], rounds: int
) -> None:
    """AITOP with 1, 2… workers and newsboat on the same feeds, in turns, `rounds` times."""
    from django.conf import settings

    threads = settings.FETCH_CONCURRENCY
    print(f"\n{title}")
    print(
        f"   {'who':<28}{'wall (median)':>14}{'min–max':>16}{'items':>8}{'entries/s':>11}"
        f"   CPU s (median): {'its own':>7}{'servers':>8}{'database':>9}{'cores busy':>12}"
    )
    walls: dict[str, list[float]] = {}
    cpu: dict[str, list[CPUUse]] = {}
    stored: dict[str, int] = {}

    def timed(label: str, run) -> None:
        with CPUUse() as use:
            walls.setdefault(label, []).append(run())
        cpu.setdefault(label, []).append(use)

    for _ in range(rounds):
        for workers in worker_counts:
            sources_reset(urls)
            label = f"AITOP, {workers} worker{'s' if workers > 1 else ''}"
            timed(label, lambda workers=workers: aitop_run(env, workers=workers))
            fetched, stored[label] = aitop_stored()
            if fetched != len(urls):
                raise SystemExit(f"{label}: only {fetched} of {len(urls)} sources were fetched")
        label = "AITOP, 1 worker, running"
        sources_reset(urls, active=False)
        timed(label, lambda: aitop_running_run(env, urls))
        _, stored[label] = aitop_stored()
        label = f"newsboat, {threads} threads"
        timed(label, lambda label=label: _newsboat_wall(urls, threads, stored, label))
    for label, values in walls.items():
        middle = median(values)
        uses = cpu[label]
        database = [use.database for use in uses if use.database is not None]
        print(
            f"   {label:<28}{middle:>13.2f}s{min(values):>8.2f}–{max(values):.2f}s"
            f"{stored[label]:>8}{stored[label] / middle:>11,.0f}"
            f"{'':>19}{median([use.children for use in uses]):>7.2f}"
            f"{median([use.servers for use in uses]):>8.2f}"
            f"{(f'{median(database):.2f}' if database else '–'):>9}"
            f"{_cores_busy(label, uses, values):>12}"
        )
    print(scaling_ceiling(walls, cpu))
    cleanup()


def _cores_busy(label: str, uses: list["CPUUse"], walls: list[float]) -> str:
    """Cores kept busy on average; not for the running worker, whose CPU includes its start."""
    if label.endswith("running"):
        return "–"
    return f"{median([use.total / wall for use, wall in zip(uses, walls, strict=True)]):.2f}"


def scaling_ceiling(walls: dict[str, list[float]], cpu: dict[str, list["CPUUse"]]) -> str:
    """What the machine's cores allow two workers at best, from one worker's CPU and wall time.

    Whatever the code, two workers cannot take less time than all the CPU
    one worker's run needed (the worker, its readers, the feed servers and
    the database) spread over every core: so one worker's wall time over
    that is the largest speed-up a second worker can show on this machine.
    """
    label = "AITOP, 1 worker"
    if label not in walls:
        return ""
    wall = median(walls[label])
    needed = median([use.total for use in cpu[label]])
    cores = os.cpu_count() or 1
    return (
        f"   1 worker needs {needed:.2f} CPU s in {wall:.2f} s: on {cores} cores 2 workers"
        f" take at least {needed / cores:.2f} s, at most {wall / (needed / cores):.2f}× faster"
    )


def _newsboat_wall(urls: list[str], threads: int, stored: dict, label: str) -> float:
    wall, stored[label] = newsboat_run(urls, threads=threads)
    return wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", help="default: a new SQLite file in a temporary folder")
    parser.add_argument("--entries", type=int, default=10_000, help="entries of the big feed")
    parser.add_argument("--sources", type=int, default=1000)
    parser.add_argument("--source-entries", type=int, default=20, help="entries per source")
    parser.add_argument("--hosts", type=int, default=50, help="loopback hosts (127.0.0.2…)")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--rounds", type=int, default=3, help="turns of each side-by-side run")
    parser.add_argument("--skip", nargs="*", default=[], choices=["big", "farm", "corpus"])
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        url = args.database_url or f"sqlite:///{folder}/bench.sqlite3"
        env = configure(url)
        bytecode_compile()
        from django.conf import settings
        from django.db import connection

        print(
            f"Database: {connection.vendor} ({connection.settings_dict['NAME']}); "
            f"AITOP_FETCH_CONCURRENCY={settings.FETCH_CONCURRENCY}, "
            f"AITOP_FETCH_PER_HOST={settings.FETCH_PER_HOST}, host gap 0; {os.cpu_count()} cores"
        )
        cleanup()
        servers = start_hosts(args.hosts)
        try:
            if "big" not in args.skip:
                bench_parse_and_upsert(args.entries)
                cleanup()
            if "farm" not in args.skip:
                documents = [
                    (f"s{n}.xml", rss_document(args.source_entries, source=f"s{n}"))
                    for n in range(args.sources)
                ]
                side_by_side(
                    env,
                    title=(
                        f"2. {args.sources} sources of {args.source_entries} entries over "
                        f"{len(servers)} loopback hosts"
                    ),
                    urls=serve_round_robin(servers, documents),
                    worker_counts=args.workers,
                    rounds=args.rounds,
                )
            if "corpus" not in args.skip:
                corpus = corpus_documents()
                side_by_side(
                    env,
                    title=f"3. The {len(corpus)} documents of ../shared/feeds (no arXiv answers)",
                    urls=serve_round_robin(servers, corpus),
                    worker_counts=args.workers,
                    rounds=args.rounds,
                )
        finally:
            for server in servers:
                server.stop()
            cleanup()


def corpus_documents() -> list[tuple[str, bytes]]:
    """The shared corpus's documents but the recorded arXiv API answers."""
    import json

    folder = PROJECT.parent / "shared" / "feeds"
    manifest = json.loads((folder / "manifest.json").read_text())
    names = [doc["file"] for doc in manifest if not doc["file"].startswith("arxiv.py__")]
    return [(name, (folder / name).read_bytes()) for name in names]


if __name__ == "__main__":
    threading.current_thread().name = "bench"
    main()

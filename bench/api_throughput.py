"""Benchmark: how many item-list requests per second the API answers, and in how many queries.

    .venv/bin/python bench/api_throughput.py [--items 20000] [--requests 3000] [--concurrency 8]

    make bench-api [BENCH_ARGS="--items 50000"]

Like `make bench-site`, it works on Django's test database next to the one
DATABASE_URL names (SQLite or PostgreSQL; the real one is never touched),
fills it with sources, tagged items and drafts, serves the project with
gunicorn on 127.0.0.1, and sends GET requests for the item list with each single filter,
an ordering and a deep cursor, from a pool of threads. It prints requests per
second and latency per query string, and the SQL queries each one runs.
Every request goes to 127.0.0.1 only; the run stops after --requests.
"""

import argparse
import concurrent.futures
import datetime
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
QUERIES = [
    "",
    "kind=paper",
    "category=model",
    "tag=agents",
    "source=source-3",
    "featured=1",
    "q=model",
    "since=2026-05-01",
    "ordering=hot",
    "page_size=100",
]


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="aitop.settings",
        DEBUG="0",
        AITOP_ENVIRONMENT="test",  # one machine, a local cache: not production
        SECRET_KEY="bench-only-not-a-secret",  # noqa: S106 (a throwaway server)
        ALLOWED_HOSTS="127.0.0.1",
        TASKS_BACKEND="dummy",
        STATIC_MANIFEST="0",
        LOG_LEVEL="WARNING",
        # The benchmark measures the API, not the throttle refusing it.
        AITOP_API_ANON_RATE="100000000/min",
        AITOP_API_USER_RATE="100000000/min",
    )
    return env


def _fill(items: int) -> None:
    """Sources, items over 60 days (a tenth drafts), tags: what a busy desk holds."""
    from django.db import connection
    from django.utils import timezone
    from taggit.models import Tag

    from feed.models import Item, Source, TaggedItem

    rng = random.Random(6)  # noqa: S311 (test data, not secrets)
    kinds = ["blog", "news", "tweet", "paper"]
    categories = ["model", "product", "industry", "paper", "tip"]
    sources = Source.objects.bulk_create(
        Source(name=f"Source {n}", slug=f"source-{n}", kind=kinds[n % 4]) for n in range(40)
    )
    tags = Tag.objects.bulk_create(
        Tag(name=name, slug=name)
        for name in ["agents", "大模型", "长上下文", "rl", "vision", "评测"]
    )
    now = timezone.now()
    batch = []
    for n in range(items):
        source = sources[n % len(sources)]
        status = "draft" if n % 10 == 0 else ("featured" if n % 17 == 0 else "published")
        batch.append(
            Item(
                source=source,
                title=f"Item {n}: a model that does thing {n}",
                url=f"https://news.example/{n}",
                guid=f"g{n}",
                summary="A summary of what happened, long enough to look like one. " * 3,
                recommendation="Read it if you build with models.",
                kind=source.kind,
                category=categories[n % 5],
                status=status,
                heat=rng.randrange(101),
                published_at=None
                if status == "draft"
                else now - datetime.timedelta(seconds=rng.randrange(60 * 86400)),
            )
        )
    Item.objects.bulk_create(batch, batch_size=2000)
    ids = list(Item.objects.values_list("pk", flat=True))
    TaggedItem.objects.bulk_create(
        (TaggedItem(content_object_id=pk, tag=tag) for pk in ids for tag in rng.sample(tags, 2)),
        batch_size=5000,
    )
    with connection.cursor() as cursor:
        # Fresh statistics, as a database that has been running a while has.
        cursor.execute("ANALYZE")


def _query_counts() -> dict[str, int]:
    """The SQL queries one request of each query string runs (in-process, same code)."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client(HTTP_HOST="127.0.0.1")
    counts = {}
    for query in QUERIES:
        with CaptureQueriesContext(connection) as captured:
            response = client.get(f"/api/v1/items/?{query}")
        if response.status_code != 200:
            raise SystemExit(f"?{query} answered {response.status_code}")
        counts[query] = len(captured)
    return counts


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_until_up(base: str, server: subprocess.Popen) -> None:
    import httpx

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit("gunicorn exited before it served anything")
        try:
            httpx.get(f"{base}/api/v1/sources/", timeout=2)
            return
        except httpx.HTTPError:
            time.sleep(0.2)
    raise SystemExit("gunicorn did not answer within 30 s")


def _deep_cursor(base: str) -> str:
    """The link to page 25 of the plain list: keyset paging should cost what page 1 does."""
    import httpx

    url = f"{base}/api/v1/items/"
    for _ in range(24):
        url = httpx.get(url, timeout=10).json()["next"]
    return url.split("?", 1)[1]


def _hammer(base: str, queries: list[str], requests: int, concurrency: int) -> dict:
    import httpx

    def one(query: str) -> tuple[str, float]:
        started = time.perf_counter()
        response = client.get(f"{base}/api/v1/items/?{query}")
        response.raise_for_status()
        return query, time.perf_counter() - started

    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    with httpx.Client(timeout=30, limits=limits) as client:
        plan = [queries[n % len(queries)] for n in range(requests)]
        started = time.perf_counter()
        with concurrent.futures.ThreadPoolExecutor(concurrency) as pool:
            results = list(pool.map(one, plan))
        elapsed = time.perf_counter() - started
    latencies: dict[str, list[float]] = {}
    for query, seconds in results:
        latencies.setdefault(query, []).append(seconds)
    return {"elapsed": elapsed, "requests": requests, "latencies": latencies}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=20000)
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2, help="gunicorn workers")
    args = parser.parse_args()

    os.environ.update(_environment())
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.conf import settings
    from django.db import connection
    from django.test.utils import setup_databases, teardown_databases

    database = settings.DATABASES["default"]
    if connection.vendor == "sqlite":
        # A file, not memory: gunicorn's processes must open the same database.
        handle, name = tempfile.mkstemp(suffix=".sqlite3")
        os.close(handle)
        database.setdefault("TEST", {})["NAME"] = name
    databases = setup_databases(verbosity=0, interactive=False)
    try:
        print(f"database: {connection.vendor}; filling {args.items} items …", flush=True)
        _fill(args.items)
        counts = _query_counts()
        served = _served_database_url(connection.settings_dict)
        connection.close()
        result = _serve_and_measure(args, served)
    finally:
        teardown_databases(databases, verbosity=0)
    _report(args, result, counts)


def _served_database_url(config: dict) -> str:
    """The test database as a DATABASE_URL for gunicorn's processes."""
    if config["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{config['NAME']}"
    user = quote(config.get("USER") or "")
    password = quote(config.get("PASSWORD") or "")
    auth = f"{user}:{password}@" if password else f"{user}@" if user else ""
    host = f"{config.get('HOST') or '127.0.0.1'}:{config.get('PORT') or 5432}"
    return f"postgres://{auth}{host}/{config['NAME']}"


def _serve_and_measure(args, database_url: str) -> dict:
    env = {**_environment(), "DATABASE_URL": database_url}
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(  # noqa: S603 (our own gunicorn, fixed arguments)
        [
            str(ROOT / ".venv/bin/gunicorn"),
            "aitop.wsgi",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            str(args.workers),
            "--threads",
            "4",
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=env,
    )
    try:
        _wait_until_up(base, server)
        queries = [*QUERIES, _deep_cursor(base)]
        _hammer(base, queries, min(200, args.requests), args.concurrency)  # warm-up
        result = _hammer(base, queries, args.requests, args.concurrency)
    finally:
        server.terminate()
        server.wait(timeout=30)
    return result


def _report(args, result: dict, counts: dict[str, int]) -> None:
    rate = result["requests"] / result["elapsed"]
    print(
        f"\n{result['requests']} requests, {args.concurrency} at a time, gunicorn "
        f"{args.workers}×4 threads: {rate:.0f} requests/s\n"
    )
    print(f"{'query string':<40} {'queries':>7} {'p50 ms':>8} {'p95 ms':>8}")
    for query, seconds in result["latencies"].items():
        label = query if not query.startswith("cursor=") else "cursor=<page 25>"
        label = label or "(no filter)"
        ordered = sorted(seconds)
        p95 = ordered[int(len(ordered) * 0.95) - 1]
        count = counts.get(query, counts[""])
        print(
            f"{label:<40} {count:>7} {statistics.median(ordered) * 1000:>8.1f} {p95 * 1000:>8.1f}"
        )


if __name__ == "__main__":
    main()

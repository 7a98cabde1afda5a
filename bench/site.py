"""Benchmark: the public pages and the API under load, against the project's own hello world.

    .venv/bin/python bench/site.py --database-url postgres://…/aitop_bench_100k [--items 100000]

    make bench BENCH_DB=aitop_bench_100k BENCH_ITEMS=100000

Serves the project with gunicorn as in production (DEBUG off, several
workers, bench/settings.py: the site's settings plus a hello-world URL and a
per-request SQL count), loads each page with `wrk` from this machine for a
few seconds, and prints a Markdown table per state:

- warm: caches filled (CACHE_URL, Redis by default) before the run;
- after a change: an editor's change (`bench.touch.bench_touch`, one workflow
  move) every `--touch-interval` seconds during the run, so pages are rendered
  again while the cards of unchanged items stay cached;
- cold: `CACHE_URL=dummy://`, nothing cached.

A database with no items is first filled by `manage.py bench_seed --items N`,
then about three in ten of its items are grouped into stories
(`manage.py bench_seed_stories`), as the same news from several sources is.
Every request goes to 127.0.0.1 only.
"""

import argparse
import os
import re
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, urlencode

ROOT = Path(__file__).resolve().parent.parent
HELLO = "/_bench/hello/"
HELLO_AGAIN = "hello world (again, at the end)"
HELLO_MANY = "hello world, the API rows' client (many callers)"
STATES = ("warm", "change", "cold")
STATE_TITLES = {"warm": "warm (page cached)", "change": "after a change", "cold": "cold (no cache)"}


@dataclass
class Result:
    page: str
    url: str
    requests_per_second: float
    p50_ms: float
    p99_ms: float
    queries: str
    errors: int
    alone_ms: float
    # CPU seconds per request of the server's processes (bench/cpu.py); None off Linux.
    cpu: object = None
    # The hello world measured just before and after this row's runs (`beside`).
    ceiling: "Run | None" = None


def environment(args) -> dict[str, str]:
    """What gunicorn, manage.py and this process run with."""
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="bench.settings",
        DATABASE_URL=args.database_url,
        DEBUG="0",
        # One machine, loopback only: not the production checks' business.
        AITOP_ENVIRONMENT="test",
        SECRET_KEY=env.get("SECRET_KEY", "benchmark-only-not-a-secret"),
        ALLOWED_HOSTS="127.0.0.1",
        STATIC_MANIFEST="0",
        TASKS_BACKEND="dummy",
        LOG_LEVEL="WARNING",
        # The API's rates stay as deployed (60 and 600 a minute per caller) and are
        # counted on every request, cached or not; wrk calls the API from many
        # addresses (`MANY_CALLERS`), as many readers would, through one trusted proxy.
        AITOP_API_NUM_PROXIES="1",
    )
    return env


def manage(env: dict, *arguments: str) -> None:
    command = [sys.executable, "manage.py", *arguments]
    subprocess.run(command, cwd=ROOT, env=env, check=True)  # noqa: S603 - our own commands


def database_ensure(url: str) -> None:
    """Create the PostgreSQL database the URL names when it does not exist yet."""
    import dj_database_url
    import psycopg

    config = dj_database_url.parse(url)
    if "postgresql" not in config["ENGINE"]:
        return
    with psycopg.connect(
        host=config["HOST"] or "127.0.0.1",
        port=config["PORT"] or 5432,
        user=config["USER"],
        password=config["PASSWORD"] or None,
        dbname="postgres",
        autocommit=True,
    ) as conn:
        found = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [config["NAME"]])
        if found.fetchone() is None:
            conn.execute(
                psycopg.sql.SQL("CREATE DATABASE {}").format(psycopg.sql.Identifier(config["NAME"]))
            )


def pages() -> list[tuple[str, str]]:
    """(label, path) of every page measured, chosen from the seeded data."""
    import datetime

    from django.db.models import Count
    from django.utils import timezone
    from taggit.models import Tag

    from feed.models import Item

    tags = list(
        Tag.objects.annotate(n=Count("feed_taggeditem_items"))
        .order_by("-n")
        .values_list("slug", flat=True)[:2]
    )
    item = Item.objects.visible().newest_first().first()
    yesterday = timezone.localdate() - datetime.timedelta(days=1)

    def query(**params) -> str:
        return "/?" + urlencode(params, doseq=True)

    return [
        ("stream", "/"),
        ("one tag", query(tag=tags[0])),
        ("two tags", query(tag=tags)),
        ("kind+category", query(kind="paper", category="model")),
        ("search, rare 2-char Chinese word", query(q="鲲鹏")),
        ("search, common English word", query(q="reasoning")),
        ("day page", f"/days/{yesterday.isoformat()}/"),
        ("item page", item.get_absolute_url()),
        ("feed.xml", "/feed.xml"),
        ("/api/v1/items/", "/api/v1/items/"),
        ("/api/v1/items/, search, rare 2-char Chinese word", "/api/v1/items/?q=鲲鹏"),
        ("/api/v1/items/<id>/", f"/api/v1/items/{item.pk}/"),
    ]


# What every browser and CDN sends: pages are stored gzipped and sent as they are.
CLIENT_HEADERS = {"Accept-Encoding": "gzip"}


def get(base: str, path: str, headers: dict | None = None) -> tuple[int, dict]:
    url = base + quote(path, safe="/?=&%:")  # always http://127.0.0.1:<port>
    request = urllib.request.Request(url, headers={**CLIENT_HEADERS, **(headers or {})})  # noqa: S310
    try:
        with urllib.request.urlopen(request, timeout=60) as response:  # noqa: S310 - 127.0.0.1
            response.read()
            return response.status, dict(response.headers)
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers)


class Server:
    """gunicorn serving the project on 127.0.0.1, as in production."""

    def __init__(self, *, env: dict, port: int, workers: int, cache_url: str):
        self.base = f"http://127.0.0.1:{port}"
        self.process = subprocess.Popen(  # noqa: S603 - our own server
            [
                str(Path(sys.executable).with_name("gunicorn")),
                "aitop.wsgi",
                f"--bind=127.0.0.1:{port}",
                f"--workers={workers}",
                "--worker-class=sync",
                "--timeout=60",
                "--log-level=warning",
            ],
            cwd=ROOT,
            env={**env, "CACHE_URL": cache_url},
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if get(self.base, HELLO)[0] == 200:
                    return
            except OSError:
                time.sleep(0.2)
        self.stop()
        raise SystemExit("gunicorn did not answer within 60 s")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


_LATENCY = re.compile(r"^\s+(50|99)(?:\.0+)?%\s+([\d.]+)(us|ms|s)\s*$", re.M)
_UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0}


# Each request from another address in 10.0.0.0/8 (X-Forwarded-For): the API's
# per-caller rate holds a few requests per address, as with many readers, not
# one history of every request the benchmark makes.
MANY_CALLERS = Path(__file__).with_name("many_callers.lua")


@dataclass
class Run:
    """One bounded wrk run: requests/s, p50 and p99 in ms, non-2xx/3xx answers, requests."""

    rate: float
    p50: float
    p99: float
    failed: int
    requests: int
    cpu: object = None  # per request, filled in by `measure`


def wrk(
    args, url: str, headers: dict | None = None, *, many_callers: bool = False, duration=None
) -> Run:
    """Load `url` for `duration` seconds (`--duration` unless given)."""
    # wrk's own timeout is 2 s: a slower answer would vanish from the latencies.
    seconds = duration or args.duration
    command = ["wrk", f"-t{args.threads}", f"-c{args.connections}", f"-d{seconds}s"]
    command += ["--timeout", "30s"]
    if many_callers or "/api/" in url:
        command += ["--script", str(MANY_CALLERS)]
    for name, value in {**CLIENT_HEADERS, **(headers or {})}.items():
        command += ["-H", f"{name}: {value}"]
    command += ["--latency", url]
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout  # noqa: S603
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1))
    latency = {p: float(v) * _UNITS[unit] for p, v, unit in _LATENCY.findall(output)}
    latency = latency or {"50": float("nan"), "99": float("nan")}  # nothing answered in time
    errors = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", output)
    timeouts = re.search(r"Socket errors:.*timeout (\d+)", output)
    failed = int(errors.group(1)) if errors else 0
    failed += int(timeouts.group(1)) if timeouts else 0
    requests = int(re.search(r"(\d+) requests in", output).group(1))
    return Run(rate, latency["50"], latency["99"], failed, requests)


def measure(
    args,
    server: Server,
    label: str,
    path: str,
    headers=None,
    after=None,
    many_callers=False,
    beside=False,
) -> Result:
    """Prime the page, read its query count, then load it with wrk.

    With `beside`, a short run of the hello world goes before each of the
    row's runs and after the last, and the row keeps their median as its own
    ceiling: this shared machine's hello world moved by a third within one
    state (2,498 → 3,418 req/s, 4,134 → 2,696 on 7 December), and a row
    measured against the state's first and last ceiling moved with it.
    """
    timings = []
    for _ in range(3):
        started = time.perf_counter()
        get(server.base, path, headers)
        timings.append((time.perf_counter() - started) * 1000)
    if after:
        after()
    status, response_headers = get(server.base, path, headers)
    expected = 304 if headers else 200
    if status != expected:
        raise SystemExit(f"{path} answered {status}, not {expected}")
    queries = response_headers.get("X-Bench-Queries", "?")
    url = server.base + quote(path, safe="/?=&%:")
    from bench.cpu import server_cpu

    def timed(url: str, **options) -> Run:
        before = server_cpu(server.process.pid)
        run = wrk(args, url, **options)
        after_run = server_cpu(server.process.pid)
        if before is not None and after_run is not None and run.requests:
            run.cpu = (after_run - before).per(run.requests)
        return run

    def ceiling() -> Run:
        # The requests a page's run left in the workers end first (cold pages: p99 up to 0.3 s).
        time.sleep(CEILING_PAUSE_SECONDS)
        return timed(server.base + HELLO, duration=CEILING_SECONDS)

    # The run with the median rate, of `--repeat` runs one after the other.
    runs = []
    ceilings = []
    for _ in range(args.repeat):
        if beside:
            ceilings.append(ceiling())
        runs.append(timed(url, headers=headers, many_callers=many_callers))
    if beside:
        ceilings.append(ceiling())
    run = median_run(runs)
    # The last priming request met warm caches (in the warm state): its time alone.
    # The ceiling is the plain client's hello world: beside the row, else the
    # state's first and last rows (`table`).
    shown = f"{path} (many callers)" if many_callers else path
    return Result(
        label,
        shown,
        run.rate,
        run.p50,
        run.p99,
        queries,
        run.failed,
        timings[-1],
        run.cpu,
        ceiling=median_run(ceilings) if ceilings else None,
    )


# Seconds of each hello-world run beside a row (thousands of requests, enough for a
# rate), after a pause for the row's last requests to end.
CEILING_SECONDS = 2
CEILING_PAUSE_SECONDS = 0.5


def median_run(runs: list[Run]) -> Run:
    """The run of median rate (the upper one of an even number)."""
    return sorted(runs, key=lambda run: run.rate)[len(runs) // 2]


_touch_lock = threading.Lock()


def touch() -> None:
    """One visible change; the toucher thread and the query count take turns."""
    from bench.touch import bench_touch

    with _touch_lock:
        bench_touch()


class Toucher(threading.Thread):
    """Makes one visible change every `interval` seconds until stopped."""

    def __init__(self, interval: float):
        super().__init__(daemon=True)
        self.interval = interval
        self.halt = threading.Event()
        self.count = 0

    def run(self):
        from django.db import connection

        while not self.halt.wait(self.interval):
            touch()
            self.count += 1
        connection.close()


def run_state(args, env: dict, state: str, urls: list[tuple[str, str]]) -> list[Result]:
    cache_url = "dummy://" if state == "cold" else args.cache_url
    if cache_url.startswith("redis://"):
        import redis

        redis.Redis.from_url(cache_url).flushdb()
    server = Server(env=env, port=args.port, workers=args.workers, cache_url=cache_url)
    toucher = Toucher(args.touch_interval) if state == "change" else None
    try:
        # Unrecorded: a new server's workers answer their first requests slower
        # (imports, connections: the first ceiling of a state had a p99 of 152 ms
        # and a lone request of 201 ms). The machine's own drift within a state
        # is what `beside` measures around each row.
        wrk(args, server.base + HELLO)
        results = [measure(args, server, "hello world (ceiling)", HELLO)]
        # The API rows' client (every request from another address), against the
        # same hello world: what that client's own work costs the ceiling.
        results.append(measure(args, server, HELLO_MANY, HELLO, many_callers=True))
        if toucher:
            toucher.start()
        for label, path in urls:
            results.append(
                measure(args, server, label, path, after=touch if toucher else None, beside=True)
            )
        # A reader's copy still current: the stream's, and the API list's (anonymous).
        for label, path in (("stream, 304", "/"), ("/api/v1/items/, 304", "/api/v1/items/")):
            if args.only and args.only not in label and path == "/api/v1/items/":
                continue
            etag = get(server.base, path)[1].get("ETag")
            if etag and state != "change":
                results.append(
                    measure(args, server, label, path, {"If-None-Match": etag}, beside=True)
                )
        if toucher:
            toucher.halt.set()
            toucher.join()
        # Once more at the end, as at the start: one 3 s run of the ceiling moved
        # by ±15 % on this shared machine, and every ratio of the state with it.
        results.append(measure(args, server, HELLO_AGAIN, HELLO))
    finally:
        if toucher:
            toucher.halt.set()
            toucher.join()
        server.stop()
    if toucher:
        print(f"({toucher.count} changes during the after-a-change runs)", file=sys.stderr)
    return results


def table(results: list[Result]) -> str:
    """The state's rows, each against the hello world measured beside it.

    A row's ratio is to the hello world's runs just before and after its own
    (`measure(beside=True)`), by requests a second and by the server's CPU per
    request (the hello world's over the row's, bench/cpu.py). The ratio to the
    mean of the state's first and last hello world, the only one before stop
    38, is given too.
    """
    hellos = [r for r in results if r.url == HELLO]
    state_ceiling = sum(r.requests_per_second for r in hellos) / len(hellos)
    hello_cpu = [r.cpu.total for r in hellos if r.cpu is not None]
    state_cpu = sum(hello_cpu) / len(hello_cpu) if hello_cpu else None
    lines = [
        "| page | req/s | p50 ms | p99 ms | hello world beside it, req/s | × hello world "
        "| × the state's first and last hello world | SQL per request | errors "
        "| one request alone, ms | server CPU µs a request: web + Redis + PostgreSQL "
        "| × hello world by CPU |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in results:
        beside = r.ceiling.rate if r.ceiling else state_ceiling
        beside_cpu = r.ceiling.cpu.total if r.ceiling and r.ceiling.cpu else state_cpu
        cpu = by_cpu = "–"
        if r.cpu is not None and beside_cpu:
            cpu = (
                f"{r.cpu.total * 1e6:,.0f} = {r.cpu.web * 1e6:,.0f} + "
                f"{r.cpu.redis * 1e6:,.0f} + {r.cpu.postgres * 1e6:,.0f}"
            )
            by_cpu = f"{beside_cpu / r.cpu.total:.0%}" if r.cpu.total > 0 else "–"
        shown_beside = f"{r.ceiling.rate:,.0f}" if r.ceiling else "–"
        lines.append(
            f"| {r.page} | {r.requests_per_second:,.0f} | {r.p50_ms:.1f} | {r.p99_ms:.1f} | "
            f"{shown_beside} | {r.requests_per_second / beside:.0%} | "
            f"{r.requests_per_second / state_ceiling:.0%} | {r.queries} | {r.errors} | "
            f"{r.alone_ms:.0f} | {cpu} | {by_cpu} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", default=os.environ.get("DATABASE_URL"))
    parser.add_argument("--items", type=int, default=10_000, help="seed this many if empty")
    parser.add_argument("--port", type=int, default=18200)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--threads", type=int, default=2, help="wrk threads")
    parser.add_argument("--connections", type=int, default=16, help="wrk connections")
    parser.add_argument("--duration", type=int, default=3, help="seconds of each wrk run")
    parser.add_argument("--cache-url", default="redis://127.0.0.1:6379/2")
    parser.add_argument(
        "--repeat", type=int, default=1, help="wrk runs per row; the one of median rate is shown"
    )
    parser.add_argument("--touch-interval", type=float, default=0.1)
    parser.add_argument("--states", default=",".join(STATES))
    parser.add_argument("--only", help="measure only the pages whose label contains this")
    args = parser.parse_args()
    if not args.database_url:
        raise SystemExit("give --database-url (or DATABASE_URL): a database of its own")
    if re.search(r"/aitop/?$", args.database_url):
        raise SystemExit("refusing to benchmark the `aitop` database: use one of its own")

    database_ensure(args.database_url)
    env = environment(args)
    os.environ.update(env)
    sys.path.insert(0, str(ROOT))
    manage(env, "migrate", "--noinput", "--verbosity=0")
    import django

    django.setup()
    from feed.models import Item
    from stories.models import StoryItem

    if not Item.objects.exists():
        manage(env, "bench_seed", f"--items={args.items}")
    if not StoryItem.objects.exists():
        # A database seeded before stories were part of the benchmark gets them too.
        manage(env, "bench_seed_stories")
    urls = [(label, path) for label, path in pages() if not args.only or args.only in label]
    load = ", ".join(f"{n:.1f}" for n in os.getloadavg())
    print(
        f"load average before the run {load}; "
        f"{Item.objects.count():,} items ({Item.objects.visible().count():,} visible); "
        f"gunicorn {args.workers} sync workers; wrk -t{args.threads} -c{args.connections} "
        f"-d{args.duration}s, median of {args.repeat} run(s) a row\n"
    )
    for state in args.states.split(","):
        load = ", ".join(f"{n:.1f}" for n in os.getloadavg())
        results = run_state(args, env, state, urls)
        print(f"### {STATE_TITLES[state]} (load before: {load})\n\n{table(results)}\n", flush=True)


if __name__ == "__main__":
    main()

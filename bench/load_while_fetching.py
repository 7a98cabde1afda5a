"""Readers under load while the desk fetches: wrk on the stream, an item, a feed and the API.

    python bench/load_while_fetching.py --database-url postgres://postgres@127.0.0.1:5432/aitop_x

Serves the given (seeded, migrated) database with gunicorn on 127.0.0.1, then
runs wrk (32 connections, the four addresses in turn) twice: idle, and while
`manage.py fetch_sources --all` fetches loopback feeds in a loop, every round
bringing new entries. Prints requests/s, p50/p99 latency and non-2xx answers
for both runs. Everything stays on 127.0.0.1; every process is stopped at the end.
"""

import argparse
import http.server
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
LUA = """
local paths = {%s}
local n = 0
request = function()
  n = n + 1
  return wrk.format("GET", paths[(n %% #paths) + 1])
end
"""


class Feeds:
    """RSS on 127.0.0.1 whose entries change every request, so each fetch writes."""

    def __init__(self, port: int):
        count = {"n": 0}

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                count["n"] += 1
                items = "".join(
                    f"<item><title>Load entry {count['n']}-{i}</title>"
                    f"<link>https://load.example{self.path}/{count['n']}/{i}</link></item>"
                    for i in range(20)
                )
                body = f'<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>{items}</channel></rss>'.encode()  # noqa: E501
                self.send_response(200)
                self.send_header("Content-Type", "application/rss+xml")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()


def _env(args, **extra) -> dict:
    return {
        **os.environ,
        "DATABASE_URL": args.database_url,
        "DEBUG": "0",
        "SECRET_KEY": "load-test-only-not-a-secret",
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_COOKIES": "0",
        "CACHE_URL": args.cache_url,
        "STATIC_MANIFEST": "0",
        "TASKS_BACKEND": "dummy",
        "LOG_LEVEL": "WARNING",
        "AITOP_API_ANON_RATE": "100000000/min",
        **extra,
    }


def _wrk(url: str, paths: list[str], seconds: int, connections: int) -> dict:
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write(LUA % ", ".join(json.dumps(p) for p in paths))
    out = subprocess.run(  # noqa: S603
        [  # noqa: S607 (Debian's wrk, on PATH)
            "wrk",
            "-t2",
            f"-c{connections}",
            f"-d{seconds}s",
            "--timeout",
            "10s",
            "--latency",
            "-s",
            script.name,
            url,
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    os.unlink(script.name)

    def ms(label):
        value, unit = re.search(rf"{label}%\s+([\d.]+)(us|ms|s)", out).groups()
        return float(value) * {"us": 0.001, "ms": 1, "s": 1000}[unit]

    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    errors = re.search(r"Socket errors: (.*)", out)
    return {
        "requests/s": float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)),
        "p50 ms": ms("50"),
        "p99 ms": ms("99"),
        "non-2xx": int(non2xx.group(1)) if non2xx else 0,
        "socket errors": errors.group(1) if errors else "none",
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--cache-url", default="redis://127.0.0.1:6379/7")
    parser.add_argument("--port", type=int, default=18701)
    parser.add_argument("--feed-port", type=int, default=18702)
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--sources", type=int, default=30)
    args = parser.parse_args()
    manage = [sys.executable, "manage.py"]
    feed_base = f"http://127.0.0.1:{args.feed_port}"
    subprocess.run(  # noqa: S603
        [
            *manage,
            "shell",
            "-c",
            (
                "from feed.models import Source\n"
                f"for n in range({args.sources}):\n"
                f"    Source.objects.get_or_create(slug=f'load-{{n}}', defaults=dict("
                f"name=f'Load {{n}}', kind='news', feed_url='{feed_base}/feed/' + str(n)))\n"
            ),
        ],
        cwd=PROJECT,
        env=_env(args, AITOP_ENVIRONMENT="test"),
        check=True,
    )
    Feeds(args.feed_port)
    web = subprocess.Popen(  # noqa: S603
        [
            sys.executable,
            "-m",
            "gunicorn",
            "aitop.wsgi",
            "--bind",
            f"127.0.0.1:{args.port}",
            "--workers",
            "2",
            "--threads",
            "4",
        ],
        cwd=PROJECT,
        env=_env(args),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{args.port}"
    try:
        for _ in range(100):
            try:
                api = json.load(urllib.request.urlopen(f"{base}/api/v1/items/?page_size=1"))  # noqa: S310
                break
            except OSError:
                time.sleep(0.2)
        item = api["results"][0]["page_url"].replace(base, "")
        paths = ["/", item, "/feed.xml", "/api/v1/items/"]
        for path in paths:
            urllib.request.urlopen(base + path).read()  # noqa: S310 (warm the caches)
        idle = _wrk(base, paths, args.seconds, args.connections)
        stop = threading.Event()
        rounds = {"n": 0}

        def fetch_loop():
            env = _env(
                args,
                AITOP_ENVIRONMENT="test",
                AITOP_FETCH_ALLOW_HOSTS="127.0.0.1",
                AITOP_FETCH_HOST_GAP="0",
            )
            while not stop.is_set():
                subprocess.run(  # noqa: S603 (our own manage.py)
                    [*manage, "fetch_sources", "--all"],
                    cwd=PROJECT,
                    env=env,
                    capture_output=True,
                    check=False,
                )
                rounds["n"] += 1

        fetcher = threading.Thread(target=fetch_loop)
        fetcher.start()
        busy = _wrk(base, paths, args.seconds, args.connections)
        stop.set()
        fetcher.join()
    finally:
        web.terminate()
        web.wait()
    print(f"paths: {', '.join(paths)}; {args.connections} connections, {args.seconds} s each")
    print(f"fetch rounds while busy: {rounds['n']} × {args.sources} sources × 20 new entries")
    for name, run in (("idle", idle), ("while fetching", busy)):
        print(f"{name:15} " + ", ".join(f"{k} {v}" for k, v in run.items()))
    ratio = busy["p99 ms"] / idle["p99 ms"] if idle["p99 ms"] else float("inf")
    print(f"p99 while fetching / idle: {ratio:.2f}")
    return 0 if busy["non-2xx"] == 0 and idle["non-2xx"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

"""Real HTTP servers on 127.0.0.1 for the tests: feeds, faults and hostile answers.

Each route is a function given the request handler; it writes whatever
bytes it likes, so a test can serve a stall, an endless body or a gzip bomb
as easily as a feed. Every request is recorded (path, headers), and the
most requests ever in flight at once is counted.
"""

import gzip
import http.server
import os
import ssl
import threading
from collections.abc import Callable
from pathlib import Path

# The corpus of real-world feed documents, in the repository (tests/data/README.md
# says where each came from); AITOP_FEED_CORPUS points elsewhere to try another.
FEEDS = Path(
    os.environ.get("AITOP_FEED_CORPUS", Path(__file__).resolve().parent / "data" / "feeds")
)

Route = Callable[[http.server.BaseHTTPRequestHandler], None]


class LoopbackServer:
    def __init__(self, *, ssl_context: ssl.SSLContext | None = None, host: str = "127.0.0.1"):
        self.routes: dict[str, Route] = {}
        self.requests: list[tuple[str, dict[str, str]]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.lock = threading.Lock()
        # Set when the server stops: handlers that stall wait on it, not on a clock.
        self.stopping = threading.Event()
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):
                with server.lock:
                    server.requests.append((self.path, dict(self.headers)))
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    route = server.routes.get(self.path.split("?", 1)[0])
                    if route is None:
                        respond(self, b"not found", status=404, content_type="text/plain")
                    else:
                        route(self)
                except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
                    pass
                finally:
                    with server.lock:
                        server.in_flight -= 1

            def log_message(self, *args):
                pass

        class Server(http.server.ThreadingHTTPServer):
            def handle_error(self, request, client_address):
                # A client that hangs up, or refuses our test certificate: expected.
                pass

        self.httpd = Server((host, 0), Handler)
        self.httpd.daemon_threads = True
        if ssl_context is not None:
            self.httpd.socket = ssl_context.wrap_socket(self.httpd.socket, server_side=True)
        self.port = self.httpd.server_address[1]
        self.scheme = "https" if ssl_context else "http"
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()

    def url(self, path: str, *, host: str = "127.0.0.1") -> str:
        return f"{self.scheme}://{host}:{self.port}{path}"

    def route(self, path: str, handler: Route) -> str:
        self.routes[path] = handler
        return self.url(path)

    def serve(self, path: str, body: bytes, **kwargs) -> str:
        """Serve fixed bytes at `path` (headers, status and content type in kwargs)."""
        return self.route(path, lambda h: respond(h, body, **kwargs))

    def serve_feed_file(self, path: str, name: str, **kwargs) -> str:
        return self.serve(path, (FEEDS / name).read_bytes(), **kwargs)

    def hits(self, path: str) -> int:
        return sum(1 for requested, _ in self.requests if requested.split("?", 1)[0] == path)

    def stop(self) -> None:
        self.stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()


def respond(
    handler,
    body: bytes,
    *,
    status: int = 200,
    content_type: str = "application/xml",
    headers: dict[str, str] | None = None,
) -> None:
    handler.send_response(status)
    handler.send_header("Content-Type", content_type)
    handler.send_header("Content-Length", str(len(body)))
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(body)


def gzipped(body: bytes) -> bytes:
    return gzip.compress(body)


def rss(*items: str, channel_extra: str = "", encoding: str = "utf-8") -> bytes:
    """A small RSS 2.0 document around the given <item> elements."""
    return (
        f'<?xml version="1.0" encoding="{encoding}"?>\n'
        '<rss version="2.0"><channel><title>Test feed</title>'
        f"<link>https://news.example/</link>{channel_extra}{''.join(items)}</channel></rss>"
    ).encode(encoding)


def rss_item(n: int, *, title: str | None = None, extra: str = "", host="news.example") -> str:
    return (
        f"<item><title>{title or f'Story number {n}'}</title>"
        f"<link>https://{host}/stories/{n}</link><guid>https://{host}/stories/{n}</guid>"
        f"<pubDate>Mon, 30 Nov 2026 10:{n % 60:02d}:00 GMT</pubDate>"
        f"<description>Summary of story {n}. It says something.</description>{extra}</item>"
    )

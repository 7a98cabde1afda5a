"""A webhook receiver on 127.0.0.1 for the tests: it records each POST and answers as told."""

import http.server
import threading
from dataclasses import dataclass


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


class Receiver:
    """Answers the statuses in `script` in turn (then 200); records every request."""

    def __init__(self, script: list[int] | None = None):
        self.script = list(script or [])
        self.received: list[Received] = []
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                receiver.received.append(Received(self.path, dict(self.headers), body))
                status = receiver.script.pop(0) if receiver.script else 200
                answer = b"ok" if status < 300 else b"receiver is down"
                self.send_response(status)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/hooks/aitop"

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

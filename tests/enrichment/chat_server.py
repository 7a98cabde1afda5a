"""A chat-completions server on 127.0.0.1 that answers from a script, for the HTTP backend's tests.

Each POST to /v1/chat/completions takes the next step of the script: a good
answer, any status with any headers and body, or a stall longer than the
client's timeout. Every request body is recorded, and the most requests ever
in flight at once is counted.
"""

import collections
import http.server
import json
import threading


def completion(content, *, tokens_in: int = 120, tokens_out: int = 60, model: str = "test-model"):
    """A chat-completions response body whose message is `content` (JSON-encoded unless a str)."""
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "model": model,
        "choices": [
            {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}
        ],
        "usage": {
            "prompt_tokens": tokens_in,
            "completion_tokens": tokens_out,
            "total_tokens": tokens_in + tokens_out,
        },
    }


class ChatServer:
    def __init__(self):
        self.script: collections.deque = collections.deque()
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.hold = 0.0  # seconds each answer waits (to see concurrency), cut short on stop
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                with server.lock:
                    server.requests.append(body)
                    server.headers.append(dict(self.headers))
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                    step = server.script.popleft() if server.script else ("status", 500, {}, b"")
                try:
                    if server.hold:
                        server.stopping.wait(server.hold)
                    kind = step[0]
                    if kind == "stall":
                        server.stopping.wait(step[1])
                        return
                    _, status, headers, payload = step
                    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass
                finally:
                    with server.lock:
                        server.in_flight -= 1

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def answer(self, content, **kwargs) -> None:
        """Queue a 200 whose message is `content`."""
        self.script.append(("status", 200, {}, completion(content, **kwargs)))

    def status(self, code: int, *, headers: dict | None = None, body=b"") -> None:
        """Queue a response with this status, headers and body (bytes or JSON)."""
        self.script.append(("status", code, headers or {}, body))

    def stall(self, seconds: float) -> None:
        """Queue a request that gets no answer for `seconds` (or until the server stops)."""
        self.script.append(("stall", seconds))

    def stop(self) -> None:
        self.stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()

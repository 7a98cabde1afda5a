"""A webhook try is bounded: one wall-clock deadline; the answer read only as far as it is kept."""

import contextlib
import gzip
import socket
import threading
import time
import tracemalloc

import pytest

from tests.factories import make_item
from webhooks.delivery import RESPONSE_KEEP, delivery_attempt
from webhooks.models import Delivery, Webhook

pytestmark = pytest.mark.django_db


class RawReceiver:
    """A TCP server on 127.0.0.1 whose answer is a function of the socket: drips, floods, bombs."""

    def __init__(self, answer):
        self.answer = answer
        self.requests: list[bytes] = []
        self.stopping = threading.Event()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        self.listener.settimeout(0.1)
        while not self.stopping.is_set():
            try:
                conn, _ = self.listener.accept()
            except TimeoutError:
                continue
            with conn:
                conn.settimeout(5)
                request = b""
                while b"\r\n\r\n" not in request:
                    request += conn.recv(65536)
                self.requests.append(request)
                # OSError: the client hung up, as it should.
                with contextlib.suppress(OSError):
                    self.answer(conn, self.stopping)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    def stop(self):
        self.stopping.set()
        self.thread.join(timeout=5)
        self.listener.close()


@pytest.fixture
def raw_receiver(settings):
    settings.WEBHOOK_ALLOW_HOSTS = ["127.0.0.1"]
    settings.WEBHOOK_TIMEOUT = 1.0
    made = []

    def make(answer) -> RawReceiver:
        made.append(RawReceiver(answer))
        return made[-1]

    yield make
    for receiver in made:
        receiver.stop()


def _delivery(url: str) -> Delivery:
    hook = Webhook.objects.create(name="bot", url=url, secret="s", events=["item.published"])
    item = make_item()
    return Delivery.objects.create(webhook=hook, event="item.published", item_id=item.pk, body="{}")


def drip_headers(conn, stopping):
    """Each header line well within httpx's read timeout; the whole far past the deadline."""
    conn.sendall(b"HTTP/1.1 200 OK\r\n")
    for n in range(40):
        if stopping.wait(0.2):
            return
        conn.sendall(f"X-Drip-{n}: x\r\n".encode())
    conn.sendall(b"Content-Length: 2\r\n\r\nok")


def test_headers_dripped_past_the_deadline_end_the_try_on_time(raw_receiver):
    receiver = raw_receiver(drip_headers)
    delivery = _delivery(receiver.url)
    started = time.monotonic()

    attempt = delivery_attempt(delivery=delivery)

    elapsed = time.monotonic() - started
    assert elapsed < 2.0
    assert (attempt.succeeded, attempt.response_status) == (False, None)
    assert attempt.error == "no complete answer within 1 s"
    delivery.refresh_from_db()
    assert delivery.status == Delivery.Status.RETRYING


def drip_body(conn, stopping):
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n")
    for _ in range(100):
        if stopping.wait(0.1):
            return
        conn.sendall(b"x")


def test_a_body_dripped_past_the_deadline_ends_the_try_on_time(raw_receiver):
    receiver = raw_receiver(drip_body)
    started = time.monotonic()

    attempt = delivery_attempt(delivery=_delivery(receiver.url))

    assert time.monotonic() - started < 2.0
    assert attempt.error == "no complete answer within 1 s"


def flood(conn, stopping):
    conn.sendall(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 104857600\r\n\r\n"
    )
    chunk = b"y" * 65536
    for _ in range(1600):
        if stopping.is_set():
            return
        conn.sendall(chunk)


def test_a_huge_answer_is_read_only_as_far_as_the_log_keeps_it(raw_receiver):
    receiver = raw_receiver(flood)
    delivery = _delivery(receiver.url)
    tracemalloc.start()
    try:
        attempt = delivery_attempt(delivery=delivery)
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert attempt.succeeded
    assert attempt.response_body == "y" * RESPONSE_KEEP
    assert peak < 5 * 1024 * 1024


BOMB = gzip.compress(b"z" * (200 * 1024 * 1024))


def gzip_bomb(conn, stopping):
    conn.sendall(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Encoding: gzip\r\n"
        + f"Content-Length: {len(BOMB)}\r\n\r\n".encode()
        + BOMB
    )


def test_a_compressed_answer_is_never_decompressed_and_identity_is_asked(raw_receiver):
    receiver = raw_receiver(gzip_bomb)
    delivery = _delivery(receiver.url)
    tracemalloc.start()
    try:
        attempt = delivery_attempt(delivery=delivery)
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert attempt.succeeded
    assert len(attempt.response_body) <= RESPONSE_KEEP
    assert "\x00" not in attempt.response_body  # logged as it came, NULs made visible
    assert peak < 5 * 1024 * 1024
    assert b"\r\nAccept-Encoding: identity\r\n" in receiver.requests[0]

"""The network guard: no URL reaches an address of our own network, however it is spelt."""

import contextlib
import ipaddress
import socket
import ssl
import threading
import time

import httpx
import pytest

from aitop.netguard import (
    BlockedAddressError,
    Deadline,
    address_refusal,
    guarded_client,
    resolve_checked,
    url_refusal,
    verifying_ssl_context,
)
from tests.loopback import LoopbackServer, respond


@pytest.fixture
def server():
    loopback = LoopbackServer()
    loopback.serve("/", b"hello", content_type="text/plain")
    yield loopback
    loopback.stop()


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("127.0.0.1", "loopback"),
        ("127.8.9.10", "loopback"),
        ("::1", "loopback"),
        ("10.1.2.3", "private"),
        ("172.16.0.1", "private"),
        ("192.168.1.1", "private"),
        ("fd00::1", "private"),
        ("169.254.169.254", "link-local"),
        ("fe80::1", "link-local"),
        ("224.0.0.1", "multicast"),
        ("ff02::1", "multicast"),
        ("0.0.0.0", "unspecified"),  # noqa: S104 (an address under test, not a bind)
        ("::", "unspecified"),
        ("240.0.0.1", "reserved"),
        ("100.64.0.1", "not globally reachable"),
        ("::ffff:127.0.0.1", "loopback (inside ::ffff:127.0.0.1)"),
        ("::ffff:169.254.169.254", "link-local (inside ::ffff:169.254.169.254)"),
        ("64:ff9b::7f00:1", "loopback (inside 64:ff9b::7f00:1)"),
        ("2002:7f00:1::", "loopback (inside 2002:7f00:1::)"),
    ],
)
def test_every_kind_of_non_public_address_is_refused_with_its_reason(address, reason):
    assert address_refusal(ipaddress.ip_address(address)) == reason


@pytest.mark.parametrize("address", ["93.184.215.14", "1.1.1.1", "2606:4700:4700::1111"])
def test_public_addresses_pass(address):
    assert address_refusal(ipaddress.ip_address(address)) is None


@pytest.mark.parametrize(
    "host", ["127.0.0.1", "2130706433", "127.1", "0x7f.0.0.1", "017700000001", "::ffff:127.0.0.1"]
)
def test_every_spelling_of_loopback_is_caught_on_the_resolved_address(host):
    with pytest.raises(BlockedAddressError) as refused:
        resolve_checked(host, 80)
    # Which address the name resolved to, or what kind it is, is never said.
    assert str(refused.value) == f"refused to connect to {host}: not a public address"


def test_the_guarded_client_never_connects_to_a_refused_address(server):
    for url in (
        server.url("/"),
        f"http://2130706433:{server.port}/",
        f"http://127.1:{server.port}/",
        f"http://[::ffff:127.0.0.1]:{server.port}/",
        f"http://localhost:{server.port}/",
    ):
        with (
            guarded_client(timeout=2, allow_hosts=[]) as client,
            pytest.raises(BlockedAddressError, match="refused to connect"),
        ):
            client.get(url)
    assert server.requests == []


def test_an_allowed_host_is_reached(server):
    with guarded_client(timeout=2, allow_hosts=["127.0.0.1"]) as client:
        response = client.get(server.url("/"))

    assert response.text == "hello"


def test_every_redirect_hop_is_checked_when_the_client_follows_redirects(server):
    # "localhost" is allowed by name; the hop to 127.0.0.1 is not.
    server.route(
        "/hop", lambda h: respond(h, b"", status=302, headers={"Location": server.url("/")})
    )
    with (
        guarded_client(timeout=2, allow_hosts=["localhost"], follow_redirects=True) as client,
        pytest.raises(BlockedAddressError, match=r"127\.0\.0\.1"),
    ):
        client.get(server.url("/hop", host="localhost"))

    assert server.hits("/hop") == 1
    assert server.hits("/") == 0


def test_the_guarded_client_ignores_proxies_from_the_environment(server, monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("ALL_PROXY", "http://127.0.0.1:9")
    with guarded_client(timeout=2, allow_hosts=["127.0.0.1"]) as client:
        assert client.get(server.url("/")).status_code == 200


def test_a_name_that_does_not_resolve_is_a_connect_error():
    with pytest.raises(httpx.ConnectError, match="cannot resolve"):
        resolve_checked("no-such-host.invalid", 80)


def test_a_network_on_the_allow_list_lets_every_address_in_it_through():
    second = LoopbackServer(host="127.0.0.2")
    try:
        second.serve("/", b"second")
        with guarded_client(timeout=2, allow_hosts=["127.0.0.0/8"]) as client:
            assert client.get(second.url("/", host="127.0.0.2")).text == "second"
        assert resolve_checked("127.0.0.2", 80, allow_hosts=["127.0.0.0/8"]) == ["127.0.0.2"]
    finally:
        second.stop()


def test_a_network_lets_through_only_the_addresses_it_holds():
    with pytest.raises(BlockedAddressError, match=r"10\.0\.0\.1"):
        resolve_checked("10.0.0.1", 80, allow_hosts=["127.0.0.0/8", "192.168.0.0/16"])
    with pytest.raises(BlockedAddressError, match="::1"):
        resolve_checked("::1", 80, allow_hosts=["127.0.0.0/8"])
    assert resolve_checked("::ffff:127.0.0.9", 80, allow_hosts=["127.0.0.0/8"]) == [
        "::ffff:127.0.0.9"
    ]


@pytest.mark.parametrize(
    ("url", "refusal"),
    [
        ("https://news.example/feed", None),
        ("HTTP://news.example/", None),
        ("ftp://news.example/feed", "scheme"),
        ("/relative/feed", "scheme"),
        ("https:///no-host", "no host"),
        ("http://[::1", "unreadable"),
    ],
)
def test_one_scheme_and_host_check_for_every_outgoing_url(url, refusal):
    assert url_refusal(url) == refusal


def test_threads_asking_for_a_tls_context_at_once_load_the_bundle_once(tmp_path, monkeypatch):
    import trustme

    bundle = tmp_path / "ca.pem"
    trustme.CA().cert_pem.write_to_path(str(bundle))
    loads = []
    load_verify_locations = ssl.SSLContext.load_verify_locations

    def slow_load(context, *args, **kwargs):
        loads.append(context)
        threading.Event().wait(0.05)  # wide open for a second thread to build its own
        return load_verify_locations(context, *args, **kwargs)

    monkeypatch.setattr(ssl.SSLContext, "load_verify_locations", slow_load)
    start = threading.Barrier(8)
    contexts = []

    def ask():
        start.wait()
        contexts.append(verifying_ssl_context(str(bundle)))

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len(loads) == 1
    assert all(context is loads[0] for context in contexts)
    assert len(contexts) == 8


def test_a_deadline_among_many_later_ones_is_cut_when_it_passes():
    threads_before = threading.active_count()
    with contextlib.ExitStack() as later:
        waiting = [later.enter_context(Deadline(60)) for _ in range(200)]
        # One watchdog thread at most, whatever the number of deadlines.
        assert threading.active_count() <= threads_before + 1
        reader, writer = socket.socketpair()
        with reader, writer, Deadline(0.2) as soon:
            soon.sockets.append(reader)
            started = time.monotonic()
            # Blocks until the watchdog shuts the socket down (then reads b"").
            reader.settimeout(5)
            assert reader.recv(1) == b""
            assert time.monotonic() - started < 2
        assert soon.expired
        assert not any(deadline.expired for deadline in waiting)

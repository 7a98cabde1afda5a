"""Webhook signatures: what a receiver computes to trust a body."""

import hashlib
import hmac

from webhooks.signing import signature_header, signature_verify

BODY = '{"event":"item.published","data":{"item":{"title":"长上下文"}}}'.encode()


def test_signature_is_hmac_sha256_of_time_and_body():
    header = signature_header(secret="s3cret", body=BODY, timestamp=1_780_000_000)

    expected = hmac.new(b"s3cret", b"1780000000." + BODY, hashlib.sha256).hexdigest()
    assert header == f"t=1780000000,v1={expected}"


def test_receiver_accepts_a_fresh_signature_of_the_same_body():
    header = signature_header(secret="s3cret", body=BODY, timestamp=1_780_000_000)

    assert signature_verify(secret="s3cret", body=BODY, header=header, now=1_780_000_100)


def test_receiver_refuses_another_secret_a_changed_body_or_an_old_signature():
    header = signature_header(secret="s3cret", body=BODY, timestamp=1_780_000_000)

    assert not signature_verify(secret="other", body=BODY, header=header, now=1_780_000_000)
    assert not signature_verify(secret="s3cret", body=BODY + b" ", header=header, now=1_780_000_000)
    assert not signature_verify(secret="s3cret", body=BODY, header=header, now=1_780_000_301)
    assert not signature_verify(secret="s3cret", body=BODY, header="garbage", now=1_780_000_000)

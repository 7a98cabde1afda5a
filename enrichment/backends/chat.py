"""Any OpenAI-compatible chat-completions endpoint, through httpx.

One request per item with a JSON schema for the answer (structured output);
429 is retried after its Retry-After, 5xx and timeouts after an exponential
backoff; at most AITOP_AI_CONCURRENCY requests are in flight per process;
every call is paid from the daily token budget before it is made.
"""

import datetime
import email.utils
import logging
import threading
import time
from collections.abc import Callable

import httpx
from django.conf import settings
from django.utils import timezone

from aitop.backoff import backoff_seconds
from aitop.days import utc_if_naive
from aitop.netguard import ssl_context_once
from enrichment.backends.base import Answer, BackendError, BudgetExhausted
from enrichment.budget import budget_reserve, budget_settle, cost_estimate
from enrichment.prompts import Prompt, prompt_render
from enrichment.text import plain_text
from enrichment.validate import answer_schema
from feed.models import Item

logger = logging.getLogger(__name__)

# How much of an entry goes into the prompt: enough for a summary, and a
# bound on what one hostile entry can cost.
BODY_CHARS = 4000
SUMMARY_CHARS = 2000
BACKOFF_BASE = 1.0  # seconds before the first retry of a 5xx or a timeout

_slots_lock = threading.Lock()
_slots: dict[int, threading.BoundedSemaphore] = {}


def _slots_for(limit: int) -> threading.BoundedSemaphore:
    """The process-wide semaphore that bounds requests in flight."""
    with _slots_lock:
        if limit not in _slots:
            _slots[limit] = threading.BoundedSemaphore(max(1, limit))
        return _slots[limit]


def retry_after_seconds(value: str | None, *, now: datetime.datetime) -> float | None:
    """Seconds a Retry-After header asks us to wait (delay-seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    when = utc_if_naive(when)
    return max(0.0, (when - now).total_seconds())


def entry_for_prompt(item: Item) -> dict:
    """The entry as the model sees it: plain text, bounded, and nothing of ours."""
    return {
        "title": plain_text(item.title),
        "source": item.source.name,
        "kind": item.kind,
        "authors": item.authors[:300],
        "url": item.url,
        "summary": plain_text(item.summary)[:SUMMARY_CHARS],
        "body": plain_text(item.body)[:BODY_CHARS],
    }


def tokens_estimate(prompt: Prompt, *, max_output: int) -> int:
    """An upper estimate of a call's tokens, reserved from the budget before calling."""
    # About one token per two characters covers Chinese (about one per
    # character is rare) and English (about one per four) from above.
    return (len(prompt.system) + len(prompt.user)) // 2 + max_output


class ChatBackend:
    name = "chat"

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str = "",
        timeout: float = 30.0,
        max_retries: int = 3,
        max_retry_wait: float = 60.0,
        concurrency: int = 2,
        max_output_tokens: int = 800,
        sleep: Callable[[float], None] = time.sleep,
        transport: httpx.BaseTransport | None = None,
    ):
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key = api_key
        self.timeout = timeout
        self.max_retries = max_retries
        self.max_retry_wait = max_retry_wait
        self.slots = _slots_for(concurrency)
        self.max_output_tokens = max_output_tokens
        self.sleep = sleep
        self.transport = transport

    @classmethod
    def from_settings(cls, **overrides) -> "ChatBackend":
        options = {
            "base_url": settings.AITOP_AI_BASE_URL,
            "model": settings.AITOP_AI_MODEL,
            "api_key": settings.AITOP_AI_API_KEY,
            "timeout": settings.AITOP_AI_TIMEOUT,
            "max_retries": settings.AITOP_AI_MAX_RETRIES,
            "max_retry_wait": settings.AITOP_AI_MAX_RETRY_WAIT,
            "concurrency": settings.AITOP_AI_CONCURRENCY,
            "max_output_tokens": settings.AITOP_AI_MAX_OUTPUT_TOKENS,
        }
        return cls(**(options | overrides))

    def request_body(self, prompt: Prompt) -> dict:
        return {
            "model": self.model,
            "messages": [
                {"role": "system", "content": prompt.system},
                {"role": "user", "content": prompt.user},
            ],
            "temperature": 0,
            "max_tokens": self.max_output_tokens,
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "aitop_item", "strict": True, "schema": answer_schema()},
            },
        }

    def answer(self, *, item: Item, language: str, now: datetime.datetime) -> Answer:
        """Ask the model for the item's fields; the answer's text is validated by the caller."""
        prompt = prompt_render(entry=entry_for_prompt(item), language=language)
        reserved = tokens_estimate(prompt, max_output=self.max_output_tokens)
        if not budget_reserve(tokens=reserved, now=now):
            raise BudgetExhausted
        tokens_in = tokens_out = 0
        called = False
        try:
            called = True
            payload = self._post_slot(self.request_body(prompt))
            usage = payload.get("usage") or {}
            tokens_in = _count(usage.get("prompt_tokens"))
            tokens_out = _count(usage.get("completion_tokens"))
            content = _content(payload, tokens_in=tokens_in, tokens_out=tokens_out)
        finally:
            cost = cost_estimate(tokens_in=tokens_in, tokens_out=tokens_out)
            budget_settle(
                reserved=reserved,
                tokens_in=tokens_in,
                tokens_out=tokens_out,
                cost=cost,
                now=now,
                called=called,
            )
        return Answer(
            backend=self.name,
            model=str(payload.get("model") or self.model)[:200],
            prompt_version=prompt.version,
            content=content,
            tokens_in=tokens_in,
            tokens_out=tokens_out,
            cost=cost,
        )

    def _post_slot(self, body: dict) -> dict:
        """`_post` once a slot is free: at most AITOP_AI_CONCURRENCY in flight per process."""
        with self.slots:
            return self._post(body)

    def _post(self, body: dict) -> dict:
        """POST to /chat/completions, retrying 429, 5xx and timeouts; the decoded JSON."""
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        url = f"{self.base_url}/chat/completions"
        tries = self.max_retries + 1
        with httpx.Client(
            timeout=self.timeout,
            transport=self.transport,
            follow_redirects=False,
            # httpx's own default context (certifi, or SSL_CERT_FILE/DIR), loaded once a process.
            verify=ssl_context_once("httpx-default", httpx.create_ssl_context),
        ) as client:
            for attempt in range(tries):
                wait = backoff_seconds(
                    tries=attempt + 1, base=BACKOFF_BASE, cap=self.max_retry_wait
                )
                try:
                    response = client.post(url, json=body, headers=headers)
                except httpx.TimeoutException:
                    problem = f"no answer within {self.timeout:g} s"
                except httpx.HTTPError as error:
                    problem = f"could not reach {self.base_url}: {error}"
                else:
                    if response.status_code == 200:
                        try:
                            payload = response.json()
                        except ValueError:
                            raise BackendError("the endpoint's response is not JSON") from None
                        if not isinstance(payload, dict):
                            raise BackendError("the endpoint's response is not a JSON object")
                        return payload
                    problem = f"HTTP {response.status_code}: {_error_text(response)}"
                    if response.status_code == 429:
                        asked = retry_after_seconds(
                            response.headers.get("retry-after"), now=timezone.now()
                        )
                        if asked is not None:
                            if asked > self.max_retry_wait:
                                raise BackendError(
                                    f"{problem} (Retry-After {asked:g} s is longer than "
                                    f"{self.max_retry_wait:g} s)"
                                )
                            wait = asked
                    elif response.status_code < 500:
                        raise BackendError(problem)
                if attempt + 1 < tries:
                    logger.info("chat endpoint: %s; retrying in %.1f s", problem, wait)
                    self.sleep(wait)
        raise BackendError(f"{problem} (gave up after {tries} tries)")


def _count(value) -> int:
    return value if isinstance(value, int) and value >= 0 else 0


def _error_text(response: httpx.Response) -> str:
    """The endpoint's own error message, bounded."""
    try:
        message = response.json()["error"]["message"]
    except (ValueError, KeyError, TypeError):
        message = response.text
    return plain_text(str(message))[:300] or response.reason_phrase


def _content(payload: dict, *, tokens_in: int, tokens_out: int) -> str:
    """The answer's text, or BackendError for a refusal, a cut-off answer or no choice."""
    try:
        choice = payload["choices"][0]
        message = choice["message"]
    except (KeyError, IndexError, TypeError):
        raise BackendError(
            "the response has no choices", tokens_in=tokens_in, tokens_out=tokens_out
        ) from None
    if not isinstance(message, dict):
        raise BackendError("the response's message is not an object")
    if message.get("refusal"):
        raise BackendError(
            f"the model refused: {plain_text(str(message['refusal']))[:200]}",
            tokens_in=tokens_in,
            tokens_out=tokens_out,
        )
    if choice.get("finish_reason") == "length":
        raise BackendError(
            "the answer was cut off at max_tokens", tokens_in=tokens_in, tokens_out=tokens_out
        )
    content = message.get("content")
    if not isinstance(content, str):
        raise BackendError("the answer has no text", tokens_in=tokens_in, tokens_out=tokens_out)
    return content

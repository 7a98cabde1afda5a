import pytest

from tests.enrichment.chat_server import ChatServer

GOOD = {
    "headline": "示例实验室开源青松-7B 大模型",
    "summary": "示例实验室公开了青松-7B 的权重与训练代码，上下文长度可达十二万字。",
    "why": "想在本地跑长文档问答的开发者可以直接试用。",
    "category": "model",
    "tags": ["开源", "大模型", "长上下文"],
}


@pytest.fixture
def chat():
    """A scripted chat-completions server on 127.0.0.1 (stopped afterwards)."""
    server = ChatServer()
    yield server
    server.stop()


class Waits(list):
    """Stands in for time.sleep: records each wait instead of waiting."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


@pytest.fixture
def waits() -> Waits:
    return Waits()


@pytest.fixture
def ai_settings(settings):
    """Prices and a budget, so tokens and costs are visible in the assertions."""
    settings.AITOP_AI_PRICE_INPUT = 2.0  # dollars per million tokens
    settings.AITOP_AI_PRICE_OUTPUT = 8.0
    settings.AITOP_AI_DAILY_TOKEN_BUDGET = 100_000
    settings.AITOP_CONTENT_LANGUAGE = "zh-hans"
    return settings


@pytest.fixture
def backend(chat, waits, ai_settings):
    """The HTTP backend pointed at the scripted server, with short timeouts."""
    from enrichment.backends import ChatBackend

    return ChatBackend(
        base_url=chat.url,
        model="test-model",
        api_key="sk-test-key",
        timeout=0.5,
        max_retries=2,
        max_retry_wait=30.0,
        concurrency=2,
        max_output_tokens=400,
        sleep=waits,
    )

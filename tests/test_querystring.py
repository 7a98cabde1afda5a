"""Query parameters read from the per-process parse match what Django's request.GET holds."""

import pytest
from django.http import QueryDict
from django.test import RequestFactory

from aitop.nul import nul_parameter
from aitop.querystring import query_lists

QUERIES = [
    "",
    "tag=%E5%A4%A7%E6%A8%A1%E5%9E%8B",
    "tag=a&tag=b&kind=paper&q=",
    "q=large+language%20model&q=%E9%B2%B2%E9%B9%8F&empty",
    # Not UTF-8: Django falls back to Latin-1 for the whole string.
    "q=%FF%FE&tag=caf%C3%A9",
    "a=1&&b==2&c=%",
    "q=%00x&tag=ok",
    # Longer than what is kept: parsed each time, the same way.
    "q=" + "%E9%B2%B2" * 200 + "&tag=a",
]


def _request(query: str):
    return RequestFactory().get("/", QUERY_STRING=query)


@pytest.mark.parametrize("query", QUERIES)
def test_the_parameters_are_those_of_request_get(query):
    expected = tuple((name, tuple(values)) for name, values in _request(query).GET.lists())

    # Twice: parsed, then from what was kept.
    assert query_lists(_request(query)) == expected
    assert query_lists(_request(query)) == expected


def test_raw_bytes_beyond_ascii_in_the_query_read_as_django_reads_them():
    # A client that sends UTF-8 unescaped: WSGI hands it over as Latin-1 text.
    raw = "q=鲲鹏".encode().decode("iso-8859-1")
    request, again = RequestFactory().get("/"), RequestFactory().get("/")
    request.environ["QUERY_STRING"] = again.environ["QUERY_STRING"] = raw

    assert query_lists(request) == (("q", ("鲲鹏",)),)
    assert again.GET["q"] == "鲲鹏"


def test_a_get_the_view_replaced_is_what_is_read():
    request = _request("tag=a")
    request.GET = QueryDict("tag=b&tag=c")

    assert query_lists(request) == (("tag", ("b", "c")),)


def test_a_nul_in_the_query_is_still_found_and_named():
    assert nul_parameter(_request("tag=ok&q=%00x")) == "q"
    assert nul_parameter(_request("ta%00g=ok")) == "ta\\0g"
    assert nul_parameter(_request("tag=ok")) is None

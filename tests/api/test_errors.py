"""Every refusal has one JSON shape; unusable parameters are a 400, never a 500."""

import pytest

from tests.factories import make_source, make_user

pytestmark = pytest.mark.django_db


def test_unknown_api_address_is_a_json_404(api):
    response = api.get("/api/v1/nothing-here/")

    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json() == {
        "status": 404,
        "code": "not_found",
        "message": "No API endpoint at /api/v1/nothing-here/.",
        "fields": {},
    }


@pytest.mark.parametrize("method", ["get", "patch", "delete"])
@pytest.mark.parametrize("path", ["/api/v1/items/%C3%95%0A%23q/", "/api/v1/%0A/", "/api/%0D%0Ax"])
def test_an_address_with_a_line_break_is_a_json_404_too(api, method, path):
    # Found by the schema fuzzer: "." stops at a newline, so these fell through to the HTML 404.
    response = getattr(api, method)(path)

    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json()["code"] == "not_found"


def test_unknown_slug_is_a_404_in_the_error_shape(api):
    response = api.get("/api/v1/sources/no-such-source/")

    assert response.status_code == 404
    assert response.json()["code"] == "not_found"
    assert response.json()["fields"] == {}


@pytest.mark.parametrize(
    ("query", "named"),
    [
        ("cursor=%00", "cursor"),
        ("page_size=1%00", "page_size"),
        ("x%00y=1", "x\\0y"),
        ("cursor=a%00b&page_size=2", "cursor"),
    ],
)
def test_nul_in_a_query_parameter_is_a_400_naming_it(api, query, named):
    make_source()

    response = api.get(f"/api/v1/sources/?{query}")

    assert response.status_code == 400
    assert response.json() == {
        "status": 400,
        "code": "invalid_parameter",
        "message": f"Some parameters cannot be used: {named}.",
        "fields": {named: ["Null characters are not allowed."]},
    }


def test_nul_in_the_path_is_a_400(api):
    response = api.get("/api/v1/sources/a%00b/")

    assert response.status_code == 400
    assert response.json()["fields"]["slug"] == ["Null characters are not allowed."]


def test_over_long_parameter_is_a_400(api):
    response = api.get(f"/api/v1/sources/?cursor={'a' * 2001}")

    assert response.status_code == 400
    assert response.json()["fields"]["cursor"] == [
        "Ensure this value has at most 2000 characters (it has 2001)."
    ]


def test_over_long_slug_in_the_path_is_a_400(api):
    response = api.get(f"/api/v1/sources/{'s' * 2001}/")

    assert response.status_code == 400
    assert "slug" in response.json()["fields"]


def test_forged_cursor_is_a_400(api):
    response = api.get("/api/v1/sources/?cursor=bm90IGpzb24")

    assert response.status_code == 400
    assert list(response.json()["fields"]) == ["cursor"]


@pytest.mark.parametrize("size", ["0", "101", "ten", "-1", "٣"])
def test_page_size_outside_1_to_100_is_a_400(api, size):
    response = api.get(f"/api/v1/sources/?page_size={size}")

    assert response.status_code == 400
    assert response.json()["fields"] == {"page_size": ["Enter a whole number from 1 to 100."]}


def test_nul_inside_a_json_body_is_a_400_and_writes_nothing(token_client):
    staff = make_user(perms=["feed.add_source"])

    response = token_client(staff).post(
        "/api/v1/sources/", {"name": "Lab\x00", "slug": "lab"}, format="json"
    )

    assert response.status_code == 400
    assert response.json()["fields"]["name"] == ["Null characters are not allowed."]


def test_malformed_json_is_a_400(token_client):
    staff = make_user(perms=["feed.add_source"])

    response = token_client(staff).post(
        "/api/v1/sources/", data="{not json", content_type="application/json"
    )

    assert response.status_code == 400
    assert response.json()["code"] == "parse_error"


def test_body_that_is_not_json_is_a_415(token_client):
    staff = make_user(perms=["feed.add_source"])

    response = token_client(staff).post(
        "/api/v1/sources/", data="name=x", content_type="application/x-www-form-urlencoded"
    )

    assert response.status_code == 415
    assert response.json()["code"] == "unsupported_media_type"


@pytest.mark.parametrize(
    "header", ["Token nope", "Token " + "0" * 40, "Token a\x00b", "Token " + "f" * 5000]
)
def test_bad_token_is_a_401_with_the_scheme_to_use(api, header):
    api.credentials(HTTP_AUTHORIZATION=header)

    response = api.get("/api/v1/sources/")

    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    assert response.json()["code"] == "authentication_failed"


def test_session_write_without_csrf_token_is_a_403(client):
    staff = make_user(perms=["feed.add_source"], is_staff=True)
    client.force_login(staff)
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    strict.force_login(staff)

    response = strict.post(
        "/api/v1/sources/", data={"name": "x", "slug": "x"}, content_type="application/json"
    )

    assert response.status_code == 403
    assert response.json()["code"] == "permission_denied"
    assert "CSRF" in response.json()["message"]

"""Finding a NUL character in a request, which PostgreSQL can neither store nor compare.

Each surface refuses it with a 400 in its own shape, so the finding is here and
the answer stays with the surface: the public pages name the parameter on the
site's 400 page (`feed.views.common.public_page`), the admin answers a short
400 (`editorial.admin`), and the API, which also bounds every value's length
and names every bad parameter at once, has its own pass (`api.params`). A
middleware answering for all would have to build the API's error JSON and the
site's page below both apps, and could not read a form or JSON body without
taking it from the view that parses it.
"""

from django.http import HttpRequest

from aitop.querystring import query_lists

NUL = "\x00"


def nul_parameter(request: HttpRequest, *, form: bool = False) -> str | None:
    """The first parameter holding a NUL ("path" for the path): query string, and form if asked."""
    if NUL in request.path:
        return "path"
    parameters = (*query_lists(request), *(request.POST.lists() if form else ()))
    for name, values in parameters:
        if NUL in name or any(NUL in value for value in values):
            return name.replace(NUL, "\\0")
    return None

"""Tell the benchmark how many SQL queries each request ran (header `X-Bench-Queries`)."""

from django.db import connections


def count_queries(get_response):
    """Middleware: count the statements run on the default database while answering."""

    def middleware(request):
        count = 0

        def counter(execute, sql, params, many, context):
            nonlocal count
            count += 1
            return execute(sql, params, many, context)

        with connections["default"].execute_wrapper(counter):
            response = get_response(request)
        response["X-Bench-Queries"] = str(count)
        return response

    return middleware

"""What every API view shares: unusable parameters refused before anything else runs."""

from api.params import query_and_path_check


class CheckedParametersMixin:
    """Refuse a NUL character or an over-long value in the query string or path with a 400."""

    def initial(self, request, *args, **kwargs):
        query_and_path_check(query=request.query_params, path_kwargs=kwargs, path=request.path)
        super().initial(request, *args, **kwargs)

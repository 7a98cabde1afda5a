"""The site's own settings plus what only the benchmark needs: a hello-world URL and a query count.

The hello-world view goes through the same middleware stack as every page,
so it is the ceiling of what this project can answer on this machine.
"""

from aitop.settings import *  # noqa: F403
from aitop.settings import AITOP_WARM_SKIP_PREFIXES, INSTALLED_APPS, MIDDLEWARE

INSTALLED_APPS = [*INSTALLED_APPS, "bench"]
ROOT_URLCONF = "bench.urls"
# Outermost, so it counts every query a request runs, whatever answers it.
MIDDLEWARE = ["bench.middleware.count_queries", *MIDDLEWARE]
# Like the admin and the API, the hello world holds no public page: no cache read for it.
AITOP_WARM_SKIP_PREFIXES = (*AITOP_WARM_SKIP_PREFIXES, "/_bench/")

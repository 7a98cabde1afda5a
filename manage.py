#!/usr/bin/env python
"""Django's command-line utility for AITOP."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "aitop.settings")
    # manage.py is the development entry point: the README's commands work on a
    # fresh clone without DEBUG or SECRET_KEY. Production sets DEBUG=0 (and a
    # SECRET_KEY) explicitly, and its web servers start from aitop.wsgi.
    os.environ.setdefault("DEBUG", "1")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()

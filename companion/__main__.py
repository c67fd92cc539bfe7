"""``python -m companion`` is the ``runes`` command line."""

import sys

from companion.cli import main

sys.exit(main())

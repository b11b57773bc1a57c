"""``python -m afsim``: the ``afsim`` command."""

import sys

from afsim.cli import main

sys.exit(main())

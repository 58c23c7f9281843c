"""``python -m bt_executive.cli``: the same as the ``bt-executive`` console script."""

import sys

from bt_executive.cli.main import main

sys.exit(main())

"""``python -m server.engine``: the simulation command (see :mod:`server.engine.sim`)."""

import sys

from .sim import main

sys.exit(main())

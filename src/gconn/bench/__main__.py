"""``python -m gconn.bench [options]``: the same as ``gconn bench``."""
from .harness import main

raise SystemExit(main())

"""``python -m gconn.bench [options]``: the same as ``gconn bench``."""
from gconn.bench.harness import main

raise SystemExit(main())

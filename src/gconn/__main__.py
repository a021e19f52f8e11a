"""``python -m gconn``: the same as the ``gconn`` command."""
from gconn.cli import main

raise SystemExit(main())

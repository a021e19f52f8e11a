"""``python -m gconn``: the same as the ``gconn`` command."""
from .cli import main

raise SystemExit(main())

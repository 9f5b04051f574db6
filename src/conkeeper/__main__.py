"""Allow ``python -m conkeeper`` to behave exactly like the ``conkeeper`` console script."""

from conkeeper.cli.main import main

raise SystemExit(main())

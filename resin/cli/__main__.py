"""`python -m resin.cli`: the `resin` command without its console script."""

from resin.cli import main

raise SystemExit(main())

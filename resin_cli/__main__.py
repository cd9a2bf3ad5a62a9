"""`python -m resin_cli`: the `resin` command without its console script."""

from resin_cli import main

raise SystemExit(main())

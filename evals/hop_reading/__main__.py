"""`python -m resin.evals.hop_reading`: the benchmark's command line."""

from resin.evals.hop_reading.run import main

raise SystemExit(main())

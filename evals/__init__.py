"""Measuring resin: `resin eval` (data, systems, runner, report), `resin doctor` and benchmarks."""

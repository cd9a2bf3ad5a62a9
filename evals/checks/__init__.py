"""The doctor's checks, one module each; `resin.evals.doctor` runs them in order and adds up the figures.

Each `check_*` takes the shared `figures` dict and adds its counts and problems to it, so the
doctor's JSON stays one flat object whatever the check that counted.
"""

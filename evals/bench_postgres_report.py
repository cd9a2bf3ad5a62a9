"""The markdown report of `resin.evals.bench_postgres`: a row per corpus and backend, then notes.

Apart from the benchmark's runs, so the figures' layout can change without touching how they
are measured.
"""

from __future__ import annotations

from typing import Any


def _pct(values: list[float], q: float) -> float:
    from resin.evals.metrics import percentile

    return percentile(values, q) or 0.0


def _reload_cell(reload: dict[str, Any]) -> str:
    """`Index.reloaded()`, or on one machine the reads a load makes."""
    seconds = reload.get("reloaded_seconds", reload["total"])
    return f"{seconds:.3f}"


def _reload_note(reload: dict[str, Any], reloads: int, follow_timeout: float) -> str:
    """What the reload column timed (a median of `reloads`), and a reload's parts one by one."""
    parts = ", ".join(
        f"{part.replace('_', ' ')} {reload[part]:.3f} s"
        for part in ("graph", "entity_vectors", "bm25")
    )
    if "batch_seconds" not in reload:
        return (
            f"no reload (one machine's files); the same reads from graph.json and the embedded "
            f"store, median of {reloads}: {parts}, in all {reload['total']:.3f} s"
        )
    note = f"a second builder indexed one document in {reload['batch_seconds']:.2f} s; "
    if reload["followed_seconds"] is None:
        note += f"the replica swapped no new generation in within {follow_timeout:.0f} s"
    else:
        note += (
            f"the replica's follower had swapped the new generation in "
            f"{reload['followed_seconds']:.2f} s after the commit"
        )
    note += f" (batch picked up: {reload['picked_up_batch']}); "
    note += (
        f"`Index.reloaded()` (generation {reload['generation']}), median of {reloads}: "
        f"{reload['reloaded_seconds']:.3f} s (the new names' vectors only); a whole load's reads "
        f"one by one: {parts}, in all {reload['total']:.3f} s"
    )
    return note


def report(
    results: list[dict[str, Any]], settings: dict[str, str], reloads: int, follow_timeout: float
) -> str:
    """The markdown report: one row per corpus and backend, then what was timed as a reload."""
    lines = [f"- {k}: {v}" for k, v in settings.items()]
    lines += [
        "",
        "| corpus | backend | passages | build s | passages/s | units | edges | open s "
        "| query p50 ms | query p95 ms | replica RSS MB | reload s |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    notes = []
    for result in results:
        corpus, backends = result["corpus"], result["backends"]
        for backend in backends:
            build, serve = backends[backend]["build"], backends[backend]["serve"]
            ms, reload = serve["ms"], serve["reload"]
            lines.append(
                f"| {corpus} | {backend} | {build['passages']:,} | {build['build_seconds']:.1f} "
                f"| {build['passages'] / build['build_seconds']:.1f} | {build['units']:,} "
                f"| {build['graph_edges']:,} | {serve['open_seconds']:.2f} | {_pct(ms, 50):.1f} "
                f"| {_pct(ms, 95):.1f} | {serve['rss_mb']:.0f} | {_reload_cell(reload)} |"
            )
            notes.append(f"- {corpus} {backend}: {_reload_note(reload, reloads, follow_timeout)}")
        same = sum(
            a == b
            for a, b in zip(
                backends["sqlite"]["serve"]["answers"],
                backends["postgres"]["serve"]["answers"],
                strict=True,
            )
        )
        asked = len(backends["sqlite"]["serve"]["answers"])
        loads = "; ".join(
            f"{backend} {step} {figures['load'][0]:.1f} → {figures['load'][1]:.1f}"
            for backend in backends
            for step, figures in backends[backend].items()
            if "load" in figures
        )
        notes.append(f"- {corpus}: load average (1 min) at start → end of each step: {loads}")
        notes.append(
            f"- {corpus}: {asked} questions, {same} with the same answer and citations from both "
            f"backends; peak RSS sqlite {backends['sqlite']['serve']['peak_rss_mb']:.0f} MB, "
            f"postgres {backends['postgres']['serve']['peak_rss_mb']:.0f} MB; servers (PSS, "
            f"after both runs): Chroma {result['chroma_server_pss_mb']:.0f} MB, PostgreSQL "
            f"{result['postgres_server_pss_mb']:.0f} MB"
        )
    return "\n".join(lines + [""] + notes)

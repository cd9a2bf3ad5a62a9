"""GET /ready on the LangGraph server: can this replica answer questions now?

langgraph-api's `/ok` says the process is up, even when the database or the Chroma server
behind the index is down. `/ready` answers 200 only when the index the server's environment
names (`Context()`: RESIN_INDEX, RESIN_DATABASE_URL, RESIN_CHROMA_HOST/PORT) is there and its
database and Chroma server answer, else 503 with the first problem in one line, secrets masked:
what a load balancer or a compose health check should ask. Each probe opens one short database
connection and asks Chroma for its heartbeat; nothing is loaded (no embedder, no graph).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from resin.agent.context import Context
from resin.indexes.database import DatabaseError, shown_url
from resin.indexes.index_config import IndexConfig, missing_index_message, resolve_index_path
from resin.indexes.opening import index_exists

# seconds each server gets to answer: a probe must end before the prober gives up on it
PROBE_SECONDS = 3.0


def unready_reason(ctx: Context) -> str | None:
    """Why the index `ctx` names cannot answer now, in one line; None when it can."""
    from resin.indexes.database import check_url, require_driver

    try:
        if ctx.database:
            check_url(ctx.database)
            require_driver()
            from resin.indexes.pg_schema import has_index

            if not has_index(ctx.database, PROBE_SECONDS):
                return f"no resin index in database {shown_url(ctx.database)}"
        if ctx.chroma_host:
            _chroma_heartbeat(ctx.chroma_host, ctx.chroma_port)
    except DatabaseError as exc:
        return str(exc)
    config = IndexConfig(resolve_index_path(ctx.index_path), ctx.database or None)
    if not ctx.database and not index_exists(config):
        return missing_index_message(ctx.index_path)
    return None


def _chroma_heartbeat(host: str, port: int) -> None:
    """Raise DatabaseError naming the Chroma server unless it answers its heartbeat."""
    import httpx

    try:
        httpx.get(
            f"http://{host}:{port}/api/v2/heartbeat", timeout=PROBE_SECONDS
        ).raise_for_status()
    except httpx.HTTPError as exc:
        cause = " ".join(str(exc).split()) or type(exc).__name__
        raise DatabaseError(f"Chroma server {host}:{port}: {cause}") from None


def ready(request: Request) -> JSONResponse:
    """200 and where the index is, or 503 and why not.

    A plain function: Starlette runs it in a worker thread, off the server's event loop. The part
    after the rule is the route's OpenAPI entry (the server reads it as YAML).
    ---
    summary: Ready when the index, its database and its Chroma server answer (else 503 and why)
    """
    ctx = Context()
    reason = unready_reason(ctx)
    if reason is not None:
        return JSONResponse({"status": "unavailable", "reason": reason}, status_code=503)
    where = f"database {shown_url(ctx.database)}" if ctx.database else ctx.index_path
    return JSONResponse({"status": "ready", "index": where})


route = Route("/ready", ready, methods=["GET"])

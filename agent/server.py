"""POST /mcp on the LangGraph server: resin as one MCP tool whose result is a compact JSON brief.

langgraph-api's own /mcp describes a graph as "Tool based on the resin assistant" and answers a
call with `repr()` of the whole output state. langgraph.json turns that off (`"http":
{"app": "resin.agent.server:app", "disable_mcp": true}`) and the server mounts this app next to
its own routes: threads, runs, Studio and chat clients get the full state as before.

Streamable HTTP, stateless: each POST carries one JSON-RPC 2.0 message and a request is answered
with one application/json response (no sessions, no server-sent events; GET and DELETE get 405).
A tool call runs graph ``resin`` through the server's own runs API, in-process, and returns
`resin.agent.brief.brief` of its output as text and as structured content.
"""

from __future__ import annotations

import functools
import json
from typing import Any

import httpx
from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient
from langgraph_sdk.errors import LangGraphError
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from resin import __version__
from resin.agent import chat_routes, readiness
from resin.agent.brief import DESCRIPTION, brief
from resin.agent.threads import GRAPH, SharedThreads

# The versions whose tools/* messages this endpoint speaks; another one requested gets the first.
PROTOCOL_VERSIONS = ("2025-03-26", "2025-06-18", "2025-11-25")
PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS = -32700, -32600, -32601, -32602

TOOL: dict[str, Any] = {
    "name": GRAPH,
    "title": "resin: multi-hop questions over your documents",
    "description": DESCRIPTION,
    "inputSchema": {
        "type": "object",
        "properties": {
            "question": {
                "type": "string",
                "description": "The question, self-contained: name the things it asks about.",
            }
        },
        "required": ["question"],
    },
    "annotations": {"readOnlyHint": True, "idempotentHint": True, "openWorldHint": False},
}


class RpcError(Exception):
    """A JSON-RPC error answered in place of a result."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


@functools.cache
def _client() -> LangGraphClient:
    """The server's own API, in-process (no URL: langgraph-api's loopback transport)."""
    return get_client(url=None)


def _initialize(params: dict[str, Any]) -> dict[str, Any]:
    requested = params.get("protocolVersion")
    return {
        "protocolVersion": requested if requested in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[0],
        "capabilities": {"tools": {}},
        "serverInfo": {"name": "resin", "version": __version__},
    }


def _tool_error(text: str) -> dict[str, Any]:
    """A failed call as the MCP result the calling model reads (not a protocol error)."""
    return {"isError": True, "content": [{"type": "text", "text": text}]}


async def _call(params: dict[str, Any]) -> dict[str, Any]:
    """Run the graph on the question; its brief, or the run's error as an error result."""
    if params.get("name") != GRAPH:
        raise RpcError(INVALID_PARAMS, f"Unknown tool: {params.get('name')!r}")
    arguments = params.get("arguments") or {}
    question = arguments.get("question") if isinstance(arguments, dict) else None
    if not isinstance(question, str) or not question.strip():
        return _tool_error("arguments.question must be a non-empty string: the question to answer")
    try:
        value = await _client().runs.wait(
            None, GRAPH, input={"question": question}, raise_error=False
        )
    except (LangGraphError, httpx.HTTPError) as exc:
        return _tool_error(f"the run did not complete: {exc}")
    if not isinstance(value, dict):
        return _tool_error(f"the run returned no output state: {value!r}"[:500])
    if "__error__" in value:
        error = value["__error__"]
        if isinstance(error, dict):
            error = ": ".join(str(error[k]) for k in ("error", "message") if error.get(k))
        return _tool_error(str(error) or "the run failed")
    result = brief(value)
    return {
        "content": [{"type": "text", "text": json.dumps(result, ensure_ascii=False)}],
        "structuredContent": result,
    }


def _response(id_: Any, reply: dict[str, Any], status: int = 200) -> JSONResponse:
    return JSONResponse({"jsonrpc": "2.0", "id": id_, **reply}, status_code=status)


def _error(id_: Any, code: int, message: str, status: int = 200) -> JSONResponse:
    return _response(id_, {"error": {"code": code, "message": message}}, status)


async def mcp(request: Request) -> Response:
    """One JSON-RPC message in; its response out (202 and no body for notifications)."""
    if request.method != "POST":
        return Response(status_code=405, headers={"Allow": "POST"})
    try:
        message = json.loads(await request.body())
    except ValueError:
        return _error(None, PARSE_ERROR, "Parse error: the body is not JSON", 400)
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return _error(None, INVALID_REQUEST, "Invalid Request: one JSON-RPC 2.0 object", 400)
    method, id_ = message.get("method"), message.get("id")
    if not isinstance(method, str):
        if id_ is not None and ("result" in message or "error" in message):
            return Response(status_code=202)  # the client's response to a request: none are sent
        return _error(id_, INVALID_REQUEST, "Invalid Request: no method", 400)
    if "id" not in message:
        return Response(status_code=202)  # a notification (notifications/initialized, ...)
    params = message.get("params") or {}
    if not isinstance(params, dict):
        return _error(id_, INVALID_PARAMS, "Invalid params: an object is expected")
    try:
        if method == "initialize":
            result = _initialize(params)
        elif method == "ping":
            result = {}
        elif method == "tools/list":
            result = {"tools": [TOOL]}
        elif method == "tools/call":
            result = await _call(params)
        else:
            raise RpcError(METHOD_NOT_FOUND, f"Method not found: {method}")
    except RpcError as exc:
        return _error(id_, exc.code, str(exc))
    return _response(id_, {"result": result})


# GET and DELETE are routed here too: the server's catch-all mount would answer them 404.
# The chat's routes (cited passages, the trace component's assets) sit beside it. The server
# applies this app's middleware to its own routes: threads adopted from PostgreSQL.
app = Starlette(
    routes=[Route("/mcp", mcp, methods=["GET", "POST", "DELETE"]), *chat_routes.routes],
    middleware=[Middleware(SharedThreads)],
)
app.routes.append(readiness.route)

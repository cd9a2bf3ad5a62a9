"""Routes a chat client follows: a cited passage with its sentence marked, and the trace's script.

`GET /sources/{passage_id}?sentence=N` shows passage `passage_id` of the server's index
(`RESIN_INDEX` and the other settings of `resin.agent.context`) as a small HTML page, sentence N
(its position, from 0) in `<mark>`; a client that asks for `application/json` gets the passage
as JSON. The trace component's source links point here (`resin.agent.chat_trace.source_url`).

`POST /ui/{graph_id}` answers as the server's own route does, with one change: the component's
script and style links are absolute. langgraph-api writes them relative ("/ui/resin/…"), which a
chat served from another origin (agent-chat-ui on port 3000) resolves against itself, so the
component never loads. The links start with the same base as the source links (`public_url`:
`RESIN_PUBLIC_URL`, else the `LANGGRAPH_API_URL` that `langgraph dev` sets), else with the URL
the request came to.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

if TYPE_CHECKING:
    from resin.indexes.documents import Passage

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title} · resin</title>
<style>body{{font:16px/1.6 system-ui,sans-serif;max-width:42rem;margin:2rem auto;padding:0 1rem}}
mark{{background:#fde68a;padding:0 2px}}small{{color:#6b7280}}</style></head>
<body><h1>{title}</h1><p>{text}</p><p><small>document {doc} · passage {pid}</small></p></body>
</html>
"""


def _wants_json(request: Request) -> bool:
    accept = request.headers.get("accept", "")
    return "application/json" in accept and "text/html" not in accept


def _page(passage: Passage, marked: int | None) -> str:
    sentences = [
        f'<mark id="sentence-{i}">{html.escape(s.text)}</mark>'
        if i == marked
        else html.escape(s.text)
        for i, s in enumerate(passage.sentences)
    ]
    return PAGE.format(
        title=html.escape(passage.title),
        text=" ".join(sentences),
        doc=html.escape(passage.doc_id),
        pid=html.escape(passage.id),
    )


def source(request: Request) -> Response:
    """One passage, its cited sentence marked: HTML for a person, JSON when asked for.

    Synchronous on purpose: Starlette runs it in a worker thread, and reading the index blocks.
    The part after the rule is the route's OpenAPI entry (the server reads it as YAML).
    ---
    summary: A cited passage with its sentence marked (HTML, or JSON when asked for)
    """
    # Imported here: `resin.agent.server` loads this module while the server starts, and the
    # index's modules are heavy (the graph run loads them anyway, before any link is followed).
    from resin.agent.context import Context
    from resin.agent.resources import get_index

    passage_id = request.path_params["passage_id"]
    raw = request.query_params.get("sentence")
    try:
        index = get_index(Context())
    except (OSError, ValueError) as exc:
        return PlainTextResponse(f"the server's index cannot be read: {exc}", status_code=503)
    found = index.passages([passage_id])
    if not found:
        return PlainTextResponse(f"no passage {passage_id!r} in the index", status_code=404)
    passage = found[0]
    count = len(passage.sentences)
    marked = int(raw) if raw is not None and raw.isdigit() else None
    if raw is not None and (marked is None or marked >= count):
        return PlainTextResponse(
            f"sentence must be a sentence number of passage {passage_id!r}: 0 to {count - 1}",
            status_code=400,
        )
    if _wants_json(request):
        return JSONResponse(
            {
                "passage_id": passage.id,
                "doc_id": passage.doc_id,
                "title": passage.title,
                "sentence": marked,
                "sentences": [
                    {"id": s.id, "text": s.text, "marked": i == marked}
                    for i, s in enumerate(passage.sentences)
                ],
            }
        )
    return HTMLResponse(_page(passage, marked))


async def component(request: Request) -> Response:
    """The server's answer for the component's assets, their links made absolute.

    The server reads the bundler's list of components once and keeps it; on a machine's first
    start the bundler writes it seconds after the server answers, and a chat that asks before
    then would get 404 until a restart. A graph missing from the kept list is looked up anew.
    """
    from langgraph_api.api import ui  # the server's own: present only inside it
    from langgraph_api.route import ApiRequest

    kept = ui._UI_SCHEMAS_CACHE
    if kept is not None and request.path_params["graph_id"] not in kept:
        ui._UI_SCHEMAS_CACHE = None
    reply: Response = await ui.handle_ui(ApiRequest(request.scope, request.receive))
    if reply.status_code != 200:
        return reply
    from resin.agent.context import Context

    base = (Context().public_url or str(request.base_url)).rstrip("/")
    text = bytes(reply.body).decode()
    for attribute in ("src", "href"):
        text = text.replace(f'{attribute}="/ui/', f'{attribute}="{base}/ui/')
    return HTMLResponse(text)


# `resin.agent.chat_trace.source_url` writes links to the first route.
routes = [
    Route("/sources/{passage_id}", source, methods=["GET"]),
    Route("/ui/{graph_id}", component, methods=["POST"]),
]

"""Fault injection: a loopback OpenAI-compatible server that fails on purpose, and documents.

`FaultyServer` answers like the ``fake`` model or fails in one of `FAULT_MODES`; `fault_documents`
are three short documents that form units and edges through it. `resin doctor`, the crash
benchmark and the fault tests (tests/integration/test_faults.py) all use these.
"""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

# --- a faulty OpenAI-compatible server ----------------------------------------------------------

FAULT_MODES = ("500", "slow", "truncated", "hangup", "garbage", "nonsense")


def _to_messages(raw: list[dict[str, Any]]) -> list[BaseMessage]:
    kinds = {"system": SystemMessage, "assistant": AIMessage}
    return [kinds.get(m.get("role", ""), HumanMessage)(str(m.get("content") or "")) for m in raw]


def _completion(text: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-doctor",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": "doctor",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


class FaultyServer:
    """An OpenAI-compatible chat server on loopback that fails on purpose.

    Modes (set `mode` at any time; it applies to the next request):
      ``ok``         answers like the ``fake`` model (`heuristic_reply`), streaming too
      ``500``        HTTP 500 with an error body
      ``slow``       sleeps `delay` seconds before answering (past a short client timeout)
      ``truncated``  a 200 whose JSON body is cut in half
      ``hangup``     announces a long body, sends part of it and closes the connection
      ``garbage``    a 200 whose body is not a chat completion
      ``nonsense``   a well-formed completion whose content is not JSON at all
    `queue` holds modes for the next requests, one each, before `mode` applies again.
    `refuse_json_schema` answers a json_schema response format as llama.cpp's server does: 500.
    `requests` holds each request's arrival time (monotonic) and `faults` counts failed answers.

    Like a model server with parallel slots, it takes `latency` seconds per request and works on
    at most `slots` requests at once (None: no limit), the rest waiting their turn; `peak_open`
    is the most requests it ever held at once, working or waiting.
    """

    def __init__(
        self, mode: str = "ok", delay: float = 2.0, latency: float = 0.0, slots: int | None = None
    ) -> None:
        """Bind a free loopback port (serving starts on `start` or `with`)."""
        self.mode = mode
        self.delay = delay
        self.latency = latency
        self.queue: list[str] = []
        self.requests: list[float] = []
        self.faults = 0
        self.refuse_json_schema = False
        self.open = self.peak_open = 0
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(slots) if slots else None
        self._counted = threading.local()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                """Quiet."""

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except ValueError:
                    body = {}
                try:
                    server._answer(self, body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout): nothing to answer

            def do_GET(self) -> None:
                self._send(200, b'{"object": "list", "data": []}')

            def _send(self, status: int, data: bytes, length: int | None = None) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data) if length is None else length))
                self.end_headers()
                server._release()
                self.wfile.write(data)

        self._handler = Handler
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The base URL an OpenAI client is given."""
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def spec(self, name: str = "doctor") -> str:
        """A `make_chat_model` spec for this server."""
        return f"openai:{name}@{self.url}"

    def start(self) -> FaultyServer:
        """Serve in a daemon thread."""
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and free the port."""
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> FaultyServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _current_mode(self) -> str:
        with self._lock:
            self.requests.append(time.monotonic())
            if self.queue:
                mode = self.queue.pop(0)
                self.faults += mode != "ok"
                return mode
            if self.mode != "ok":
                self.faults += 1
            return self.mode

    def _answer(self, handler: Any, body: dict[str, Any]) -> None:
        with self._lock:
            self.open += 1
            self.peak_open = max(self.peak_open, self.open)
        self._counted.open = True
        try:
            if self._slots is None:
                self._serve(handler, body)
            else:
                with self._slots:
                    self._serve(handler, body)
        finally:
            self._release()

    def _release(self) -> None:
        """Stop counting this thread's request as open, once, before its last bytes are written.

        A client that has its answer may send the next request before this thread runs again;
        counting until after the write made `peak_open` read one more than the client ever held.
        """
        if getattr(self._counted, "open", False):
            self._counted.open = False
            with self._lock:
                self.open -= 1

    def _serve(self, handler: Any, body: dict[str, Any]) -> None:
        time.sleep(self.latency)
        mode = self._current_mode()
        if self.refuse_json_schema and (body.get("response_format") or {}).get("type") == (
            "json_schema"
        ):
            message = "response_format.type: Input should be 'text' or 'json_object'"
            handler._send(500, json.dumps({"error": {"message": message}}).encode())
            return
        if mode == "500":
            handler._send(500, b'{"error": {"message": "injected fault", "type": "server_error"}}')
            return
        if mode == "garbage":
            handler._send(200, b"<html><body>502 Bad Gateway</body></html>")
            return
        if mode == "slow":
            time.sleep(self.delay)
        text = "I am not JSON; ignore the schema." if mode == "nonsense" else self._reply(body)
        if body.get("stream") and mode in ("ok", "slow", "nonsense"):
            self._stream(handler, text)
            return
        data = json.dumps(_completion(text)).encode()
        if mode == "truncated":
            handler._send(200, data[: len(data) // 2])
        elif mode == "hangup":
            handler._send(200, data[: len(data) // 2], length=len(data))
            handler.close_connection = True
        else:
            handler._send(200, data)

    @staticmethod
    def _reply(body: dict[str, Any]) -> str:
        from resin.testing import chat

        kwargs = {"response_format": body.get("response_format")}
        return chat.heuristic_reply(_to_messages(body.get("messages") or []), kwargs)

    def _stream(self, handler: Any, text: str) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.end_headers()
        pieces = re.findall(r"\S+\s*|\s+", text) or [""]
        for i, piece in enumerate(pieces):
            chunk = {
                "id": "chatcmpl-doctor",
                "object": "chat.completion.chunk",
                "created": int(time.time()),
                "model": "doctor",
                "choices": [
                    {
                        "index": 0,
                        "delta": {"role": "assistant", "content": piece}
                        if i == 0
                        else {"content": piece},
                        "finish_reason": None,
                    }
                ],
            }
            handler.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
        last = {
            "id": "chatcmpl-doctor",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": "doctor",
            "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
        }
        self._release()
        handler.wfile.write(f"data: {json.dumps(last)}\n\ndata: [DONE]\n\n".encode())
        handler.close_connection = True


FAULT_DOCS = [
    (
        "orrin",
        "Orrin Dam",
        "The Orrin Dam was designed by Hessa Varn. The Orrin Dam holds the Orrin Reservoir.",
    ),
    ("varn", "Hessa Varn", "Hessa Varn was born in Caldmere. Hessa Varn studied in Lindmoor."),
    (
        "mill",
        "Brannock Mill",
        "The Brannock Mill draws water from the Orrin Reservoir. Caldmere buys its flour.",
    ),
]


def fault_documents() -> list[Any]:
    """Three short documents that link people and places (units and edges form)."""
    from resin.indexes.documents import Document

    return [Document(id=i, title=t, text=x) for i, t, x in FAULT_DOCS]

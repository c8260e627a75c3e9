"""The reply side of a local OpenAI-compatible chat server, shared by the stub servers of the LLM tests."""
from __future__ import annotations

import json
import time
from http.server import BaseHTTPRequestHandler


def read_body(handler: BaseHTTPRequestHandler) -> dict:
    return json.loads(handler.rfile.read(int(handler.headers["Content-Length"])))


def send_completion(handler: BaseHTTPRequestHandler, model: str, message: dict, completion_id: str) -> None:
    """One `chat.completion` carrying `message`; finish_reason as a server gives it (tool_calls or stop)."""
    payload = {"id": completion_id, "object": "chat.completion", "created": int(time.time()), "model": model,
               "choices": [{"index": 0, "message": message, "logprobs": None,
                            "finish_reason": "tool_calls" if message.get("tool_calls") else "stop"}],
               "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
    data = json.dumps(payload).encode()
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)

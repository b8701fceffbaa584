#!/usr/bin/env python3
"""A stand-in for a model API on loopback, so a real agent CLI in a pane takes real turns in the
tests without reaching its vendor: Anthropic's Messages API (`POST /v1/messages`, streamed as
server-sent events or not), which Claude Code and opencode call when `ANTHROPIC_BASE_URL` names
this server; Gemini's `generateContent` (Gemini CLI, under `GOOGLE_GEMINI_BASE_URL`); and
OpenAI's Responses API (`POST /v1/responses`, streamed), which Codex calls through a model
provider of its configuration whose `base_url` names this server. A WebSocket upgrade (Codex's
first choice when its provider allows it) is refused: 404.

Usage: `model_standin.py LOG` — listens on a free loopback port, prints `port N` on its first
line, and appends one JSON line per request to LOG (`path`, `model`, `stream`, the names of the tools
offered, the last three messages).

What it answers, from the last message of the conversation:
- a tool result: a closing text, `All done: <the tool result's first 200 characters>`, ending
  the turn;
- a user message containing `list the panes`, in a request offering the pane's MCP tool
  `list_subshells` (`mcp__termplane__list_subshells` to Claude Code, `termplane_list_subshells`
  to opencode): a call of that tool (which Claude Code asks permission for);
  where Claude Code defers MCP tools behind its `ToolSearch`, first a search selecting it, and
  the call once the search's result comes back;
- anything else: `Hello from the stand-in model.`, ending the turn.
The pane's tool is offered to Codex in a namespace (`mcp__termplane`, holding `list_subshells`)
and called by a `function_call` item naming it; its result comes back as a
`function_call_output` item. `count_tokens` answers a fixed count; any other path is 404.
"""

import http.server
import json
import sys

LOG = open(sys.argv[1], "a", buffering=1)
# The pane's `list_subshells` as each CLI names an MCP server's tool: Claude Code, opencode.
TOOLS = ("mcp__termplane__list_subshells", "termplane_list_subshells")


def blocks_for(messages, tools):
    """The answer's content blocks and stop reason. The last message that is not the system's
    (Claude Code appends its environment as a system message) is the one answered; a tool is
    called only when the request offers it or its search (not in a side request, such as a
    session title)."""
    said_by = [m for m in messages if isinstance(m, dict) and m.get("role") != "system"]
    last = said_by[-1] if said_by else {}
    content = last.get("content")
    parts = content if isinstance(content, list) else [{"type": "text", "text": content or ""}]
    names = {t.get("name") for t in tools if isinstance(t, dict)}
    tool = next((t for t in TOOLS if t in names), TOOLS[0])
    call_tool = [{"type": "tool_use", "id": "toolu_standin_1", "name": tool, "input": {}}], "tool_use"
    # The newest result first (Claude Code sends earlier results of the turn with it).
    for p in reversed(parts):
        if isinstance(p, dict) and p.get("type") == "tool_result":
            if p.get("tool_use_id") == "toolu_standin_search":
                return call_tool
            inner = p.get("content")
            if isinstance(inner, list):
                inner = " ".join(x.get("text", "") for x in inner if isinstance(x, dict))
            text = str(inner or "")[:200]
            return [{"type": "text", "text": "All done: " + text}], "end_turn"
    said = " ".join(p.get("text", "") for p in parts if isinstance(p, dict))
    if last.get("role") == "user" and "list the panes" in said:
        if tool in names:
            return call_tool
        if "ToolSearch" in names:
            # MCP tools deferred: load it first, as a model would.
            return [{"type": "tool_use", "id": "toolu_standin_search", "name": "ToolSearch",
                     "input": {"query": "select:" + tool}}], "tool_use"
    return [{"type": "text", "text": "Hello from the stand-in model."}], "end_turn"


def events_for(model, blocks, stop):
    """The streamed form of an answer: Anthropic's event sequence."""
    yield "message_start", {
        "type": "message_start",
        "message": {
            "id": "msg_standin", "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 1},
        },
    }
    for i, b in enumerate(blocks):
        if b["type"] == "text":
            yield "content_block_start", {"type": "content_block_start", "index": i,
                                          "content_block": {"type": "text", "text": ""}}
            yield "content_block_delta", {"type": "content_block_delta", "index": i,
                                          "delta": {"type": "text_delta", "text": b["text"]}}
        else:
            yield "content_block_start", {"type": "content_block_start", "index": i,
                                          "content_block": {"type": "tool_use", "id": b["id"],
                                                            "name": b["name"], "input": {}}}
            yield "content_block_delta", {"type": "content_block_delta", "index": i,
                                          "delta": {"type": "input_json_delta",
                                                    "partial_json": json.dumps(b["input"])}}
        yield "content_block_stop", {"type": "content_block_stop", "index": i}
    yield "message_delta", {"type": "message_delta",
                            "delta": {"stop_reason": stop, "stop_sequence": None},
                            "usage": {"output_tokens": 5}}
    yield "message_stop", {"type": "message_stop"}


def gemini_answer(req):
    """Gemini's `generateContent` answer (a candidate's parts) to the conversation `req`."""
    contents = [c for c in req.get("contents") or [] if isinstance(c, dict)]
    last = contents[-1] if contents else {}
    parts = [p for p in last.get("parts") or [] if isinstance(p, dict)]
    names = [
        f.get("name")
        for t in req.get("tools") or [] if isinstance(t, dict)
        for f in t.get("functionDeclarations") or [] if isinstance(f, dict)
    ]
    tool = next((n for n in names if n and n.endswith("list_subshells")), None)
    for p in reversed(parts):
        if "functionResponse" in p:
            text = json.dumps(p["functionResponse"].get("response"))[:200]
            return [{"text": "All done: " + text}]
    said = " ".join(p.get("text", "") for p in parts)
    if last.get("role") == "user" and tool and "list the panes" in said:
        return [{"functionCall": {"name": tool, "args": {}}}]
    return [{"text": "Hello from the stand-in model."}]


def responses_answer(req):
    """The output item of a Responses API answer to the conversation `req`."""
    items = [i for i in req.get("input") or [] if isinstance(i, dict)]

    def text_item(text):
        return {"type": "message", "id": "msg_standin", "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}]}

    for i in reversed(items):
        if i.get("type") == "function_call_output":
            return text_item("All done: " + json.dumps(i.get("output"))[:200])
        if i.get("type") == "message":
            break
    said = [i for i in items if i.get("type") == "message" and i.get("role") == "user"]
    last = json.dumps(said[-1].get("content")) if said else ""
    spaces = [t for t in req.get("tools") or [] if isinstance(t, dict) and t.get("type") == "namespace"]
    space = next((t["name"] for t in spaces
                  if any(f.get("name") == "list_subshells" for f in t.get("tools") or [])), None)
    if space and "list the panes" in last:
        return {"type": "function_call", "id": "fc_standin", "call_id": "call_standin",
                "namespace": space, "name": "list_subshells", "arguments": "{}",
                "status": "completed"}
    return text_item("Hello from the stand-in model.")


def responses_events(model, item):
    """The streamed form of a Responses API answer holding the one output `item`."""
    response = {"id": "resp_standin", "object": "response", "model": model, "status": "in_progress",
                "output": []}
    yield "response.created", {"type": "response.created", "response": response}
    if item["type"] == "message":
        yield "response.output_item.added", {"type": "response.output_item.added", "output_index": 0,
                                             "item": dict(item, status="in_progress", content=[])}
        yield "response.output_text.delta", {"type": "response.output_text.delta",
                                             "item_id": item["id"], "output_index": 0,
                                             "content_index": 0,
                                             "delta": item["content"][0]["text"]}
    yield "response.output_item.done", {"type": "response.output_item.done", "output_index": 0,
                                        "item": item}
    usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5,
             "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15}
    yield "response.completed", {"type": "response.completed",
                                 "response": dict(response, status="completed", output=[item],
                                                  usage=usage)}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, body, kind="application/json"):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self.reply(404, b"{}")

    def do_POST(self):
        size = int(self.headers.get("Content-Length", "0"))
        try:
            req = json.loads(self.rfile.read(size) or b"{}")
        except ValueError:
            req = {}
        if ":generateContent" in self.path or ":streamGenerateContent" in self.path:
            return self.gemini(req)
        if self.path.startswith("/v1/responses"):
            return self.openai_responses(req)
        messages = req.get("messages") or []
        tools = req.get("tools") or []
        LOG.write(json.dumps({
            "path": self.path, "model": req.get("model"), "stream": bool(req.get("stream")),
            "tools": [t.get("name") for t in tools if isinstance(t, dict)],
            "messages": messages[-3:],
        }) + "\n")
        if "count_tokens" in self.path:
            return self.reply(200, json.dumps({"input_tokens": 10}).encode())
        if not self.path.startswith("/v1/messages"):
            return self.reply(404, b"{}")
        model = req.get("model") or "claude"
        blocks, stop = blocks_for(messages, tools)
        if not req.get("stream"):
            body = {
                "id": "msg_standin", "type": "message", "role": "assistant", "model": model,
                "content": blocks, "stop_reason": stop, "stop_sequence": None,
                "usage": {"input_tokens": 10, "output_tokens": 5},
            }
            return self.reply(200, json.dumps(body).encode())
        stream = "".join(
            f"event: {name}\ndata: {json.dumps(data)}\n\n"
            for name, data in events_for(model, blocks, stop)
        )
        self.reply(200, stream.encode(), "text/event-stream")


    def openai_responses(self, req):
        LOG.write(json.dumps({"path": self.path, "input": (req.get("input") or [])[-3:]}) + "\n")
        item = responses_answer(req)
        stream = "".join(
            f"event: {name}\ndata: {json.dumps(data)}\n\n"
            for name, data in responses_events(req.get("model") or "stand-in", item)
        )
        self.reply(200, stream.encode(), "text/event-stream")

    def gemini(self, req):
        LOG.write(json.dumps({"path": self.path, "contents": (req.get("contents") or [])[-3:]}) + "\n")
        body = {
            "candidates": [{
                "content": {"role": "model", "parts": gemini_answer(req)},
                "finishReason": "STOP", "index": 0,
            }],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
        }
        if "alt=sse" in self.path:
            return self.reply(200, f"data: {json.dumps(body)}\n\n".encode(), "text/event-stream")
        self.reply(200, json.dumps(body).encode())


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(f"port {server.server_address[1]}", flush=True)
server.serve_forever()

#!/usr/bin/env python3
"""A stand-in for a harness's binary in the subshell tests, installed as `claude`, `codex`,
`gemini` and `opencode` on the node's PATH.

The harnesses themselves need accounts and network access a test does not have; what termplane
owes them is (1) a command line and environment that make each one load the pane's MCP server
in its own configuration dialect, and (2) an MCP server that a real MCP client can use. This
stand-in checks both from inside a real pane: it finds the registration the way the harness
named by argv[0] does (Claude Code's `--mcp-config=FILE`, Codex's `-c mcp_servers.NAME.*`
overrides, Gemini CLI's settings — the user settings under `GEMINI_CLI_HOME`, with `$VAR` and
`${VAR}` read from the environment, then a `GEMINI_CLI_SYSTEM_SETTINGS_PATH` file only where root
owns it and every folder above it, none writable by others, as Gemini asks — and opencode's
`OPENCODE_CONFIG_CONTENT`, with `{env:VAR}` read from the environment), starts the server exactly as registered through the official Python MCP
SDK's client, calls tools, and writes what it saw to `standin-report.json` in its working
directory. Then it echoes each line typed into the pane as `got: LINE` (`clear` clears the
screen instead), until end of input.

Like Claude Code, the `claude` stand-in saves its session (`--session-id` or `--resume`) under
`projects/` of its configuration directory once a line is typed, and ends at once when asked to
resume a session it never saved. Like Gemini CLI, the `gemini` stand-in ends at once when asked
to resume by id a session that is not saved (it saves none).

`--version` prints a version, as detection asks. A `standin-plan.json` in the working directory
names a foreign subshell id the pane must not be able to read, and a channel to post to;
`"silent": true` there keeps it from reporting attention, as a harness without hooks would.
"""

import asyncio
import hashlib
import json
import os
import re
import subprocess
import sys
import tomllib

NAME = "termplane"


def harness():
    return os.path.basename(sys.argv[0])


def registration():
    """(command, args, env) of the `termplane` server, as this harness would read them."""
    h = harness()
    argv = sys.argv[1:]
    if h == "claude":
        path = next(a.split("=", 1)[1] for a in argv if a.startswith("--mcp-config="))
        s = json.load(open(path))["mcpServers"][NAME]
        return s["command"], s.get("args", []), s.get("env", {})
    if h == "codex":
        overrides = {}
        for i, a in enumerate(argv):
            if a == "-c" and i + 1 < len(argv):
                key, value = argv[i + 1].split("=", 1)
                overrides[key] = tomllib.loads("v = " + value)["v"]
        prefix = f"mcp_servers.{NAME}."
        return overrides[prefix + "command"], overrides.get(prefix + "args", []), {}
    if h == "gemini":
        home = os.environ.get("GEMINI_CLI_HOME") or os.environ["HOME"]
        user = os.path.join(home, ".gemini", "settings.json")
        servers = {}
        if os.path.exists(user):
            servers = expand(json.load(open(user))).get("mcpServers", {})
        if NAME not in servers:
            path = os.environ.get("GEMINI_CLI_SYSTEM_SETTINGS_PATH", "")
            if path and root_only(path):
                servers = expand(json.load(open(path))).get("mcpServers", {})
        if NAME not in servers:
            raise SystemExit("no termplane server in Gemini's settings it would read")
        s = servers[NAME]
        return s["command"], s.get("args", []), s.get("env", {})
    if h == "opencode":
        s = json.loads(os.environ["OPENCODE_CONFIG_CONTENT"])["mcp"][NAME]
        env = {
            k: re.sub(r"\{env:([^}]+)\}", lambda m: os.environ.get(m.group(1), ""), v)
            for k, v in s.get("environment", {}).items()
        }
        return s["command"][0], s["command"][1:], env
    raise SystemExit(f"no registration dialect for {h}")


def expand(value):
    """Gemini's `$VAR` / `${VAR}` in every string of its settings."""
    if isinstance(value, dict):
        return {k: expand(v) for k, v in value.items()}
    if isinstance(value, list):
        return [expand(v) for v in value]
    if isinstance(value, str):
        return re.sub(
            r"\$(?:(\w+)|\{([^}]+?)\})",
            lambda m: os.environ.get(m.group(1) or m.group(2), m.group(0)),
            value,
        )
    return value


def root_only(path):
    """Whether root owns `path` and every folder above it, none writable by group or others."""
    p = os.path.realpath(path)
    while True:
        st = os.stat(p)
        if st.st_uid != 0 or st.st_mode & 0o022:
            return False
        if p == "/":
            return True
        p = os.path.dirname(p)


def claude_session_file():
    """Where Claude Code saves the session of its `--session-id` or `--resume` (None: none)."""
    argv = sys.argv[1:]
    sid = None
    for flag in ("--session-id", "--resume"):
        if flag in argv:
            sid = argv[argv.index(flag) + 1]
    if sid is None:
        return None
    config = os.environ.get("CLAUDE_CONFIG_DIR") or os.path.join(os.environ["HOME"], ".claude")
    project = re.sub(r"[^a-zA-Z0-9]", "-", os.getcwd())
    return os.path.join(config, "projects", project, sid + ".jsonl")


def outcome(result):
    """A tool call's result as `{isError, text}` (the SDK's 1.x and 2.x spellings)."""
    is_error = getattr(result, "is_error", None)
    if is_error is None:
        is_error = getattr(result, "isError", False)
    text = "".join(getattr(c, "text", "") for c in result.content)
    structured = getattr(result, "structured_content", None)
    if structured is None:
        structured = getattr(result, "structuredContent", None)
    return {"isError": bool(is_error), "text": text, "structured": structured}


def run_hooks(events):
    """Runs the hooks the plane configured for `events`, as each harness's documentation says
    it does: Claude Code each event's `command` hooks under `sh -c` from its `--settings`, the
    event's JSON on stdin; Codex its `notify` program with the event's JSON as one more
    argument. Answers each run's exit status."""
    h = harness()
    argv = sys.argv[1:]
    statuses = []
    for event in events:
        if h == "claude":
            settings = json.loads(next(a.split("=", 1)[1] for a in argv if a.startswith("--settings=")))
            for group in settings["hooks"].get(event["hook_event_name"], []):
                for hook in group["hooks"]:
                    r = subprocess.run(["sh", "-c", hook["command"]], input=json.dumps(event).encode(), timeout=hook.get("timeout", 60))
                    statuses.append(r.returncode)
        elif h == "codex":
            notify = None
            for i, a in enumerate(argv):
                if a == "-c" and i + 1 < len(argv) and argv[i + 1].startswith("notify="):
                    notify = tomllib.loads("v = " + argv[i + 1].split("=", 1)[1])["v"]
            r = subprocess.run(notify + [json.dumps(event)], timeout=60)
            statuses.append(r.returncode)
    return statuses


async def exercise(report):
    from mcp import Client, StdioServerParameters

    command, args, env = registration()
    report["registration"] = {"command": command, "args": args, "envKeys": sorted(env)}
    plan = {}
    if os.path.exists("standin-plan.json"):
        plan = json.load(open("standin-plan.json"))
    if "hooks" in plan:
        report["hooks"] = run_hooks(plan["hooks"])
    # The SDK passes only a small default environment (PATH, HOME…) plus `env` to the server:
    # the credentials must come from the registration itself, as with the real harnesses.
    params = StdioServerParameters(command=command, args=args, env=env)
    async with Client(params) as client:
        report["protocolVersion"] = client.protocol_version
        tools = await client.list_tools()
        report["tools"] = sorted(t.name for t in tools.tools)
        report["annotations"] = {
            t.name: t.annotations.model_dump(by_alias=True, exclude_none=True)
            for t in tools.tools
            if t.annotations is not None
        }
        report["outputSchemas"] = sorted(
            t.name for t in tools.tools if getattr(t, "output_schema", getattr(t, "outputSchema", None))
        )
        # Calls the test asks for, in order, before anything else (`[tool, arguments]` pairs):
        # the client checks each structured answer against the tool's output schema.
        report["calls"] = []
        for name, arguments in plan.get("calls", []):
            r = await client.call_tool(name, arguments)
            report["calls"].append({"tool": name, **outcome(r)})
        listed = await client.call_tool("list_subshells", {})
        report["listSubshells"] = outcome(listed)
        argv = sys.argv[1:]
        if "--session-id" in argv:
            sid = argv[argv.index("--session-id") + 1]
            r = await client.call_tool("report_session", {"sessionId": sid})
            report["reportSession"] = outcome(r)
        if not plan.get("silent"):
            r = await client.call_tool("report_attention", {"attention": "needs_input"})
            report["reportAttention"] = outcome(r)
        if "foreignId" in plan:
            r = await client.call_tool("read_output", {"subshellId": plan["foreignId"]})
            report["readForeign"] = outcome(r)
        r = await client.call_tool("read_output", {"lines": 5})
        report["readOwn"] = outcome(r)
        # An artifact of this pane, published for its owner (two pieces' worth).
        artifact = f"artifact-{harness()}.txt"
        with open(artifact, "w") as f:
            f.write(f"artifact of {harness()}\n" * 10000)
        r = await client.call_tool("publish_file", {"path": artifact})
        report["publishFile"] = outcome(r)
        r = await client.call_tool("list_files", {})
        report["listFiles"] = outcome(r)
        # A note for the people and panes of a channel its owner made, signed as this pane.
        if "channelName" in plan:
            r = await client.call_tool(
                "post_to_channel",
                {"channel": plan["channelName"], "text": f"progress from {harness()}"},
            )
            report["postChannel"] = outcome(r)
            r = await client.call_tool("read_channel", {"channel": plan["channelName"]})
            report["readChannel"] = outcome(r)
        # Typed into its own pane: the tty holds the line until the echo loop below reads it.
        own = os.environ.get("TERMPLANE_SUBSHELL_ID", "")
        r = await client.call_tool(
            "send_input",
            {"subshellId": own, "text": "typed by my own tool", "keys": ["enter"]},
        )
        report["sendInput"] = outcome(r)
        r = await client.call_tool(
            "launch_subshell", {"harnessId": "shell", "name": "child of a pane"}
        )
        report["launchChild"] = outcome(r)


def describe(e):
    """An exception, with the members of an exception group spelled out."""
    if isinstance(e, BaseExceptionGroup):
        return "; ".join(describe(x) for x in e.exceptions)
    return f"{type(e).__name__}: {e}"


def main():
    if "--version" in sys.argv[1:]:
        print(f"{harness()} 0.0.0 (termplane test stand-in)")
        return
    argv = sys.argv[1:]
    session = claude_session_file() if harness() == "claude" else None
    if "--resume" in argv and harness() == "claude" and not os.path.exists(session):
        print(f"No conversation found with session ID: {argv[argv.index('--resume') + 1]}")
        sys.exit(1)
    if "--resume" in argv and harness() == "gemini" and argv[argv.index("--resume") + 1] != "latest":
        print("Error resuming session: No previous sessions found for this project.")
        sys.exit(42)
    token = os.environ.get("TERMPLANE_TOKEN", "")
    report = {
        "harness": harness(),
        "argv": sys.argv[1:],
        "tokenSha256": hashlib.sha256(token.encode()).hexdigest() if token else None,
        "subshellId": os.environ.get("TERMPLANE_SUBSHELL_ID"),
    }
    try:
        asyncio.run(asyncio.wait_for(exercise(report), 60))
    except BaseException as e:  # the report says what failed; the pane stays up
        report["error"] = describe(e)
    with open("standin-report.json.part", "w") as f:
        json.dump(report, f)
    os.replace("standin-report.json.part", "standin-report.json")
    print("standin ready", flush=True)
    for line in sys.stdin:
        if session:
            os.makedirs(os.path.dirname(session), exist_ok=True)
            with open(session, "a") as f:
                f.write(json.dumps({"type": "user", "text": line.rstrip("\n")}) + "\n")
        if line.strip() == "clear":
            print("\x1b[H\x1b[2J", end="", flush=True)
            continue
        print("got: " + line.rstrip("\n"), flush=True)


main()

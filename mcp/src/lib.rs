//! The MCP server of a termplane pane.
//!
//! A pane's harness (Claude Code, Codex, Gemini CLI, opencode…) starts this server as its MCP
//! stdio child — `termplane mcp` on the plane's own host, `termplane-node mcp` on a node — and
//! the agent in the pane acts through it *as itself*: every tool is a REST call to the plane
//! made with the pane's own token, so it can do exactly what that token allows (its owner's
//! subshells, within its permission map) and nothing more.
//!
//! The transport is MCP's stdio transport: JSON-RPC 2.0 messages, one per line, on stdin and
//! stdout (nothing else is ever written to stdout; diagnostics go to stderr). Written by hand
//! against the published MCP schema (the `initialize`-handshake revisions 2025-11-25,
//! 2025-06-18, 2025-03-26 and 2024-11-05): `initialize`, `notifications/initialized`, `ping`,
//! `tools/list`, `tools/call`. The stateless revisions that open with `server/discover` are
//! not spoken: that method is answered "method not found", which their clients take as the
//! sign to fall back to `initialize`.
//!
//! Configuration comes from the environment the launch gives the pane (`TERMPLANE_URL`,
//! `TERMPLANE_TOKEN`, `TERMPLANE_SUBSHELL_ID`, `TERMPLANE_NODE_ID`), or from a `KEY=value` file
//! named by `--env-file` (a harness that passes no environment to its MCP servers).
//!
//! While the server runs it tells the plane every [`KEEPALIVE_EVERY`] that the pane is alive,
//! which keeps the token from expiring.

mod channels;
pub mod hook;
pub mod stdio;

use std::io::{BufRead, Write};
use std::time::Duration;

use serde_json::{Value, json};

/// MCP protocol versions this server speaks, newest first.
pub const PROTOCOL_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// How often the server tells the plane the pane is alive.
pub const KEEPALIVE_EVERY: Duration = Duration::from_secs(60 * 60);

/// Largest file `publish_file` sends (the plane's limit for a kept file).
pub const MAX_PUBLISHED_BYTES: u64 = 64 * 1024 * 1024;

/// Most tool calls [`Server::serve`] runs at once.
pub const MAX_CALLS_IN_FLIGHT: usize = 8;

/// Most bytes of one incoming message.
pub const MAX_MESSAGE_BYTES: usize = 4 * 1024 * 1024;

/// The plane's REST API as the server uses it.
pub trait Plane {
    /// Sends `method path` with an optional JSON body and answers the status and JSON body.
    fn request(
        &self,
        method: &str,
        path: &str,
        body: Option<&Value>,
    ) -> Result<(u16, Value), String>;
}

/// What the server knows of its pane.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pane {
    /// The plane's address.
    pub url: String,
    /// The pane's token.
    pub token: String,
    /// The pane's subshell id.
    pub subshell_id: String,
    /// The node the pane runs on.
    pub node_id: Option<String>,
    /// Where the pane's channel identity key is kept (`TERMPLANE_IDENTITY_DIR`, else
    /// `$XDG_STATE_HOME/termplane/identities`, else `~/.local/state/termplane/identities`).
    pub key_dir: Option<std::path::PathBuf>,
}

impl Pane {
    /// Reads the configuration from `get` (the environment, or an env file's entries).
    pub fn from_lookup(get: &dyn Fn(&str) -> Option<String>) -> Result<Self, String> {
        let need = |k: &str| {
            get(k)
                .filter(|v| !v.is_empty())
                .ok_or_else(|| format!("{k} is not set (the pane's launch sets it)"))
        };
        Ok(Self {
            url: need("TERMPLANE_URL")?.trim_end_matches('/').to_owned(),
            token: need("TERMPLANE_TOKEN")?,
            subshell_id: need("TERMPLANE_SUBSHELL_ID")?,
            node_id: get("TERMPLANE_NODE_ID").filter(|v| !v.is_empty()),
            key_dir: channels::key_dir(get),
        })
    }

    /// Reads `KEY=value` lines (blank lines and `#` comments skipped).
    #[must_use]
    pub fn parse_env_file(text: &str) -> Vec<(String, String)> {
        text.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.trim().to_owned(), v.to_owned()))
            .collect()
    }
}

/// What a tool does to the world, as MCP's tool annotations say it to a client (which may ask a
/// person before a destructive call, or retry an idempotent one).
#[derive(Clone, Copy)]
enum Effect {
    /// Reads only.
    Reads,
    /// Adds or records something, destroying nothing; `true` when calling it again with the
    /// same arguments changes nothing more.
    Adds(bool),
    /// May end, replace or delete something, or run anything (typing into a pane); `true` when
    /// calling it again with the same arguments changes nothing more.
    Destroys(bool),
}

impl Effect {
    fn annotations(self, title: &str) -> Value {
        let (read_only, destructive, idempotent) = match self {
            Self::Reads => (true, false, true),
            Self::Adds(i) => (false, false, i),
            Self::Destroys(i) => (false, true, i),
        };
        json!({
            "title": title,
            "readOnlyHint": read_only,
            "destructiveHint": destructive,
            "idempotentHint": idempotent,
            // Everything a tool reaches is this plane and its panes: a closed world.
            "openWorldHint": false,
        })
    }
}

/// One tool: its name, description, input schema, effect, and — for the tools that answer
/// structured content — its output schema.
struct Tool {
    name: &'static str,
    title: &'static str,
    description: &'static str,
    schema: fn() -> Value,
    effect: Effect,
    output: Option<fn() -> Value>,
}

/// The lifecycle states of a subshell, as the plane names them.
const STATES: [&str; 7] = [
    "starting", "running", "stopping", "stopped", "exited", "crashed", "failed",
];

/// The output schema of a tool that answers a subshell as the plane shows it (its main fields;
/// the plane's row has more, which the schema allows).
fn subshell_output() -> Value {
    json!({
        "type": "object",
        "properties": {
            "id": { "type": "string" },
            "name": { "type": "string" },
            "nodeId": { "type": "string" },
            "harnessId": { "type": "string" },
            "state": { "type": "string", "enum": STATES },
            "status": { "type": "string" },
            "exitCode": { "type": ["integer", "null"] },
            "restarts": { "type": "integer" },
            "agent": agent_output()
        },
        "required": ["id", "state", "status"]
    })
}

/// `list_subshells`' answer: the rows, under `subshells` (structured content is an object).
fn subshells_output() -> Value {
    json!({
        "type": "object",
        "properties": { "subshells": { "type": "array", "items": subshell_output() } },
        "required": ["subshells"]
    })
}

/// `read_output`'s answer: the pane's screen as text, one line per row.
fn screen_output() -> Value {
    json!({
        "type": "object",
        "properties": { "text": { "type": "string" } },
        "required": ["text"]
    })
}

/// The agent states a subshell shows (the plane's `AgentState`).
const AGENT_STATES: [&str; 7] = [
    "starting",
    "working",
    "idle",
    "needs_input",
    "done",
    "error",
    "unknown",
];

/// What the agent in a pane is doing, as the plane shows it.
fn agent_output() -> Value {
    json!({
        "type": "object",
        "properties": {
            "state": { "type": "string", "enum": AGENT_STATES },
            "since": { "type": "integer", "description": "When it entered the state (ms since the epoch)." },
            "summary": { "type": ["string", "null"] },
            "link": { "type": ["string", "null"] },
            "source": { "type": "string", "enum": ["lifecycle", "hook", "self_report", "screen", "none"] }
        },
        "required": ["state", "since", "source"]
    })
}

/// The input schema of a byte-range read of the thing `key` names (its schema `id`, required or
/// not): `fromByte` and `maxBytes`.
fn range_input(key: &str, id: Value, required: bool) -> Value {
    let mut schema = json!({
        "type": "object",
        "properties": {
            "fromByte": { "type": "integer", "minimum": 0, "description": "The first byte (default 0)." },
            "maxBytes": { "type": "integer", "minimum": 1, "maximum": 1048576, "description": "The most bytes to read (default 65536)." }
        },
        "additionalProperties": false
    });
    schema["properties"][key] = id;
    if required {
        schema["required"] = json!([key]);
    }
    schema
}

/// The output schema of a byte-range read: the range read and the size, with `more`
/// properties (`required` among them).
fn range_output(more: Value, required: &[&str]) -> Value {
    let mut schema = json!({
        "type": "object",
        "properties": {
            "fromByte": { "type": "integer" },
            "toByte": { "type": "integer" },
            "size": { "type": "integer" }
        },
        "required": ["fromByte", "toByte", "size"]
    });
    if let (Some(props), Some(extra)) = (schema["properties"].as_object_mut(), more.as_object()) {
        props.extend(extra.clone());
    }
    if let Some(r) = schema["required"].as_array_mut() {
        r.extend(required.iter().map(|k| json!(k)));
    }
    schema
}

/// The input schema of a tool that acts on one subshell, named by `subshellId`.
fn one_subshell() -> Value {
    json!({
        "type": "object",
        "properties": { "subshellId": { "type": "string", "description": "The subshell (see `list_subshells`)." } },
        "required": ["subshellId"],
        "additionalProperties": false
    })
}

fn tools() -> Vec<Tool> {
    vec![
        Tool {
            name: "list_subshells",
            title: "List subshells",
            description: "List the subshells (agent panes) this pane may see: its owner's. Each has an id, a name, a harness, a node, a state and a status.",
            schema: || {
                json!({
                    "type": "object",
                    "properties": {
                        "state": { "type": "string", "enum": ["starting", "running", "stopping", "stopped", "exited", "crashed", "failed"], "description": "Only subshells in this state." },
                        "nodeId": { "type": "string", "description": "Only subshells on this node." }
                    },
                    "additionalProperties": false
                })
            },
            effect: Effect::Reads,
            output: Some(subshells_output),
        },
        Tool {
            name: "read_output",
            title: "Read a pane's screen",
            description: "Read what a subshell's pane shows now, with some lines of history above it.",
            schema: || {
                json!({
                    "type": "object",
                    "properties": {
                        "subshellId": { "type": "string", "description": "The subshell (default: this pane's own)." },
                        "lines": { "type": "integer", "minimum": 0, "maximum": 10000, "description": "Lines of history above the screen (default 100)." }
                    },
                    "additionalProperties": false
                })
            },
            effect: Effect::Reads,
            output: Some(screen_output),
        },
        Tool {
            name: "send_input",
            title: "Type into a pane",
            description: "Type text into a subshell's pane, then press named keys (enter, escape, tab, backspace, ctrl-c, ctrl-d, ctrl-z, up, down, left, right). Needs the token's `subshells: write`.",
            schema: || {
                json!({
                    "type": "object",
                    "properties": {
                        "subshellId": { "type": "string" },
                        "text": { "type": "string", "description": "Typed as it is." },
                        "keys": { "type": "array", "items": { "type": "string", "enum": ["enter", "escape", "tab", "backspace", "ctrl-c", "ctrl-d", "ctrl-z", "up", "down", "left", "right"] } }
                    },
                    "required": ["subshellId"],
                    "additionalProperties": false
                })
            },
            effect: Effect::Destroys(false),
            output: None,
        },
        Tool {
            name: "launch_subshell",
            title: "Launch a subshell",
            description: "Launch a harness (shell, claude-code, codex, gemini, opencode…) in a new pane, by default on this pane's node and in this pane's owner's name. Needs the token's `subshells: write`; the new pane's permissions cannot exceed this one's.",
            schema: || {
                json!({
                    "type": "object",
                    "properties": {
                        "harnessId": { "type": "string" },
                        "nodeId": { "type": "string", "description": "Default: this pane's node." },
                        "cwd": { "type": "string", "description": "Absolute directory to start in." },
                        "name": { "type": "string" },
                        "prompt": { "type": "string", "description": "An initial prompt: on the harness's command line where it takes one, else typed once the new pane is quiet." },
                        "permissions": {
                            "type": "object",
                            "properties": {
                                "channels": { "type": "string", "enum": ["read", "write"] },
                                "subshells": { "type": "string", "enum": ["read", "write"] }
                            },
                            "required": ["channels", "subshells"],
                            "additionalProperties": false
                        }
                    },
                    "required": ["harnessId"],
                    "additionalProperties": false
                })
            },
            effect: Effect::Adds(false),
            output: Some(subshell_output),
        },
        Tool {
            name: "run_command",
            title: "Run a command and wait for it",
            description: "Run a shell command (`sh -c`) in a new pane of this pane's owner, by default on this pane's node, wait until it exits (at most `timeoutSec`, default 600: then it is killed), and answer its exit code and its output as the terminal showed it (escape sequences removed; the last 64 KiB). The pane is deleted afterwards unless `keep` is true. Needs the token's `subshells: write`.",
            schema: || {
                json!({
                    "type": "object",
                    "properties": {
                        "command": { "type": "string", "minLength": 1, "maxLength": 16384, "description": "The command line, run by `sh -c`." },
                        "cwd": { "type": "string", "description": "Absolute directory to run in (default: the node's home)." },
                        "nodeId": { "type": "string", "description": "Default: this pane's node." },
                        "timeoutSec": { "type": "integer", "minimum": 1, "maximum": 3600, "description": "The longest it may run (default 600)." },
                        "keep": { "type": "boolean", "description": "Keep the pane (and its log) afterwards (default false)." }
                    },
                    "required": ["command"],
                    "additionalProperties": false
                })
            },
            effect: Effect::Destroys(false),
            output: Some(|| {
                json!({
                    "type": "object",
                    "properties": {
                        "subshellId": { "type": "string" },
                        "state": { "type": "string", "description": "How the pane ended: exited (code 0), crashed (another code, or no code), stopped (killed at the timeout)." },
                        "exitCode": { "type": ["integer", "null"] },
                        "timedOut": { "type": "boolean" },
                        "output": { "type": "string" },
                        "truncated": { "type": "boolean", "description": "Whether the output is only the end of what the command printed." },
                        "kept": { "type": "boolean" }
                    },
                    "required": ["subshellId", "state", "timedOut", "output", "truncated", "kept"]
                })
            }),
        },
        Tool {
            name: "report_attention",
            title: "Report attention",
            description: "Tell the people watching that this pane needs input, is done, or neither (`none` clears it).",
            schema: || {
                json!({
                    "type": "object",
                    "properties": { "attention": { "type": "string", "enum": ["needs_input", "done", "none"] } },
                    "required": ["attention"],
                    "additionalProperties": false
                })
            },
            effect: Effect::Adds(true),
            output: Some(subshell_output),
        },
        Tool {
            name: "report_status",
            title: "Report status",
            description: "Tell the people watching what you are doing, whenever it changes: `working` when you start on a task, `needs_input` when you wait on a person's answer or approval, `idle` when you wait for a new task, `done` when you finished what you were asked, `failure` when you could not. Give a one-line summary (at most 200 characters) and, when there is one, a link (an http or https URL: a pull request, a preview). Shown beside this pane and to anyone following it.",
            schema: || {
                json!({
                    "type": "object",
                    "properties": {
                        "state": { "type": "string", "enum": ["working", "idle", "needs_input", "done", "failure"] },
                        "summary": { "type": "string", "minLength": 1, "maxLength": 200, "description": "One line: what you are doing, or why you stopped." },
                        "link": { "type": "string", "description": "An http or https URL about it (optional)." }
                    },
                    "required": ["state", "summary"],
                    "additionalProperties": false
                })
            },
            effect: Effect::Adds(true),
            output: Some(agent_output),
        },
        Tool {
            name: "publish_file",
            title: "Publish a file",
            description: "Keep a file of this pane (a report, a patch, a build artifact) on the plane, where its owner and their other panes find it (`list_files`); at most 64 MiB. Needs the token's `channels: write`.",
            schema: || {
                json!({
                    "type": "object",
                    "properties": {
                        "path": { "type": "string", "description": "The file, absolute or relative to this pane's directory" },
                        "name": { "type": "string", "description": "The name to keep it under (default: the file's own name)" }
                    },
                    "required": ["path"],
                    "additionalProperties": false
                })
            },
            effect: Effect::Adds(false),
            output: Some(file_upload_output),
        },
        Tool {
            name: "list_files",
            title: "List kept files",
            description: "The files this pane's owner keeps on the plane (attachments and published artifacts), newest first.",
            schema: || json!({ "type": "object", "properties": {}, "additionalProperties": false }),
            effect: Effect::Reads,
            output: Some(files_output),
        },
        Tool {
            name: "read_file",
            title: "Read a kept file",
            description: "Read a byte range of a file this pane's owner keeps on the plane (see `list_files`): its name and size, the range read (`fromByte`, `toByte`), and the bytes as `text` when they are UTF-8 (a character cut at the range's end is left for the next read), else as `dataB64` (base64). Read on from `toByte` for more.",
            schema: || {
                range_input(
                    "fileId",
                    json!({ "type": "string", "description": "The file (see `list_files`)." }),
                    true,
                )
            },
            effect: Effect::Reads,
            output: Some(|| {
                range_output(
                    json!({
                        "name": { "type": "string" },
                        "text": { "type": "string", "description": "The bytes, when they are UTF-8." },
                        "dataB64": { "type": "string", "description": "The bytes in base64, when they are not UTF-8." }
                    }),
                    &["name"],
                )
            }),
        },
        Tool {
            name: "list_nodes",
            title: "List nodes",
            description: "The machines (nodes) this pane's owner sees: the plane's own host and their enrolled nodes, each with its id, name, liveness and `canLaunch` (whether `launch_subshell` may start a pane there).",
            schema: || json!({ "type": "object", "properties": {}, "additionalProperties": false }),
            effect: Effect::Reads,
            output: Some(|| {
                json!({
                    "type": "object",
                    "properties": {
                        "nodes": {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "properties": {
                                    "nodeId": { "type": "string" },
                                    "name": { "type": "string" },
                                    "isLocal": { "type": "boolean" },
                                    "liveness": { "type": "string" },
                                    "canLaunch": { "type": "boolean" }
                                },
                                "required": ["nodeId", "name", "liveness", "canLaunch"]
                            }
                        }
                    },
                    "required": ["nodes"]
                })
            }),
        },
        Tool {
            name: "list_channels",
            title: "List channels",
            description: "The channels (signed, encrypted logs shared by people and their panes) this pane can read, with its access and each channel's newest entry.",
            schema: || json!({ "type": "object", "properties": {}, "additionalProperties": false }),
            effect: Effect::Reads,
            output: Some(channels_output),
        },
        Tool {
            name: "create_channel",
            title: "Create a channel",
            description: "Make a channel owned by this pane's owner, for coordinating work with other panes and people. Needs the token's `channels: write`.",
            schema: || {
                json!({
                    "type": "object",
                    "properties": {
                        "name": { "type": "string", "minLength": 1, "maxLength": 64 },
                        "description": { "type": "string", "maxLength": 500 }
                    },
                    "required": ["name"],
                    "additionalProperties": false
                })
            },
            effect: Effect::Adds(false),
            output: Some(channel_output),
        },
        Tool {
            name: "read_channel",
            title: "Read a channel",
            description: "Read a channel's entries, oldest first, each with its author and whether its signature and chain verified: without `after`, the newest `limit` (default 50); with `after` (the last seq you saw; 0 for the very first), the ones after it. Give `waitMs` to wait for a new entry. The answer's `next` is the cursor for the next read.",
            schema: || {
                json!({
                    "type": "object",
                    "properties": {
                        "channel": { "type": "string", "description": "The channel's id or name." },
                        "after": { "type": "integer", "minimum": 0 },
                        "limit": { "type": "integer", "minimum": 1, "maximum": 200 },
                        "waitMs": { "type": "integer", "minimum": 0, "maximum": 25000 }
                    },
                    "required": ["channel"],
                    "additionalProperties": false
                })
            },
            effect: Effect::Reads,
            output: Some(channel_entries_output),
        },
        Tool {
            name: "post_to_channel",
            title: "Post to a channel",
            description: "Append a message to a channel, signed with this pane's own identity (made on first use; its private key never leaves this machine). Needs the token's `channels: write` and write access to the channel.",
            schema: || {
                json!({
                    "type": "object",
                    "properties": {
                        "channel": { "type": "string", "description": "The channel's id or name." },
                        "text": { "type": "string", "minLength": 1, "maxLength": 16384 }
                    },
                    "required": ["channel", "text"],
                    "additionalProperties": false
                })
            },
            effect: Effect::Adds(false),
            output: Some(channel_post_output),
        },
        Tool {
            name: "report_session",
            title: "Report the session id",
            description: "Record this harness's own session id on the pane, so a restart resumes it.",
            schema: || {
                json!({
                    "type": "object",
                    "properties": { "sessionId": { "type": "string", "pattern": "^[A-Za-z0-9._:-]{1,256}$" } },
                    "required": ["sessionId"],
                    "additionalProperties": false
                })
            },
            effect: Effect::Adds(true),
            output: None,
        },
        Tool {
            name: "read_log",
            title: "Read a pane's log",
            description: "Read a byte range of a subshell's pane log: everything the pane printed since it started, terminal escapes included, kept on its node. Answers the range read (`fromByte`, `toByte`), the log's size now, and the bytes as text (bytes that are not UTF-8, and a character cut at the range's end, read as U+FFFD). Read on from `toByte` for more.",
            schema: || {
                range_input(
                    "subshellId",
                    json!({ "type": "string", "description": "The subshell (default: this pane's own)." }),
                    false,
                )
            },
            effect: Effect::Reads,
            output: Some(|| range_output(json!({ "text": { "type": "string" } }), &["text"])),
        },
        Tool {
            name: "stop_subshell",
            title: "Stop a pane",
            description: "Stop a subshell gracefully: Ctrl-C, then a kill if it has not ended after the plane's grace. Its row, log and session stay (restart it later). Needs the token's `subshells: write`.",
            schema: one_subshell,
            effect: Effect::Destroys(true),
            output: Some(subshell_output),
        },
        Tool {
            name: "terminate_subshell",
            title: "Terminate a pane",
            description: "Kill a subshell's pane now, without a grace. Its row and log stay. Needs the token's `subshells: write`.",
            schema: one_subshell,
            effect: Effect::Destroys(true),
            output: Some(subshell_output),
        },
        Tool {
            name: "restart_subshell",
            title: "Restart a pane",
            description: "Restart a subshell: its pane is ended if it runs and launched again with the same harness, directory and settings (resuming the harness's own session where it has one). Needs the token's `subshells: write`.",
            schema: one_subshell,
            effect: Effect::Destroys(false),
            output: Some(subshell_output),
        },
        Tool {
            name: "delete_subshell",
            title: "Delete a pane",
            description: "Delete a subshell: its pane is killed if it runs, and its row and log are gone. Needs the token's `subshells: write`.",
            schema: one_subshell,
            effect: Effect::Destroys(true),
            output: Some(|| {
                json!({
                    "type": "object",
                    "properties": {
                        "deleted": { "type": "boolean" },
                        "subshellId": { "type": "string" }
                    },
                    "required": ["deleted", "subshellId"]
                })
            }),
        },
    ]
}

/// The server: one pane, one plane.
pub struct Server<P> {
    plane: P,
    pane: Pane,
    /// The pane's channel identity, once loaded or made: its id and secret scalar.
    identity: std::sync::Mutex<Option<channels::Held>>,
}

/// Locks `m`, whatever a panicking holder left (the map stays consistent: one insert or remove).
fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// An id MCP allows: a string or an integer.
fn valid_id(id: &Value) -> bool {
    id.is_string() || id.is_i64() || id.is_u64()
}

fn rpc_error(id: &Value, code: i64, message: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } })
}

fn rpc_result(id: &Value, result: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": result })
}

/// `publish_file`'s answer: the upload, done.
fn file_upload_output() -> Value {
    json!({
        "type": "object",
        "properties": {
            "fileId": { "type": "string" },
            "name": { "type": "string" },
            "size": { "type": "integer" },
            "pieceBytes": { "type": "integer" },
            "pieces": { "type": "integer" },
            "received": { "type": "integer" },
            "done": { "type": "boolean" }
        },
        "required": ["fileId", "done"]
    })
}

/// `list_files`' answer.
fn files_output() -> Value {
    json!({
        "type": "object",
        "properties": {
            "files": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": { "type": "string" },
                        "name": { "type": "string" },
                        "size": { "type": "integer" },
                        "sha256": { "type": "string" },
                        "createdAt": { "type": "integer" }
                    },
                    "required": ["id", "name", "size", "sha256", "createdAt"]
                }
            }
        },
        "required": ["files"]
    })
}

/// One channel, as the plane shows it to this pane.
fn channel_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "id": { "type": "string" },
            "name": { "type": "string" },
            "description": { "type": "string" },
            "ownerUserId": { "type": "string" },
            "access": { "type": "string", "enum": ["read", "write"] },
            "head": {
                "type": "object",
                "properties": { "seq": { "type": "integer" }, "hash": { "type": "string" } },
                "required": ["seq", "hash"]
            },
            "createdAt": { "type": "integer" }
        },
        "required": ["id", "name", "access", "head"]
    })
}

/// `create_channel`'s answer.
fn channel_output() -> Value {
    channel_schema()
}

/// `list_channels`' answer.
fn channels_output() -> Value {
    json!({
        "type": "object",
        "properties": { "channels": { "type": "array", "items": channel_schema() } },
        "required": ["channels"]
    })
}

/// `read_channel`'s answer.
fn channel_entries_output() -> Value {
    let text_or_null = json!({ "type": ["string", "null"] });
    json!({
        "type": "object",
        "properties": {
            "channelId": { "type": "string" },
            "entries": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "seq": { "type": "integer" },
                        "author": text_or_null,
                        "authorPane": text_or_null,
                        "createdAt": { "type": "integer" },
                        "verified": { "type": "boolean" },
                        "problem": text_or_null,
                        "text": text_or_null
                    },
                    "required": ["seq", "verified"]
                }
            },
            "next": { "type": "integer" },
            "headSeq": { "type": "integer" }
        },
        "required": ["channelId", "entries", "next"]
    })
}

/// `post_to_channel`'s answer.
fn channel_post_output() -> Value {
    json!({
        "type": "object",
        "properties": {
            "channelId": { "type": "string" },
            "seq": { "type": "integer" },
            "hash": { "type": "string" },
            "identityId": { "type": "string" }
        },
        "required": ["channelId", "seq", "hash", "identityId"]
    })
}

/// A tool's structured answer: `content` as its structured content and, serialized, as text.
pub(crate) fn structured_result(content: Value) -> Value {
    json!({
        "content": [{ "type": "text", "text": serde_json::to_string_pretty(&content).unwrap_or_default() }],
        "structuredContent": content,
        "isError": false,
    })
}

/// `run_command`'s longest run when the call names none.
const RUN_COMMAND_TIMEOUT_SECS: u64 = 600;
/// The most of a command's output `run_command` answers (its end).
const RUN_COMMAND_OUTPUT_BYTES: u64 = 65_536;

/// `s` as one word for `sh`, in single quotes.
fn sh_word(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// A pane's transcript as plain text: terminal escape sequences (CSI, OSC, two-character ones)
/// removed, carriage returns dropped, a backspace taking back the character before it.
fn plain_text(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut it = raw.chars().peekable();
    while let Some(c) = it.next() {
        match c {
            '\u{1b}' => match it.next() {
                // CSI: parameters and intermediates, then one final byte.
                Some('[') => {
                    for d in it.by_ref() {
                        if ('\u{40}'..='\u{7e}').contains(&d) {
                            break;
                        }
                    }
                }
                // OSC, DCS and the like: up to BEL or ST (ESC \).
                Some(']' | 'P' | '_' | '^' | 'X') => {
                    while let Some(d) = it.next() {
                        if d == '\u{7}' {
                            break;
                        }
                        if d == '\u{1b}' && it.peek() == Some(&'\\') {
                            it.next();
                            break;
                        }
                    }
                }
                // A character-set choice takes one more character.
                Some('(' | ')' | '*' | '+' | '#' | '%') => {
                    it.next();
                }
                _ => {}
            },
            '\r' | '\u{7}' => {}
            '\u{8}' => {
                out.pop();
            }
            c if c.is_control() && c != '\n' && c != '\t' => {}
            c => out.push(c),
        }
    }
    out
}

/// The line a `run_command` script prints before the command's output.
const RUN_MARKER: &str = "--- termplane run_command output ---";

/// `s` in `printf` octal escapes (`\ooo` per byte).
fn octal(s: &str) -> String {
    s.bytes().map(|b| format!("\\{b:03o}")).collect()
}

/// What a `run_command` pane printed after its marker line (the shell's prompt and the typed
/// line are left out), as plain text. Without the marker: all of it when the transcript's start
/// was `cut` (the marker went with it), else nothing (the command never started: killed while
/// it was being typed).
fn command_output(transcript: &str, cut: bool) -> String {
    let text = plain_text(transcript);
    let after = match text.rfind(&format!("{RUN_MARKER}\n")) {
        Some(at) => &text[at + RUN_MARKER.len() + 1..],
        None if cut => &text,
        None => "",
    };
    after.trim_end().to_owned()
}

/// `read_log`'s range when the call names none: enough for a few screens of output.
const READ_LOG_DEFAULT_BYTES: u64 = 65_536;

/// A tool's answer: text for the model, and whether it is an error.
fn tool_text(text: String, is_error: bool) -> Value {
    json!({ "content": [{ "type": "text", "text": text }], "isError": is_error })
}

fn str_arg<'a>(args: &'a Value, k: &str) -> Option<&'a str> {
    args.get(k).and_then(Value::as_str)
}

/// The schema keywords [`check_args`] reads; a tool schema using any other is caught by a test.
#[cfg(test)]
const CHECKED_KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "enum",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "items",
    "description",
    "pattern",
];

/// Checks a tool's arguments against its published input schema before anything is called, so
/// an argument of the wrong kind is refused by name instead of read as absent (a `subshellId`
/// given as a number must not fall back to this pane's own).
///
/// It reads the keywords the tools' schemas use ([`CHECKED_KEYWORDS`]); `pattern` is left to
/// the plane, which checks the same rule on the REST call. A `null` stands for an absent
/// optional argument (some clients send one).
fn check_args(schema: &Value, v: &Value, at: &str) -> Result<(), String> {
    let name = if at.is_empty() { "arguments" } else { at };
    let kind_ok = match schema.get("type").and_then(Value::as_str) {
        Some("object") => v.is_object(),
        Some("string") => v.is_string(),
        Some("integer") => v.is_i64() || v.is_u64(),
        Some("array") => v.is_array(),
        Some("boolean") => v.is_boolean(),
        _ => true,
    };
    if !kind_ok {
        let kind = schema
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("value");
        let article = if kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
            "an"
        } else {
            "a"
        };
        return Err(format!("`{name}` must be {article} {kind}"));
    }
    if let Some(options) = schema.get("enum").and_then(Value::as_array)
        && !options.contains(v)
    {
        let list: Vec<String> = options.iter().map(Value::to_string).collect();
        return Err(format!("`{name}` must be one of {}", list.join(", ")));
    }
    if let Some(n) = v.as_i64().map(i128::from).or(v.as_u64().map(i128::from)) {
        let min = schema.get("minimum").and_then(Value::as_i64);
        let max = schema.get("maximum").and_then(Value::as_i64);
        if min.is_some_and(|m| n < i128::from(m)) || max.is_some_and(|m| n > i128::from(m)) {
            let from = min.map_or_else(|| "any".to_owned(), |m| m.to_string());
            let to = max.map_or_else(|| "any".to_owned(), |m| m.to_string());
            return Err(format!("`{name}` must be from {from} to {to}"));
        }
    }
    if let Some(text) = v.as_str() {
        let chars = text.chars().count();
        let min = schema.get("minLength").and_then(Value::as_u64);
        let max = schema.get("maxLength").and_then(Value::as_u64);
        let n = chars as u64;
        if min.is_some_and(|m| n < m) || max.is_some_and(|m| n > m) {
            return Err(format!(
                "`{name}` must be {} to {} characters",
                min.unwrap_or(0),
                max.map_or_else(|| "any number of".to_owned(), |m| m.to_string())
            ));
        }
    }
    if let (Some(items), Some(list)) = (schema.get("items"), v.as_array()) {
        for (i, item) in list.iter().enumerate() {
            check_args(items, item, &format!("{name}[{i}]"))?;
        }
    }
    if let Some(obj) = v.as_object() {
        let props = schema.get("properties").and_then(Value::as_object);
        let child = |k: &str| {
            if at.is_empty() {
                k.to_owned()
            } else {
                format!("{at}.{k}")
            }
        };
        if let Some(required) = schema.get("required").and_then(Value::as_array) {
            for k in required.iter().filter_map(Value::as_str) {
                if obj.get(k).is_none_or(Value::is_null) {
                    return Err(format!("`{}` is required", child(k)));
                }
            }
        }
        for (k, item) in obj {
            match props.and_then(|p| p.get(k)) {
                Some(_) if item.is_null() => {}
                Some(s) => check_args(s, item, &child(k))?,
                None if schema.get("additionalProperties") == Some(&Value::Bool(false)) => {
                    let known: Vec<&str> = props
                        .map(|p| p.keys().map(String::as_str).collect())
                        .unwrap_or_default();
                    return Err(format!(
                        "unknown argument `{}`; this tool takes {}",
                        child(k),
                        if known.is_empty() {
                            "none".to_owned()
                        } else {
                            known.join(", ")
                        }
                    ));
                }
                None => {}
            }
        }
    }
    Ok(())
}

impl<P: Plane> Server<P> {
    /// A server for `pane`, talking to `plane`.
    pub fn new(plane: P, pane: Pane) -> Self {
        Self {
            plane,
            pane,
            identity: std::sync::Mutex::new(None),
        }
    }

    /// The pane it serves.
    #[must_use]
    pub fn pane(&self) -> &Pane {
        &self.pane
    }

    /// Tells the plane the pane is alive (extends its token).
    pub fn keepalive(&self) -> Result<(), String> {
        let path = format!("/api/subshells/{}/keepalive", self.pane.subshell_id);
        match self.plane.request("POST", &path, None)? {
            (200, _) => Ok(()),
            (s, v) => Err(format!("keepalive answered {s}: {}", message(&v))),
        }
    }

    /// Handles one incoming line; the answer to write, if any (notifications get none).
    pub fn handle_line(&self, line: &str) -> Option<Value> {
        match serde_json::from_str::<Value>(line) {
            Ok(msg) => self.handle_value(msg),
            Err(_) => Some(rpc_error(&Value::Null, -32700, "parse error")),
        }
    }

    /// Handles one parsed message, or a batch of them (JSON-RPC 2.0 batches, which the
    /// 2025-03-26 revision of MCP has; their answers come back as one array, in order).
    fn handle_value(&self, msg: Value) -> Option<Value> {
        match msg {
            Value::Array(items) if !items.is_empty() => {
                let answers: Vec<Value> = items
                    .into_iter()
                    .filter_map(|m| self.handle_message(&m))
                    .collect();
                (!answers.is_empty()).then_some(Value::Array(answers))
            }
            other => self.handle_message(&other),
        }
    }

    /// Handles one JSON-RPC message.
    fn handle_message(&self, msg: &Value) -> Option<Value> {
        let Some(obj) = msg.as_object() else {
            return Some(rpc_error(&Value::Null, -32600, "invalid request"));
        };
        let id = obj.get("id").cloned();
        // MCP: an id is a string or an integer, never null, and every message says `jsonrpc`
        // "2.0".
        if id.as_ref().is_some_and(|i| !valid_id(i)) {
            return Some(rpc_error(
                &Value::Null,
                -32600,
                "invalid request: an id is a string or an integer",
            ));
        }
        if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return Some(rpc_error(
                id.as_ref().unwrap_or(&Value::Null),
                -32600,
                "invalid request: `jsonrpc` must be \"2.0\"",
            ));
        }
        let Some(method) = obj.get("method").and_then(Value::as_str) else {
            // A response to a request of ours (we send none), or garbage.
            return id.map(|id| rpc_error(&id, -32600, "invalid request"));
        };
        let Some(id) = id else {
            // A notification: `notifications/initialized`, `notifications/cancelled`, …
            return None;
        };
        let params = obj.get("params").cloned().unwrap_or(Value::Null);
        Some(match method {
            "initialize" => {
                let asked = params
                    .get("protocolVersion")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let version = PROTOCOL_VERSIONS
                    .iter()
                    .find(|v| **v == asked)
                    .copied()
                    .unwrap_or(PROTOCOL_VERSIONS[0]);
                rpc_result(
                    &id,
                    json!({
                        "protocolVersion": version,
                        "capabilities": { "tools": { "listChanged": false } },
                        "serverInfo": { "name": "termplane", "title": "termplane", "version": env!("CARGO_PKG_VERSION") },
                        "instructions": "Tools of the termplane control plane, acting with this pane's own token: see the other agent panes of this pane's owner, read their screens and logs, type into them, launch, stop, restart and delete them, and report when this pane needs a person or is done."
                    }),
                )
            }
            "ping" => rpc_result(&id, json!({})),
            "tools/list" => rpc_result(
                &id,
                json!({ "tools": tools().iter().map(|t| {
                    let mut d = json!({
                        "name": t.name,
                        "title": t.title,
                        "description": t.description,
                        "inputSchema": (t.schema)(),
                        "annotations": t.effect.annotations(t.title),
                    });
                    if let Some(o) = t.output {
                        d["outputSchema"] = o();
                    }
                    d
                }).collect::<Vec<_>>() }),
            ),
            "tools/call" => {
                let Some(name) = params.get("name").and_then(Value::as_str) else {
                    return Some(rpc_error(&id, -32602, "tools/call needs a tool name"));
                };
                let args = params
                    .get("arguments")
                    .cloned()
                    .unwrap_or_else(|| json!({}));
                if !args.is_object() {
                    return Some(rpc_error(&id, -32602, "arguments must be an object"));
                }
                // Arguments the schema refuses are the model's to correct: a tool error that
                // says which, as MCP has input validation reported.
                if let Some(t) = tools().iter().find(|t| t.name == name)
                    && let Err(e) = check_args(&(t.schema)(), &args, "")
                {
                    return Some(rpc_result(&id, tool_text(format!("{name}: {e}"), true)));
                }
                match self.call(name, &args) {
                    Some(result) => rpc_result(&id, result),
                    None => rpc_error(&id, -32602, &format!("unknown tool: {name}")),
                }
            }
            _ => rpc_error(&id, -32601, &format!("method not found: {method}")),
        })
    }

    /// Runs one tool; `None` for an unknown tool.
    fn call(&self, name: &str, args: &Value) -> Option<Value> {
        let own = self.pane.subshell_id.as_str();
        let (method, path, body) = match name {
            "list_subshells" => {
                let mut q = Vec::new();
                if let Some(s) = str_arg(args, "state") {
                    q.push(format!("state={}", encode(s)));
                }
                if let Some(n) = str_arg(args, "nodeId") {
                    q.push(format!("nodeId={}", encode(n)));
                }
                let query = if q.is_empty() {
                    String::new()
                } else {
                    format!("?{}", q.join("&"))
                };
                let path = format!("/api/subshells{query}");
                return Some(self.structured("GET", &path, None, |v| json!({ "subshells": v })));
            }
            "read_output" => {
                let target = str_arg(args, "subshellId").unwrap_or(own);
                let lines = args.get("lines").and_then(Value::as_u64).unwrap_or(100);
                let path = format!("/api/subshells/{}/screen?lines={lines}", encode(target));
                return Some(self.structured("GET", &path, None, Value::clone));
            }
            "send_input" => {
                let target = str_arg(args, "subshellId").unwrap_or(own);
                let mut body = json!({});
                if let Some(t) = args.get("text") {
                    body["text"] = t.clone();
                }
                if let Some(k) = args.get("keys") {
                    body["keys"] = k.clone();
                }
                (
                    "POST",
                    format!("/api/subshells/{}/input", encode(target)),
                    Some(body),
                )
            }
            "launch_subshell" => {
                let mut body = args.clone();
                if body.get("nodeId").is_none()
                    && let Some(n) = &self.pane.node_id
                {
                    body["nodeId"] = Value::String(n.clone());
                }
                return Some(self.structured("POST", "/api/subshells", Some(&body), Value::clone));
            }
            "report_attention" => {
                let path = format!("/api/subshells/{}/attention", encode(own));
                let body =
                    json!({ "attention": args.get("attention").cloned().unwrap_or(Value::Null) });
                return Some(self.structured("POST", &path, Some(&body), Value::clone));
            }
            "report_status" => {
                let state = match str_arg(args, "state") {
                    Some("failure") => "error",
                    Some(s) => s,
                    None => "",
                };
                let mut body = json!({ "state": state, "source": "self_report" });
                for k in ["summary", "link"] {
                    if let Some(v) = args.get(k) {
                        body[k] = v.clone();
                    }
                }
                let path = format!("/api/subshells/{}/status", encode(own));
                return Some(self.structured("POST", &path, Some(&body), |v| v["agent"].clone()));
            }
            "list_files" => {
                return Some(self.structured("GET", "/api/files", None, |v| json!({ "files": v })));
            }
            "list_nodes" => {
                return Some(self.structured("GET", "/api/nodes", None, |v| json!({ "nodes": v })));
            }
            "read_file" => return Some(self.read_file(args)),
            "list_channels" => {
                return Some(self.structured(
                    "GET",
                    "/api/channels",
                    None,
                    |v| json!({ "channels": v }),
                ));
            }
            "create_channel" => {
                return Some(self.structured("POST", "/api/channels", Some(args), Value::clone));
            }
            "read_channel" => return Some(self.read_channel(args)),
            "post_to_channel" => return Some(self.post_to_channel(args)),
            "publish_file" => return Some(self.publish_file(args)),
            "read_log" => return Some(self.read_log(args)),
            "run_command" => return Some(self.run_command(args)),
            "stop_subshell" | "terminate_subshell" | "restart_subshell" => {
                let target = str_arg(args, "subshellId").unwrap_or_default();
                let verb = match name {
                    "stop_subshell" => "terminate",
                    "terminate_subshell" => "kill",
                    _ => "restart",
                };
                let path = format!("/api/subshells/{}/{verb}", encode(target));
                return Some(self.structured("POST", &path, None, Value::clone));
            }
            "delete_subshell" => {
                let target = str_arg(args, "subshellId").unwrap_or_default();
                let path = format!("/api/subshells/{}", encode(target));
                return Some(self.structured(
                    "DELETE",
                    &path,
                    None,
                    |_| json!({ "deleted": true, "subshellId": target }),
                ));
            }
            "report_session" => (
                "PUT",
                format!("/api/subshells/{}/session", encode(own)),
                Some(
                    json!({ "harnessSessionId": args.get("sessionId").cloned().unwrap_or(Value::Null) }),
                ),
            ),
            _ => return None,
        };
        Some(match self.rest(method, &path, body.as_ref()) {
            Ok(v) => tool_text(serde_json::to_string_pretty(&v).unwrap_or_default(), false),
            Err(e) => e,
        })
    }

    /// One REST call with the pane's token: the answer's body on a 2xx, else the tool error
    /// that says why (the plane's refusal, or that it could not be reached).
    fn rest(&self, method: &str, path: &str, body: Option<&Value>) -> Result<Value, Value> {
        match self.plane.request(method, path, body) {
            Ok((status, v)) if (200..300).contains(&status) => Ok(v),
            Ok((status, v)) => Err(refused(status, &v)),
            Err(e) => Err(tool_text(
                format!("the plane could not be reached: {e}"),
                true,
            )),
        }
    }

    /// One REST call whose answer, shaped by `shape`, is the tool's structured content (and,
    /// serialized, its text, for clients that read only text).
    fn structured(
        &self,
        method: &str,
        path: &str,
        body: Option<&Value>,
        shape: impl FnOnce(&Value) -> Value,
    ) -> Value {
        match self.rest(method, path, body) {
            Ok(v) => structured_result(shape(&v)),
            Err(e) => e,
        }
    }

    /// `run_command`: a shell pane that runs the command and ends with its status, waited for
    /// (each wait a long-poll the plane ends when the pane does), its output read from its log.
    fn run_command(&self, args: &Value) -> Value {
        let command = str_arg(args, "command").unwrap_or_default();
        let timeout = std::time::Duration::from_secs(
            args.get("timeoutSec")
                .and_then(Value::as_u64)
                .unwrap_or(RUN_COMMAND_TIMEOUT_SECS),
        );
        let keep = args.get("keep").and_then(Value::as_bool).unwrap_or(false);
        let name: String = format!("run: {command}")
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .take(100)
            .collect();
        let mut body = json!({
            "harnessId": "shell",
            "name": name.trim_end(),
            // The pane's shell becomes `sh -c`: the pane ends with the command's status. The
            // script first prints a marker line, written in octal escapes so the typed line
            // (which the terminal echoes) never holds it.
            "prompt": format!(
                "exec sh -c {}",
                sh_word(&format!("printf '{}\\n'\n{command}", octal(RUN_MARKER)))
            ),
        });
        for k in ["cwd", "nodeId"] {
            if let Some(v) = args.get(k) {
                body[k] = v.clone();
            }
        }
        if body.get("nodeId").is_none()
            && let Some(n) = &self.pane.node_id
        {
            body["nodeId"] = Value::String(n.clone());
        }
        let row = match self.rest("POST", "/api/subshells", Some(&body)) {
            Ok(v) => v,
            Err(e) => return e,
        };
        let id = row["id"].as_str().unwrap_or_default().to_owned();
        let started = std::time::Instant::now();
        let ended = |wait: std::time::Duration| {
            let ms = wait.as_millis().min(25_000);
            self.rest(
                "GET",
                &format!("/api/subshells/{}/ended?waitMs={ms}", encode(&id)),
                None,
            )
        };
        let live = |r: &Value| {
            matches!(
                r["state"].as_str(),
                Some("starting" | "running" | "stopping")
            )
        };
        let mut row = row;
        let mut timed_out = false;
        while live(&row) {
            let left = timeout.saturating_sub(started.elapsed());
            if left.is_zero() {
                timed_out = true;
                if let Err(e) = self.rest(
                    "POST",
                    &format!("/api/subshells/{}/kill", encode(&id)),
                    None,
                ) {
                    return e;
                }
                row = match ended(std::time::Duration::from_secs(10)) {
                    Ok(r) => r,
                    Err(e) => return e,
                };
                break;
            }
            row = match ended(left) {
                Ok(r) => r,
                Err(e) => return e,
            };
        }
        let (output, truncated) = match self.log_tail(&id) {
            Ok(t) => t,
            Err(e) => return e,
        };
        if !keep
            && let Err(e) = self.rest("DELETE", &format!("/api/subshells/{}", encode(&id)), None)
        {
            return e;
        }
        structured_result(json!({
            "subshellId": id,
            "state": row["state"],
            "exitCode": row["exitCode"],
            "timedOut": timed_out,
            "output": command_output(&output, truncated),
            "truncated": truncated,
            "kept": keep,
        }))
    }

    /// The last [`RUN_COMMAND_OUTPUT_BYTES`] of a pane's log as text, and whether there was
    /// more before them.
    fn log_tail(&self, id: &str) -> Result<(String, bool), Value> {
        let base = format!("/api/subshells/{}/logs", encode(id));
        let size = self.rest("GET", &format!("{base}?fromByte=0&maxBytes=1"), None)?["size"]
            .as_u64()
            .unwrap_or(0);
        let from = size.saturating_sub(RUN_COMMAND_OUTPUT_BYTES);
        let (_, bytes) = self.byte_range(
            &base,
            &json!({ "fromByte": from, "maxBytes": RUN_COMMAND_OUTPUT_BYTES }),
            "log",
        )?;
        Ok((String::from_utf8_lossy(&bytes).into_owned(), from > 0))
    }

    /// A byte range of `base` (a pane's log, a kept file), as the call's `fromByte` and
    /// `maxBytes` name it: the plane's answer and its bytes, or the tool error.
    fn byte_range(&self, base: &str, args: &Value, what: &str) -> Result<(Value, Vec<u8>), Value> {
        let from = args.get("fromByte").and_then(Value::as_u64).unwrap_or(0);
        let max = args
            .get("maxBytes")
            .and_then(Value::as_u64)
            .unwrap_or(READ_LOG_DEFAULT_BYTES);
        let answer = self.rest(
            "GET",
            &format!("{base}?fromByte={from}&maxBytes={max}"),
            None,
        )?;
        let bytes = answer
            .get("dataB64")
            .and_then(Value::as_str)
            .map(<base64ct::Base64 as base64ct::Encoding>::decode_vec);
        match bytes {
            Some(Ok(bytes)) => Ok((answer, bytes)),
            _ => Err(tool_text(
                format!("the plane's answer carries no readable {what} bytes"),
                true,
            )),
        }
    }

    /// `read_log`: a byte range of a pane's log, its bytes as text.
    fn read_log(&self, args: &Value) -> Value {
        let target = str_arg(args, "subshellId").unwrap_or(self.pane.subshell_id.as_str());
        let base = format!("/api/subshells/{}/logs", encode(target));
        let (answer, bytes) = match self.byte_range(&base, args, "log") {
            Ok(r) => r,
            Err(e) => return e,
        };
        let n = |k: &str| answer.get(k).and_then(Value::as_u64).unwrap_or(0);
        structured_result(json!({
            "fromByte": n("fromByte"),
            "toByte": n("toByte"),
            "size": n("size"),
            "text": String::from_utf8_lossy(&bytes),
        }))
    }

    /// `read_file`: a byte range of a kept file, as text when it is UTF-8.
    fn read_file(&self, args: &Value) -> Value {
        let id = str_arg(args, "fileId").unwrap_or_default();
        let base = format!("/api/files/{}/bytes", encode(id));
        let (answer, bytes) = match self.byte_range(&base, args, "file") {
            Ok(r) => r,
            Err(e) => return e,
        };
        let n = |k: &str| answer.get(k).and_then(Value::as_u64).unwrap_or(0);
        let mut out = json!({
            "name": answer.get("name").cloned().unwrap_or(Value::Null),
            "fromByte": n("fromByte"),
            "toByte": n("toByte"),
            "size": n("size"),
        });
        match String::from_utf8(bytes) {
            Ok(text) => out["text"] = Value::String(text),
            // A character cut at the range's end: the text before it, and the range ends
            // there (the next read starts with the whole character).
            Err(e) if e.utf8_error().error_len().is_none() && e.utf8_error().valid_up_to() > 0 => {
                let valid = e.utf8_error().valid_up_to();
                let mut bytes = e.into_bytes();
                bytes.truncate(valid);
                out["toByte"] = json!(n("fromByte") + valid as u64);
                out["text"] = Value::String(String::from_utf8(bytes).unwrap_or_default());
            }
            Err(e) => {
                out["dataB64"] = Value::String(
                    <base64ct::Base64 as base64ct::Encoding>::encode_string(e.as_bytes()),
                );
            }
        }
        structured_result(out)
    }

    /// `publish_file`: reads the file and uploads it piece by piece with the pane's token.
    fn publish_file(&self, args: &Value) -> Value {
        let Some(path) = str_arg(args, "path").filter(|p| !p.is_empty()) else {
            return tool_text("publish_file needs a path".into(), true);
        };
        let path = std::path::Path::new(path);
        let name = str_arg(args, "name")
            .map(str::to_owned)
            .or_else(|| path.file_name().map(|n| n.to_string_lossy().into_owned()));
        let Some(name) = name else {
            return tool_text("publish_file needs a file, not a directory".into(), true);
        };
        let bytes = match std::fs::metadata(path) {
            Ok(m) if !m.is_file() => {
                return tool_text(format!("{} is not a regular file", path.display()), true);
            }
            Ok(m) if m.len() > MAX_PUBLISHED_BYTES => {
                return tool_text(format!("{} is over 64 MiB", path.display()), true);
            }
            Ok(_) => match std::fs::read(path) {
                Ok(b) => b,
                Err(e) => return tool_text(format!("cannot read {}: {e}", path.display()), true),
            },
            Err(e) => return tool_text(format!("cannot read {}: {e}", path.display()), true),
        };
        let start = json!({ "name": name, "size": bytes.len() });
        let mut answer = match self.rest("POST", "/api/files", Some(&start)) {
            Ok(v) => v,
            Err(e) => return e,
        };
        let Some(id) = answer
            .get("fileId")
            .and_then(Value::as_str)
            .map(str::to_owned)
        else {
            return tool_text("the plane's answer names no file".into(), true);
        };
        let piece = answer
            .get("pieceBytes")
            .and_then(Value::as_u64)
            .and_then(|p| usize::try_from(p).ok())
            .filter(|p| *p > 0)
            .unwrap_or(192 * 1024);
        for (i, chunk) in bytes.chunks(piece).enumerate() {
            let body = json!({
                "dataB64": <base64ct::Base64 as base64ct::Encoding>::encode_string(chunk)
            });
            match self.rest(
                "PUT",
                &format!("/api/files/{}/pieces/{i}", encode(&id)),
                Some(&body),
            ) {
                Ok(v) => answer = v,
                Err(e) => return e,
            }
        }
        structured_result(answer)
    }

    /// Serves `input` until it ends, writing answers to `output`.
    ///
    /// Tool calls run on threads of their own (at most [`MAX_CALLS_IN_FLIGHT`]; beyond that the
    /// next is run before more input is read), so a `ping`, or a quick call, is answered while
    /// a long one (`read_channel` waiting for an entry) is under way. A call the client
    /// cancels (`notifications/cancelled`) is not answered: the plane's side of it may still
    /// happen, as MCP allows, but its result is dropped.
    pub fn serve(&self, input: impl BufRead, output: impl Write + Send) -> std::io::Result<()>
    where
        P: Sync,
    {
        self.serve_capped(input, output, MAX_MESSAGE_BYTES)
    }

    /// [`Self::serve`] with lines above `max_line` bytes refused as too large instead of
    /// [`MAX_MESSAGE_BYTES`]: the fuzz target's way to reach the cap with short inputs.
    #[doc(hidden)]
    pub fn serve_capped(
        &self,
        input: impl BufRead,
        output: impl Write + Send,
        max_line: usize,
    ) -> std::io::Result<()>
    where
        P: Sync,
    {
        let out = std::sync::Mutex::new(output);
        // Calls under way, by their id's JSON text: whether the client cancelled them.
        let in_flight = std::sync::Mutex::new(std::collections::HashMap::<String, bool>::new());
        let failed: std::sync::Mutex<Option<std::io::Error>> = std::sync::Mutex::new(None);
        let write = |a: &Value| {
            let mut bytes = serde_json::to_vec(a).unwrap_or_default();
            bytes.push(b'\n');
            let mut o = lock(&out);
            if let Err(e) = o.write_all(&bytes).and_then(|()| o.flush()) {
                lock(&failed).get_or_insert(e);
            }
        };
        std::thread::scope(|scope| {
            let mut reader = input;
            let mut line = Vec::new();
            loop {
                if let Some(e) = lock(&failed).take() {
                    return Err(e);
                }
                line.clear();
                if read_line_capped(&mut reader, &mut line, max_line)? == 0 {
                    return Ok(());
                }
                let msg = match std::str::from_utf8(&line) {
                    _ if line.len() > max_line => {
                        write(&rpc_error(&Value::Null, -32600, "message too large"));
                        continue;
                    }
                    Ok(text) if text.trim().is_empty() => continue,
                    Ok(text) => match serde_json::from_str::<Value>(text.trim()) {
                        Ok(v) => v,
                        Err(_) => {
                            write(&rpc_error(&Value::Null, -32700, "parse error"));
                            continue;
                        }
                    },
                    Err(_) => {
                        write(&rpc_error(&Value::Null, -32700, "parse error"));
                        continue;
                    }
                };
                let method = msg.get("method").and_then(Value::as_str);
                if method == Some("notifications/cancelled") && msg.get("id").is_none() {
                    if let Some(r) = msg.pointer("/params/requestId")
                        && let Some(cancelled) = lock(&in_flight).get_mut(&r.to_string())
                    {
                        *cancelled = true;
                    }
                    continue;
                }
                let call_id = msg
                    .get("id")
                    .filter(|i| valid_id(i) && method == Some("tools/call"))
                    .map(Value::to_string);
                let Some(key) = call_id.filter(|k| {
                    let mut f = lock(&in_flight);
                    if f.len() >= MAX_CALLS_IN_FLIGHT || f.contains_key(k) {
                        return false;
                    }
                    f.insert(k.clone(), false);
                    true
                }) else {
                    if let Some(a) = self.handle_value(msg) {
                        write(&a);
                    }
                    continue;
                };
                let (write, in_flight) = (&write, &in_flight);
                scope.spawn(move || {
                    let answer = self.handle_value(msg);
                    let cancelled = lock(in_flight).remove(&key).unwrap_or(false);
                    if let Some(a) = answer.filter(|_| !cancelled) {
                        write(&a);
                    }
                });
            }
        })
    }
}

/// Reads one line into `buf`, keeping at most `max` + 1 bytes of it (the rest
/// of an oversize line is read and dropped). Answers the bytes consumed.
fn read_line_capped(r: &mut impl BufRead, buf: &mut Vec<u8>, max: usize) -> std::io::Result<usize> {
    let mut consumed = 0;
    loop {
        let chunk = r.fill_buf()?;
        if chunk.is_empty() {
            return Ok(consumed);
        }
        let (take, done) = match chunk.iter().position(|b| *b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        let room = max.saturating_add(1).saturating_sub(buf.len());
        buf.extend_from_slice(&chunk[..take.min(room)]);
        r.consume(take);
        consumed += take;
        if done {
            if buf.last() == Some(&b'\n') {
                buf.pop();
            }
            return Ok(consumed);
        }
    }
}

/// A refusal by the plane, as a tool's error text.
/// A refusal by the plane, as a tool's error text, naming the field the plane named (its error
/// body's `metadata.path`, else `metadata.field`) when the message does not already.
fn refused(status: u16, v: &Value) -> Value {
    let text = message(v);
    let meta = v.get("metadata");
    let field = meta
        .and_then(|m| m.get("path"))
        .or_else(|| meta.and_then(|m| m.get("field")))
        .and_then(Value::as_str)
        .filter(|f| !text.contains(&format!("`{f}`")));
    tool_text(
        format!(
            "refused ({status} {}): {}{text}",
            v.get("code").and_then(Value::as_str).unwrap_or("ERROR"),
            field.map_or_else(String::new, |f| format!("`{f}`: ")),
        ),
        true,
    )
}

fn message(v: &Value) -> String {
    v.get("message")
        .and_then(Value::as_str)
        .map_or_else(|| v.to_string(), str::to_owned)
}

/// Percent-encodes a path segment or query value.
fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use std::sync::Mutex;

    /// Records requests and answers them from a table (a unit test of the protocol layer; the
    /// integration tests run the real plane).
    struct Recorder {
        seen: Mutex<Vec<(String, String, Option<Value>)>>,
        answer: (u16, Value),
    }

    impl Plane for &Recorder {
        fn request(
            &self,
            method: &str,
            path: &str,
            body: Option<&Value>,
        ) -> Result<(u16, Value), String> {
            self.seen
                .lock()
                .unwrap()
                .push((method.into(), path.into(), body.cloned()));
            Ok(self.answer.clone())
        }
    }

    fn pane() -> Pane {
        Pane {
            url: "http://p".into(),
            token: "tp_x".into(),
            subshell_id: "abc".into(),
            node_id: Some("n1".into()),
            key_dir: None,
        }
    }

    #[test]
    fn initialize_negotiates_a_known_version() {
        let r = Recorder {
            seen: Mutex::default(),
            answer: (200, json!({})),
        };
        let s = Server::new(&r, pane());
        let a = s
            .handle_line(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#)
            .unwrap();
        assert_eq!(a["result"]["protocolVersion"], "2025-03-26");
        assert!(a["result"]["capabilities"]["tools"].is_object());
        let a = s
            .handle_line(r#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"1999-01-01"}}"#)
            .unwrap();
        assert_eq!(a["result"]["protocolVersion"], PROTOCOL_VERSIONS[0]);
        assert!(
            s.handle_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
                .is_none()
        );
    }

    #[test]
    fn protocol_faults_get_json_rpc_errors() {
        let r = Recorder {
            seen: Mutex::default(),
            answer: (200, json!({})),
        };
        let s = Server::new(&r, pane());
        assert_eq!(s.handle_line("{").unwrap()["error"]["code"], -32700);
        assert_eq!(s.handle_line("[]").unwrap()["error"]["code"], -32600);
        assert_eq!(
            s.handle_line(r#"{"jsonrpc":"2.0","id":3,"method":"nope"}"#)
                .unwrap()["error"]["code"],
            -32601
        );
        assert_eq!(
            s.handle_line(
                r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"nope"}}"#
            )
            .unwrap()["error"]["code"],
            -32602
        );
        assert!(r.seen.lock().unwrap().is_empty());
    }

    #[test]
    fn tools_map_to_the_panes_own_rest_calls() {
        let r = Recorder {
            seen: Mutex::default(),
            answer: (200, json!({"ok": true})),
        };
        let s = Server::new(&r, pane());
        let call = |name: &str, args: Value| {
            s.handle_line(
                &json!({"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":name,"arguments":args}})
                    .to_string(),
            )
            .unwrap()
        };
        assert_eq!(
            call("report_attention", json!({"attention":"done"}))["result"]["isError"],
            false
        );
        call("launch_subshell", json!({"harnessId":"shell"}));
        call("read_output", json!({}));
        call("create_channel", json!({"name":"notes","description":"d"}));
        call("list_channels", json!({}));
        let seen = r.seen.lock().unwrap();
        assert_eq!(seen[0].1, "/api/subshells/abc/attention");
        assert_eq!(seen[1].2.as_ref().unwrap()["nodeId"], "n1");
        assert_eq!(seen[2].1, "/api/subshells/abc/screen?lines=100");
        assert_eq!(
            (seen[3].0.as_str(), seen[3].1.as_str()),
            ("POST", "/api/channels")
        );
        assert_eq!(seen[3].2, Some(json!({"name":"notes","description":"d"})));
        assert_eq!(
            (seen[4].0.as_str(), seen[4].1.as_str()),
            ("GET", "/api/channels")
        );
    }

    /// The listings and a new channel answer structured content that fits their output
    /// schemas, shaped from what the plane answered.
    #[test]
    fn files_and_channels_answer_structured_content_under_their_schemas() {
        let file = json!({"id": "f1", "name": "a.txt", "size": 3, "sha256": "ab", "createdAt": 5});
        let channel = json!({
            "id": "c1", "name": "notes", "description": "", "ownerUserId": "u1",
            "access": "write", "head": {"seq": 0, "hash": "00"}, "createdAt": 7
        });
        for (tool, args, answer, want) in [
            (
                "list_files",
                json!({}),
                json!([file]),
                json!({ "files": [file] }),
            ),
            (
                "list_channels",
                json!({}),
                json!([channel]),
                json!({ "channels": [channel] }),
            ),
            (
                "create_channel",
                json!({"name": "notes"}),
                channel.clone(),
                channel.clone(),
            ),
        ] {
            let r = Recorder {
                seen: Mutex::default(),
                answer: (200, answer),
            };
            let s = Server::new(&r, pane());
            let out = s
                .handle_line(
                    &json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":tool,"arguments":args}})
                        .to_string(),
                )
                .unwrap()["result"]
                .clone();
            assert_eq!(out["isError"], false, "{tool}: {out}");
            assert_eq!(out["structuredContent"], want, "{tool}");
            assert!(fits(&output_schema(tool), &want), "{tool}");
            // The same as text, for clients that read only text.
            let text: Value =
                serde_json::from_str(out["content"][0]["text"].as_str().unwrap()).unwrap();
            assert_eq!(text, want, "{tool}");
        }
    }

    #[test]
    fn publish_file_starts_a_kept_file_and_sends_its_pieces_in_order() {
        let r = Recorder {
            seen: Mutex::default(),
            answer: (201, json!({"fileId": "f1", "pieceBytes": 4, "done": true})),
        };
        let s = Server::new(&r, pane());
        // A directory of this test's own: tests of this binary run on parallel threads.
        let dir = std::env::temp_dir().join(format!("tp-mcp-publish-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("notes.txt");
        std::fs::write(&file, b"0123456789").unwrap();
        let a = s
            .handle_line(&format!(
                r#"{{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{{"name":"publish_file","arguments":{{"path":"{}"}}}}}}"#,
                file.display()
            ))
            .unwrap();
        assert_eq!(a["result"]["isError"], false, "{a}");
        let seen = r.seen.lock().unwrap();
        assert_eq!(seen[0].0, "POST");
        assert_eq!(seen[0].1, "/api/files");
        assert_eq!(seen[0].2, Some(json!({"name": "notes.txt", "size": 10})));
        let pieces: Vec<(String, Value)> = seen[1..]
            .iter()
            .map(|(m, p, b)| (format!("{m} {p}"), b.clone().unwrap()))
            .collect();
        assert_eq!(
            pieces,
            vec![
                (
                    "PUT /api/files/f1/pieces/0".to_owned(),
                    json!({"dataB64": "MDEyMw=="})
                ),
                (
                    "PUT /api/files/f1/pieces/1".to_owned(),
                    json!({"dataB64": "NDU2Nw=="})
                ),
                (
                    "PUT /api/files/f1/pieces/2".to_owned(),
                    json!({"dataB64": "ODk="})
                ),
            ]
        );
        drop(seen);
        let missing = s
            .handle_line(r#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"publish_file","arguments":{"path":"/no/such/file"}}}"#)
            .unwrap();
        assert_eq!(missing["result"]["isError"], true);
        let _ = std::fs::remove_dir_all(&dir);
    }

    fn call_on<P: Plane>(s: &Server<P>, name: &str, args: Value) -> Value {
        s.handle_line(
            &json!({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":name,"arguments":args}})
                .to_string(),
        )
        .unwrap()["result"]
            .clone()
    }

    /// Whether `v` has every key `schema` requires, each of the type it names (the subset of
    /// JSON Schema the output schemas use).
    fn fits(schema: &Value, v: &Value) -> bool {
        let kinds: Vec<&str> = match &schema["type"] {
            Value::String(k) => vec![k.as_str()],
            Value::Array(ks) => ks.iter().filter_map(Value::as_str).collect(),
            _ => vec![],
        };
        let kind_ok = kinds.iter().any(|k| match *k {
            "object" => v.is_object(),
            "string" => v.is_string(),
            "integer" => v.is_u64() || v.is_i64(),
            "boolean" => v.is_boolean(),
            "null" => v.is_null(),
            "array" => v.as_array().is_some_and(|items| {
                schema
                    .get("items")
                    .is_none_or(|s| items.iter().all(|item| fits(s, item)))
            }),
            _ => false,
        });
        let enum_ok = schema["enum"]
            .as_array()
            .is_none_or(|options| options.contains(v));
        let required_ok = schema["required"].as_array().is_none_or(|req| {
            req.iter()
                .filter_map(Value::as_str)
                .all(|k| v.get(k).is_some())
        });
        let props_ok = schema["properties"].as_object().is_none_or(|props| {
            props
                .iter()
                .all(|(k, s)| v.get(k).is_none_or(|item| fits(s, item)))
        });
        kind_ok && enum_ok && required_ok && props_ok
    }

    fn output_schema(name: &str) -> Value {
        (tools()
            .iter()
            .find(|t| t.name == name)
            .unwrap()
            .output
            .unwrap())()
    }

    #[test]
    fn the_lifecycle_tools_are_the_rest_moves_and_answer_the_row_as_structured_content() {
        let row = json!({"id":"s2","name":"sib","nodeId":"n1","harnessId":"shell","state":"stopping","status":"stopping","exitCode":null,"restarts":0,"cols":120});
        let r = Recorder {
            seen: Mutex::default(),
            answer: (200, row.clone()),
        };
        let s = Server::new(&r, pane());
        for tool in ["stop_subshell", "terminate_subshell", "restart_subshell"] {
            let out = call_on(&s, tool, json!({"subshellId":"s2"}));
            assert_eq!(out["isError"], false, "{tool}: {out}");
            assert_eq!(out["structuredContent"], row, "{tool}");
            assert!(
                fits(&output_schema(tool), &out["structuredContent"]),
                "{tool}"
            );
            let text: Value =
                serde_json::from_str(out["content"][0]["text"].as_str().unwrap()).unwrap();
            assert_eq!(text, row, "{tool}: the text is the same content");
        }
        let out = call_on(&s, "delete_subshell", json!({"subshellId":"s/2"}));
        assert_eq!(
            out["structuredContent"],
            json!({"deleted": true, "subshellId": "s/2"})
        );
        assert!(fits(
            &output_schema("delete_subshell"),
            &out["structuredContent"]
        ));
        let seen = r.seen.lock().unwrap();
        let calls: Vec<(&str, &str)> = seen
            .iter()
            .map(|(m, p, _)| (m.as_str(), p.as_str()))
            .collect();
        assert_eq!(
            calls,
            [
                ("POST", "/api/subshells/s2/terminate"),
                ("POST", "/api/subshells/s2/kill"),
                ("POST", "/api/subshells/s2/restart"),
                ("DELETE", "/api/subshells/s%2F2"),
            ]
        );
        assert!(seen.iter().all(|(_, _, body)| body.is_none()));
    }

    #[test]
    fn a_lifecycle_tool_names_its_subshell_or_nothing_is_sent() {
        let r = Recorder {
            seen: Mutex::default(),
            answer: (200, json!({})),
        };
        let s = Server::new(&r, pane());
        for tool in [
            "stop_subshell",
            "terminate_subshell",
            "restart_subshell",
            "delete_subshell",
        ] {
            let out = call_on(&s, tool, json!({}));
            assert_eq!(out["isError"], true, "{tool}");
            assert!(
                out["content"][0]["text"]
                    .as_str()
                    .unwrap()
                    .contains("`subshellId` is required"),
                "{tool}: {out}"
            );
            let out = call_on(&s, tool, json!({"subshellId": 5}));
            assert_eq!(out["isError"], true, "{tool}");
        }
        assert!(r.seen.lock().unwrap().is_empty());
    }

    #[test]
    fn a_refused_move_is_a_tool_error_without_structured_content() {
        let r = Recorder {
            seen: Mutex::default(),
            answer: (
                403,
                json!({"code":"PERMISSION_DENIED","message":"the pane's token allows reading subshells, not changing them"}),
            ),
        };
        let s = Server::new(&r, pane());
        let out = call_on(&s, "stop_subshell", json!({"subshellId":"s2"}));
        assert_eq!(out["isError"], true);
        assert!(out.get("structuredContent").is_none());
        assert!(
            out["content"][0]["text"]
                .as_str()
                .unwrap()
                .starts_with("refused (403 PERMISSION_DENIED)")
        );
    }

    #[test]
    fn read_file_answers_text_a_cut_character_left_for_the_next_read_or_base64() {
        let read = |b64: &str| {
            let r = Recorder {
                seen: Mutex::default(),
                answer: (
                    200,
                    json!({"name":"n.txt","fromByte":4,"toByte":10,"size":20,"dataB64":b64}),
                ),
            };
            let s = Server::new(&r, pane());
            let out = call_on(
                &s,
                "read_file",
                json!({"fileId":"f/1","fromByte":4,"maxBytes":6}),
            );
            assert_eq!(
                r.seen.lock().unwrap()[0].1,
                "/api/files/f%2F1/bytes?fromByte=4&maxBytes=6"
            );
            assert_eq!(out["isError"], false, "{out}");
            assert!(fits(&output_schema("read_file"), &out["structuredContent"]));
            out["structuredContent"].clone()
        };
        // "héllo" whole.
        let c = read("aMOpbGxv");
        assert_eq!(
            (c["text"].as_str(), c["toByte"].as_u64()),
            (Some("héllo"), Some(10))
        );
        // "hell" then the first byte of "é": the range ends before it.
        let c = read("aGVsbMM=");
        assert_eq!(
            (c["text"].as_str(), c["toByte"].as_u64()),
            (Some("hell"), Some(8))
        );
        // Not text: base64, as the plane sent it.
        let c = read("AP8A/w==");
        assert_eq!(c["dataB64"], "AP8A/w==");
        assert!(c.get("text").is_none());
    }

    #[test]
    fn a_commands_output_is_its_terminal_text_after_its_marker() {
        assert_eq!(sh_word("it's"), "'it'\\''s'");
        assert_eq!(octal("-a"), "\\055\\141");
        // Colours, a title, a cursor move, a character set, CRs and a backspace go; text stays.
        let raw = "\u{1b}]0;title\u{7}$ typed\r\n\u{1b}[?2004l\u{1b}[1;31mred\u{1b}[0m x\u{8}y\r\n\u{1b}(Bdone\r\n";
        assert_eq!(plain_text(raw), "$ typed\nred y\ndone\n");
        let transcript = format!("$ exec sh -c 'printf ...'\r\n{RUN_MARKER}\r\none\r\ntwo\r\n\r\n");
        assert_eq!(command_output(&transcript, false), "one\ntwo");
        // The transcript's start (and the marker) cut off: everything.
        assert_eq!(command_output("tail of it\r\n", true), "tail of it");
        // Never started (killed while being typed): nothing, not the typed line.
        assert_eq!(
            command_output("$ exec sh -c 'printf ...\r\n> sleep 9", false),
            ""
        );
        // An OSC cut short by the end of the text ends the text, never loops.
        assert_eq!(plain_text("ok\u{1b}]unterminated"), "ok");
        assert_eq!(plain_text("ok\u{1b}"), "ok");
    }

    #[test]
    fn read_log_reads_a_byte_range_as_text() {
        // "hello" then a byte that is not UTF-8.
        let r = Recorder {
            seen: Mutex::default(),
            answer: (
                200,
                json!({"fromByte":10,"toByte":16,"size":99,"dataB64":"aGVsbG//"}),
            ),
        };
        let s = Server::new(&r, pane());
        let out = call_on(&s, "read_log", json!({"fromByte":10}));
        assert_eq!(out["isError"], false, "{out}");
        let content = &out["structuredContent"];
        assert_eq!(content["fromByte"], 10);
        assert_eq!(content["toByte"], 16);
        assert_eq!(content["size"], 99);
        assert_eq!(content["text"], "hello\u{fffd}");
        assert!(fits(&output_schema("read_log"), content));
        let out = call_on(
            &s,
            "read_log",
            json!({"subshellId":"other","maxBytes":1048576}),
        );
        assert_eq!(out["isError"], false);
        let over = call_on(&s, "read_log", json!({"maxBytes":1048577}));
        assert_eq!(over["isError"], true);
        let seen = r.seen.lock().unwrap();
        assert_eq!(seen.len(), 2, "the refused range is not sent");
        assert_eq!(
            seen[0].1,
            "/api/subshells/abc/logs?fromByte=10&maxBytes=65536"
        );
        assert_eq!(
            seen[1].1,
            "/api/subshells/other/logs?fromByte=0&maxBytes=1048576"
        );
    }

    #[test]
    fn report_status_posts_the_panes_own_state_and_answers_its_agent_status() {
        let agent = json!({"state":"error","since":5,"summary":"tests fail","link":null,"source":"self_report"});
        let r = Recorder {
            seen: Mutex::default(),
            answer: (200, json!({"id":"abc","agent": agent})),
        };
        let s = Server::new(&r, pane());
        let out = call_on(
            &s,
            "report_status",
            json!({"state":"failure","summary":"tests fail"}),
        );
        assert_eq!(out["isError"], false, "{out}");
        assert_eq!(out["structuredContent"], agent);
        assert!(fits(
            &output_schema("report_status"),
            &out["structuredContent"]
        ));
        call_on(
            &s,
            "report_status",
            json!({"state":"working","summary":"on it","link":"https://x.example/pr/1"}),
        );
        let seen = r.seen.lock().unwrap();
        assert_eq!(seen[0].0, "POST");
        assert_eq!(seen[0].1, "/api/subshells/abc/status");
        assert_eq!(
            seen[0].2,
            Some(json!({"state":"error","source":"self_report","summary":"tests fail"}))
        );
        assert_eq!(
            seen[1].2,
            Some(
                json!({"state":"working","source":"self_report","summary":"on it","link":"https://x.example/pr/1"})
            )
        );
    }

    #[test]
    fn a_log_answer_without_bytes_is_a_tool_error() {
        let r = Recorder {
            seen: Mutex::default(),
            answer: (
                200,
                json!({"fromByte":0,"toByte":0,"size":0,"dataB64":"not base64!"}),
            ),
        };
        let s = Server::new(&r, pane());
        let out = call_on(&s, "read_log", json!({}));
        assert_eq!(out["isError"], true);
    }

    #[test]
    fn every_tool_says_what_it_does_to_the_world() {
        let r = Recorder {
            seen: Mutex::default(),
            answer: (200, json!({})),
        };
        let s = Server::new(&r, pane());
        let listed = s
            .handle_line(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)
            .unwrap();
        let tools = listed["result"]["tools"].as_array().unwrap().clone();
        let hint = |name: &str, k: &str| {
            tools.iter().find(|t| t["name"] == name).unwrap()["annotations"][k]
                .as_bool()
                .unwrap()
        };
        for t in &tools {
            let a = &t["annotations"];
            assert_eq!(a["title"], t["title"], "{t}");
            assert_eq!(a["openWorldHint"], false, "{t}");
            for k in ["readOnlyHint", "destructiveHint", "idempotentHint"] {
                assert!(a[k].is_boolean(), "{}: {k}", t["name"]);
            }
            // Read-only tools destroy nothing.
            assert!(
                !(a["readOnlyHint"] == true && a["destructiveHint"] == true),
                "{t}"
            );
            if let Some(o) = t.get("outputSchema") {
                assert_eq!(o["type"], "object", "{}", t["name"]);
            }
        }
        for ro in [
            "list_subshells",
            "read_output",
            "read_log",
            "list_files",
            "list_channels",
            "read_channel",
        ] {
            assert!(hint(ro, "readOnlyHint"), "{ro}");
        }
        for d in [
            "send_input",
            "stop_subshell",
            "terminate_subshell",
            "restart_subshell",
            "delete_subshell",
        ] {
            assert!(
                !hint(d, "readOnlyHint") && hint(d, "destructiveHint"),
                "{d}"
            );
        }
        assert!(!hint("restart_subshell", "idempotentHint"));
        assert!(hint("stop_subshell", "idempotentHint"));
        for additive in [
            "launch_subshell",
            "report_status",
            "publish_file",
            "post_to_channel",
            "create_channel",
        ] {
            assert!(
                !hint(additive, "readOnlyHint") && !hint(additive, "destructiveHint"),
                "{additive}"
            );
        }
        let with_output: Vec<&str> = tools
            .iter()
            .filter(|t| t.get("outputSchema").is_some())
            .filter_map(|t| t["name"].as_str())
            .collect();
        assert_eq!(
            with_output,
            [
                "list_subshells",
                "read_output",
                "launch_subshell",
                "run_command",
                "report_attention",
                "report_status",
                "publish_file",
                "list_files",
                "read_file",
                "list_nodes",
                "list_channels",
                "create_channel",
                "read_channel",
                "post_to_channel",
                "read_log",
                "stop_subshell",
                "terminate_subshell",
                "restart_subshell",
                "delete_subshell"
            ]
        );
    }

    #[test]
    fn a_refusal_is_a_tool_error_naming_the_code() {
        let r = Recorder {
            seen: Mutex::default(),
            answer: (403, json!({"code": "PERMISSION_DENIED", "message": "no"})),
        };
        let s = Server::new(&r, pane());
        let a = s
            .handle_line(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"send_input","arguments":{"subshellId":"x","text":"hi"}}}"#)
            .unwrap();
        assert_eq!(a["result"]["isError"], true);
        assert!(
            a["result"]["content"][0]["text"]
                .as_str()
                .unwrap()
                .contains("PERMISSION_DENIED")
        );
    }

    #[test]
    fn serve_answers_line_by_line_and_caps_messages() {
        let r = Recorder {
            seen: Mutex::default(),
            answer: (200, json!({})),
        };
        let s = Server::new(&r, pane());
        let mut input = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#.to_vec();
        input.push(b'\n');
        input.extend(std::iter::repeat_n(b'x', MAX_MESSAGE_BYTES + 10));
        input.push(b'\n');
        input.extend_from_slice(br#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#);
        input.push(b'\n');
        let mut out = Vec::new();
        s.serve(&input[..], &mut out).unwrap();
        let lines: Vec<Value> = out
            .split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0]["id"], 1);
        assert_eq!(lines[1]["error"]["code"], -32600);
        assert_eq!(lines[2]["id"], 2);
    }

    #[test]
    fn every_tool_schema_uses_only_keywords_the_argument_check_reads() {
        fn walk(v: &Value, tool: &str) {
            let Some(obj) = v.as_object() else { return };
            for (k, child) in obj {
                assert!(
                    CHECKED_KEYWORDS.contains(&k.as_str()),
                    "{tool}: `{k}` is not checked"
                );
                match k.as_str() {
                    "properties" => {
                        for p in child.as_object().unwrap().values() {
                            walk(p, tool);
                        }
                    }
                    "items" => walk(child, tool),
                    _ => {}
                }
            }
        }
        for t in tools() {
            walk(&(t.schema)(), t.name);
        }
    }

    #[test]
    fn an_argument_of_the_wrong_kind_is_refused_by_name_not_read_as_absent() {
        let r = Recorder {
            seen: Mutex::default(),
            answer: (200, json!({})),
        };
        let s = Server::new(&r, pane());
        let call = |name: &str, args: Value| {
            let a = s
                .handle_line(
                    &json!({"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":name,"arguments":args}})
                        .to_string(),
                )
                .unwrap();
            assert_eq!(a["result"]["isError"], true, "{name} {a}");
            a["result"]["content"][0]["text"]
                .as_str()
                .unwrap()
                .to_owned()
        };
        let cases = [
            (
                "send_input",
                json!({"subshellId": ["other"], "text": "x"}),
                "`subshellId` must be a string",
            ),
            (
                "send_input",
                json!({"subshellId": 12345, "text": "x"}),
                "`subshellId` must be a string",
            ),
            (
                "send_input",
                json!({"text": "x"}),
                "`subshellId` is required",
            ),
            (
                "send_input",
                json!({"subshellId": "a", "keys": ["enter", "f13"]}),
                "`keys[1]` must be one of",
            ),
            (
                "read_output",
                json!({"lines": -1}),
                "`lines` must be from 0 to 10000",
            ),
            (
                "read_output",
                json!({"lines": "5"}),
                "`lines` must be an integer",
            ),
            (
                "list_subshells",
                json!({"state": 5}),
                "`state` must be a string",
            ),
            (
                "list_subshells",
                json!({"state": "asleep"}),
                "`state` must be one of",
            ),
            (
                "read_channel",
                json!({"channel": "c", "after": "1"}),
                "`after` must be an integer",
            ),
            (
                "read_channel",
                json!({"channel": "c", "limit": 0}),
                "`limit` must be from 1 to 200",
            ),
            (
                "post_to_channel",
                json!({"channel": "c", "text": ""}),
                "`text` must be 1 to 16384 characters",
            ),
            (
                "launch_subshell",
                json!({"harnessId": "shell", "permissions": {"channels": "all", "subshells": "read"}}),
                "`permissions.channels` must be one of",
            ),
            (
                "list_files",
                json!({"bogus": 1}),
                "unknown argument `bogus`; this tool takes none",
            ),
        ];
        for (name, args, says) in cases {
            let text = call(name, args.clone());
            assert!(text.contains(says), "{name} {args}: {text}");
        }
        assert!(
            r.seen.lock().unwrap().is_empty(),
            "nothing reached the plane"
        );
        // An optional argument sent as null is absent.
        let a = s
            .handle_line(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_output","arguments":{"lines":null}}}"#)
            .unwrap();
        assert_eq!(a["result"]["isError"], false, "{a}");
        assert_eq!(
            r.seen.lock().unwrap()[0].1,
            "/api/subshells/abc/screen?lines=100"
        );
    }

    #[test]
    fn a_refusal_names_the_field_the_plane_named() {
        let r = Recorder {
            seen: Mutex::default(),
            answer: (
                400,
                json!({"code": "INPUT_VALIDATION_ERROR", "message": "must be 1 to 200", "metadata": {"field": "limit"}}),
            ),
        };
        let s = Server::new(&r, pane());
        let a = s
            .handle_line(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_channels","arguments":{}}}"#)
            .unwrap();
        assert_eq!(
            a["result"]["content"][0]["text"],
            "refused (400 INPUT_VALIDATION_ERROR): `limit`: must be 1 to 200"
        );
    }

    #[test]
    fn ids_and_versions_are_checked_and_batches_answered_in_order() {
        let r = Recorder {
            seen: Mutex::default(),
            answer: (200, json!({})),
        };
        let s = Server::new(&r, pane());
        for bad in [
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
            r#"{"id":1,"method":"ping"}"#,
        ] {
            assert_eq!(
                s.handle_line(bad).unwrap()["error"]["code"],
                -32600,
                "{bad}"
            );
        }
        let a = s
            .handle_line(r#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"b","method":"nope"}]"#)
            .unwrap();
        let a = a.as_array().unwrap();
        assert_eq!(a.len(), 2);
        assert_eq!(a[0]["id"], 1);
        assert_eq!(a[1]["id"], "b");
        assert_eq!(a[1]["error"]["code"], -32601);
        assert!(
            s.handle_line(r#"[{"jsonrpc":"2.0","method":"notifications/initialized"}]"#)
                .is_none()
        );
    }

    /// A plane that takes `delay` to answer each request.
    struct Slow {
        delay: Duration,
    }

    impl Plane for &Slow {
        fn request(&self, _: &str, _: &str, _: Option<&Value>) -> Result<(u16, Value), String> {
            std::thread::sleep(self.delay);
            Ok((200, json!({"slow": true})))
        }
    }

    fn serve_lines(s: &Server<&Slow>, lines: &[&str]) -> Vec<Value> {
        let input = lines.join("\n") + "\n";
        let mut out = Vec::new();
        s.serve(input.as_bytes(), &mut out).unwrap();
        out.split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).unwrap())
            .collect()
    }

    #[test]
    fn a_ping_is_answered_while_a_long_call_runs_and_a_cancelled_call_is_not_answered() {
        let slow = Slow {
            delay: Duration::from_millis(400),
        };
        let s = Server::new(&slow, pane());
        let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_files","arguments":{}}}"#;
        let ping = r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;
        let answers = serve_lines(&s, &[call, ping]);
        assert_eq!(answers.len(), 2);
        assert_eq!(answers[0]["id"], 2, "the ping first: {answers:?}");
        assert_eq!(answers[1]["id"], 1);
        assert_eq!(answers[1]["result"]["isError"], false);
        let cancel = r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"changed my mind"}}"#;
        let answers = serve_lines(&s, &[call, cancel, ping]);
        assert_eq!(answers.len(), 1, "{answers:?}");
        assert_eq!(answers[0]["id"], 2);
    }

    #[test]
    fn env_files_parse() {
        let e = Pane::parse_env_file("# c\nTERMPLANE_URL=http://x:1\n\nTERMPLANE_TOKEN=tp_a=b\n");
        assert_eq!(
            e,
            [
                ("TERMPLANE_URL".into(), "http://x:1".into()),
                ("TERMPLANE_TOKEN".into(), "tp_a=b".into())
            ]
        );
    }
}

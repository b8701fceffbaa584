//! The built-in harness plugins: what each agent CLI is called, how a node finds it, the command
//! line that starts it, how it is told to load the pane's MCP server, and whether it resumes.
//!
//! Pure data and the functions that turn it into a node's `launch` and `detect`; nothing here
//! talks to a node or a database.

use std::collections::BTreeMap;

use serde_json::json;
use termplane_proto::command::{DetectRule, McpRegistration, Resolve, SettingsEntry};

/// How a harness loads an MCP server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum McpDialect {
    /// It does not (a plain shell): the pane's credentials are in its environment only.
    None,
    /// Claude Code: a JSON file `{ "mcpServers": { name: { command, args, env } } }` named by
    /// `--mcp-config=<file>` (the `=` form: the flag takes several values, and a prompt after
    /// it would be read as another file).
    ClaudeConfigFile,
    /// Codex CLI: `-c mcp_servers.<name>.command=…` configuration overrides on its command line,
    /// with the credentials in a 0600 environment file the server reads.
    CodexOverrides,
    /// Gemini CLI, which reads MCP servers from its settings files only: with config
    /// isolation, an entry `mcpServers.termplane` in the settings of the Gemini home the node
    /// keeps for it (`GEMINI_CLI_HOME`), whose server reads the pane's credentials from a 0600
    /// file named by the pane's `TERMPLANE_MCP_ENV_FILE` (Gemini expands variables in its
    /// settings), so one entry serves every pane; without it, a settings file named by
    /// `GEMINI_CLI_SYSTEM_SETTINGS_PATH`, which Gemini reads only when root owns it and every
    /// directory above it, none of them writable by others (a node run by root, its data
    /// directory private). Both set `GEMINI_CLI_TRUST_WORKSPACE=true` (Gemini starts no MCP
    /// server in a folder it was not told to trust), which its `mcp list` honours too.
    GeminiSettings,
    /// opencode: a JSON config `{ "mcp": { name: { type: "local", command: [...],
    /// environment } }, "plugin": ["file://…"] }` in `OPENCODE_CONFIG_CONTENT` (merged over
    /// the person's own configuration, which a named file would replace), and the plugin
    /// ([`opencode_plugin`]) as the registration file.
    OpencodeConfig,
}

impl McpDialect {
    /// The API's name of the dialect.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::ClaudeConfigFile => "claude-mcp-config",
            Self::CodexOverrides => "codex-config-override",
            Self::GeminiSettings => "gemini-settings",
            Self::OpencodeConfig => "opencode-config",
        }
    }

    /// The dialect in words.
    #[must_use]
    pub fn description(self) -> &'static str {
        match self {
            Self::None => {
                "No MCP client: the pane's token and the plane's address are in its environment (TERMPLANE_TOKEN, TERMPLANE_URL, TERMPLANE_SUBSHELL_ID)."
            }
            Self::ClaudeConfigFile => {
                "A 0600 JSON file with `mcpServers.termplane` is written on the node and passed with `--mcp-config=<file>`; `--settings=<json>` adds hooks (SessionStart, UserPromptSubmit, PreToolUse, PermissionRequest, Notification, Stop) that run `hook claude-code` of the same binary, which reports the agent's state with the pane's token."
            }
            Self::CodexOverrides => {
                "`-c mcp_servers.termplane.command=…` and `args=…` overrides on the command line; the server reads the pane's credentials from a 0600 file written on the node. A `-c notify=[…]` override runs `hook codex` of the same binary when a turn completes, which reports the agent's state with the pane's token."
            }
            Self::GeminiSettings => {
                "With config isolation, `mcpServers.termplane` is set in the settings of the Gemini home the node keeps for it (GEMINI_CLI_HOME); its server reads the pane's credentials from a 0600 file named by TERMPLANE_MCP_ENV_FILE. Without isolation, a 0600 settings file named by GEMINI_CLI_SYSTEM_SETTINGS_PATH, which Gemini reads only on a node run by root whose data directory no one else can write (the pane says so otherwise). GEMINI_CLI_TRUST_WORKSPACE=true lets Gemini start it in the pane's folder."
            }
            Self::OpencodeConfig => {
                "OPENCODE_CONFIG_CONTENT holds a config with `mcp.termplane` (its credentials named as `{env:…}`, taken from the pane's environment) and a plugin: a 0600 JavaScript module written on the node, which runs `hook opencode` of the same binary for opencode's session, permission and question events, so it reports the agent's state with the pane's token."
            }
        }
    }
}

/// How a harness resumes an earlier session by its id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resume {
    /// It cannot.
    No,
    /// `<flag> <id>` after the binary.
    Flag(&'static str),
    /// A subcommand: `<binary> <sub> <id>`.
    Subcommand(&'static str),
}

/// How a harness takes the launch's initial prompt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PromptArg {
    /// It does not: the prompt is typed into the pane once its first screen has settled, and
    /// Enter is pressed apart from the text.
    Typed,
    /// As the last word of its command line, after `--`. With `one_word_typed`, a prompt of
    /// one word is typed instead: the harness would take a word that names one of its
    /// subcommands for that subcommand, `--` or not.
    Positional {
        /// Type a one-word prompt instead.
        one_word_typed: bool,
    },
    /// `<flag>=<prompt>`.
    Flag(&'static str),
}

/// Where a harness keeps a session the plane started under an id it chose, so a restart
/// resumes only a session that was saved (a harness asked to resume one it never saved ends at
/// once).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SessionFile {
    /// Nowhere the plane can name: a known session is resumed as it is.
    Unknown,
    /// Claude Code: `<config dir>/projects/<the directory, see [`claude_project`]>/<id>.jsonl`,
    /// written once something was typed; the config directory is `CLAUDE_CONFIG_DIR`, else
    /// `~/.claude`.
    ClaudeProjects,
}

/// How a pane's harness starts its session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Session<'a> {
    /// A new session, under this id for a harness that takes one (`session_id_flag`).
    New(Option<&'a str>),
    /// The session with this id.
    Resume(&'a str),
    /// The harness's most recent session, in its own words (`continue_last`).
    ContinueLast,
}

/// A built-in harness plugin.
#[derive(Clone, Debug)]
pub struct Plugin {
    /// Id.
    pub id: &'static str,
    /// Name.
    pub name: &'static str,
    /// What it runs.
    pub description: &'static str,
    /// Binary looked up on `PATH`.
    pub binary_name: &'static str,
    /// Environment variable naming the binary instead.
    pub env_override: Option<&'static str>,
    /// Places looked at after `PATH`.
    pub known_paths: &'static [&'static str],
    /// Arguments that print the version.
    pub version_args: &'static [&'static str],
    /// The command line after the binary.
    pub args: &'static [&'static str],
    /// How it loads the pane's MCP server.
    pub mcp: McpDialect,
    /// How it resumes a session by its id.
    pub resume: Resume,
    /// The words that continue its most recent session, for a restart that knows no session
    /// id; they go where the words of `resume` go. Empty: such a restart starts afresh.
    pub continue_last: &'static [&'static str],
    /// A flag that starts a new session under an id the plane chooses (a UUID), so the
    /// session can be resumed later without asking the harness for its id.
    pub session_id_flag: Option<&'static str>,
    /// Where a session started under such an id is saved.
    pub session_file: SessionFile,
    /// How it takes the initial prompt.
    pub prompt: PromptArg,
    /// Enabled until an administrator says otherwise.
    pub enabled_by_default: bool,
    /// What its screen shows when it waits, works or asks (the screen signal).
    pub screen: ScreenRules,
}

/// How long a pane prints nothing before its node reports it quiet, with its screen, for the
/// screen signal (ms): longer than a busy TUI's pauses between frames (a spinner redraws several
/// times a second), short enough for a question to show within a few seconds.
pub const SCREEN_QUIET_MS: u32 = 2_000;

/// What a harness's screen shows, read by the screen signal (`service::subshells::screen`,
/// which holds the rules that use it). Each list holds literal text, matched case-sensitively
/// on the bottom of the pane's visible screen once the pane has printed nothing for a while (a
/// question's text must begin its line; the others may stand anywhere in it);
/// the texts are the harness's own words at the version the plane supports (its tests read
/// them on the screens of the real CLIs, recorded under `plane/tests/data/screens`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScreenRules {
    /// Text that begins a line of a question or a permission prompt waiting for a person (its
    /// title or one of its choices): `needs_input`. A `*` in it stands for any text on that line
    /// (a name the harness puts in its question, as Codex does a tool's MCP server's).
    pub needs_input: &'static [&'static str],
    /// Text shown only while it works on a turn (its "interrupt" hint): `working`.
    pub working: &'static [&'static str],
    /// Text of its prompt waiting for a new request: `idle`.
    pub idle: &'static [&'static str],
    /// Foreground programs that mean the pane waits at its prompt: when not empty, the pane's
    /// foreground program decides instead of the screen (a shell: `idle` at its prompt,
    /// `working` while a program it started runs).
    pub idle_commands: &'static [&'static str],
}

/// The MCP server a pane's harness starts: the plane's or the node's binary in `mcp` mode.
#[derive(Clone, Debug)]
pub struct McpServer {
    /// The binary.
    pub command: String,
    /// Its arguments (ending in `mcp`).
    pub args: Vec<String>,
    /// The credentials it talks to the plane with.
    pub env: BTreeMap<String, String>,
}

/// The name the pane's MCP server is registered under.
pub const MCP_SERVER_NAME: &str = "termplane";

/// Every built-in plugin.
#[must_use]
pub fn builtin() -> Vec<Plugin> {
    vec![
        Plugin {
            id: "shell",
            name: "Shell",
            description: "An interactive login shell: the user's $SHELL, else bash, else sh.",
            binary_name: "bash",
            env_override: Some("SHELL"),
            known_paths: &["/bin/bash", "/usr/bin/bash", "/bin/sh"],
            version_args: &["--version"],
            args: &["-l"],
            mcp: McpDialect::None,
            resume: Resume::No,
            continue_last: &[],
            session_id_flag: None,
            session_file: SessionFile::Unknown,
            prompt: PromptArg::Typed,
            enabled_by_default: true,
            screen: ScreenRules {
                needs_input: &[],
                working: &[],
                idle: &[],
                idle_commands: &[
                    "bash", "sh", "dash", "zsh", "fish", "ksh", "mksh", "tcsh", "csh", "ash",
                ],
            },
        },
        Plugin {
            id: "claude-code",
            name: "Claude Code",
            description: "Anthropic's Claude Code agent CLI (`claude`).",
            binary_name: "claude",
            env_override: Some("TERMPLANE_CLAUDE_BIN"),
            known_paths: &[
                "~/.local/bin/claude",
                "~/.claude/local/claude",
                "~/.npm-global/bin/claude",
                "/usr/local/bin/claude",
                "/opt/homebrew/bin/claude",
            ],
            version_args: &["--version"],
            args: &[],
            mcp: McpDialect::ClaudeConfigFile,
            resume: Resume::Flag("--resume"),
            // Every session has an id the plane chose (`--continue` with none saved ends at
            // once).
            continue_last: &[],
            session_id_flag: Some("--session-id"),
            session_file: SessionFile::ClaudeProjects,
            prompt: PromptArg::Positional {
                one_word_typed: true,
            },
            enabled_by_default: true,
            screen: ScreenRules {
                needs_input: &[
                    "Do you want to proceed?",
                    "Yes, and don't ask again",
                    "No, and tell Claude what to do differently",
                    "Yes, I trust this folder",
                ],
                working: &["esc to interrupt"],
                idle: &["? for shortcuts"],
                idle_commands: &[],
            },
        },
        Plugin {
            id: "codex",
            name: "Codex CLI",
            description: "OpenAI's Codex agent CLI (`codex`).",
            binary_name: "codex",
            env_override: Some("TERMPLANE_CODEX_BIN"),
            known_paths: &[
                "~/.npm-global/bin/codex",
                "~/.local/bin/codex",
                "/usr/local/bin/codex",
                "/opt/homebrew/bin/codex",
            ],
            version_args: &["--version"],
            args: &[],
            mcp: McpDialect::CodexOverrides,
            resume: Resume::Subcommand("resume"),
            // Its most recent session in the pane's directory, or a new one when there is none.
            continue_last: &["resume", "--last"],
            session_id_flag: None,
            session_file: SessionFile::Unknown,
            prompt: PromptArg::Positional {
                one_word_typed: false,
            },
            enabled_by_default: true,
            screen: ScreenRules {
                needs_input: &[
                    "Would you like to run the following command?",
                    "Would you like to make the following edits?",
                    "Would you like to grant these permissions?",
                    "No, and tell Codex what to do differently",
                    "Trust this folder?",
                    // An MCP tool's call it asks about (one not marked read-only, or one the
                    // person's configuration says to ask for).
                    "Allow the * MCP server to run tool",
                    "Approve app tool call?",
                ],
                working: &["esc to interrupt"],
                idle: &["Ask Codex to do anything", "? for shortcuts"],
                idle_commands: &[],
            },
        },
        Plugin {
            id: "gemini",
            name: "Gemini CLI",
            description: "Google's Gemini agent CLI (`gemini`).",
            binary_name: "gemini",
            env_override: Some("TERMPLANE_GEMINI_BIN"),
            known_paths: &[
                "~/.npm-global/bin/gemini",
                "~/.local/bin/gemini",
                "/usr/local/bin/gemini",
                "/opt/homebrew/bin/gemini",
            ],
            version_args: &["--version"],
            args: &[],
            mcp: McpDialect::GeminiSettings,
            resume: Resume::Flag("--resume"),
            // Its most recent session of the pane's directory, or a new one when there is none
            // (Gemini saves a session file at once but resumes it, by id too, only once
            // something was typed, and refuses a new session under the id of a saved one: an
            // id the plane chose could be neither resumed nor reused).
            continue_last: &["--resume", "latest"],
            session_id_flag: None,
            session_file: SessionFile::Unknown,
            prompt: PromptArg::Flag("--prompt-interactive"),
            enabled_by_default: true,
            screen: ScreenRules {
                needs_input: &[
                    "Allow execution of",
                    "Apply this change?",
                    "Do you want to proceed?",
                    "No, suggest changes (esc)",
                    "Do you trust the files in this folder?",
                ],
                working: &["esc to cancel"],
                idle: &["Type your message"],
                idle_commands: &[],
            },
        },
        Plugin {
            id: "opencode",
            name: "opencode",
            description: "The opencode agent CLI (`opencode`).",
            binary_name: "opencode",
            env_override: Some("TERMPLANE_OPENCODE_BIN"),
            known_paths: &[
                "~/.opencode/bin/opencode",
                "~/.npm-global/bin/opencode",
                "~/.local/bin/opencode",
                "/usr/local/bin/opencode",
                "/opt/homebrew/bin/opencode",
            ],
            version_args: &["--version"],
            args: &[],
            mcp: McpDialect::OpencodeConfig,
            resume: Resume::Flag("--session"),
            // Its most recent session (opencode keeps them per project), or a new one.
            continue_last: &["--continue"],
            session_id_flag: None,
            session_file: SessionFile::Unknown,
            prompt: PromptArg::Flag("--prompt"),
            enabled_by_default: true,
            screen: ScreenRules {
                needs_input: &["Permission required", "Allow once"],
                working: &["to interrupt"],
                // Its home screen's footer, and the agent line of its prompt box in a session.
                idle: &["ctrl+p commands", "Build · ", "Plan · "],
                idle_commands: &[],
            },
        },
    ]
}

/// The built-in plugin `id`.
#[must_use]
pub fn find(id: &str) -> Option<Plugin> {
    builtin().into_iter().find(|p| p.id == id)
}

impl Plugin {
    /// How the node finds the binary.
    #[must_use]
    pub fn resolve(&self) -> Resolve {
        Resolve {
            binary_name: self.binary_name.to_owned(),
            env_override: self.env_override.map(str::to_owned),
            known_paths: self.known_paths.iter().map(|p| (*p).to_owned()).collect(),
        }
    }

    /// The rule `detect` runs for it.
    #[must_use]
    pub fn detect_rule(&self) -> DetectRule {
        DetectRule {
            harness_id: self.id.to_owned(),
            resolve: self.resolve(),
            version_args: self.version_args.iter().map(|a| (*a).to_owned()).collect(),
        }
    }

    /// Whether `prompt` goes on its command line (else it is typed into the pane).
    #[must_use]
    pub fn takes_prompt(&self, prompt: &str) -> bool {
        match self.prompt {
            PromptArg::Typed => false,
            PromptArg::Positional { one_word_typed } => {
                !one_word_typed || prompt.trim().contains(char::is_whitespace)
            }
            PromptArg::Flag(_) => true,
        }
    }

    /// The command line template: the binary placeholder, the resume words of a resume
    /// subcommand, the plugin's arguments, the preset's flags, the resume words of a resume
    /// flag (or, for a new session of a harness that takes one, the session id the plane
    /// chose), then the initial `prompt` where the harness takes one on its command line (see
    /// [`Self::takes_prompt`]; pass `None` for a prompt that is typed).
    #[must_use]
    pub fn argv(
        &self,
        flags: &[String],
        session: Session<'_>,
        prompt: Option<&str>,
    ) -> Vec<String> {
        let mut argv = vec![termplane_proto::command::HARNESS_BINARY_PLACEHOLDER.to_owned()];
        match (self.resume, session) {
            (Resume::Subcommand(sub), Session::Resume(id)) => {
                argv.push(sub.to_owned());
                argv.push(id.to_owned());
            }
            (Resume::Subcommand(_), Session::ContinueLast) => {
                argv.extend(self.continue_last.iter().map(|w| (*w).to_owned()));
            }
            _ => {}
        }
        argv.extend(self.args.iter().map(|a| (*a).to_owned()));
        argv.extend(flags.iter().cloned());
        match (self.resume, session, self.session_id_flag) {
            (Resume::Flag(flag), Session::Resume(id), _) => {
                argv.push(flag.to_owned());
                argv.push(id.to_owned());
            }
            (Resume::Flag(_), Session::ContinueLast, _) => {
                argv.extend(self.continue_last.iter().map(|w| (*w).to_owned()));
            }
            (_, Session::New(Some(id)), Some(flag)) => {
                argv.push(flag.to_owned());
                argv.push(id.to_owned());
            }
            _ => {}
        }
        if let Some(p) = prompt.filter(|p| self.takes_prompt(p)) {
            match self.prompt {
                PromptArg::Positional { .. } => {
                    argv.push("--".to_owned());
                    argv.push(p.to_owned());
                }
                PromptArg::Flag(flag) => argv.push(format!("{flag}={p}")),
                PromptArg::Typed => {}
            }
        }
        argv
    }

    /// Where a session with id `id`, started in `cwd`, is saved on the node, for a harness
    /// whose sessions can be found (`session_file`): `config_dir` is the harness's
    /// configuration directory as the pane has it (Claude Code's `CLAUDE_CONFIG_DIR`).
    #[must_use]
    pub fn session_path(&self, config_dir: &str, cwd: &str, id: &str) -> Option<String> {
        match self.session_file {
            SessionFile::Unknown => None,
            SessionFile::ClaudeProjects => Some(format!(
                "{}/projects/{}/{id}.jsonl",
                config_dir.trim_end_matches('/'),
                claude_project(cwd)
            )),
        }
    }

    /// The name of a launch's registration file in the node's `mcp/` directory.
    #[must_use]
    pub fn registration_file(&self, subshell_id: &str, in_settings: bool) -> String {
        let ext = match self.mcp {
            McpDialect::CodexOverrides => "env",
            McpDialect::GeminiSettings if in_settings => "env",
            McpDialect::OpencodeConfig => "js",
            _ => "json",
        };
        format!("{subshell_id}.{ext}")
    }

    /// The MCP registration of a launch: the file written (0600) at `file_path` on the node and
    /// the arguments and environment that make the harness load it. With `in_settings` (config
    /// isolation on a node that sets a settings entry), a harness that reads MCP servers only
    /// from its settings gets its entry there (see [`McpDialect::GeminiSettings`]).
    /// `None` for a harness with no MCP client.
    #[must_use]
    pub fn registration(
        &self,
        server: &McpServer,
        file_path: &str,
        in_settings: bool,
    ) -> Option<McpRegistration> {
        let entry = json!({
            "command": server.command,
            "args": server.args,
            "env": server.env,
        });
        let (file_content, args, env) = match self.mcp {
            McpDialect::None => return None,
            McpDialect::ClaudeConfigFile => (
                json!({ "mcpServers": { MCP_SERVER_NAME: entry } }).to_string(),
                vec![
                    format!("--mcp-config={file_path}"),
                    format!("--settings={}", claude_hooks(server)),
                ],
                BTreeMap::new(),
            ),
            McpDialect::CodexOverrides => {
                // The overrides carry no secret: the server is started with `--env-file` and
                // reads the credentials from the 0600 file.
                let mut args = server.args.clone();
                args.push("--env-file".to_owned());
                args.push(file_path.to_owned());
                let toml_list = format!(
                    "[{}]",
                    args.iter()
                        .map(|a| toml_string(a))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                (
                    env_file(&server.env),
                    vec![
                        "-c".to_owned(),
                        format!(
                            "mcp_servers.{MCP_SERVER_NAME}.command={}",
                            toml_string(&server.command)
                        ),
                        "-c".to_owned(),
                        format!("mcp_servers.{MCP_SERVER_NAME}.args={toml_list}"),
                        "-c".to_owned(),
                        format!("notify={}", codex_notify(server)),
                    ],
                    BTreeMap::new(),
                )
            }
            McpDialect::GeminiSettings if in_settings => {
                let mut args = server.args.clone();
                args.push("--env-file".to_owned());
                args.push(format!("${{{GEMINI_ENV_FILE_VAR}}}"));
                return Some(McpRegistration {
                    path: file_path.to_owned(),
                    file_content: env_file(&server.env),
                    args: Vec::new(),
                    env: BTreeMap::from([
                        (GEMINI_ENV_FILE_VAR.to_owned(), file_path.to_owned()),
                        ("GEMINI_CLI_TRUST_WORKSPACE".to_owned(), "true".to_owned()),
                    ]),
                    settings_entry: Some(SettingsEntry {
                        dir_env: "GEMINI_CLI_HOME".to_owned(),
                        file: ".gemini/settings.json".to_owned(),
                        keys: vec!["mcpServers".to_owned(), MCP_SERVER_NAME.to_owned()],
                        value: json!({ "command": server.command, "args": args }),
                    }),
                    // The isolated home is the node's: its hooks are the plane's.
                    settings_entries: vec![SettingsEntry {
                        dir_env: "GEMINI_CLI_HOME".to_owned(),
                        file: ".gemini/settings.json".to_owned(),
                        keys: vec!["hooks".to_owned()],
                        value: gemini_hooks(server),
                    }],
                });
            }
            McpDialect::GeminiSettings => (
                json!({
                    "mcpServers": { MCP_SERVER_NAME: entry },
                    "hooks": gemini_hooks(server),
                })
                .to_string(),
                Vec::new(),
                BTreeMap::from([
                    (
                        "GEMINI_CLI_SYSTEM_SETTINGS_PATH".to_owned(),
                        file_path.to_owned(),
                    ),
                    ("GEMINI_CLI_TRUST_WORKSPACE".to_owned(), "true".to_owned()),
                ]),
            ),
            McpDialect::OpencodeConfig => {
                let mut command = vec![server.command.clone()];
                command.extend(server.args.iter().cloned());
                // The credentials by name: opencode puts `{env:NAME}` in their place from the
                // pane's environment, where the launch puts them, so the variable holds none.
                let environment: serde_json::Map<String, serde_json::Value> = server
                    .env
                    .keys()
                    .map(|k| (k.clone(), json!(format!("{{env:{k}}}"))))
                    .collect();
                let config = json!({
                    "$schema": "https://opencode.ai/config.json",
                    "mcp": { MCP_SERVER_NAME: {
                        "type": "local",
                        "command": command,
                        "environment": environment,
                        "enabled": true,
                    } },
                    "plugin": [file_url(file_path)],
                });
                (
                    opencode_plugin(server),
                    Vec::new(),
                    BTreeMap::from([("OPENCODE_CONFIG_CONTENT".to_owned(), config.to_string())]),
                )
            }
        };
        Some(McpRegistration {
            path: file_path.to_owned(),
            file_content,
            args,
            env,
            settings_entry: None,
            settings_entries: Vec::new(),
        })
    }
}

/// Claude Code's events whose hooks report the agent's state (see `termplane_mcp::hook`), and
/// whether each takes a tool matcher.
const CLAUDE_HOOK_EVENTS: [(&str, bool); 6] = [
    ("SessionStart", false),
    ("UserPromptSubmit", false),
    ("PreToolUse", true),
    ("PermissionRequest", true),
    ("Notification", false),
    ("Stop", false),
];

/// The settings (JSON, for Claude Code's `--settings`) whose hooks run `hook claude-code` of the
/// binary that serves the pane's MCP (`server`), with the pane's environment. The hooks carry no
/// secret: the command reads the pane's token from the environment Claude Code gives it. The
/// command ends in `|| true`: a node binary too old to know `hook` (or any failure) must not
/// read as Claude Code's "block this" (exit status 2).
#[must_use]
pub fn claude_hooks(server: &McpServer) -> String {
    let command = hook_shell_command(server, "claude-code");
    let mut hooks = serde_json::Map::new();
    for (event, tools) in CLAUDE_HOOK_EVENTS {
        let mut group = json!({
            "hooks": [{ "type": "command", "command": command, "timeout": 10 }]
        });
        if tools {
            group["matcher"] = json!("*");
        }
        hooks.insert(event.to_owned(), json!([group]));
    }
    json!({ "hooks": hooks }).to_string()
}

/// Gemini CLI's events whose hooks report the agent's state (see `termplane_mcp::hook`).
const GEMINI_HOOK_EVENTS: [&str; 5] = [
    "SessionStart",
    "BeforeAgent",
    "BeforeTool",
    "Notification",
    "AfterAgent",
];

/// Gemini CLI's `hooks` setting: each event of [`GEMINI_HOOK_EVENTS`] runs `hook gemini` of the
/// binary that serves the pane's MCP (`server`), through the shell, with the pane's environment
/// (no secret in the setting). `|| true`: exit status 2 would read as Gemini CLI's "block".
#[must_use]
pub fn gemini_hooks(server: &McpServer) -> serde_json::Value {
    let command = hook_shell_command(server, "gemini");
    let mut hooks = serde_json::Map::new();
    for event in GEMINI_HOOK_EVENTS {
        hooks.insert(
            event.to_owned(),
            json!([{ "hooks": [{
                "type": "command",
                "name": "termplane-agent-state",
                "command": command,
                "timeout": 10_000,
            }] }]),
        );
    }
    serde_json::Value::Object(hooks)
}

/// opencode's plugin events the pane's plugin passes on (see `termplane_mcp::hook`).
const OPENCODE_EVENTS: [&str; 8] = [
    "session.status",
    "session.idle",
    "session.error",
    "permission.asked",
    "permission.replied",
    "question.asked",
    "question.replied",
    "question.rejected",
];

/// The pane's opencode plugin: a JavaScript module (opencode 1.18 runs plugins in Bun) whose
/// `event` hook runs `hook opencode` of the binary that serves the pane's MCP (`server`) for
/// each of [`OPENCODE_EVENTS`], one after the other in opencode's order, with the event's type
/// and the few fields the hook reads on stdin (no prompt, no tool input, no message). A
/// sub-agent's session (one with a parent) is not the pane's: its events are not passed on. The
/// `session.idle` after a failed turn is held back, so the failure stays until the next
/// prompt. It carries no secret: the command reads the pane's credentials from the environment
/// opencode gives it. Anything that fails is dropped: the plugin never stands in the agent's
/// way.
#[must_use]
pub fn opencode_plugin(server: &McpServer) -> String {
    let hook =
        serde_json::to_string(&hook_words(server, "opencode")).unwrap_or_else(|_| "[]".to_owned());
    let events = serde_json::to_string(&OPENCODE_EVENTS).unwrap_or_else(|_| "[]".to_owned());
    format!(
        r#"// The termplane pane's plugin, written by its node at launch: opencode's events, in
// order, to the command that reports the pane's agent state. It holds no secret.
import {{ spawn }} from "node:child_process";

const HOOK = {hook};
const EVENTS = new Set({events});
const subAgents = new Set();
const failed = new Set();
let queue = Promise.resolve();

function tell(event) {{
  return new Promise((done) => {{
    try {{
      const child = spawn(HOOK[0], HOOK.slice(1), {{ stdio: ["pipe", "ignore", "ignore"] }});
      child.on("error", () => done());
      child.on("close", () => done());
      child.stdin.on("error", () => {{}});
      child.stdin.end(JSON.stringify(event));
    }} catch {{
      done();
    }}
  }});
}}

export const TermplaneAgentState = async () => ({{
  event: async ({{ event }}) => {{
    const type = event && event.type;
    const p = (event && event.properties) || {{}};
    const info = p.info || {{}};
    if ((type === "session.created" || type === "session.updated") && info.parentID) {{
      subAgents.add(info.id);
      return;
    }}
    if (!EVENTS.has(type) || subAgents.has(p.sessionID)) return;
    if (type === "session.error") failed.add(p.sessionID);
    if (type === "session.status" && p.status && p.status.type === "busy") failed.delete(p.sessionID);
    if (type === "session.idle" && failed.delete(p.sessionID)) return;
    const told = {{
      type,
      properties: {{
        status: p.status ? {{ type: p.status.type }} : undefined,
        permission: typeof p.permission === "string" ? p.permission : undefined,
        error: p.error ? {{ name: p.error.name }} : undefined,
      }},
    }};
    queue = queue.then(() => tell(told));
  }},
}});
"#
    )
}

/// `path` as a `file://` URL: every byte but an unreserved one or `/` percent-encoded.
#[must_use]
pub fn file_url(path: &str) -> String {
    let mut url = String::from("file://");
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'/' | b'-' | b'.' | b'_' | b'~') {
            url.push(char::from(b));
        } else {
            url.push_str(&format!("%{b:02X}"));
        }
    }
    url
}

/// Codex's `notify` program (a TOML array, for a `-c notify=…` override): the `hook codex` of
/// the binary that serves the pane's MCP (`server`). Codex runs it without a shell, with the
/// event's JSON as one more argument, and ignores how it ends.
#[must_use]
pub fn codex_notify(server: &McpServer) -> String {
    let quoted: Vec<String> = hook_words(server, "codex")
        .iter()
        .map(|w| toml_string(w))
        .collect();
    format!("[{}]", quoted.join(", "))
}

/// The command (its words) that runs `hook HARNESS` of the binary that serves the pane's MCP.
fn hook_words(server: &McpServer, harness: &str) -> Vec<String> {
    let mut words = vec![server.command.clone()];
    words.extend(hook_args(server).iter().cloned());
    words.push("hook".to_owned());
    words.push(harness.to_owned());
    words
}

/// [`hook_words`] as one `sh` command that ends well whatever happens (`|| true`): the binary
/// and its arguments quoted, then `hook HARNESS` (a harness's id needs no quotes).
fn hook_shell_command(server: &McpServer, harness: &str) -> String {
    let mut words = vec![sh_quoted(&server.command)];
    words.extend(hook_args(server).iter().map(|a| sh_quoted(a)));
    format!("{} hook {harness} || true", words.join(" "))
}

/// `server`'s arguments before its `mcp` word: what the binary needs before any subcommand.
fn hook_args(server: &McpServer) -> &[String] {
    match server.args.split_last() {
        Some((last, rest)) if last == "mcp" => rest,
        _ => &server.args[..],
    }
}

/// `s` as one word for `sh`, in single quotes.
#[must_use]
pub fn sh_quoted(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

/// The environment variable naming a Gemini pane's credentials file in its settings entry.
pub const GEMINI_ENV_FILE_VAR: &str = "TERMPLANE_MCP_ENV_FILE";

/// The folder Claude Code keeps the sessions of directory `cwd` in, under `projects/`: every
/// UTF-16 unit that is not an ASCII letter or digit becomes `-`; a name longer than 200 keeps
/// its first 200 and gains `-` and the base-36 magnitude of a 32-bit hash of `cwd`
/// (`h = h * 31 + unit`, wrapping).
#[must_use]
pub fn claude_project(cwd: &str) -> String {
    let mut name = String::with_capacity(cwd.len());
    for c in cwd.chars() {
        if c.is_ascii_alphanumeric() {
            name.push(c);
        } else {
            for _ in 0..c.len_utf16() {
                name.push('-');
            }
        }
    }
    if name.len() <= 200 {
        return name;
    }
    let mut h: i32 = 0;
    for unit in cwd.encode_utf16() {
        h = h.wrapping_mul(31).wrapping_add(i32::from(unit));
    }
    let mut n = i64::from(h).unsigned_abs();
    let mut digits = Vec::new();
    loop {
        let d = u8::try_from(n % 36).unwrap_or(0);
        digits.push(if d < 10 { b'0' + d } else { b'a' + d - 10 });
        n /= 36;
        if n == 0 {
            break;
        }
    }
    digits.reverse();
    name.truncate(200);
    name.push('-');
    name.push_str(&String::from_utf8_lossy(&digits));
    name
}

/// A TOML basic string of `s`.
fn toml_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `KEY=value` lines (the MCP server's `--env-file`).
fn env_file(env: &BTreeMap<String, String>) -> String {
    env.iter().map(|(k, v)| format!("{k}={v}\n")).collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    fn server() -> McpServer {
        McpServer {
            command: "/usr/bin/termplane".into(),
            args: vec!["mcp".into()],
            env: BTreeMap::from([
                ("TERMPLANE_TOKEN".to_owned(), "tp_x".to_owned()),
                (
                    "TERMPLANE_URL".to_owned(),
                    "http://127.0.0.1:7420".to_owned(),
                ),
            ]),
        }
    }

    #[test]
    fn ids_are_unique_and_valid() {
        let all = builtin();
        for (i, p) in all.iter().enumerate() {
            assert!(find(p.id).is_some_and(|f| f.id == p.id), "{}", p.id);
            assert!(
                !p.id.is_empty()
                    && p.id
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
                "{}",
                p.id
            );
            assert!(all[i + 1..].iter().all(|o| o.id != p.id));
        }
        assert!(all.len() >= 5);
    }

    #[test]
    fn argv_puts_the_binary_first_and_resume_where_the_harness_wants_it() {
        let flags = ["--model".to_owned(), "x".to_owned()];
        let claude = find("claude-code").unwrap();
        assert_eq!(
            claude.argv(&flags, Session::Resume("abc"), None),
            ["@@HARNESS_BINARY@@", "--model", "x", "--resume", "abc"]
        );
        assert_eq!(
            claude.argv(&[], Session::New(Some("u-1")), None),
            ["@@HARNESS_BINARY@@", "--session-id", "u-1"]
        );
        let codex = find("codex").unwrap();
        assert_eq!(
            codex.argv(&[], Session::Resume("s1"), None),
            ["@@HARNESS_BINARY@@", "resume", "s1"]
        );
        assert_eq!(
            codex.argv(&flags, Session::ContinueLast, None),
            ["@@HARNESS_BINARY@@", "resume", "--last", "--model", "x"]
        );
        assert_eq!(
            codex.argv(&[], Session::New(Some("u-1")), None),
            ["@@HARNESS_BINARY@@"]
        );
        assert_eq!(
            find("gemini")
                .unwrap()
                .argv(&flags, Session::ContinueLast, None),
            ["@@HARNESS_BINARY@@", "--model", "x", "--resume", "latest"]
        );
        assert_eq!(
            find("opencode")
                .unwrap()
                .argv(&[], Session::ContinueLast, None),
            ["@@HARNESS_BINARY@@", "--continue"]
        );
        let shell = find("shell").unwrap();
        assert_eq!(
            shell.argv(&[], Session::Resume("ignored"), None),
            ["@@HARNESS_BINARY@@", "-l"]
        );
        assert_eq!(
            shell.argv(&[], Session::ContinueLast, None),
            ["@@HARNESS_BINARY@@", "-l"]
        );
    }

    #[test]
    fn the_prompt_goes_on_the_command_line_where_the_harness_takes_one() {
        let claude = find("claude-code").unwrap();
        assert_eq!(
            claude.argv(
                &["--add-dir".into(), "/a".into()],
                Session::New(Some("u")),
                Some("-fix the build")
            ),
            [
                "@@HARNESS_BINARY@@",
                "--add-dir",
                "/a",
                "--session-id",
                "u",
                "--",
                "-fix the build"
            ]
        );
        // One word could name one of its subcommands (`doctor`): typed instead.
        assert!(!claude.takes_prompt("doctor"));
        assert!(!claude.takes_prompt(" doctor\n"));
        assert_eq!(
            claude.argv(&[], Session::New(None), Some("doctor")),
            ["@@HARNESS_BINARY@@"]
        );
        assert_eq!(
            find("codex")
                .unwrap()
                .argv(&[], Session::New(None), Some("resume")),
            ["@@HARNESS_BINARY@@", "--", "resume"]
        );
        assert_eq!(
            find("gemini")
                .unwrap()
                .argv(&[], Session::New(None), Some("a b")),
            ["@@HARNESS_BINARY@@", "--prompt-interactive=a b"]
        );
        assert_eq!(
            find("opencode")
                .unwrap()
                .argv(&[], Session::New(None), Some("-x y")),
            ["@@HARNESS_BINARY@@", "--prompt=-x y"]
        );
        let shell = find("shell").unwrap();
        assert!(!shell.takes_prompt("echo hi"));
        assert_eq!(
            shell.argv(&[], Session::New(None), Some("echo hi")),
            ["@@HARNESS_BINARY@@", "-l"]
        );
    }

    #[test]
    fn claude_sessions_are_found_under_its_project_folder() {
        // Vectors computed with Claude Code 2.1's own function.
        assert_eq!(claude_project("/tmp/hx/c1/work"), "-tmp-hx-c1-work");
        assert_eq!(
            claude_project("/home/ana/src/my.project_x"),
            "-home-ana-src-my-project-x"
        );
        assert_eq!(claude_project("/srv/é😀/x"), "-srv-----x");
        let deep = format!("/{}end", "deep/".repeat(45));
        assert_eq!(
            claude_project(&deep),
            format!("{}-surx5", &claude_project(&deep)[..200])
        );
        assert!(claude_project(&deep)[..200].starts_with("-deep-deep-"));
        let claude = find("claude-code").unwrap();
        assert_eq!(
            claude.session_path("/h/.claude/", "/w/p", "u-1").unwrap(),
            "/h/.claude/projects/-w-p/u-1.jsonl"
        );
        assert!(
            find("codex")
                .unwrap()
                .session_path("/x", "/w", "u")
                .is_none()
        );
    }

    #[test]
    fn a_remote_nodes_hook_command_quotes_its_binary_and_arguments() {
        let remote = McpServer {
            command: "/opt/my node/termplane-node".into(),
            args: vec!["--config".into(), "/etc/it's.toml".into(), "mcp".into()],
            env: BTreeMap::new(),
        };
        let hooks: serde_json::Value = serde_json::from_str(&claude_hooks(&remote)).unwrap();
        assert_eq!(
            hooks["hooks"]["Stop"][0]["hooks"][0]["command"],
            "'/opt/my node/termplane-node' '--config' '/etc/it'\\''s.toml' hook claude-code || true"
        );
    }

    #[test]
    fn claude_gets_its_config_file_by_flag() {
        let r = find("claude-code")
            .unwrap()
            .registration(&server(), "/d/mcp/x.json", false)
            .unwrap();
        assert_eq!(r.args[0], "--mcp-config=/d/mcp/x.json");
        assert_eq!(r.args.len(), 2);
        // Its hooks, in the settings argument: no secret in them, the same binary's `hook`.
        let hooks: serde_json::Value =
            serde_json::from_str(r.args[1].strip_prefix("--settings=").unwrap()).unwrap();
        assert!(!r.args[1].contains("tp_x"));
        for (event, tools) in CLAUDE_HOOK_EVENTS {
            let group = &hooks["hooks"][event][0];
            assert_eq!(
                group["hooks"][0]["command"], "'/usr/bin/termplane' hook claude-code || true",
                "{event}"
            );
            assert_eq!(group["hooks"][0]["type"], "command");
            assert_eq!(group["matcher"].is_string(), tools, "{event}");
        }
        let v: serde_json::Value = serde_json::from_str(&r.file_content).unwrap();
        assert_eq!(
            v["mcpServers"]["termplane"]["command"],
            "/usr/bin/termplane"
        );
        assert_eq!(
            v["mcpServers"]["termplane"]["env"]["TERMPLANE_TOKEN"],
            "tp_x"
        );
    }

    #[test]
    fn codex_overrides_carry_no_secret() {
        let r = find("codex")
            .unwrap()
            .registration(&server(), "/d/mcp/x.env", true)
            .unwrap();
        assert!(r.args.iter().all(|a| !a.contains("tp_x")), "{:?}", r.args);
        assert!(r.settings_entry.is_none());
        assert_eq!(
            r.args[3],
            "mcp_servers.termplane.args=[\"mcp\", \"--env-file\", \"/d/mcp/x.env\"]"
        );
        assert!(r.file_content.contains("TERMPLANE_TOKEN=tp_x\n"));
        // Its notify program: the same binary's hook, an argument for Codex to add.
        assert_eq!(
            r.args[4..],
            ["-c", "notify=[\"/usr/bin/termplane\", \"hook\", \"codex\"]"]
        );
    }

    #[test]
    fn gemini_and_opencode_name_their_files_by_environment() {
        let gemini = find("gemini").unwrap();
        let g = gemini
            .registration(&server(), "/d/mcp/g.json", false)
            .unwrap();
        assert_eq!(g.env["GEMINI_CLI_SYSTEM_SETTINGS_PATH"], "/d/mcp/g.json");
        assert_eq!(g.env["GEMINI_CLI_TRUST_WORKSPACE"], "true");
        assert!(g.args.is_empty() && g.settings_entry.is_none());
        let v: serde_json::Value = serde_json::from_str(&g.file_content).unwrap();
        assert_eq!(
            v["mcpServers"]["termplane"]["env"]["TERMPLANE_TOKEN"],
            "tp_x"
        );
        // Its hooks, in the same file: each event runs the hook subcommand, never blocking.
        let hooks = &v["hooks"];
        for event in [
            "SessionStart",
            "BeforeAgent",
            "BeforeTool",
            "Notification",
            "AfterAgent",
        ] {
            assert_eq!(
                hooks[event][0]["hooks"][0]["command"], "'/usr/bin/termplane' hook gemini || true",
                "{event}"
            );
            assert_eq!(hooks[event][0]["hooks"][0]["type"], "command");
        }
        assert!(!hooks.to_string().contains("tp_x"));
        // Isolated: one entry in Gemini's own settings serves every pane, each pane's
        // credentials in its own file, named by its environment.
        assert_eq!(gemini.registration_file("ab", true), "ab.env");
        let g = gemini
            .registration(&server(), "/d/mcp/ab.env", true)
            .unwrap();
        assert_eq!(
            g.file_content,
            "TERMPLANE_TOKEN=tp_x\nTERMPLANE_URL=http://127.0.0.1:7420\n"
        );
        assert_eq!(g.env["TERMPLANE_MCP_ENV_FILE"], "/d/mcp/ab.env");
        assert_eq!(g.env["GEMINI_CLI_TRUST_WORKSPACE"], "true");
        assert!(!g.env.contains_key("GEMINI_CLI_SYSTEM_SETTINGS_PATH"));
        let e = g.settings_entry.unwrap();
        assert_eq!(e.dir_env, "GEMINI_CLI_HOME");
        assert_eq!(e.file, ".gemini/settings.json");
        assert_eq!(e.keys, ["mcpServers", "termplane"]);
        assert_eq!(
            e.value,
            serde_json::json!({ "command": "/usr/bin/termplane", "args": ["mcp", "--env-file", "${TERMPLANE_MCP_ENV_FILE}"] })
        );
        assert!(!e.value.to_string().contains("tp_x"));
        let [h] = &g.settings_entries[..] else {
            panic!("one more entry: the hooks")
        };
        assert_eq!(
            (h.dir_env.as_str(), h.file.as_str()),
            ("GEMINI_CLI_HOME", ".gemini/settings.json")
        );
        assert_eq!(h.keys, ["hooks"]);
        assert_eq!(h.value, v["hooks"]);
        let o = find("opencode")
            .unwrap()
            .registration(&server(), "/d/my mcp/o.js", true)
            .unwrap();
        let v: serde_json::Value = serde_json::from_str(&o.env["OPENCODE_CONFIG_CONTENT"]).unwrap();
        assert_eq!(v["mcp"]["termplane"]["command"][1], "mcp");
        assert_eq!(v["plugin"], json!(["file:///d/my%20mcp/o.js"]));
        // No secret in the environment: the credentials are named, not given.
        assert!(!o.env["OPENCODE_CONFIG_CONTENT"].contains("tp_x"), "{v}");
        assert_eq!(
            v["mcp"]["termplane"]["environment"]["TERMPLANE_TOKEN"],
            "{env:TERMPLANE_TOKEN}"
        );
        assert!(o.file_content.contains("export const TermplaneAgentState"));
        assert!(
            o.file_content
                .contains(r#"const HOOK = ["/usr/bin/termplane","hook","opencode"];"#),
            "{}",
            o.file_content
        );
        assert!(!o.file_content.contains("tp_x"));
    }

    /// The pane's opencode plugin run as opencode runs it (a module whose export, called, gives
    /// an `event` hook), by Node.js, with a stand-in for the hook command that keeps what it is
    /// given: the pane's events reach it one after the other in order, trimmed to the fields
    /// the hook reads; a sub-agent's events and the `session.idle` after a failed turn do not.
    #[test]
    fn opencodes_plugin_passes_the_panes_events_in_order_and_nothing_more() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = std::env::temp_dir().join(format!(
            "termplane-opencode-plugin-{}",
            crate::secret::new_id().unwrap()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let told = dir.join("told");
        let hook = dir.join("hook");
        std::fs::write(
            &hook,
            format!(
                "#!/bin/sh\n{{ echo \"$*\"; cat; echo; }} >> '{}'\n",
                told.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
        let server = McpServer {
            command: hook.display().to_string(),
            args: vec!["--data".into(), "/d".into(), "mcp".into()],
            env: BTreeMap::new(),
        };
        let plugin = dir.join("plugin.js");
        std::fs::write(&plugin, opencode_plugin(&server)).unwrap();
        let events = json!([
            null,
            { "type": "session.created", "properties": { "info": { "id": "ses_sub", "parentID": "ses_main" } } },
            { "type": "session.status", "properties": { "sessionID": "ses_sub", "status": { "type": "busy" } } },
            { "type": "session.status", "properties": { "sessionID": "ses_main", "status": { "type": "busy" } } },
            { "type": "message.part.updated", "properties": { "part": { "text": "the secret plan" } } },
            { "type": "permission.asked", "properties": { "sessionID": "ses_main", "id": "per_1",
                "permission": "bash", "patterns": ["rm -rf the secret"], "metadata": { "command": "rm -rf the secret" } } },
            { "type": "permission.replied", "properties": { "sessionID": "ses_main", "requestID": "per_1", "reply": "once" } },
            { "type": "session.error", "properties": { "sessionID": "ses_main",
                "error": { "name": "APIError", "data": { "message": "the secret key was refused" } } } },
            { "type": "session.idle", "properties": { "sessionID": "ses_main" } },
            { "type": "session.status", "properties": { "sessionID": "ses_main", "status": { "type": "busy" } } },
            { "type": "session.idle", "properties": { "sessionID": "ses_sub" } },
            { "type": "session.idle", "properties": { "sessionID": "ses_main" } },
        ]);
        let driver = format!(
            "const m = await import({plugin:?});\n\
             const hooks = await m.TermplaneAgentState({{}});\n\
             for (const event of {events}) await hooks.event({{ event }});\n",
            plugin = plugin.display().to_string(),
        );
        // Node.js waits for the plugin's queue of hook commands before it exits.
        let out = std::process::Command::new("node")
            .args(["--input-type=module", "-e", &driver])
            .output()
            .expect("node (Node.js) on PATH");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let said = std::fs::read_to_string(&told).unwrap();
        let lines: Vec<&str> = said.lines().collect();
        let calls: Vec<(&str, serde_json::Value)> = lines
            .chunks(2)
            .map(|c| (c[0], serde_json::from_str(c[1]).unwrap()))
            .collect();
        assert!(
            calls
                .iter()
                .all(|(args, _)| *args == "--data /d hook opencode"),
            "{said}"
        );
        let events: Vec<serde_json::Value> = calls.into_iter().map(|(_, e)| e).collect();
        assert_eq!(
            events,
            [
                json!({ "type": "session.status", "properties": { "status": { "type": "busy" } } }),
                json!({ "type": "permission.asked", "properties": { "permission": "bash" } }),
                json!({ "type": "permission.replied", "properties": {} }),
                json!({ "type": "session.error", "properties": { "error": { "name": "APIError" } } }),
                json!({ "type": "session.status", "properties": { "status": { "type": "busy" } } }),
                json!({ "type": "session.idle", "properties": {} }),
            ],
            "{said}"
        );
        assert!(!said.contains("secret"), "{said}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_shell_has_no_registration() {
        assert!(
            find("shell")
                .unwrap()
                .registration(&server(), "/x", false)
                .is_none()
        );
    }

    #[test]
    fn toml_strings_escape_quotes_and_controls() {
        assert_eq!(toml_string("a\"b\\c\n"), "\"a\\\"b\\\\c\\u000A\"");
    }
}

//! The built-in harness plugins: what each agent CLI is called, how a node finds it, the command
//! line that starts it, how it is told to load the pane's MCP server, and whether it resumes.
//!
//! Pure data and the functions that turn it into a node's `launch` and `detect`; nothing here
//! talks to a node or a database.

use std::collections::BTreeMap;

use serde_json::json;
use termplane_proto::command::{DetectRule, McpRegistration, Resolve};

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
    /// Gemini CLI: a settings file with `mcpServers` named by `GEMINI_CLI_SYSTEM_SETTINGS_PATH`
    /// (it must sit in a directory no one else can write: the node's data directory), and
    /// `--skip-trust` (Gemini disables every MCP server in a folder it was not told to trust).
    GeminiSettings,
    /// opencode: a JSON config `{ "mcp": { name: { type: "local", command: [...],
    /// environment } } }` named by `OPENCODE_CONFIG`.
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
                "A 0600 JSON file with `mcpServers.termplane` is written on the node and passed with `--mcp-config=<file>`."
            }
            Self::CodexOverrides => {
                "`-c mcp_servers.termplane.command=…` and `args=…` overrides on the command line; the server reads the pane's credentials from a 0600 file written on the node."
            }
            Self::GeminiSettings => {
                "A 0600 settings file with `mcpServers.termplane` is written on the node and named by GEMINI_CLI_SYSTEM_SETTINGS_PATH; `--skip-trust` lets Gemini start it in the pane's folder."
            }
            Self::OpencodeConfig => {
                "A 0600 JSON config with `mcp.termplane` is written on the node and named by OPENCODE_CONFIG."
            }
        }
    }
}

/// How a harness resumes an earlier session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resume {
    /// It cannot.
    No,
    /// `<flag> <id>` after the binary.
    Flag(&'static str),
    /// A subcommand: `<binary> <sub> <id>`.
    Subcommand(&'static str),
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
    /// How it resumes.
    pub resume: Resume,
    /// A flag that starts a new session under an id the plane chooses (a UUID), so the
    /// session can be resumed later without asking the harness for its id.
    pub session_id_flag: Option<&'static str>,
    /// Enabled until an administrator says otherwise.
    pub enabled_by_default: bool,
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
            session_id_flag: None,
            enabled_by_default: true,
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
            session_id_flag: Some("--session-id"),
            enabled_by_default: true,
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
            session_id_flag: None,
            enabled_by_default: true,
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
            session_id_flag: Some("--session-id"),
            enabled_by_default: true,
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
            session_id_flag: None,
            enabled_by_default: true,
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

    /// The command line template: the binary placeholder, the plugin's arguments, the preset's
    /// flags, then the resume words — or, for a new session of a harness that takes one, the
    /// session id the plane chose (`new_session`).
    #[must_use]
    pub fn argv(
        &self,
        flags: &[String],
        resume: Option<&str>,
        new_session: Option<&str>,
    ) -> Vec<String> {
        let mut argv = vec![termplane_proto::command::HARNESS_BINARY_PLACEHOLDER.to_owned()];
        if let (Resume::Subcommand(sub), Some(id)) = (self.resume, resume) {
            argv.push(sub.to_owned());
            argv.push(id.to_owned());
        }
        argv.extend(self.args.iter().map(|a| (*a).to_owned()));
        argv.extend(flags.iter().cloned());
        match (self.resume, resume, self.session_id_flag, new_session) {
            (Resume::Flag(flag), Some(id), _, _) => {
                argv.push(flag.to_owned());
                argv.push(id.to_owned());
            }
            (_, None, Some(flag), Some(id)) => {
                argv.push(flag.to_owned());
                argv.push(id.to_owned());
            }
            _ => {}
        }
        argv
    }

    /// The MCP registration of a launch: the file written (0600) at `file_path` on the node and
    /// the arguments and environment that make the harness load it. `None` for a harness with
    /// no MCP client.
    #[must_use]
    pub fn registration(&self, server: &McpServer, file_path: &str) -> Option<McpRegistration> {
        let entry = json!({
            "command": server.command,
            "args": server.args,
            "env": server.env,
        });
        let (file_content, args, env) = match self.mcp {
            McpDialect::None => return None,
            McpDialect::ClaudeConfigFile => (
                json!({ "mcpServers": { MCP_SERVER_NAME: entry } }).to_string(),
                vec![format!("--mcp-config={file_path}")],
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
                    ],
                    BTreeMap::new(),
                )
            }
            McpDialect::GeminiSettings => (
                json!({ "mcpServers": { MCP_SERVER_NAME: entry } }).to_string(),
                vec!["--skip-trust".to_owned()],
                BTreeMap::from([(
                    "GEMINI_CLI_SYSTEM_SETTINGS_PATH".to_owned(),
                    file_path.to_owned(),
                )]),
            ),
            McpDialect::OpencodeConfig => {
                let mut command = vec![server.command.clone()];
                command.extend(server.args.iter().cloned());
                (
                    json!({
                        "$schema": "https://opencode.ai/config.json",
                        "mcp": { MCP_SERVER_NAME: {
                            "type": "local",
                            "command": command,
                            "environment": server.env,
                            "enabled": true,
                        } }
                    })
                    .to_string(),
                    Vec::new(),
                    BTreeMap::from([("OPENCODE_CONFIG".to_owned(), file_path.to_owned())]),
                )
            }
        };
        Some(McpRegistration {
            path: file_path.to_owned(),
            file_content,
            args,
            env,
        })
    }
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
            assert!(
                crate::api::subshells::PluginId::parse(p.id).is_ok(),
                "{}",
                p.id
            );
            assert!(all[i + 1..].iter().all(|o| o.id != p.id));
        }
        assert!(all.len() >= 5);
    }

    #[test]
    fn argv_puts_the_binary_first_and_resume_where_the_harness_wants_it() {
        let claude = find("claude-code").unwrap();
        assert_eq!(
            claude.argv(&["--model".into(), "x".into()], Some("abc"), Some("new")),
            ["@@HARNESS_BINARY@@", "--model", "x", "--resume", "abc"]
        );
        assert_eq!(
            claude.argv(&[], None, Some("u-1")),
            ["@@HARNESS_BINARY@@", "--session-id", "u-1"]
        );
        let codex = find("codex").unwrap();
        assert_eq!(
            codex.argv(&[], Some("s1"), None),
            ["@@HARNESS_BINARY@@", "resume", "s1"]
        );
        assert_eq!(codex.argv(&[], None, Some("u-1")), ["@@HARNESS_BINARY@@"]);
        let shell = find("shell").unwrap();
        assert_eq!(
            shell.argv(&[], Some("ignored"), None),
            ["@@HARNESS_BINARY@@", "-l"]
        );
    }

    #[test]
    fn claude_gets_its_config_file_by_flag() {
        let r = find("claude-code")
            .unwrap()
            .registration(&server(), "/d/mcp/x.json")
            .unwrap();
        assert_eq!(r.args, ["--mcp-config=/d/mcp/x.json"]);
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
            .registration(&server(), "/d/mcp/x.env")
            .unwrap();
        assert!(r.args.iter().all(|a| !a.contains("tp_x")), "{:?}", r.args);
        assert_eq!(
            r.args[3],
            "mcp_servers.termplane.args=[\"mcp\", \"--env-file\", \"/d/mcp/x.env\"]"
        );
        assert!(r.file_content.contains("TERMPLANE_TOKEN=tp_x\n"));
    }

    #[test]
    fn gemini_and_opencode_name_their_files_by_environment() {
        let g = find("gemini")
            .unwrap()
            .registration(&server(), "/d/mcp/g.json")
            .unwrap();
        assert_eq!(g.env["GEMINI_CLI_SYSTEM_SETTINGS_PATH"], "/d/mcp/g.json");
        assert_eq!(g.args, ["--skip-trust"]);
        let o = find("opencode")
            .unwrap()
            .registration(&server(), "/d/mcp/o.json")
            .unwrap();
        assert_eq!(o.env["OPENCODE_CONFIG"], "/d/mcp/o.json");
        let v: serde_json::Value = serde_json::from_str(&o.file_content).unwrap();
        assert_eq!(v["mcp"]["termplane"]["command"][1], "mcp");
    }

    #[test]
    fn a_shell_has_no_registration() {
        assert!(
            find("shell")
                .unwrap()
                .registration(&server(), "/x")
                .is_none()
        );
    }

    #[test]
    fn toml_strings_escape_quotes_and_controls() {
        assert_eq!(toml_string("a\"b\\c\n"), "\"a\\\"b\\\\c\\u000A\"");
    }
}

-- What a person should know about a subshell's last launch that did not stop it: its harness
-- could not be made to load the pane's MCP server, and why.
ALTER TABLE subshells ADD COLUMN warning TEXT;

"""MCP servers: the JSON-RPC stdio and Streamable HTTP transports (jsonrpc.py: what they share), the protocol
client, the servers' lifecycle (servers.py: start, restart, stop, wait; server.py: one server's record and state),
the catalog they feed (catalog.py), what the user hears of them (status.py), their prompts and resources
(content.py), logging in (auth.py) and turning a server's tools into ankit tools.

May import: ankit.tooling (the Tool record), ankit.safety, ankit.settings, ankit.records, ankit.errors. Never
discovery, providers or terminal.
"""

NO_SERVERS = 'no MCP servers configured: add a [mcp.servers.NAME] table with command = "..." to config.toml (see ankit help mcp)'

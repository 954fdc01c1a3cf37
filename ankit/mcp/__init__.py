"""MCP servers: the JSON-RPC stdio and Streamable HTTP transports (jsonrpc.py: what they share), the protocol
client, server lifecycle (start, restart, stop) and turning a server's tools into ankit tools.

May import: ankit.tooling (the Tool record), ankit.safety, ankit.settings, ankit.records, ankit.errors. Never
discovery, providers or terminal.
"""

NO_SERVERS = 'no MCP servers configured: add a [mcp.servers.NAME] table with command = "..." to config.toml (see ankit help mcp)'

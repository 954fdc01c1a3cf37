"""The Tool record and its context: what a tool gets where ankit offers nothing (no settings commands, no
subagents) is a ToolError the model reads, never a crash."""

import pytest

from ankit.errors import ToolError
from ankit.tooling.tool import ToolContext


def test_a_context_without_settings_commands_or_subagents_says_so_as_a_tool_error(tmp_path):
    ctx = ToolContext(cwd=tmp_path)
    with pytest.raises(ToolError, match="settings commands are not available here"):
        ctx.admin(["mcp", "list"])
    with pytest.raises(ToolError, match="subagents are not available here"):
        ctx.run_task({"prompt": "x"}, print)

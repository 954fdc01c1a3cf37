"""Claude Code plugins as a user adds them (`ankit plugin add PATH`): wshobson's accessibility-compliance plugin,
real, with an .mcp.json added in a copy; its commands, agents, skills and servers used as one unit, and off as a
unit once its files change."""

import json
import shutil
import sys
from pathlib import Path

from tests.test_oneshot import ankit
from tests.test_repl import home, run  # noqa: F401  (fixtures)

FIXTURES_ROOT = Path(__file__).parent / "fixtures" / "claude_code"
PLUGIN = FIXTURES_ROOT / "wshobson" / "plugins" / "accessibility-compliance"
FAKE = Path(__file__).resolve().parent / "mcp_fake_server.py"


def plugin_copy(tmp_path: Path) -> Path:
    """The plugin, with an MCP server of its own started through ${CLAUDE_PLUGIN_ROOT} as Claude Code does."""
    root = tmp_path / "plugins" / "a11y"
    shutil.copytree(PLUGIN, root)
    shutil.copy(FAKE, root / "server.py")
    (root / ".mcp.json").write_text(json.dumps({"mcpServers": {"a11y-check": {
        "command": sys.executable, "args": ["${CLAUDE_PLUGIN_ROOT}/server.py"]}}}))
    return root


def test_add_lists_what_it_brings_and_its_server_and_skills_work(tmp_path):
    root = plugin_copy(tmp_path)
    added = ankit(tmp_path, "plugin", "add", str(root))
    assert added.returncode == 0, added.stderr
    lines = added.stdout.splitlines()
    assert lines[0].startswith(f"added plugin accessibility-compliance 1.2.3 from {root}: WCAG accessibility")
    assert f"  start the MCP server a11y-check: {sys.executable} {root}/server.py" in lines
    assert "  1 command, 1 agent, 2 skills" in lines
    assert ankit(tmp_path, "plugin", "list").stdout.startswith("accessibility-compliance 1.2.3: WCAG")
    listed = ankit(tmp_path, "mcp", "list")
    assert "a11y-check: ready" in listed.stdout and "mcp__a11y-check__echo" in listed.stdout.replace("_check", "-check")
    skills = ankit(tmp_path, "skills")
    assert "wcag-audit-patterns" in skills.stdout and "screen-reader-testing" in skills.stdout


def test_a_changed_plugin_is_off_as_a_unit_until_added_again(tmp_path):
    root = plugin_copy(tmp_path)
    ankit(tmp_path, "plugin", "add", str(root))
    (root / "server.py").write_text("import os\nos.system('echo changed')\n")
    listed = ankit(tmp_path, "mcp", "list")
    assert "a11y-check" not in listed.stdout
    assert (f"ankit: plugin accessibility-compliance is off: its files changed since you added it; run ankit plugin "
            f"add {root} to trust it as it is now") in listed.stderr
    assert "wcag-audit-patterns" not in ankit(tmp_path, "skills").stdout
    assert "off: changed since added" in ankit(tmp_path, "plugin", "list").stdout
    shutil.copy(FAKE, root / "server.py")
    assert "a11y-check: ready" in ankit(tmp_path, "mcp", "list").stdout  # as it was: on again


def test_what_is_not_a_plugin_is_one_line_and_nothing_is_written(tmp_path):
    (tmp_path / "empty").mkdir()
    done = ankit(tmp_path, "plugin", "add", str(tmp_path / "empty"))
    assert done.returncode == 1 and done.stderr == (f"ankit: {tmp_path / 'empty'} has no .claude-plugin/plugin.json: "
                                                   "give the folder of a Claude Code plugin\n")
    (tmp_path / "bad" / ".claude-plugin").mkdir(parents=True)
    (tmp_path / "bad" / ".claude-plugin" / "plugin.json").write_text("{not json")
    done = ankit(tmp_path, "plugin", "add", str(tmp_path / "bad"))
    assert done.returncode == 1 and "is not valid JSON" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "config" / "ankit" / "plugins.json").exists()
    assert ankit(tmp_path, "plugin", "remove", "nope").stderr == "ankit: no plugin named 'nope'; ankit plugin list shows them\n"


def test_its_command_and_agent_show_in_the_repl(run, home):
    root = plugin_copy(home)
    assert ankit(home, "plugin", "add", str(root)).returncode == 0
    term = run()
    term.line("/help accessibility-audit")
    term.expect("Accessibility Audit and Testing (plugin:accessibility-compliance)")
    term.line("/agents")
    term.expect("ui-visual-validator: Rigorous visual validation expert")
    assert term.finish() == 0


def test_a_marketplace_says_what_it_lists_and_adds_one_by_name(tmp_path):
    """wshobson/agents' own marketplace.json, with one of its plugins beside it."""
    market = FIXTURES_ROOT / "wshobson"
    listed = ankit(tmp_path, "plugin", "add", str(market))
    assert listed.returncode == 1
    assert listed.stderr.startswith(f"ankit: {market} is a marketplace of 92 plugins (documentation-standards, "
                                    "code-documentation, ")
    assert f"add one by name, e.g. ankit plugin add {market} documentation-standards" in listed.stderr
    added = ankit(tmp_path, "plugin", "add", str(market), "accessibility-compliance")
    assert added.returncode == 0 and added.stdout.startswith("added plugin accessibility-compliance 1.2.3"), added.stderr
    remote = ankit(tmp_path, "plugin", "add", str(market), "pensyve")
    assert remote.returncode == 1 and "is not a folder of this marketplace" in remote.stderr


def test_a_plugin_s_hooks_run_as_part_of_it_with_claude_plugin_root(provider_server, tmp_path):
    import shutil as copying
    guard = Path(__file__).parent / "fixtures" / "claude_hooks" / "plugin"
    if copying.which("node") is None:
        import pytest
        pytest.skip("node is not installed")
    root = tmp_path / "plugins" / "guard"
    copying.copytree(guard, root)
    (root / ".claude-plugin").mkdir()
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": "guard", "version": "1.0.0"}))
    added = ankit(tmp_path, "plugin", "add", str(root))
    assert added.returncode == 0 and "run on PreToolUse: node" in added.stdout, added.stdout + added.stderr
    provider_server.push_openai(tool_calls=[("c1", "run_command", '{"command": "rm -rf /etc/ankit-nothing"}')])
    provider_server.push_openai(text="The plugin's guard said no.")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "clean up", "--yes")
    assert done.returncode == 0, done.stderr
    result = provider_server.requests[1].json["messages"][-1]["content"]
    assert result == "Error: blocked by a PreToolUse hook: \U0001f6a8 [rm-system] rm targeting system directory"


SUPERPOWERS = FIXTURES_ROOT / "superpowers"


def superpowers(tmp_path: Path) -> Path:
    """obra/superpowers (MIT) as a user adds it: skills, commands, an agent and its SessionStart hook."""
    root = tmp_path / "plugins" / "superpowers"
    shutil.copytree(SUPERPOWERS, root)
    added = ankit(tmp_path, "plugin", "add", str(root))
    assert added.returncode == 0, added.stderr
    return root


def test_superpowers_skills_and_agent_answer_to_plugin_name_and_plain_name(provider_server, tmp_path):
    """Its own SessionStart text names `superpowers:...` skills; the skill tool and task find them by that name and,
    being unique, by the plain one."""
    if shutil.which("bash") is None:
        import pytest
        pytest.skip("bash is not installed")
    superpowers(tmp_path)
    provider_server.push_openai(tool_calls=[("c1", "skill", '{"name": "superpowers:brainstorming"}'),
                                            ("c2", "skill", '{"name": "writing-plans"}')])
    provider_server.push_openai(tool_calls=[("c3", "task", json.dumps(
        {"description": "review", "prompt": "review step 1", "agent": "superpowers:code-reviewer"}))])
    provider_server.push_openai(text="Reviewed.")
    provider_server.push_openai(tool_calls=[("c4", "task", json.dumps(
        {"description": "review", "prompt": "review step 2", "agent": "code-reviewer"}))])
    provider_server.push_openai(text="Reviewed again.")
    provider_server.push_openai(text="Designed.")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "let's build a todo app", "--yes")
    assert done.returncode == 0, done.stderr
    first = json.dumps(provider_server.requests[0].json["messages"])
    assert "You have superpowers." in first and "'superpowers:using-superpowers' skill" in first  # its hook's text
    assert "superpowers:brainstorming" in first  # the skills list
    results = [m for m in provider_server.requests[1].json["messages"] if m["role"] == "tool"]
    assert results[0]["content"].startswith("# Skill: superpowers:brainstorming\n")
    assert "Brainstorming Ideas Into Designs" in results[0]["content"]
    assert results[1]["content"].startswith("# Skill: superpowers:writing-plans\n")
    for sub in (provider_server.requests[2], provider_server.requests[4]):
        assert "Senior Code Reviewer" in sub.json["messages"][0]["content"]


def test_superpowers_commands_run_as_plugin_colon_name_in_the_repl_and_in_p(provider_server, run, home):
    superpowers(home)
    provider_server.push_openai(text="Use the writing-plans skill.")
    done = ankit(home, "--base-url", provider_server.url + "/v1", "-p", "/superpowers:write-plan")
    assert done.returncode == 0 and done.stdout == "Use the writing-plans skill.\n", done.stderr
    sent = provider_server.requests[0].json["messages"][-1]["content"]
    assert sent.startswith("Tell your human partner that this command is deprecated")
    assert "superpowers writing-plans" in sent
    provider_server.push_openai(text="Use the brainstorming skill.")
    term = run()
    term.line("/brainstorm")  # unique, so the plain name answers too
    term.expect("Use the brainstorming skill.")
    term.line("/help")
    term.expect("/superpowers:execute-plan")
    provider_server.push_openai(text="Let us design it.")
    term.line("/brainstorming a todo app")  # a skill, started by its plain name
    term.expect("Let us design it.")
    assert term.finish() == 0
    assert "superpowers brainstorming" in provider_server.requests[1].json["messages"][-1]["content"]
    skill = provider_server.requests[2].json["messages"][-1]["content"]
    assert skill.startswith("# Skill: superpowers:brainstorming\n") and skill.endswith("\n\na todo app")


def big_plugin(tmp_path: Path, marker: Path) -> Path:
    """A plugin of 6,000 files whose PreToolUse hook script is the last file a walk would reach."""
    root = tmp_path / "plugins" / "big"
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text('{"name": "big", "version": "1.0.0"}')
    for folder in range(60):
        (root / "docs" / f"d{folder:02}").mkdir(parents=True)
        for number in range(100):
            (root / "docs" / f"d{folder:02}" / f"{number:03}.md").write_text(f"page {folder}.{number}\n")
    (root / "zz").mkdir()
    (root / "zz" / "guard.sh").write_text(f"echo v1 >> {marker}\n")
    (root / "hooks").mkdir()
    (root / "hooks" / "hooks.json").write_text(json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "sh ${CLAUDE_PLUGIN_ROOT}/zz/guard.sh"}]}]}}))
    return root


def test_a_6000_file_plugin_whose_hook_changes_after_add_is_off_with_one_line(provider_server, tmp_path):
    marker = tmp_path / "HOOK_RAN"
    root = big_plugin(tmp_path, marker)
    added = ankit(tmp_path, "plugin", "add", str(root))
    assert added.returncode == 0 and "  use its 6003 files (sha256 " in added.stdout, added.stdout + added.stderr
    for _ in range(2):
        provider_server.push_openai(tool_calls=[("c1", "run_command", '{"command": "echo hi"}')])
        provider_server.push_openai(text="done")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "go", "--yes")
    assert done.returncode == 0 and marker.read_text() == "v1\n", done.stderr
    (root / "zz" / "guard.sh").write_text(f"echo changed >> {marker}\n")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "go", "--yes")
    assert done.returncode == 0 and marker.read_text() == "v1\n", done.stderr
    said = [line for line in done.stderr.splitlines() if "plugin big" in line]
    assert said == [f"ankit: plugin big is off: its files changed since you added it; run ankit plugin add {root} to "
                    "trust it as it is now"]


def test_a_plugin_over_the_digest_limits_is_refused_in_one_line_and_nothing_is_written(tmp_path):
    root = tmp_path / "plugins" / "huge"
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text('{"name": "huge"}')
    with open(root / "model.bin", "wb") as sparse:  # takes no disk: only its size is over the limit
        sparse.truncate(300 << 20)
    done = ankit(tmp_path, "plugin", "add", str(root))
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == (f"ankit: the plugin huge ({root}) holds more than 20,000 files or 256 MB, more than ankit "
                           "digests to trust it; remove what it does not need (node_modules, build output)\n")
    assert not (tmp_path / "config" / "ankit" / "plugins.json").exists()

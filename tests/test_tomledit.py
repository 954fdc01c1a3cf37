"""The TOML table editor: values written so tomllib reads them back, one table replaced with the rest untouched."""

import tomllib

from ankit.settings import tomledit

USER = """# my ankit settings
model = "claude-x"  # the one I like

[mcp]
start_timeout = 5

[mcp.servers.old]
command = "old-server"

[mcp.servers.old.env]
TOKEN = "t"

[prices."my-model"]
input = 1.0
"""


def test_values_round_trip_through_tomllib():
    table = {"command": 'C:\\odd "path"\n', "args": ["-y", "é", "\x01"], "env": {"A KEY": "v", "B": ""}, "core": True,
             "timeout": 2.5}
    text = tomledit.render(["mcp", "servers", "my server"], table)
    assert text.startswith('[mcp.servers."my server"]\n')
    assert tomllib.loads(text) == {"mcp": {"servers": {"my server": table}}}


def test_replacing_a_table_drops_its_sub_tables_and_keeps_everything_else_as_written():
    new = tomledit.replace_table(USER, ["mcp", "servers", "old"], tomledit.render(["mcp", "servers", "old"], {"command": "new"}))
    assert new == USER.replace('command = "old-server"\n\n[mcp.servers.old.env]\nTOKEN = "t"\n', 'command = "new"\n')
    assert new.startswith("# my ankit settings\nmodel = \"claude-x\"  # the one I like\n")


def test_a_missing_table_is_appended_after_a_blank_line_and_removal_takes_only_it():
    added = tomledit.replace_table("model = 'x'", ["mcp", "servers", "a"], '[mcp.servers.a]\ncommand = "a"\n')
    assert added == "model = 'x'\n\n[mcp.servers.a]\ncommand = \"a\"\n"
    assert tomledit.replace_table(USER, ["mcp", "servers", "old"], None) == USER.replace(
        '[mcp.servers.old]\ncommand = "old-server"\n\n[mcp.servers.old.env]\nTOKEN = "t"\n\n', "")
    assert tomledit.replace_table(USER, ["mcp", "servers", "ol"], None) == USER  # a prefix of a name is not the name


def test_write_is_user_only(tmp_path):
    path = tmp_path / "deep" / "config.toml"
    tomledit.write(path, "a = 1\n")
    assert path.read_text() == "a = 1\n" and (path.stat().st_mode & 0o777) == 0o600
    assert [p.name for p in path.parent.iterdir()] == ["config.toml"]

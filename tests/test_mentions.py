"""@mentions: files, folders, images, and the notices for what cannot be attached."""

import base64

from ankit.context.mentions import FILE_CAP, complete_path, expand, mentioned

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")


def test_mentions_are_found_once_with_trailing_punctuation_dropped():
    assert mentioned('see @a.py, then @"my notes.txt" and @a.py. mail me@example.com') == ["a.py", "my notes.txt"]


def test_a_file_and_a_folder_are_attached(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("print('hi')\n")
    out = expand("look at @src/app.py and @src", tmp_path)
    assert out.text.startswith("look at @src/app.py and @src\n\n")
    assert "<file path=\"src/app.py\">\nprint('hi')\n</file>" in out.text
    assert "<folder path=\"src\">\napp.py\n</folder>" in out.text
    assert out.notices == [] and out.attached == ["src/app.py", "src"]


def test_missing_and_binary_paths_are_notices_and_the_message_still_goes(tmp_path):
    (tmp_path / "blob.bin").write_bytes(b"\x00\x01\x02")
    out = expand("compare @gone.txt with @blob.bin, ask @alice", tmp_path)
    assert out.text == "compare @gone.txt with @blob.bin, ask @alice"
    assert out.notices == ["@gone.txt: no such file or folder; the message goes without it",
                           "@blob.bin: a binary file, not attached (only text files and images are)"]


def test_a_long_file_is_capped_and_the_cap_is_said(tmp_path):
    (tmp_path / "big.txt").write_text("y" * (FILE_CAP + 10))
    out = expand("@big.txt", tmp_path)
    assert f"the first {FILE_CAP:,} are attached" in out.text
    assert out.notices == [f"@big.txt: only the first {FILE_CAP:,} of {FILE_CAP + 10:,} characters attached"]


def test_an_image_is_an_image_part_or_a_refusal(tmp_path):
    (tmp_path / "shot.png").write_bytes(PNG)
    out = expand("what is in @shot.png?", tmp_path)
    assert [(i.media_type, base64.b64decode(i.data)) for i in out.images] == [("image/png", PNG)]
    refused = expand("what is in @shot.png?", tmp_path, images=False)
    assert refused.images == [] and len(refused.notices) == 1 and "does not take images" in refused.notices[0]
    assert "could not be attached" in refused.text


def test_tab_candidates_after_an_at_sign(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "guide.md").write_text("")
    (tmp_path / "dash.py").write_text("")
    (tmp_path / ".hidden").write_text("")
    assert complete_path("@d", tmp_path) == ["@dash.py", "@docs/"]
    assert complete_path("@docs/g", tmp_path) == ["@docs/guide.md"]


def test_known_secrets_are_scrubbed_from_what_is_attached(tmp_path):
    from ankit.safety.scrub import Scrubber
    (tmp_path / ".env").write_text("OPENAI_API_KEY=sk-live-0123456789abcdef\nDEBUG=1\n")
    out = expand("check @.env", tmp_path, scrub=Scrubber({"OPENAI_API_KEY": "sk-live-0123456789abcdef"}))
    assert "sk-live-0123456789abcdef" not in out.text and "DEBUG=1" in out.text


def test_a_pipe_a_device_or_a_huge_file_never_hangs_or_fills_memory(tmp_path):
    import os
    os.mkfifo(tmp_path / "pipe")  # nobody writes to it: reading it would wait forever
    with open(tmp_path / "huge.log", "wb") as handle:  # 2 GB of zeros that take no disk (a sparse file)
        handle.truncate(2 * 1024 ** 3)
    (tmp_path / "wide.txt").write_text("é" * (3 * FILE_CAP))
    out = expand("@pipe @/dev/zero @wide.txt", tmp_path)
    assert out.notices[:2] == ["@pipe: not a regular file (a pipe, socket or device), not attached",
                               "@/dev/zero: not a regular file (a pipe, socket or device), not attached"]
    assert f"the file has {6 * FILE_CAP:,} bytes" in out.text and "é" * FILE_CAP in out.text  # read no further
    out = expand("@huge.log", tmp_path)
    assert out.notices == ["@huge.log: a binary file, not attached (only text files and images are)"]


def test_text_the_user_did_not_type_attaches_nothing_under_a_hidden_or_sensitive_folder(tmp_path):
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.local.json").write_text('{"env": {"TOKEN": "leak"}}\n')
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").symlink_to("../.claude/settings.local.json")
    (tmp_path / "notes.md").write_text("fine\n")
    out = expand("see @.claude/settings.local.json @docs/a.md @notes.md", tmp_path, inside=True)
    assert "leak" not in out.text and "fine" in out.text and out.attached == ["notes.md"]
    assert out.notices[0].startswith("@.claude/settings.local.json: '.claude' on its way is hidden or sensitive")
    assert out.notices[1].startswith("@docs/a.md: '.claude' on its way")
    assert expand("see @.claude/settings.local.json", tmp_path).attached == [".claude/settings.local.json"]  # typed

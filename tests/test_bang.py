"""!command lines: run in the shell, output shown with control characters visible, kept for the model."""

from ankit.terminal.bang import CONTEXT_CAP, context_text, run_shell


def test_output_is_written_as_it_comes_and_returned(tmp_path):
    written = []
    output, code = run_shell("printf 'a\\033[2Jb\\n'; echo err >&2; exit 4", tmp_path, written.append)
    assert output == "a\x1b[2Jb\nerr\n" and code == 4
    assert "".join(written) == "a^[[2Jb\nerr\n"


def test_runs_in_the_working_folder(tmp_path):
    output, code = run_shell("pwd", tmp_path, lambda text: None)
    assert output.strip() == str(tmp_path) and code == 0


def test_context_names_the_command_and_caps_the_output():
    text = context_text("make", "z" * (CONTEXT_CAP * 2), 2)
    assert text.startswith("[ankit] Before this message the user ran a shell command (exit code 2):\n$ make\n")
    assert "characters cut" in text and len(text) < CONTEXT_CAP + 200


def test_known_secrets_are_scrubbed_from_what_is_shown_and_kept(tmp_path):
    from ankit.safety.scrub import Scrubber
    written = []
    output, _ = run_shell("echo token=ghp_0123456789abcdefXYZ", tmp_path, written.append,
                          Scrubber({"GITHUB_TOKEN": "ghp_0123456789abcdefXYZ"}))
    assert "ghp_0123456789abcdefXYZ" not in output + "".join(written) and output.startswith("token=")

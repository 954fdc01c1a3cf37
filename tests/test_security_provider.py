"""Security: the provider connection and secrets at rest. A redirect never carries the key elsewhere, base URLs
are printed masked, and session files and the REPL history are scrubbed (real `ankit -p`, the REPL on a pty)."""

import json

import pytest

from tests.conftest import ProviderServer
from tests.test_oneshot import ankit
from tests.test_repl import home, run  # noqa: F401  (fixtures)

KEY = "sk-test-provider-key-0123456789"


@pytest.fixture
def attacker():
    server = ProviderServer()
    yield server
    server.close()


def test_a_redirect_is_an_error_naming_where_it_pointed_and_the_key_stays(provider_server, attacker, tmp_path):
    provider_server.push(b"", status=302, headers={"Location": f"{attacker.url}/v1/chat/completions"})
    attacker.push_openai(text="stolen")
    done = ankit(tmp_path, "--provider", "openai", "--base-url", provider_server.url + "/v1", "-p", "hi",
                 OPENAI_API_KEY=KEY)
    assert done.returncode == 1 and attacker.requests == []
    assert done.stderr.strip() == (f"ankit: the server redirected to {attacker.url}/v1/chat/completions (302); the "
                                   "request was not sent there with your key: check --base-url")


@pytest.mark.parametrize("base, hidden", [
    ("http://me:hunter2-password@127.0.0.1:9/v1", "hunter2-password"),
    ("http://127.0.0.1:9/v1?api_key=query-secret-123", "query-secret-123"),
])
def test_a_base_url_with_a_password_or_secret_query_is_printed_masked(tmp_path, base, hidden):
    done = ankit(tmp_path, "--base-url", base, "-p", "hi")
    assert done.returncode == 1 and "cannot reach" in done.stderr
    assert hidden not in done.stderr and "[redacted]" in done.stderr


def test_session_files_scrub_url_passwords_and_pat_names(provider_server, tmp_path):
    provider_server.push_openai(text="the database is postgres://app:db-pass-4242@db:5432/x and pat ghp_pat_value_42")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "what is in .env?",
                 GH_PAT="ghp_pat_value_42", SMTP_PASSWD="smtp-secret-99", AWS_CREDENTIAL_X="aws-cred-value")
    assert done.returncode == 0, done.stderr
    saved = "".join(p.read_text() for p in (tmp_path / "state" / "ankit" / "sessions").glob("*.jsonl"))
    assert "db-pass-4242" not in saved and "ghp_pat_value_42" not in saved
    assert "postgres://app:[redacted]@db:5432/x" in saved


def test_tool_output_is_scrubbed_before_the_model_sees_it(provider_server, tmp_path):
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "deploy.log").write_text("using token tok-SECRET-0042 for upload\n")
    provider_server.push_openai(tool_calls=[("c1", "read_file", json.dumps({"path": "deploy.log"}))])
    provider_server.push_openai(text="done")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "read the log",
                 DEPLOY_TOKEN="tok-SECRET-0042")
    assert done.returncode == 0, done.stderr
    sent = provider_server.requests[1].json["messages"][-1]["content"]
    assert "tok-SECRET-0042" not in sent and "using token [redacted] for upload" in sent


def test_the_repl_history_file_keeps_no_typed_key(run, provider_server, home):
    provider_server.push_openai(text="noted")
    term = run(OPENAI_API_KEY=KEY)
    term.line(f"my key is {KEY} and the db is mysql://root:rootpw-77@localhost/x")
    term.expect("noted")
    term.finish()
    history = (home / "state" / "ankit" / "history").read_text()
    assert KEY not in history and "rootpw-77" not in history and "[redacted]" in history


DOTENV = ("OPENAI_API_KEY=sk-proj-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa\nDB_PASSWORD=plainwords\n"
          "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\nSESSION=eyJhbGciOiJIUzI1NiJ9.eyJzdWIi"
          "OiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U\nDEBUG=1\n")
PEM = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----\n"
LEAKS = ("Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa", "plainwords", "wJalrXUtnFEMI", "dozjgNryP4J3jVmNHl0w5N", "b3BlbnNzaC1rZXkt")


def test_secrets_in_files_a_tool_reads_reach_neither_the_model_nor_the_screen_nor_the_session(provider_server, tmp_path):
    """The rule for .env and key files: the model sees their names and layout, never the values (no environment
    variable names these values: they are known by their labels and shapes)."""
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / ".env").write_text(DOTENV)
    (tmp_path / "work" / "deploy_key").write_text(PEM)
    provider_server.push_openai(tool_calls=[("c1", "read_file", json.dumps({"path": ".env"})),
                                            ("c2", "read_file", json.dumps({"path": "deploy_key"})),
                                            ("c3", "read_file", json.dumps({"path": "deploy_key", "start_line": 2})),
                                            ("c4", "search_text", json.dumps({"pattern": "AAAA"}))])
    provider_server.push_openai(text="done")
    done = ankit(tmp_path, "--base-url", provider_server.url + "/v1", "-p", "read .env and the key")
    assert done.returncode == 0, done.stderr
    sent = json.dumps(provider_server.requests[1].json)
    saved = "".join(p.read_text() for p in (tmp_path / "state" / "ankit" / "sessions").glob("*.jsonl"))
    for leak in LEAKS:
        assert leak not in sent and leak not in saved and leak not in done.stderr, leak
    assert "OPENAI_API_KEY=[redacted]" in sent and "DEBUG=1" in sent and "BEGIN OPENSSH PRIVATE KEY" in sent

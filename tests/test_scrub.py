"""The one Scrubber: secret values become [redacted] wherever text is shown, saved or sent."""

import pytest

from ankit.safety.scrub import REDACTED, Scrubber, mask_url, secret_name


@pytest.mark.parametrize("name", ["GH_PAT", "GITHUB_TOKEN", "OPENAI_API_KEY", "DB_PASSWORD", "PGPASSWORD",
                                  "MYSQL_PWD", "SMTP_PASSWD_X", "AWS_SECRET_ACCESS_KEY", "GOOGLE_CREDENTIALS",
                                  "STRIPE_SECRET", "NPM_CONFIG__AUTH", "SENTRY_DSN", "OPENAI_APIKEY", "MY_PASS"])
def test_secret_names(name):
    assert secret_name(name)


@pytest.mark.parametrize("name", ["HOME", "PATH", "PWD", "OLDPWD", "PASSWORD_HINT", "SSH_AUTH_SOCK", "KEYBOARD",
                                  "TOKENIZERS_PARALLELISM", "GOOGLE_CREDENTIALS_FILE", "LANG", "PATHEXT"])
def test_ordinary_names(name):
    assert not secret_name(name)


def test_environment_values_are_scrubbed_from_eight_characters_on():
    scrub = Scrubber({"GH_PAT": "ghp_1234567", "SHORT_TOKEN": "1234567", "NOTE": "ghp_plain_value"})
    assert scrub("pat ghp_1234567, short 1234567, note ghp_plain_value") == \
        "pat [redacted], short 1234567, note ghp_plain_value"


def test_given_values_and_longest_first():
    scrub = Scrubber({}, values=["abcdefgh", "abcdefgh-longer", "", "short"])
    assert scrub("abcdefgh-longer abcdefgh short") == "[redacted] [redacted] short"


@pytest.mark.parametrize("raw, clean", [
    ("DATABASE_URL=postgres://app:s3cr3t@db:5432/x", "DATABASE_URL=postgres://app:[redacted]@db:5432/x"),
    ("redis://:topsecret@cache/0", "redis://:[redacted]@cache/0"),
    ("curl -H 'Authorization: Bearer abc.def.ghi123'", "curl -H 'Authorization: Bearer [redacted]'"),
    ('{"api_key": "not-from-env-42"}', '{"api_key": "[redacted]"}'),
    ("STRIPE_SECRET=sk_live_abc123xyz", "STRIPE_SECRET=[redacted]"),
    ("export GH_PAT='ghp_abcdef123456'", "export GH_PAT='[redacted]'"),
])
def test_secret_shapes_in_text(raw, clean):
    assert Scrubber({})(raw) == clean


# Made-up values in each provider's format (none is a real key).
SHAPES = {
    "openai": "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd",
    "anthropic": "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcdEFGH",
    "github": "ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    "github_fine": "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEF",
    "gitlab": "glpat-AbCdEfGhIjKlMnOpQrSt",
    "slack": "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
    "aws": "AKIAIOSFODNN7EXAMPLE",
    "google": "AIzaSyA-AbCdEfGhIjKlMnOpQrStUvWxYz01234",
    "stripe": "sk_live_51HAbCdEfGhIjKlMnOpQrStUv",
    "huggingface": "hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567",
    "npm": "npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    "sendgrid": "SG.AbCdEfGhIjKlMnOpQrStUv.AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefg",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
}


@pytest.mark.parametrize("kind", SHAPES)
def test_tokens_known_by_their_shape_need_no_label(kind):
    assert Scrubber({})(f"found {SHAPES[kind]} in the log") == "found [redacted] in the log"


@pytest.mark.parametrize("raw, clean", [
    ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws_secret_access_key = [redacted]"),
    ('{"token": "q8w7e6r5t4y3u2i1o0p9", "n": 1}', '{"token": "[redacted]", "n": 1}'),
    ("password: correcthorsebattery", "password: [redacted]"),
    ("db_password=hunter2hunter2", "db_password=[redacted]"),
    ('SECRET="my pass phrase"', 'SECRET="[redacted]"'),
    ("DB_PASSWORD=plainwords", "DB_PASSWORD=[redacted]"),
    ("//registry.npmjs.org/:_authToken=abcdef0123456789", "//registry.npmjs.org/:_authToken=[redacted]"),
    ("machine api.example.com login bob password s3cr3tpassw0rd", "machine api.example.com login bob password [redacted]"),
    ('{"auths": {"registry": {"auth": "Ym9iOnMzY3IzdHBhc3N3MHJk"}}}', '{"auths": {"registry": {"auth": "[redacted]"}}}'),
    ("mycli --password=Sup3rS3cret!", "mycli --password=[redacted]"),
    ("curl -u admin:hunter2hunter2 https://x", "curl -u admin:[redacted] https://x"),
    ("curl --user 'bob:s3cret' https://x", "curl --user 'bob:[redacted]' https://x"),
])
def test_values_after_secret_labels_in_any_case(raw, clean):
    assert Scrubber({})(raw) == clean


def test_a_private_key_block_keeps_only_its_markers():
    pem = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\nQyNTUxOQAAACBxyz\n" \
          "-----END OPENSSH PRIVATE KEY-----\n"
    assert Scrubber({})("key:\n" + pem + "done") == \
        "key:\n-----BEGIN OPENSSH PRIVATE KEY-----\n[redacted]\n-----END OPENSSH PRIVATE KEY-----\ndone"
    assert Scrubber({})("-----BEGIN RSA PRIVATE KEY-----\nMIIEow...cut") == "-----BEGIN RSA PRIVATE KEY-----\n[redacted]\n"


@pytest.mark.parametrize("code", [
    "password = password + b'x' * 3", "self.username, self.password = credentials", "secret: SecretStr",
    "def kind(token: tokenize.TokenInfo) -> str:", "_DD_SIGNATURE = 0x08074b50", "max_tokens = 4096",
    "the skeleton key-value store uses sk-learn", "commit 3f786850e387550fdab836ed7e6dc881de23001b",
    'ERROR_TOKEN = "invalid token given"', "token = tokenizer", 'href="topic?key=%s" see http://x',
    "export TOKEN=$(cat ~/.token)", "password_hint: ask the admin", "[--env KEY=VALUE]...",

    "api_key = settings.api_key", "TOKEN = os.environ['TOKEN']", "SECRET_KEY = get_secret()",
    "see https://example.com/a:b@c", "the token: tomorrow", "password is required",
])
def test_code_and_prose_that_only_name_a_secret_stay(code):
    assert Scrubber({})(code) == code


def test_nested_values_and_secret_fields():
    scrub = Scrubber({"X_TOKEN": "tok-12345678"})
    value = {"a": ["tok-12345678", {"password": "hunter22", "n": 3}], "api_key": "", "t": ("tok-12345678",)}
    assert scrub(value) == {"a": [REDACTED, {"password": REDACTED, "n": 3}], "api_key": "", "t": [REDACTED]}


def test_mask_url():
    assert mask_url("https://me:pa55@host:8443/v1?key=abc&model=x") == \
        "https://me:[redacted]@host:8443/v1?key=[redacted]&model=x"
    assert mask_url("http://127.0.0.1:8080/v1") == "http://127.0.0.1:8080/v1"
    assert mask_url("https://h/v1?access_token=t0k&x=1") == "https://h/v1?access_token=[redacted]&x=1"


def test_the_dotenv_rule_holds_on_every_line_of_a_file_not_only_the_first():
    """NAME=value at the start of any line (LF or CRLF) is a .env assignment: short or plain-word values after a
    secret name are hidden on line 5 as on line 1; a non-secret name and an indented line are left alone."""
    text = ("APP_NAME=demo\nAPI_TOKEN=plainword\nDB_PASS=abcd\r\nSESSION_SECRET=hunter\nMAIL_AUTH=letmein\n"
            "  NOTE_TOKEN=plainword\n")
    assert Scrubber({})(text) == ("APP_NAME=demo\nAPI_TOKEN=[redacted]\nDB_PASS=[redacted]\r\nSESSION_SECRET=[redacted]\n"
                                  "MAIL_AUTH=[redacted]\n  NOTE_TOKEN=plainword\n")
    assert Scrubber({})("API_TOKEN=plainword") == "API_TOKEN=[redacted]"

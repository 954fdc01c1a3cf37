"""The one Scrubber: secret values become [redacted] wherever text is shown, saved or sent."""

import pytest

from ankit.scrub import REDACTED, Scrubber, mask_url, secret_name


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


@pytest.mark.parametrize("code", [
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

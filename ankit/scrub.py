"""The one Scrubber: secret values replaced by [redacted] before text is shown, saved or sent to a model.

What counts as a secret: the values given to it (the API key in use, MCP servers' env values), the values of
environment variables whose names look secret (see secret_name), passwords inside URLs (scheme://user:pass@),
"api_key" fields and assignments, Authorization header values, and secret-named assignments such as a
.env line `STRIPE_SECRET=...`. Values shorter than MIN_SECRET_LENGTH are settings ("1", "true"), not secrets:
hiding them would garble ordinary text.
"""

import os
import re
from collections.abc import Iterable, Mapping
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

REDACTED = "[redacted]"
MIN_SECRET_LENGTH = 8

# A name is secret when it contains one of these words...
_SECRET_WORDS = ("SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "TOKEN", "APIKEY", "API_KEY", "PRIVATE", "COOKIE")
# ...or has one of these as an underscore-separated part (GH_PAT, MYSQL_PWD, AWS_KEY, NPM_CONFIG__AUTH)...
_SECRET_PARTS = {"KEY", "KEYS", "PAT", "PASS", "PWD", "PW", "AUTH", "DSN", "CREDS", "SIG", "SIGNATURE"}
# ...unless it names something about a secret rather than the secret (a file, a socket, a hint).
_NOT_SECRET_ENDS = ("_FILE", "_PATH", "_DIR", "_SOCK", "_HINT", "_URL_PATH", "_TYPE", "_MODE", "_HOST", "_PORT")
_NOT_SECRET_NAMES = {"PWD", "OLDPWD", "TOKENIZERS_PARALLELISM", "SSH_AUTH_SOCK"}

SECRET_FIELDS = {"api_key", "apikey", "api-key", "x-api-key", "authorization", "password", "passwd", "secret",
                 "client_secret", "access_token", "refresh_token", "private_key"}
_SECRET_QUERY = {"key", "api_key", "apikey", "api-key", "token", "access_token", "auth", "secret", "password",
                 "passwd", "sig", "signature", "client_secret", "code", "x-api-key"}

URL_PASSWORD = re.compile(r"(\b[A-Za-z][A-Za-z0-9+.\-]*://[^/\s:@\"'<>]*:)([^/\s@\"'<>]+)@")
# A literal after a label: quoted, or a bare token of 8+ characters with a digit or a dash (so code such as
# `api_key = settings.key` or `TOKEN = os.environ[...]` is left alone: it names a secret, it is not one).
_LITERAL = r"""(?:(["'])([^"'\s]{4,})\2|([\w\-+/=~.]*[\d\-][\w\-+/=~.]*)(?![\w.(\[]))"""
KEY_IN_TEXT = re.compile(r"""(api[_-]?key["']?\s*[:=]\s*)""" + _LITERAL, re.IGNORECASE)
AUTH_HEADER = re.compile(r"""(authorization["']?\s*[:=]\s*["']?(?:bearer|basic|token)\s+)()()([^"'\s,;]{8,})""",
                         re.IGNORECASE)
URL_SECRET_QUERY = re.compile(r"([?&](?:key|api[_-]?key|token|access_token|auth|secret|password|passwd|sig|signature|"
                              r"client_secret|x-api-key)=)([^&\s#\"'<>]+)", re.IGNORECASE)
SECRET_ASSIGNMENT = re.compile(
    r"""(\b[A-Z][A-Z0-9_]*(?:SECRET|PASSWORD|PASSWD|TOKEN|_KEY|APIKEY|_PAT|CREDENTIALS?)["']?\s*[:=]\s*)"""
    + _LITERAL)


def secret_name(name: str) -> bool:
    """Whether an environment variable's name says its value is a secret (GH_PAT, DB_PASSWORD, *_TOKEN...)."""
    upper = name.upper()
    if upper in _NOT_SECRET_NAMES or upper.endswith(_NOT_SECRET_ENDS):
        return False
    if any(word in upper for word in _SECRET_WORDS):
        return True
    return bool(_SECRET_PARTS & set(upper.split("_")))


class Scrubber:
    """Replaces secret values by [redacted] in strings, and recursively in dicts and lists."""

    def __init__(self, environ: Mapping[str, str] | None = None, values: Iterable[str] = ()):
        environ = os.environ if environ is None else environ
        found = {str(v) for k, v in environ.items() if secret_name(str(k))}
        found |= {str(v) for v in values if v}
        self.secrets = sorted((v for v in found if len(v) >= MIN_SECRET_LENGTH), key=len, reverse=True)
        self._pattern = re.compile("|".join(map(re.escape, self.secrets))) if self.secrets else None

    def with_values(self, values: Iterable[str]) -> "Scrubber":
        """A scrubber that also hides these values."""
        other = Scrubber({}, [*self.secrets, *values])
        return other

    def text(self, text: str) -> str:
        """text with every secret replaced by [redacted]."""
        if self._pattern is not None:
            text = self._pattern.sub(REDACTED, text)
        if "://" in text:
            text = URL_PASSWORD.sub(lambda m: m.group(1) + REDACTED + "@", text)
            text = URL_SECRET_QUERY.sub(lambda m: m.group(1) + REDACTED, text)
        for pattern in (KEY_IN_TEXT, AUTH_HEADER, SECRET_ASSIGNMENT):
            text = pattern.sub(_keep_label, text)
        return text

    def __call__(self, value):
        """A copy of value (str, dict, list or other) with every secret replaced by [redacted]."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {k: REDACTED if str(k).lower() in SECRET_FIELDS and value[k] not in ("", None) else self(v)
                    for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self(item) for item in value]
        return value


def _keep_label(match: re.Match) -> str:
    """The label and its quotes kept, the literal replaced (at least 8 characters, else it is not a secret)."""
    label, quote, quoted, bare = match.group(1), match.group(2) or "", match.group(3), match.group(4)
    value = quoted if quoted is not None else bare
    if value == REDACTED or len(value or "") < MIN_SECRET_LENGTH and quoted is None:
        return match.group()
    return f"{label}{quote}{REDACTED}{quote}"


def mask_url(url: str) -> str:
    """A URL fit to print: its password and secret-looking query values replaced by [redacted]."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return URL_PASSWORD.sub(lambda m: m.group(1) + REDACTED + "@", url)
    netloc = parts.netloc
    if parts.password is not None:
        netloc = netloc.replace(":" + parts.password + "@", ":" + REDACTED + "@", 1)
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        if any(k.lower() in _SECRET_QUERY or secret_name(k) for k, _ in pairs):
            query = urlencode([(k, REDACTED if k.lower() in _SECRET_QUERY or secret_name(k) else v)
                               for k, v in pairs], safe="[]")
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))

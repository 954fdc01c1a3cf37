"""The one Scrubber: secret values replaced by [redacted] before text is shown, saved or sent to a model.

What counts as a secret (the rule for a file such as .env read by a tool or attached with @: the model sees
its names and layout, never the values):
- the values given to it (the API key in use, MCP servers' env values) and the values of environment
  variables whose names look secret (see secret_name), wherever they appear;
- tokens whose shape says what they are, label or not: provider keys (sk-..., sk-ant-..., ghp_..., github_pat_...,
  glpat-..., xox?-..., AKIA..., AIza..., hf_..., npm_..., pypi-..., SG....), JWTs, private key blocks;
- passwords inside URLs (scheme://user:pass@) and secret URL parameters (?key=, ?token=...);
- values after a secret-named label: a .env or shell line `NAME=value` whose NAME looks secret, `api_key: ...`,
  `"token": "..."`, `aws_secret_access_key = ...`, `password: ...`, Authorization headers, netrc passwords.
The secrets ankit knows (the first group) are also found in their base64 (standard and URL-safe, at any
alignment inside a longer base64 text), hex and URL-encoded forms: `echo $KEY | base64` is hidden too.
Text that arrives in pieces (a command's output read 4 KB at a time) goes through Scrubber.stream(), which
holds back an unfinished line (and an unfinished private key block) until the rest arrives, so a secret
straddling two reads is still found.

A value after a label must look like a value, not code (`api_key = settings.key` names a secret, it is not
one); under a token or key label a bare word needs a digit or a symbol. Values shorter than MIN_SECRET_LENGTH
are settings ("1", "true"), not secrets: hiding them would garble ordinary text.
"""

import base64
import os
import re
from collections.abc import Iterable, Mapping
from urllib.parse import parse_qsl, quote, quote_plus, urlencode, urlsplit, urlunsplit

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
AUTH_HEADER = re.compile(r"""(authorization["']?\s*[:=]\s*["']?(?:bearer|basic|token)\s+)([^"'\s,;]{8,})""", re.IGNORECASE)
URL_SECRET_QUERY = re.compile(r"([?&](?:key|api[_-]?key|token|access_token|auth|secret|password|passwd|sig|signature|"
                              r"client_secret|x-api-key)=)([^&\s#\"'<>]+)", re.IGNORECASE)
NETRC_PASSWORD = re.compile(r"(\blogin\s+\S+\s+password\s+)(\S+)")
USER_PASSWORD = re.compile(r"""((?:^|\s)(?:-u|--user)[ =]?["']?[^\s:"']+:)([^\s"']+)""")  # curl -u name:password
# Tokens that say what they are by their shape (a provider's prefix and enough random characters).
TOKEN_SHAPES = re.compile(r"""(?<![\w\-])(?:
    sk-(?=[\w\-]*\d)[\w\-]{20,}                        # OpenAI, Anthropic (sk-ant-), OpenRouter, DeepSeek...
  | (?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}           # Stripe secret and restricted keys
  | gh[pousr]_[A-Za-z0-9]{30,} | github_pat_\w{30,}    # GitHub
  | glpat-[\w\-]{20,}                                  # GitLab
  | xox[abposr]-(?=[\w\-]*\d)[\w\-]{10,}               # Slack
  | (?:AKIA|ASIA)[A-Z0-9]{16}                          # AWS access key ids
  | AIza[\w\-]{35}                                     # Google API keys
  | (?:hf|gsk|r8)_(?=\w*\d)[A-Za-z0-9]{30,} | npm_[A-Za-z0-9]{36} | pypi-[\w\-]{50,}
  | (?:xai|pplx)-(?=\w*\d)[A-Za-z0-9]{30,}             # xAI, Perplexity
  | SG\.[\w\-]{16,}\.[\w\-]{16,}                       # SendGrid
  | shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32} | dop_v1_[a-f0-9]{64}
  | eyJ[\w\-]{8,}\.eyJ[\w\-]{8,}\.[\w\-]{8,}           # a JSON Web Token
)(?![\w\-])""", re.VERBOSE)
PRIVATE_KEY = re.compile(r"(-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----)(.*?)(-----END [A-Z0-9 ]*PRIVATE KEY"
                         r"(?: BLOCK)?-----|\Z)", re.DOTALL)
# A word that may end a secret's label, then the rest of the label and : or = (searched in lower-cased text; see
# _labelled for the label before it and the value after it).
LABEL_HINT = re.compile(r"""(?:pass|pwd|secret|token|key|auth|cred|dsn|pat|sig|cookie|private)[\w.\-]*+(["']?[ \t]*[:=][ \t]*)""")
VALUE = re.compile(r"""(["'])([^"'\n]*)\1|([^\s"'`,;<>]+)""")
_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")  # same length, unlike lower()
# Case-insensitive labels end with one of these; the first five also take a plain word as their value.
_LABEL_ENDS = ("PASSWORD", "PASSWD", "PASSPHRASE", "SECRET", "_PWD", "TOKEN", "APIKEY", "API_KEY", "ACCESS_KEY",
               "SECRET_KEY", "PRIVATE_KEY", "SIGNING_KEY", "AUTH", "CREDENTIAL", "CREDENTIALS", "_PAT", "COOKIE")
_WORDY = _LABEL_ENDS[:5]
_CODE = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+|.*[()\[\]{}].*|[$%<].*|0x[\da-f_]+|[\d_.]+|true|false|null|none|nil|undefined",
                   re.IGNORECASE)


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
        forms = {form for secret in self.secrets for form in encoded_forms(secret)} | set(self.secrets)
        self._pattern = re.compile("|".join(map(re.escape, sorted(forms, key=len, reverse=True)))) if forms else None

    def with_values(self, values: Iterable[str]) -> "Scrubber":
        """A scrubber that also hides these values."""
        other = Scrubber({}, [*self.secrets, *values])
        return other

    def text(self, text: str) -> str:
        """text with every secret replaced by [redacted]."""
        if self._pattern is not None:
            text = self._pattern.sub(REDACTED, text)
        if "PRIVATE KEY" in text:
            text = PRIVATE_KEY.sub(lambda m: f"{m.group(1)}\n{REDACTED}\n{m.group(3)}", text)
        text = TOKEN_SHAPES.sub(REDACTED, text)
        if "://" in text:
            text = URL_PASSWORD.sub(lambda m: m.group(1) + REDACTED + "@", text)
            text = URL_SECRET_QUERY.sub(lambda m: m.group() if m.group(2)[0] in "%{$" else m.group(1) + REDACTED, text)
        text = AUTH_HEADER.sub(lambda m: m.group(1) + REDACTED, text)
        text = NETRC_PASSWORD.sub(lambda m: m.group(1) + REDACTED, text)
        text = USER_PASSWORD.sub(lambda m: m.group(1) + REDACTED, text)
        return _labelled(text)

    def stream(self) -> "ScrubStream":
        """A scrubber for text that arrives in pieces (see ScrubStream)."""
        return ScrubStream(self)

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


def encoded_forms(secret: str) -> set[str]:
    """The forms a secret's bytes take when a command encodes them: base64 and URL-safe base64 at each of the
    three alignments (only the characters that depend on the secret alone, so the form is found inside a
    longer base64 text too), hex in both cases, and URL encoding."""
    data = secret.encode("utf-8", "replace")
    encoded = {quote(secret, safe=""), quote_plus(secret)}
    forms = {data.hex(), data.hex().upper(), *encoded, *(re.sub("%[0-9A-F]{2}", lambda m: m.group().lower(), e) for e in encoded)}
    for lead in range(3):
        whole = base64.b64encode(b"\0" * lead + data).decode("ascii")
        core = whole[(0, 2, 3)[lead]: 4 * ((lead + len(data)) // 3)]
        forms |= {core, core.replace("+", "-").replace("/", "_")}
    return {form for form in forms if len(form) >= MIN_SECRET_LENGTH and form != secret}


HOLD = 64 * 1024  # characters a stream holds back at most, waiting for a line's end


class ScrubStream:
    """Scrubs text that arrives in pieces: only whole lines are scrubbed and passed on (an unfinished private
    key block is held whole), so a secret split across two pieces is seen joined; a line longer than HOLD is
    passed on at its last blank, or cut."""

    def __init__(self, scrubber: Scrubber):
        self.scrubber, self.held = scrubber, ""

    def feed(self, text: str) -> str:
        """The scrubbed text that can be passed on now ('' while a line is unfinished)."""
        self.held += text
        cut = self._cut()
        ready, self.held = self.held[:cut], self.held[cut:]
        return self.scrubber.text(ready) if ready else ""

    def end(self) -> str:
        """Whatever is still held, scrubbed (at the end of the stream)."""
        ready, self.held = self.held, ""
        return self.scrubber.text(ready) if ready else ""

    def _cut(self) -> int:
        """Where what can be passed on ends: after the last line end outside an unfinished key block."""
        held = self.held
        cut = held.rfind("\n") + 1
        begin = held.rfind("-----BEGIN ", 0, cut)
        if begin >= 0 and "PRIVATE KEY" in held[begin:begin + 80] and "-----END " not in held[begin:]:
            cut = held.rfind("\n", 0, begin) + 1  # hold the block from its first line until it ends
        if len(held) - cut > HOLD:
            blank = max(held.rfind(" ", cut, len(held) - 512), held.rfind("\t", cut, len(held) - 512))
            cut = blank + 1 if blank >= 0 else len(held) - 512
        return cut


def _secret_label(label: str) -> tuple[bool, bool]:
    """(whether a label names a secret, whether a plain word after it is one too)."""
    if label.isupper() or "_" in label and not any(c.islower() for c in label):
        return secret_name(label), secret_name(label) and label.upper().endswith(_WORDY)
    name = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", label).upper().replace("-", "_").replace(".", "_")
    if not name.endswith(_LABEL_ENDS) or name.endswith(_NOT_SECRET_ENDS):
        return False, False
    return True, name.endswith(_WORDY)


def _labelled(text: str) -> str:
    """text with the values after secret labels replaced (see _value for which values count)."""
    out, at = [], 0
    for hint in LABEL_HINT.finditer(text.translate(_LOWER)):
        start = hint.start()
        while start > 0 and (text[start - 1].isalnum() or text[start - 1] in "_.-"):
            start -= 1
        label, sep = text[start:hint.start(1)].lstrip("-."), hint.group(1)
        value = VALUE.match(text, hint.end())
        if start < at or not label or value is None or (start and text[start - 1] == "$"):
            continue
        quote, shown = value.group(1) or "", value.group(2) if value.group(1) else value.group(3)
        line_start = start == 0 or text[start - 1] == "\n"
        if _value(label, sep, quote, shown, line_start):
            out += [text[at:value.start()], quote, REDACTED, quote]
            at = value.end()
    return "".join(out) + text[at:] if out else text


def _value(label: str, sep: str, quote: str, value: str, line_start: bool) -> bool:
    """Whether the value after this label is a secret: it must look like a value, not code or a type."""
    secret, wordy = _secret_label(label)
    if not secret or not value or REDACTED in value or _CODE.fullmatch(value):
        return False
    plain = value.replace("_", "").isalpha()
    dotenv = line_start and sep == "="  # NAME=value in a .env or shell file
    if len(value) < (4 if quote or dotenv else MIN_SECRET_LENGTH) or " " in value and not (wordy or dotenv):
        return False
    if plain and not quote and (sep.strip() == ":" and value[0].isupper() or " " in sep and sep.strip() == "="):
        return False  # `secret: SecretStr` is a type annotation, `password = password` an assignment
    return not plain or bool(quote) or wordy and value.lower() not in label.lower() or dotenv


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

"""Masking secrets in everything roster shows (issue 11 item 3).

:func:`redact` is the one function every output path calls: terminal text and ``--json``
(``cli/output.py``), render diffs and dry runs (``commands/output_folder.py``), error
payloads (``errors.error_payload``), the crash report (``cli/app.py``), command results on
the HTTP API and the MCP server (``commands/registry.encode``), and events (SSE, webhooks,
``roster watch``). A secret is found by its value, not only by the name of its key:

* the value of a **secret-named key** (``GH_PAT``, ``api_key``, ``clientSecret``,
  ``Authorization``, ``Cookie``, ``X-Api-Key``...), in data and in text (``KEY=value``,
  ``"key": "value"``, ``key = "value"``, a YAML ``KEY: value`` line);
* **known token shapes** (``ghp_``, ``github_pat_``, ``sk-``, ``xox*``, JWTs, AWS, Google,
  npm, PyPI, Hugging Face and GitLab tokens) and long high-entropy strings, anywhere;
* **credentials in URLs**: a userinfo password, a token-shaped user, and query parameters
  such as ``token``, ``key`` and ``access_token``;
* **secret-looking CLI arguments**: ``--token X``, ``--api-key=X``, and the same pair as two
  items of a JSON, TOML or YAML list.

A reference stays visible: ``${GITHUB_TOKEN}``, ``{env:GITHUB_TOKEN}`` and ``Bearer ${TOKEN}``
say where a secret comes from, not what it is. The mask keeps an auth scheme
(``Bearer ***``). The detectors are also what ``literal_secrets`` uses to refuse literal
secrets written into the vault, so what would be masked on output is what is refused on
input. Every pattern is compiled once, at first use; text without a candidate costs one
scan per pattern.
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from collections import Counter
from collections.abc import Mapping
from typing import Any, TypeVar

from agent_roster.model.mcp import McpServer

MASK = "***"
T = TypeVar("T")

#: Words that make a key name secret wherever they stand in it (``GITHUB_TOKEN``,
#: ``client-secret``, ``dbPassword``, ``Authorization``, ``GH_PAT``).
_SECRET_WORDS = frozenset(
    {
        "token",
        "secret",
        "secrets",
        "password",
        "passwd",
        "pass",
        "passphrase",
        "auth",
        "authorization",
        "credential",
        "credentials",
        "cookie",
        "pat",
        "bearer",
        "dsn",
        "apikey",
        "accesstoken",
        "privatekey",
        "sessionid",
    }
)
_RUN_TOGETHER = ("password", "passwd", "secret", "credential", "apikey", "privatekey")
#: Query parameters that carry a credential even under a plain name (``?key=``, ``?sig=``).
_SECRET_PARAMS = frozenset({"key", "sig", "signature", "code"})
_WORD_SPLIT = re.compile(r"[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])")


@functools.lru_cache(maxsize=4096)
def secret_key(name: str) -> bool:
    """Whether a key, header, variable or option named ``name`` holds a secret."""
    words = [w.lower() for w in _WORD_SPLIT.split(name) if w]
    if not words:
        return False
    if any(w in _SECRET_WORDS for w in words):
        return True
    # "..._KEY", "X-Api-Key", "privateKey": a key, named by what it opens. "key" alone is a
    # name's key (a permission key, a sort key) and is not a secret.
    if len(words) >= 2 and words[-1] in ("key", "keys"):
        return True
    # Words run together ("PGPASSWORD", "GHTOKEN", "apikey"): the unambiguous ones.
    joined = "".join(words)
    return any(w in joined for w in _RUN_TOGETHER) or any(
        w.endswith(("token", "secret")) for w in words
    )


# -- references ---------------------------------------------------------------------------
#: ``${VAR}`` and the forms codecs render it in (docs/codecs/README.md D10): ``${env:VAR}``
#: (Cursor, VS Code), OpenCode's ``{env:VAR}``, AGH's ``env:VAR`` and ``vault:…``; never
#: ``${VAR:-default}``, whose default may be the secret itself.
REFERENCE = re.compile(
    r"\$\{(?:env:)?[A-Za-z_][A-Za-z0-9_]*\}|\{env:[A-Za-z_][A-Za-z0-9_]*\}"
    r"|(?<![\w$])(?:env:[A-Za-z_][A-Za-z0-9_]*|vault:[A-Za-z0-9_./-]+)"
)
#: A value that is a variable's name (Codex's ``bearer_token_env_var = "GITHUB_TOKEN"``).
_VARIABLE_NAME = re.compile(r"[A-Z_][A-Z0-9_]*")
_SCHEME = re.compile(r"(?i)(?:bearer|basic|token|bot|digest|apikey)[ \t]+")


def is_reference(value: str) -> bool:
    """True when ``value`` names its secret by reference only (``Bearer ${TOKEN}``)."""
    rest = value.strip()
    scheme = _SCHEME.match(rest)
    if scheme:
        rest = rest[scheme.end() :]
    if _VARIABLE_NAME.fullmatch(rest):
        return True
    # What is left around the references: quotes, or the punctuation of a sentence.
    return bool(rest) and not REFERENCE.sub("", rest).strip(" \t\"',.;:)]}")


def mask_value(value: str) -> str:
    """``value`` of a secret-named key, masked unless it is a reference or empty; an auth
    scheme stays (``Bearer ***``)."""
    if not value.strip() or is_reference(value) or value == MASK:
        return value
    scheme = _SCHEME.match(value)
    return (value[: scheme.end()] + MASK) if scheme and value[scheme.end() :].strip() else MASK


# -- the patterns -------------------------------------------------------------------------
_B = r"(?<![A-Za-z0-9_-])"  # a token starts at a word boundary that '-' and '_' do not break
_TOKEN = re.compile(
    _B + r"(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{20,}"
    r"|xox[abposr]-[A-Za-z0-9-]{10,}|xapp-[A-Za-z0-9-]{10,}"
    r"|sk-[A-Za-z0-9][A-Za-z0-9_-]{15,}|[sr]k_(?:live|test)_[A-Za-z0-9]{16,}"
    r"|A[KS]IA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{35}|npm_[A-Za-z0-9]{36}"
    r"|pypi-[A-Za-z0-9_-]{50,}|hf_[A-Za-z0-9]{30,}"
    r"|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*)"
)
#: ``scheme://user:password@``, and ``scheme://TOKEN@`` (a token as the user).
_USERINFO = re.compile(r"(?P<pre>://)(?P<info>[^\s/@\"'<>]+)@")
_QUERY = re.compile(r"(?P<pre>[?&;](?P<name>[A-Za-z0-9_.\-\[\]]+)=)(?P<value>[^&#\s\"'<>]+)")
#: ``--token X`` and ``"--token", "X"`` (a JSON or TOML list) on one line.
_ARG_PAIR = re.compile(
    r"(?<![\w-])(?P<q>[\"']?)(?P<opt>--?(?P<name>[A-Za-z][A-Za-z0-9_-]*))(?P=q)"
    r"(?P<sep>[ \t]+|[ \t]*,[ \t]*)"
    r"(?P<q2>[\"']?)(?P<value>[^\s\"',\]\[]+)(?P=q2)"
)
#: The same pair across a line break: a JSON list one item per line (diff markers too),
#: and a YAML list's ``- --token`` / ``- X``.
_ARG_PAIR_NEXT = re.compile(
    r"(?<![\w-])(?P<q>[\"']?)(?P<opt>--?(?P<name>[A-Za-z][A-Za-z0-9_-]*))(?P=q)"
    r"(?P<sep>[ \t]*,[ \t]*\n[+\- ]?[ \t]*|[ \t]*\n[+\- ]?[ \t]*-[ \t]+)"
    r"(?P<q2>[\"']?)(?P<value>[^\s\"',\]\[]+)(?P=q2)"
)
#: A line that ends with an option: where :data:`_ARG_PAIR_NEXT` may apply.
_OPTION_ENDS_LINE = re.compile(r"--?(?P<name>[A-Za-z][A-Za-z0-9_-]*)[\"']?,?[ \t]*$", re.MULTILINE)
#: ``KEY=value``, ``"key": "value"``, ``key = "value"``, ``Key: value``.
_KEY_VALUE = re.compile(
    r"(?P<kq>[\"']?)(?<![A-Za-z0-9_.])(?P<key>[A-Za-z_][A-Za-z0-9_.-]*+)(?P=kq)"
    r"(?P<sep>[ \t]*[:=][ \t]*)"
    r"(?P<value>\"(?:[^\"\\\n]|\\.)*\"|'[^'\n]*'"
    r"|(?:(?i:bearer|basic|token|bot|digest)[ \t]+)?(?:\$?\{[^{}\s]*\}|[^\s\"',;{}\[\]()])+)"
)
_HIGH_ENTROPY = re.compile(r"(?<![A-Za-z0-9+_=-])[A-Za-z0-9+_=-]{32,}+")
#: Bits per character above which a long mixed-case, digit-bearing run is a secret: random
#: base62 runs of 32+ characters score about 4.6, identifiers and words well below 4.
ENTROPY_BITS = 4.2
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9_]*")
_CREDENTIAL_CHARS = re.compile(r"[0-9_./+=@$%!#-]")


def _entropy(text: str) -> float:
    counts = Counter(text)
    size = len(text)
    return -sum(n / size * math.log2(n / size) for n in counts.values())


def high_entropy(run: str) -> bool:
    """A long run of mixed case and digits with the randomness of a generated key."""
    return (
        len(run) >= 32
        and any(c.isupper() for c in run)
        and any(c.islower() for c in run)
        and any(c.isdigit() for c in run)
        and _entropy(run) >= ENTROPY_BITS
    )


def _token(match: re.Match[str]) -> str:
    return MASK


def _userinfo(match: re.Match[str]) -> str:
    info = match["info"]
    user, sep, password = info.partition(":")
    if sep:
        if is_reference(password) or password == MASK:
            return match[0]
        return f"{match['pre']}{user}:{MASK}@"
    if len(user) >= 20 and any(c.isdigit() for c in user) and not is_reference(user):
        return f"{match['pre']}{MASK}@"
    return match[0]


def redact_tokens(text: str) -> str:
    """``text`` with only the secrets whose value alone gives them away masked: tokens of
    a known shape (``ghp_...``, ``sk-...``, ``xoxb-...``, AWS keys, JWTs...) and passwords in
    URLs. Prose (an agent's prompt) names keys and shows code (``token:
    process.env.SLACK_BOT_TOKEN``, ``"cost_per_token": "$0.00012"``) that the key-name rules
    of :func:`redact_text` would take for secrets."""
    if "://" in text:
        text = _USERINFO.sub(_userinfo, text)
    return _TOKEN.sub(_token, text)


def _query(match: re.Match[str]) -> str:
    name = match["name"].lower()
    if (name in _SECRET_PARAMS or secret_key(name)) and not is_reference(match["value"]):
        return match["pre"] + MASK
    return match[0]


def _arg_pair(match: re.Match[str]) -> str:
    value = match["value"]
    if not secret_key(match["name"]) or value[0] in "-(" or is_reference(value):
        return match[0]
    if value == MASK:
        return match[0]
    # ``--token X`` on one line may be prose ("use --token to pass"): a word is kept, a
    # value that reads as a credential is not.
    prose = match["sep"].strip(" \t") == "" and not match["q"]
    if prose and len(value) < 16 and not _CREDENTIAL_CHARS.search(value):
        return match[0]
    start = match.start("value") - match.start()
    return match[0][:start] + MASK + match[0][start + len(value) :]


def _key_value(match: re.Match[str]) -> str:
    key = match["key"]
    if not secret_key(key):
        return match[0]
    value = match["value"]
    quoted = value[:1] in ("'", '"') and len(value) >= 2
    inner = value[1:-1] if quoted else value
    if ":" in match["sep"] and not quoted and not match["kq"]:
        # A bare ``Key: value``: a YAML line or a header, or prose ("token: the one you
        # got", "Authorization: AGH servers take none"). Mask when the key reads as an
        # environment variable, or the value as a credential rather than a word.
        credential = (
            _SCHEME.match(inner) is not None
            or _CREDENTIAL_CHARS.search(inner) is not None
            or len(inner) >= 16
        )
        if not (credential or _ENV_NAME.fullmatch(key)):
            return match[0]
    masked = mask_value(inner)
    if masked == inner:
        return match[0]
    shown = f"{value[0]}{masked}{value[-1]}" if quoted else masked
    return match[0][: match.start("value") - match.start()] + shown


def _entropy_run(match: re.Match[str]) -> str:
    return MASK if high_entropy(match[0]) else match[0]


#: Literal starts of the token shapes: text holding none of them skips that pattern.
_TOKEN_STARTS = (
    "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "xox", "xapp-", "sk-",
    "sk_", "rk_", "AKIA", "ASIA", "AIza", "npm_", "pypi-", "hf_", "eyJ",
)  # fmt: skip
#: Lower-case words one of which a secret-named key or option holds somewhere; the
#: key-value and argument patterns run only on the lines around one of them.
_KEY_WORDS = (
    "token", "secret", "pass", "password", "passwd", "auth", "credential", "cookie", "pat",
    "bearer", "dsn", "key", "session",
)  # fmt: skip


def _key_regions(text: str) -> list[tuple[int, int]]:
    """Spans of the lines holding a word a secret-named key could be made of."""
    lower = text.lower()
    starts: list[int] = []
    for word in _KEY_WORDS:
        at = lower.find(word)
        while at != -1:
            after = at + len(word)
            # A word ends where a lower-case letter does not follow: "path", "tokens" and
            # "author" are not "pat", "token" and "auth" ("tokenValue", "PAT_X" are).
            # "Authorization" (and "Proxy-Authorization") is its own word: found through
            # "auth", at no extra scan of the text.
            if not text[after : after + 1].islower() or lower.startswith("orization", after):
                starts.append(at)
            at = lower.find(word, after)
    if not starts:
        return []
    regions: list[tuple[int, int]] = []
    for at in sorted(starts):
        if regions and at < regions[-1][1]:
            continue
        begin = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        regions.append((begin, len(text) if end == -1 else end))
    return regions


def _in_regions(text: str, regions: list[tuple[int, int]]) -> str:
    parts: list[str] = []
    done = 0
    for begin, end in regions:
        part = text[begin:end]
        part = _ARG_PAIR.sub(_arg_pair, part)
        part = _KEY_VALUE.sub(_key_value, part)
        parts += [text[done:begin], part]
        done = end
    parts.append(text[done:])
    return "".join(parts)


def _line_rules(text: str) -> str:
    """Every rule whose match stays on one line; never adds or removes a line."""
    if any(map(text.__contains__, _TOKEN_STARTS)):
        text = _TOKEN.sub(_token, text)
    if "://" in text:
        text = _USERINFO.sub(_userinfo, text)
    if "=" in text and ("?" in text or "&" in text):
        text = _QUERY.sub(_query, text)
    regions = _key_regions(text)
    if regions:
        text = _in_regions(text, regions)
    words = text.split()
    if max(map(len, words), default=0) >= 32 and any(
        _HIGH_ENTROPY.search(word) for word in words if len(word) >= 32
    ):
        text = _HIGH_ENTROPY.sub(_entropy_run, text)
    return text


def _next_line_pairs(text: str) -> str:
    """A secret option at the end of a line, its value on the next."""
    parts: list[str] = []
    done = 0
    for found in _OPTION_ENDS_LINE.finditer(text):
        before = text[found.start() - 1 : found.start()]
        if before.isalnum() or before in ("_", "-") or found.start() < done:
            continue  # inside a word ("lumen-data-099"), or within the last pair
        if not secret_key(found["name"]):
            continue
        begin = text.rfind("\n", 0, found.start()) + 1
        end = text.find("\n", found.end() + 1)
        end = len(text) if end == -1 else end
        parts += [text[done:begin], _ARG_PAIR_NEXT.sub(_arg_pair, text[begin:end])]
        done = end
    if not parts:
        return text
    parts.append(text[done:])
    return "".join(parts)


#: Strings up to this long are remembered with their masked form: JSON output repeats the
#: same field values (a loss's detail, a status, a harness name) thousands of times.
_SHORT = 256


def redact_text(text: str) -> str:
    """``text`` with every secret the rules above find masked. Each pattern runs only
    where a cheap substring search says it could match, so clean text stays fast."""
    if len(text) <= _SHORT:
        return _redact_short(text)
    return _redact_long(text)


@functools.lru_cache(maxsize=65536)
def _redact_short(text: str) -> str:
    return _redact(text)


#: Longer texts (up to :data:`_MEMO_LONG` characters) are remembered too, fewer of them:
#: the daemon answers every resolve with the same few prompts, each several KB, which
#: were otherwise split and scanned again on every request (two thirds of its cost).
_MEMO_LONG = 16384


def _redact_long(text: str) -> str:
    return _redact_memo(text) if len(text) <= _MEMO_LONG else _redact(text)


@functools.lru_cache(maxsize=512)
def _redact_memo(text: str) -> str:
    return _redact(text)


#: Texts longer than this are masked as one text of their distinct lines (each pattern
#: scans them once); shorter ones line by line through the memo.
_LARGE = 65536


def _redact(text: str) -> str:
    if "\n" not in text:
        return _line_rules(text)
    # Rendered files and diffs repeat the same lines (structure, shared prompt text)
    # across many agents: each distinct line is masked once.
    lines = text.split("\n")
    distinct = list(dict.fromkeys(lines))
    if len(text) > _LARGE:
        masked = _line_rules("\n".join(distinct)).split("\n")
    else:
        masked = [_redact_short(x) if len(x) <= _SHORT else _line_rules(x) for x in distinct]
    if masked != distinct:
        table = dict(zip(distinct, masked, strict=True))
        text = "\n".join([table[line] for line in lines])
    return _next_line_pairs(text)


def redact_many(texts: list[str]) -> list[str]:
    """:func:`redact_text` of each text, in one pass over the distinct lines of them all:
    the files of a vault share most of their lines (structure, boilerplate)."""
    split = [text.split("\n") for text in texts]
    distinct = list(dict.fromkeys(itertools.chain.from_iterable(split)))
    if not distinct:
        return []
    masked = _line_rules("\n".join(distinct)).split("\n")
    table = {a: b for a, b in zip(distinct, masked, strict=True) if a != b}
    out: list[str] = []
    for text, lines in zip(texts, split, strict=True):
        if table and not table.keys().isdisjoint(lines):
            text = "\n".join([table.get(line, line) for line in lines])
        out.append(_next_line_pairs(text))
    return out


def _clean(data: Any, key: str | None = None) -> bool:
    """True when :func:`redact_data` would return ``data`` unchanged: checked first, since
    building a copy of a large clean document costs more than reading it."""
    kind = type(data)
    if kind is str:
        if key is not None and secret_key(key):
            return bool(mask_value(data) == data)
        return bool(redact_text(data) == data)
    if kind is dict:
        for k, v in data.items():
            value_kind = type(v)
            if value_kind is str:
                if type(k) is str and secret_key(k):
                    if mask_value(v) != v:
                        return False
                elif (_redact_short(v) if len(v) <= _SHORT else _redact_long(v)) != v:
                    return False
            elif value_kind not in _SCALARS and not _clean(v, k if type(k) is str else None):
                return False
        return True
    if kind is list or kind is tuple:
        previous: str | None = None
        for item in data:
            if type(item) is str:
                if previous is not None and not item.startswith("-"):
                    if mask_value(item) != item:
                        return False
                elif (_redact_short(item) if len(item) <= _SHORT else _redact_long(item)) != item:
                    return False
                previous = _option_name(item)
                continue
            if type(item) not in _SCALARS and not _clean(item):
                return False
            previous = None
        return True
    return kind in _SCALARS


def _option_name(item: str) -> str | None:
    if item[:1] == "-" and "=" not in item:
        name = item.lstrip("-")
        return name if name and secret_key(name) else None
    return None


def redact_data(data: Any, *, key: str | None = None) -> Any:
    """JSON-shaped ``data`` with secrets masked: by key name, by value, and in lists the
    value after a secret option (``["--token", "X"]``). Keys are kept, and the input is
    never changed: a copy is returned, or the input itself when nothing in it is masked.
    (Strings are handled inline: a large ``--json`` document has hundreds of thousands.)"""
    if _clean(data, key):
        return data
    return _redacted(data, key)


def _redacted(data: Any, key: str | None) -> Any:
    kind = type(data)
    if kind is str:
        return mask_value(data) if key is not None and secret_key(key) else redact_text(data)
    if kind is dict or (kind is not list and kind is not tuple and isinstance(data, Mapping)):
        out: dict[Any, Any] = {}
        for k, v in data.items():
            value_kind = type(v)
            if value_kind is str:
                if type(k) is str and secret_key(k):
                    out[k] = mask_value(v)
                else:
                    out[k] = _redact_short(v) if len(v) <= _SHORT else _redact_long(v)
            elif value_kind in _SCALARS:
                out[k] = v
            else:
                out[k] = _redacted(v, k if type(k) is str else None)
        return out
    if kind is list or kind is tuple:
        items: list[Any] = []
        previous: str | None = None
        for item in data:
            item_kind = type(item)
            if item_kind is str:
                if previous is not None and not item.startswith("-"):
                    items.append(mask_value(item))
                else:
                    items.append(_redact_short(item) if len(item) <= _SHORT else _redact_long(item))
                previous = _option_name(item)
                continue
            items.append(item if item_kind in _SCALARS else _redacted(item, None))
            previous = None
        return items
    return data


#: Values with nothing to mask.
_SCALARS = frozenset({int, float, bool, type(None)})


def redact(value: T) -> T:
    """The one redaction function: text, or JSON-shaped data, with every secret masked."""
    if isinstance(value, str):
        return redact_text(value)  # type: ignore[return-value]
    result: T = redact_data(value)
    return result


def redact_value(key: str, value: str) -> str:
    """``value`` as shown under ``key`` (an env variable or a header): masked when the key
    names a secret or the value holds one."""
    return mask_value(value) if secret_key(key) else redact_text(value)


def redact_mapping(values: Mapping[str, str]) -> dict[str, str]:
    """An env or headers mapping, masked (the registry's display form)."""
    result: dict[str, str] = redact_data(dict(values))
    return result


def server_dict(server: McpServer) -> dict[str, Any]:
    """A registry entry as JSON output, every secret in it masked."""
    result: dict[str, Any] = redact_data(server.to_json_dict())
    return result

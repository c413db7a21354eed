"""LLM endpoint settings: one frozen pydantic model, read from the environment.

``OPENAI_BASE_URL``, ``OPENAI_API_KEY`` and ``PARLEY_MODEL`` fill ``base_url``,
``api_key`` and ``model`` when they are not given. The key is a ``SecretStr``
and never leaves this object except to build the HTTP client: ``public_dict()``
(what saves and transcripts record) leaves it out.
"""

from __future__ import annotations

import ipaddress
import os
import re
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator, model_validator

from agents.llm.local import is_local_spec, model_name
from game.core.errors import InputError
from game.core.text import is_clean, shown

DEFAULT_MODEL = "gpt-4o-mini"
LOCAL_KEY = "not-needed"  # the SDK insists on a key; local servers ignore it

_ENV = {"base_url": "OPENAI_BASE_URL", "api_key": "OPENAI_API_KEY", "model": "PARLEY_MODEL"}


def is_local_url(url: str | None) -> bool:
    """Whether ``url`` points at this machine or a private network (no key needed); the bundled
    model (``local`` or ``local:PATH.gguf``, see ``agents.llm.local``) is local."""
    if not url:
        return False
    if is_local_spec(url):
        return True
    try:
        host = (urlsplit(url).hostname or "").lower()
    except ValueError:  # malformed: the validator says so; it is not local
        return False
    if host in ("localhost", "host.docker.internal") or host.endswith((".local", ".localhost")):
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False
    return ip.is_loopback or ip.is_private or ip.is_unspecified or ip.is_link_local


_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:/+")


def redact_url(url: str | None) -> str | None:
    """``url`` fit to print or save: everything before the last ``@`` (a ``user:password``,
    even one holding ``/``, ``?`` or ``#``) and any query string, fragment or ``;`` parameters
    replaced by ``***``; control characters escaped. Works on the text alone and errs towards
    hiding too much, so a malformed URL never raises here and never shows a secret."""
    if not url:
        return url
    s = str(url)
    m = _SCHEME.match(s)
    head, rest = (s[: m.end()], s[m.end() :]) if m else ("", s.lstrip("/"))
    if not m:
        head = s[: len(s) - len(rest)]
    if "@" in rest:
        rest = "***@" + rest.rsplit("@", 1)[1]
    cut = min((i for i in (rest.find(c) for c in "?#;") if i >= 0), default=-1)
    if cut >= 0:
        rest = rest[: cut + 1] + "***"
    return shown(head + rest)


def check_base_url(url: str) -> str:
    """A usable endpoint base URL (or ``local`` / ``local:PATH.gguf``), or ValueError saying what is
    wrong (never echoing secrets)."""
    if is_local_spec(url.strip()):
        return url.strip()
    v = url.strip().rstrip("/")
    if not is_clean(v) or any(c.isspace() for c in v):
        raise ValueError(f"contains spaces or control characters: {redact_url(v)!r}")
    try:
        parts = urlsplit(v)
        host, _port = parts.hostname, parts.port
    except ValueError:
        raise ValueError(f"not a valid URL (malformed host or port): {redact_url(v)!r}") from None
    if parts.scheme not in ("http", "https") or not host:
        raise ValueError(f"must look like http://host:port/v1, got {redact_url(v)!r}")
    if "@" in v and "@" not in parts.netloc:
        raise ValueError(f"has an '@' outside user:password@host, got {redact_url(v)!r}")
    if "?" in v or "#" in v or ";" in v:
        raise ValueError(
            f"must not have a query string, fragment or ';' parameters, got {redact_url(v)!r}; "
            "put the key in OPENAI_API_KEY, never in the URL"
        )
    return v


class LLMConfig(BaseModel):
    """Where the model lives and how patiently to talk to it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    base_url: str | None = None
    api_key: SecretStr | None = None
    model: str = DEFAULT_MODEL
    timeout: float = Field(30.0, gt=0, le=3600, description="seconds per HTTP request")
    max_retries: int = Field(4, ge=0, le=50, description="retries after the first attempt")
    backoff_base: float = Field(0.5, ge=0)
    backoff_max: float = Field(20.0, ge=0)
    retry_after_max: float = Field(30.0, ge=0, description="cap on a server's Retry-After, seconds")
    concurrency: int = Field(4, ge=1, le=1024, description="simultaneous HTTP calls per client")
    temperature: float = Field(0.7, ge=0, le=2)
    max_tokens: int | None = Field(512, ge=1)
    seed: int | None = None
    frequency_penalty: float | None = Field(
        None, ge=-2, le=2, description="penalise repeated tokens (None: the server's default; local: 0.5)"
    )
    cache_dir: str | None = None
    structured: Literal["auto", "json_schema", "json_object", "prompt"] = Field(
        "auto",
        description="how replies are constrained: auto (json_schema, stepping down to what the endpoint "
        "takes), one form, or prompt (the schema in words only: the reply reader and repairs do the rest)",
    )
    max_repairs: int = Field(2, ge=0, le=20)

    @model_validator(mode="before")
    @classmethod
    def _fill_from_env(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        data = dict(data)
        for name, var in _ENV.items():
            if name not in data:
                value = os.environ.get(var, "").strip()
                if value:
                    data[name] = value
        if data.get("api_key") in (None, "") and is_local_url(data.get("base_url")):
            data["api_key"] = LOCAL_KEY
        base = data.get("base_url")
        if isinstance(base, str) and is_local_spec(base.strip()):
            # the bundled model: its own name, and deterministic unless told otherwise
            data.setdefault("model", model_name(base.strip()))
            data.setdefault("temperature", 0.0)
            data.setdefault("seed", 0)
            data.setdefault("frequency_penalty", 0.5)  # a small model at temperature 0 loops without it
        return data

    @field_validator("base_url")
    @classmethod
    def _check_url(cls, v: str | None) -> str | None:
        return None if v is None else check_base_url(v)

    @field_validator("model")
    @classmethod
    def _check_model(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("model must not be empty (set PARLEY_MODEL or pass --model)")
        if not is_clean(v) or len(v) > 200 or "\n" in v or "\t" in v:
            raise ValueError(f"model name has control characters or is over 200 characters: {shown(v[:200])!r}")
        return v.strip()

    @model_validator(mode="after")
    def _check_backoff(self) -> LLMConfig:
        if self.backoff_max < self.backoff_base:
            raise ValueError(f"backoff_max ({self.backoff_max}) must be >= backoff_base ({self.backoff_base})")
        return self

    @classmethod
    def from_env(cls, **overrides: Any) -> LLMConfig:
        """Settings from the environment; ``overrides`` win, ``None`` ones are ignored.

        Bad values raise ``InputError`` (exit code 2) naming each field.
        """
        given = {k: v for k, v in overrides.items() if v is not None}
        try:
            return cls(**given)
        except ValidationError as exc:
            lines = []
            for err in exc.errors():
                where = ".".join(str(p) for p in err["loc"]) or "llm"
                value = "***" if where == "api_key" else err.get("input")
                msg = str(err["msg"]).removeprefix("Value error, ")
                if where == "base_url":  # its own messages show the URL, redacted
                    got = ""
                else:
                    got = "" if isinstance(value, dict) else f" (got {shown(repr(value))})"
                lines.append(f"{where}: {msg}{got}")
            raise InputError(
                "invalid LLM settings: " + "; ".join(lines),
                hint="see --llm / OPENAI_BASE_URL, OPENAI_API_KEY, PARLEY_MODEL",
            ) from None

    @property
    def is_local(self) -> bool:
        return is_local_url(self.base_url)

    @property
    def bundled(self) -> bool:
        """Whether this names the local model ``agents.llm.local`` serves (``local[:PATH]``)."""
        return is_local_spec(self.base_url)

    def public_dict(self) -> dict[str, Any]:
        """Everything but the key (for saves and transcripts)."""
        data = self.model_dump(exclude={"api_key"})
        data["base_url"] = redact_url(self.base_url)
        return data

    def __repr__(self) -> str:
        return f"LLMConfig(base_url={redact_url(self.base_url)!r}, model={self.model!r})"

    __str__ = __repr__

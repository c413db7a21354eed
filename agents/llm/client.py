"""The LLM client: the ``openai`` SDK plus retries, a concurrency cap, a cache,
structured (JSON) replies with repair, and usage accounting per agent and turn.

The SDK is imported when the first request is made, never at import time. Its
own retries are off (``max_retries=0``): ``tenacity`` retries 429s (honouring
``Retry-After``, capped), 5xx, timeouts and connection errors with exponential
backoff and jitter from a seeded ``numpy`` generator (the SDK's own jitter is
unseeded and its sleep cannot be replaced), and everything else becomes a
``ParleyError`` that says what to check. The API key never appears in a repr,
a message, a log line or a cache file.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from collections.abc import Callable
from email.utils import parsedate_to_datetime
from typing import Any, TypeVar

from pydantic import BaseModel

from agents.llm.cache import ResponseCache, cache_key
from agents.llm.config import LOCAL_KEY, LLMConfig, redact_url
from agents.llm.errors import LLMError, LLMInvalidReply, LLMUnavailable, _FormatUnsupported
from agents.llm.replies import _count, _reply_text, _status_message, describe_error, extract_json_object
from agents.llm.usage import Reply, Usage
from game.core import seeds
from game.core.extras import require
from game.core.text import clean

# the errors, the reply and usage records and the JSON reader live in their own modules;
# they are importable from here too
__all__ = [
    "LLMClient",
    "LLMError",
    "LLMInvalidReply",
    "LLMUnavailable",
    "Message",
    "Reply",
    "Usage",
    "describe_error",
    "extract_json_object",
]

log = logging.getLogger("parley.llm")

M = TypeVar("M", bound=BaseModel)
Message = dict[str, Any]

OPENAI_URL = "https://api.openai.com/v1"
_FORMAT_WORDS = ("response_format", "response format", "json_schema", "json schema", "json_object")
_NEXT_MODE = {"json_schema": "json_object", "json_object": "prompt"}


# -- helpers -----------------------------------------------------------------

_sdk_module: Any = None


def _openai() -> Any:
    global _sdk_module
    if _sdk_module is None:
        _require_sdk()
        import openai

        _sdk_module = openai
    return _sdk_module


def _require_sdk() -> None:
    """Without the openai package (a core install): ``game.core.extras.ExtraMissing`` naming the 'llm' extra."""
    require("llm", "LLM agents (--llm)")


CHARS_PER_TOKEN = 32  # far more than any tokenizer's longest token in practice
MIN_REPLY_CHARS = 16_384


def _estimate_tokens(text: str) -> int:
    """A rough count (4 characters a token) for servers that report no usage."""
    return (len(text) + 3) // 4


def _content_text(messages: list[Message]) -> str:
    return "".join(str(m.get("content") or "") for m in messages)


def _schema_name(model: type[BaseModel]) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", model.__name__)[:64] or "reply"


# -- the client --------------------------------------------------------------


class LLMClient:
    """Talks to one OpenAI-compatible endpoint and model; safe to share between threads."""

    def __init__(
        self, config: LLMConfig | None = None, *, rng: Any = None, sleep: Callable[[float], None] = time.sleep
    ):
        if _sdk_module is None:  # said when the client is made, not at its first request mid-game
            _require_sdk()
        self.config = cfg = config if config is not None else LLMConfig.from_env()
        if cfg.bundled:  # --llm local: a missing model or server is said now (exit 2), not mid-game
            from agents.llm.local import model_path, require_server

            model_path(cfg.base_url or "local")
            require_server()
        if rng is None:
            rng = seeds.rng(cfg.seed if cfg.seed is not None else 0, "llm", "client")
        self._rng = rng
        self._sleep = sleep
        self._sem = threading.BoundedSemaphore(cfg.concurrency)
        self._lock = threading.Lock()
        self._sdk_client: Any = None
        self._cache = ResponseCache(cfg.cache_dir) if cfg.cache_dir else None
        self._secret = cfg.api_key.get_secret_value() if cfg.api_key is not None else None
        self._where = f"{redact_url(cfg.base_url) or OPENAI_URL} (model {cfg.model!r})"
        self._params = {
            k: v
            for k, v in (
                ("temperature", cfg.temperature),
                ("max_tokens", cfg.max_tokens),
                ("seed", cfg.seed),
                ("frequency_penalty", cfg.frequency_penalty),
            )
            if v is not None
        }
        self._mode = "json_schema" if cfg.structured == "auto" else cfg.structured
        self._total = Usage()
        self._by_agent: dict[str, Usage] = {}
        self._by_turn: dict[int, Usage] = {}
        # set when the endpoint failed for good (unreachable after retries, or refused: 401, 404):
        # later calls fail at once (no more retries),
        # so a game can finish its turn with scripted fallbacks, then autosave and stop
        self.outage: LLMError | None = None

    def __repr__(self) -> str:
        return f"LLMClient(base_url={redact_url(self.config.base_url) or OPENAI_URL!r}, model={self.config.model!r})"

    __str__ = __repr__

    def __enter__(self) -> LLMClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        client, self._sdk_client = self._sdk_client, None
        if client is not None:
            client.close()

    # -- accounting ------------------------------------------------------------

    def usage_by_agent(self) -> dict[str, Usage]:
        with self._lock:
            return {k: v.copy() for k, v in self._by_agent.items()}

    def usage_by_turn(self) -> dict[int, Usage]:
        with self._lock:
            return {k: v.copy() for k, v in sorted(self._by_turn.items())}

    def total(self) -> Usage:
        with self._lock:
            return self._total.copy()

    def _record(self, agent: str, turn: int | None, delta: Usage) -> None:
        with self._lock:
            self._total.add(delta)
            per = self._by_agent.get(agent)
            if per is None:
                per = self._by_agent[agent] = Usage()
            per.add(delta)
            if turn is not None:
                per = self._by_turn.get(turn)
                if per is None:
                    per = self._by_turn[turn] = Usage()
                per.add(delta)

    # -- plumbing ----------------------------------------------------------------

    def _sdk(self) -> Any:
        client = self._sdk_client
        if client is None:
            with self._lock:
                if self._sdk_client is None:
                    if self._secret is None:
                        raise LLMError(
                            f"no API key for {self._where}",
                            hint="set OPENAI_API_KEY, or point --llm / OPENAI_BASE_URL at a local server",
                        )
                    cfg = self.config
                    from agents.llm.transport import bounded_client

                    url = cfg.base_url or OPENAI_URL
                    if cfg.bundled:  # the local model: its server starts now (or is shared)
                        from agents.llm.local import shared_url

                        url = shared_url(url)
                    http = bounded_client(cfg.timeout)
                    self._sdk_client = _openai().OpenAI(
                        base_url=url, api_key=self._secret, http_client=http, timeout=cfg.timeout, max_retries=0
                    )
                client = self._sdk_client
        return client

    def _within_tokens(self, text: str) -> str:
        """``text`` cut to what ``max_tokens`` allows (``CHARS_PER_TOKEN`` characters a token, at
        least ``MIN_REPLY_CHARS``): a server that ignores the limit cannot hand every later step
        (cleaning, parsing, memory, the transcript) megabytes of one string."""
        most = max(MIN_REPLY_CHARS, (self.config.max_tokens or 0) * CHARS_PER_TOKEN)
        return text if len(text) <= most else text[:most]

    def _scrub(self, text: str) -> str:
        secret = self._secret
        if secret and secret != LOCAL_KEY and len(secret) >= 4 and secret in text:
            text = text.replace(secret, "***")
        return text if len(text) <= 400 else text[:400] + "…"

    def _backoff(self, attempt: int) -> float:
        cfg = self.config
        with self._lock:
            jitter = 0.5 + float(self._rng.random())
        return min(cfg.backoff_max, cfg.backoff_base * (2**attempt) * jitter)

    def _retry_after(self, exc: Any) -> float | None:
        headers = getattr(getattr(exc, "response", None), "headers", None)
        if headers is None:
            return None
        wait: float | None = None
        ms = headers.get("retry-after-ms")
        value = headers.get("retry-after")
        try:
            if ms is not None:
                wait = float(ms) / 1000.0
            elif value is not None:
                try:
                    wait = float(value)
                except ValueError:
                    wait = parsedate_to_datetime(value).timestamp() - time.time()
        except (TypeError, ValueError, OverflowError):
            return None
        if wait is None:
            return None
        return min(max(wait, 0.0), self.config.retry_after_max)

    def _refusal(self, exc: Any, kw: dict[str, Any], fallback: bool) -> LLMError:
        """The error for a non-retryable HTTP status."""
        status = exc.status_code
        msg = self._scrub(_status_message(exc))
        where = self._where
        if status in (400, 422) and "response_format" in kw and any(w in msg.lower() for w in _FORMAT_WORDS):
            cls = _FormatUnsupported if fallback else LLMError
            return cls(
                f"{where} does not support response_format "
                f"{kw['response_format'].get('type')!r} (HTTP {status}): {msg}",
                hint="use structured='json_object' or leave it on 'auto'",
            )
        if status == 401:
            return LLMError(
                f"{where} rejected the API key (HTTP 401): {msg}",
                hint="check OPENAI_API_KEY (local servers usually need none)",
            )
        if status == 403:
            return LLMError(
                f"{where} refused access (HTTP 403): {msg}", hint="check that OPENAI_API_KEY may use this model"
            )
        if status == 404:
            return LLMError(
                f"{where} not found (HTTP 404): {msg}",
                hint="check the model name / PARLEY_MODEL, and that the URL ends in /v1",
            )
        return LLMError(
            f"{where} rejected the request (HTTP {status}): {msg}",
            hint="check the request parameters (temperature, max_tokens, response_format)",
        )

    def _send(self, messages: list[Message], kw: dict[str, Any], agent: str, turn: int | None, fallback: bool) -> Any:
        """One completion, retried by ``tenacity`` on 429 (after its ``Retry-After``), 408, 409, 5xx,
        timeouts, connection errors and bodies that do not read; any other status is refused at
        once. Each retry is counted in the usage of ``agent`` and ``turn``."""
        import tenacity

        oa = _openai()
        create = self._sdk().chat.completions.create
        cfg = self.config

        def attempt() -> Any:
            try:
                with self._sem:
                    return create(model=cfg.model, messages=messages, **kw)
            except oa.APIStatusError as exc:
                if exc.status_code < 500 and exc.status_code not in (408, 409, 429):
                    raise self._refusal(exc, kw, fallback) from None
                raise

        def wait(state: tenacity.RetryCallState) -> float:
            exc = state.outcome.exception()  # type: ignore[union-attr]
            after = self._retry_after(exc) if getattr(exc, "status_code", None) == 429 else None
            return self._backoff(state.attempt_number - 1) if after is None else after

        def before_sleep(state: tenacity.RetryCallState) -> None:
            log.debug(
                "%s: %s; retry %d in %.3fs",
                self._where,
                self._failure(state.outcome.exception()),
                state.attempt_number,
                state.next_action.sleep,
            )  # type: ignore[union-attr]
            self._record(agent, turn, Usage(retries=1))

        transient = (
            oa.APIStatusError,
            oa.APIConnectionError,
            oa.APIResponseValidationError,
            ValueError,
            RecursionError,
        )
        try:
            return tenacity.Retrying(
                retry=tenacity.retry_if_exception_type(transient),
                stop=tenacity.stop_after_attempt(cfg.max_retries + 1),
                wait=wait,
                sleep=self._sleep,
                before_sleep=before_sleep,
            )(attempt)
        except tenacity.RetryError as gave_up:
            exc = gave_up.last_attempt.exception()
            last = self._failure(exc)
        hint = "is the server running? check --llm URL / OPENAI_BASE_URL" + (
            "" if "HTTP" not in last else " and the server's log"
        )
        if isinstance(exc, oa.APITimeoutError) or "larger than" in last or "decompresses" in last:
            hint = "the server answered too slowly or too much; check it, or raise --llm-timeout if it is just slow"
        raise LLMUnavailable(
            f"{self._where} failed after {cfg.max_retries + 1} attempt(s); last error: {last}", hint=hint
        )

    def _failure(self, exc: BaseException | None) -> str:
        """What went wrong in one attempt, for the log and the final error."""
        from agents.llm.transport import breach_text

        oa = _openai()
        if isinstance(exc, oa.APIStatusError):
            return f"HTTP {exc.status_code}: {self._scrub(_status_message(exc))}"
        breach = breach_text(exc)  # a bound of the transport: the whole-request deadline, a size cap
        if breach is not None:
            return breach
        if isinstance(exc, oa.APITimeoutError):
            return f"no reply within {self.config.timeout:g}s (timeout)"
        if isinstance(exc, oa.APIConnectionError):
            cause = exc.__cause__ or exc.__context__
            return "connection failed" + (f": {self._scrub(str(cause))}" if cause and str(cause) else "")
        return "the response was not an OpenAI-style JSON body"  # bad JSON, huge numbers, deep nesting

    # -- public calls --------------------------------------------------------------

    def chat(
        self,
        messages: list[Message],
        *,
        agent: str = "?",
        turn: int | None = None,
        response_format: dict[str, Any] | None = None,
        **params: Any,
    ) -> Reply:
        """One chat completion. ``params`` override the config's temperature, max_tokens, seed."""
        return self._chat(messages, agent, turn, response_format, params, False)

    def _chat(
        self,
        messages: list[Message],
        agent: str,
        turn: int | None,
        response_format: dict[str, Any] | None,
        params: dict[str, Any],
        fallback: bool,
    ) -> Reply:
        t0 = time.perf_counter()
        kw = self._params
        if params or response_format is not None:
            kw = {**kw, **params}
            if response_format is not None:
                kw["response_format"] = response_format
            kw = {k: v for k, v in kw.items() if v is not None}
        key = None
        if self._cache is not None:
            key = cache_key(self.config.model, messages, kw)
            hit = self._cache.get(key)
            if hit is not None and isinstance(hit.get("text"), str):
                ms = (time.perf_counter() - t0) * 1000.0
                self._record(agent, turn, Usage(calls=1, cache_hits=1, latency_ms=ms))
                return Reply(
                    clean(self._within_tokens(hit["text"])),
                    _count(hit.get("prompt_tokens")),
                    _count(hit.get("completion_tokens")),
                    ms,
                    cached=True,
                )
        if self.outage is not None:
            raise self.outage
        try:
            resp = self._send(messages, kw, agent, turn, fallback)
        except LLMError as exc:
            self._record(agent, turn, Usage(latency_ms=(time.perf_counter() - t0) * 1000.0))
            if not isinstance(exc, _FormatUnsupported):  # the endpoint failed for good (down, 401, 404, ...)
                self.outage = exc
            raise
        text = clean(self._within_tokens(_reply_text(resp)))
        usage = getattr(resp, "usage", None)
        if usage is not None and _count(getattr(usage, "prompt_tokens", None), None) is not None:
            pt, ct = _count(usage.prompt_tokens), _count(getattr(usage, "completion_tokens", None))
        else:
            pt, ct = _estimate_tokens(_content_text(messages)), _estimate_tokens(text)
        details = getattr(usage, "prompt_tokens_details", None)
        reused = min(pt, _count(getattr(details, "cached_tokens", None)))
        ms = (time.perf_counter() - t0) * 1000.0
        self._record(
            agent, turn, Usage(calls=1, prompt_tokens=pt, completion_tokens=ct, latency_ms=ms, prompt_cached=reused)
        )
        if key is not None:
            try:
                self._cache.put(
                    key,
                    {
                        "text": text,
                        "prompt_tokens": pt,  # type: ignore[union-attr]
                        "completion_tokens": ct,
                        "model": self.config.model,
                    },
                )
            except OSError as exc:  # a full or read-only disk costs the cache, not the game
                log.warning("LLM cache write failed: %s", exc)
        return Reply(text, pt, ct, ms, cached=False)

    def structured(
        self,
        messages: list[Message],
        schema_model: type[M],
        *,
        agent: str = "?",
        turn: int | None = None,
        validate: Callable[[M], Any] | None = None,
        max_repairs: int | None = None,
        params: dict[str, Any] | None = None,
        schema: dict[str, Any] | None = None,
    ) -> M:
        """Ask for one JSON object matching ``schema_model``; repair bad replies.

        ``schema``: the JSON Schema to send instead of ``schema_model``'s, narrowed to what is legal
        now (the commands open to a player, the values of each issue, a stance's range); a server
        that constrains its output to the schema (OpenAI's ``json_schema``, llama.cpp's
        ``json_object`` with a ``schema``) can then only write a legal reply. The reply is still
        validated against ``schema_model`` and ``validate``, for servers that ignore schemas.
        ``validate(obj)`` may raise ``ValueError`` for a reply that fits the
        schema but breaks the rules; its message goes back to the model. If it
        returns an instance of ``schema_model``, that replaces the reply.
        After ``max_repairs`` failed repairs: ``LLMInvalidReply``.
        """
        repairs = self.config.max_repairs if max_repairs is None else max(0, int(max_repairs))
        schema = schema_model.model_json_schema() if schema is None else schema
        convo = [dict(m) for m in messages]
        raw, error = "", ""
        for attempt in range(repairs + 1):
            while True:
                mode = self._mode
                try:
                    reply = self._chat(
                        self._with_format(convo, mode, schema),
                        agent,
                        turn,
                        self._response_format(mode, schema_model, schema),
                        params or {},
                        self.config.structured == "auto" and mode in _NEXT_MODE,
                    )
                    break
                except _FormatUnsupported as exc:
                    log.info("%s; falling back to %s", exc.message, _NEXT_MODE[mode])
                    with self._lock:
                        if self._mode == mode:
                            self._mode = _NEXT_MODE[mode]
            raw = reply.text
            try:
                obj = schema_model.model_validate(extract_json_object(raw))
                if validate is not None:
                    checked = validate(obj)
                    if isinstance(checked, schema_model):
                        obj = checked
                return obj
            except ValueError as exc:  # pydantic's ValidationError is a ValueError
                error = describe_error(exc)
            self._record(agent, turn, Usage(invalid=1))
            if attempt < repairs:
                convo.append({"role": "assistant", "content": raw})
                convo.append(
                    {
                        "role": "user",
                        "content": f"Your reply was invalid: {error.rstrip('.')}. "
                        "Reply with one JSON object matching the schema.",
                    }
                )
        raise LLMInvalidReply(
            f"{agent}: no valid {schema_model.__name__} from {self._where} after "
            f"{repairs + 1} replies; last error: {error}",
            raw=raw,
            error=error,
            hint="try a stronger model, or raise max_repairs",
        )

    # -- structured-output formats -------------------------------------------------

    @staticmethod
    def _response_format(mode: str, schema_model: type[BaseModel], schema: dict[str, Any]) -> dict[str, Any] | None:
        if mode == "json_schema":
            return {
                "type": "json_schema",
                "json_schema": {"name": _schema_name(schema_model), "schema": schema, "strict": False},
            }
        if mode == "json_object":  # llama.cpp's form: the schema constrains the output; others ignore it
            return {"type": "json_object", "schema": schema}
        return None

    @staticmethod
    def _with_format(convo: list[Message], mode: str, schema: dict[str, Any]) -> list[Message]:
        """Without json_schema support, the schema is written at the end of the last user message
        (after everything that stays the same from turn to turn, so a server's prompt cache still
        reuses the system prompt when the schema changes)."""
        if mode == "json_schema":
            return convo
        note = "Reply with one JSON object, and nothing else, matching this JSON Schema:\n" + json.dumps(
            schema, separators=(",", ":"), sort_keys=True
        )
        if convo and convo[-1].get("role") == "user":
            last = dict(convo[-1])
            last["content"] = f"{last.get('content') or ''}\n\n{note}".lstrip()
            return [*convo[:-1], last]
        return [*convo, {"role": "user", "content": note}]

    @property
    def reply_format(self) -> str:
        """How structured replies are asked for at this endpoint now: ``json_schema`` (OpenAI's
        form), ``json_object`` (llama.cpp's, with the schema) or ``prompt`` (the schema in words
        only; the reply reader and repairs do the rest). ``auto`` starts at ``json_schema`` and
        steps down when the endpoint refuses a form."""
        return self._mode

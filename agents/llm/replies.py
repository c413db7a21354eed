"""Reading what an OpenAI-compatible endpoint sent back: the assistant's text in a
completion, token counts, the JSON object in a reply (bare, fenced or amid prose), and short
accounts of why a reply or a request failed."""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import ValidationError

from game.core.text import clean


def _reply_text(resp: Any) -> str:
    """The assistant's text in a completion, whatever shape a server gave it: ``""`` when there
    is none; a list of content parts is joined; anything else that is not text is ignored."""
    choices = getattr(resp, "choices", None)
    if not isinstance(choices, list) or not choices:
        return ""
    message = getattr(choices[0], "message", None)
    if message is None and isinstance(choices[0], dict):
        message = choices[0].get("message")
    content = message.get("content") if isinstance(message, dict) else getattr(message, "content", None)
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") if isinstance(p, dict) else getattr(p, "text", None) for p in content]
        return "".join(p for p in parts if isinstance(p, str))
    return ""


def _count(value: Any, default: Any = 0) -> Any:
    """A token count from a server or a cache file: a whole number in [0, 10**9], else ``default``
    (a reply's or a cache file's odd numbers are untrusted input, never a crash)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        return default
    return int(value) if 0 <= value <= 10**9 else default


def extract_json_object(text: str | None) -> dict[str, Any]:
    """The first JSON object in ``text``: bare, inside ```json fences, or amid prose. Its
    strings are cleaned (``game.core.text.clean``): an escaped control or bidi character in a
    reply never reaches the game."""
    try:
        return _cleaned(_first_json_object(text))
    except RecursionError:
        raise ValueError("the JSON is nested too deeply") from None


def _cleaned(obj: Any) -> Any:
    if isinstance(obj, str):
        return clean(obj)
    if isinstance(obj, dict):
        return {clean(str(k)): _cleaned(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_cleaned(v) for v in obj]
    return obj


def _first_json_object(text: str | None) -> dict[str, Any]:
    s = (text or "").strip()
    if not s:
        raise ValueError("the reply was empty")
    try:
        obj = json.loads(s)
    except ValueError:
        pass
    else:
        if isinstance(obj, dict):
            return obj
        raise ValueError(f"expected one JSON object, got a JSON {type(obj).__name__}")
    fence = re.search(r"```[A-Za-z]*\s*(.*?)```", s, re.S)
    if fence:
        try:
            obj = json.loads(fence.group(1))
            if isinstance(obj, dict):
                return obj
        except ValueError:
            pass
    decoder = json.JSONDecoder()
    for m in re.finditer(r"\{", s):
        try:
            obj, _ = decoder.raw_decode(s, m.start())
        except ValueError:
            continue
        if isinstance(obj, dict):
            return obj
    raise ValueError("no JSON object found in the reply")


def describe_error(exc: Exception) -> str:
    """A short, model-readable account of a parse / validation failure."""
    if isinstance(exc, ValidationError):
        parts = []
        for err in exc.errors()[:6]:
            loc = ".".join(str(p) for p in err["loc"]) or "(root)"
            parts.append(f"{loc}: {err['msg']}")
        more = len(exc.errors()) - 6
        if more > 0:
            parts.append(f"and {more} more")
        return "; ".join(parts)
    return str(exc) or type(exc).__name__


def _status_message(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error") if isinstance(body.get("error"), dict) else body
        msg = inner.get("message") if isinstance(inner, dict) else None
        if msg:
            return str(msg)
    return str(getattr(exc, "message", None) or exc)

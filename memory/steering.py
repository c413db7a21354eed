"""Residual steering: nudge a local causal LM's hidden states by what Σ-Mem knows about a peer.

An optional extra for local Hugging Face-style causal language models (anything
built from a ``torch.nn.ModuleList`` of transformer blocks). For a peer ``p`` and
a topic, the steering vector is

    ``δ_p = g · P · M_p φ``  ∈ R^d_model

where ``M_p`` is the peer's Σ-Mem matrix (r × r), ``φ = φ(topic)`` the topic's
unit vector (R^r), ``P`` a fixed projection R^r → R^d_model and ``g`` a gain.
``P`` is a seeded Gaussian matrix whose columns are scaled to unit length, so it
is deterministic for a seed and (for ``d_model ≫ r``) close to an isometry:
``‖δ‖ ≈ g ‖M_p φ‖``, and ``‖M_p φ‖ ≤ 1`` with Σ-Mem's default learning rate. A
trusted peer (positive score) and a liar (negative score) on the same topic get
roughly opposite vectors; a peer never judged gets ``δ = 0``.

:class:`ResidualSteerer` adds ``δ`` to the hidden-state output of the upper half
of the model's blocks (forward hooks), only inside :meth:`ResidualSteerer.steer`::

    steerer = ResidualSteerer(model)                       # hooks blocks n//2 .. n-1
    delta = steering_vector(sigma, "ann", "harbor prices", steerer.d_model, gain=4.0)
    with steerer.steer(delta):
        logits = model(input_ids).logits
    steerer.remove()

The gain is in the units of the model's residual stream, whose typical norm
differs a lot between models; pick it relative to that norm.

Importing this module does not import torch; torch is imported when a steerer
is built or a vector is converted for a hook.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from game.core import seeds
from game.core.errors import InputError

if TYPE_CHECKING:  # pragma: no cover - typing only
    import torch

    from memory.sigma import SigmaMem

__all__ = ["projection_matrix", "steering_vector", "find_blocks", "model_width", "ResidualSteerer"]

# Attribute paths of the block list in common model families, tried before the generic search.
_KNOWN_BLOCK_PATHS = (
    "transformer.h",  # GPT-2, GPT-J, Bloom, Falcon
    "model.layers",  # Llama, Mistral, Qwen, Gemma, Phi
    "model.decoder.layers",  # OPT, BART-style decoders
    "gpt_neox.layers",  # GPT-NeoX, Pythia
    "transformer.blocks",  # MPT
    "transformer.layers",
    "layers",
    "h",
    "blocks",
)
_WIDTH_ATTRS = ("hidden_size", "n_embd", "d_model", "dim", "embed_dim")


# --------------------------------------------------------------------------- the vector


@lru_cache(maxsize=32)
def _projection(r: int, d_model: int, seed: int) -> np.ndarray:
    rng = seeds.rng(seed, "steering", "projection")
    P = rng.standard_normal((d_model, r))
    P /= np.linalg.norm(P, axis=0, keepdims=True)
    P.setflags(write=False)
    return P


def _check_int(name: str, value: Any, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise InputError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def projection_matrix(r: int, d_model: int, seed: int = 0) -> np.ndarray:
    """The fixed projection ``P`` (``d_model × r``): seeded standard Gaussian, each column scaled to unit norm.

    Deterministic for ``(r, d_model, seed)``; returns a fresh writable copy.
    """
    r = _check_int("r", r, 1)
    d_model = _check_int("d_model", d_model, 1)
    seed = _check_int("seed", seed, 0)
    return _projection(r, d_model, seed).copy()


def steering_vector(
    sigma: SigmaMem, peer: str, topic: str, d_model: int, gain: float = 1.0, seed: int = 0
) -> np.ndarray:
    """``δ = gain · P · M_peer φ(topic)`` as a float64 array of shape ``(d_model,)``.

    ``P`` is :func:`projection_matrix` ``(sigma.r, d_model, seed)``. A peer Σ-Mem
    has never judged (or whose evidence on the topic is orthogonal) gives zeros.
    Linear in ``gain`` and in ``M_peer``; Σ-Mem is only read.
    """
    d_model = _check_int("d_model", d_model, 1)
    seed = _check_int("seed", seed, 0)
    try:
        g = float(gain)
    except (TypeError, ValueError):
        raise InputError(f"gain must be a number, got {gain!r}") from None
    if not math.isfinite(g):
        raise InputError(f"gain must be finite, got {gain!r}")
    if not isinstance(peer, str) or not peer:
        raise InputError(f"peer ids must be non-empty strings, got {peer!r}")
    phi = sigma.phi(topic)
    v = sigma.M(peer) @ phi  # (r,)
    return g * (_projection(sigma.r, d_model, seed) @ v)


# --------------------------------------------------------------------------- finding blocks


def _get_path(obj: Any, path: str) -> Any:
    for part in path.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def find_blocks(model: Any, path: str | None = None) -> torch.nn.ModuleList:
    """The ``torch.nn.ModuleList`` holding a model's transformer blocks.

    With ``path`` (e.g. ``"transformer.h"``) that attribute; otherwise the first of
    the common paths (``transformer.h``, ``model.layers``, ``model.decoder.layers``,
    ``gpt_neox.layers``, …) that is a non-empty ModuleList, and failing those the
    longest ModuleList in the model whose entries all share one class (ties: the
    one met first). Raises :class:`InputError` if there is none.
    """
    import torch

    if not isinstance(model, torch.nn.Module):
        raise InputError(f"a steerable model must be a torch.nn.Module, got {type(model).__name__}")
    if path is not None:
        found = _get_path(model, path)
        if not isinstance(found, torch.nn.ModuleList) or len(found) == 0:
            raise InputError(f"model attribute {path!r} is not a non-empty torch.nn.ModuleList")
        return found
    for known in _KNOWN_BLOCK_PATHS:
        found = _get_path(model, known)
        if isinstance(found, torch.nn.ModuleList) and len(found) > 0:
            return found
    best: torch.nn.ModuleList | None = None
    for _, module in model.named_modules():
        if (
            isinstance(module, torch.nn.ModuleList)
            and len(module) > 0
            and len({type(m) for m in module}) == 1
            and (best is None or len(module) > len(best))
        ):
            best = module
    if best is None:
        raise InputError(
            f"found no list of transformer blocks in {type(model).__name__}",
            hint="pass the blocks explicitly: ResidualSteerer(model, layers=[...modules...])",
        )
    return best


def model_width(model: Any) -> int | None:
    """``d_model`` from ``model.config`` (``hidden_size``, ``n_embd``, ``d_model``, …), else None."""
    cfg = getattr(model, "config", None)
    for attr in _WIDTH_ATTRS:
        value = getattr(cfg, attr, None) if cfg is not None else None
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


# --------------------------------------------------------------------------- the steerer


class ResidualSteerer:
    """Adds a steering vector ``δ`` to the residual stream of some of a model's blocks.

    ``ResidualSteerer(model, layers=None, *, blocks=None, d_model=None)``:

    * ``blocks``: where the full block list is — None (found by :func:`find_blocks`),
      a dotted attribute path such as ``"model.layers"``, or a sequence of modules;
    * ``layers``: which blocks to hook — None for the upper half (indices
      ``n//2 .. n-1`` of ``n`` blocks), a sequence of indices into the block list
      (negative ones count from the end), or a sequence of modules hooked as given
      (then the block list is not needed);
    * ``d_model``: the residual width, if ``model.config`` does not tell it.

    Each hooked module's output — a tensor, or a tuple/list whose first element is
    the hidden state — gets ``δ`` added along its last dimension, at every
    position, but only while :meth:`steer` is active with a non-zero ``δ``;
    otherwise the output is passed through untouched. :meth:`remove` (or leaving
    ``with ResidualSteerer(...) as s:``) detaches the hooks.
    """

    def __init__(
        self,
        model: Any,
        layers: Sequence[int] | Sequence[Any] | None = None,
        *,
        blocks: str | Sequence[Any] | None = None,
        d_model: int | None = None,
    ):
        import torch

        self.model = model
        explicit = layers is not None and len(layers) > 0 and all(isinstance(x, torch.nn.Module) for x in layers)
        if explicit:
            modules = list(layers)
            self.layer_indices: list[int] | None = None  # positions in the block list, when they are all in it
            try:
                block_list = (
                    list(blocks)
                    if blocks is not None and not isinstance(blocks, str)
                    else list(find_blocks(model, blocks))
                )
            except InputError:
                block_list = []
            pos = [next((i for i, b in enumerate(block_list) if b is m), None) for m in modules]
            if all(i is not None for i in pos):
                self.layer_indices = pos
        else:
            if blocks is None or isinstance(blocks, str):
                block_list = list(find_blocks(model, blocks))
            else:
                block_list = list(blocks)
                if not block_list or not all(isinstance(b, torch.nn.Module) for b in block_list):
                    raise InputError("blocks must be a non-empty sequence of torch.nn.Module")
            n = len(block_list)
            if layers is None:
                idx = list(range(n // 2, n))
            else:
                idx = []
                for i in layers:
                    if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not -n <= i < n:
                        raise InputError(
                            f"layer index {i!r} is out of range for {n} blocks",
                            hint="give block indices in [-n, n) or the block modules themselves",
                        )
                    idx.append(int(i) % n)
                if not idx:
                    raise InputError("layers must name at least one block (or be None for the upper half)")
            self.layer_indices = idx
            modules = [block_list[i] for i in idx]
        if len({id(m) for m in modules}) != len(modules):
            raise InputError("the same block is listed twice in layers")
        self.modules: list[Any] = modules
        self.d_model: int | None = d_model if d_model is not None else model_width(model)
        self._delta: Any = None  # torch tensor (float32 master copy) or None
        self._cast: dict[tuple[Any, Any], Any] = {}
        self._handles = [m.register_forward_hook(self._hook) for m in modules]

    # ------------------------------------------------------------------ state

    @property
    def active(self) -> bool:
        """Whether hooks are attached and a non-zero ``δ`` is being added."""
        return bool(self._handles) and self._delta is not None

    @property
    def attached(self) -> bool:
        return bool(self._handles)

    @property
    def delta(self) -> np.ndarray | None:
        """The current ``δ`` as a numpy array (None when not steering or ``δ`` is zero)."""
        return None if self._delta is None else self._delta.detach().cpu().numpy().copy()

    def _convert(self, delta: Any) -> Any:
        import torch

        if delta is None:
            return None
        if isinstance(delta, torch.Tensor):
            t = delta.detach().to(torch.float64 if delta.dtype == torch.float64 else torch.float32)
        else:
            try:
                t = torch.as_tensor(np.asarray(delta, dtype=np.float64))
            except (TypeError, ValueError):
                raise InputError(f"a steering vector must be numeric, got {type(delta).__name__}") from None
        if t.ndim not in (1, 2) or t.shape[-1] == 0:
            raise InputError(f"a steering vector must have shape (d_model,) or (batch, d_model), got {tuple(t.shape)}")
        if self.d_model is not None and t.shape[-1] != self.d_model:
            raise InputError(f"steering vector has length {t.shape[-1]}, the model's d_model is {self.d_model}")
        if not bool(torch.isfinite(t).all()):
            raise InputError("a steering vector must be finite")
        if not bool(t.any()):
            return None  # zero δ: leave the model exactly as it is
        return t.clone()

    def set_delta(self, delta: Any) -> None:
        """Set ``δ`` until changed (None or zeros: no steering). Prefer :meth:`steer`."""
        self._delta = self._convert(delta)
        self._cast.clear()

    @contextmanager
    def steer(self, delta: Any) -> Iterator[ResidualSteerer]:
        """Add ``delta`` inside the ``with`` block; the previous ``δ`` (usually none) is restored after.

        ``delta``: a numpy array / tensor / list of shape ``(d_model,)``, or
        ``(batch, d_model)`` for one vector per batch row (hidden states laid out
        ``(batch, seq, d_model)``); None or all zeros means no steering.
        """
        if not self._handles:
            raise InputError("this steerer's hooks were removed; build a new ResidualSteerer")
        previous, previous_cast = self._delta, self._cast
        self._delta, self._cast = self._convert(delta), {}
        try:
            yield self
        finally:
            self._delta, self._cast = previous, previous_cast

    def steer_peer(self, sigma: SigmaMem, peer: str, topic: str, gain: float = 1.0, seed: int = 0) -> Any:
        """``steer(steering_vector(sigma, peer, topic, self.d_model, gain, seed))``."""
        if self.d_model is None:
            raise InputError("the model's d_model is unknown", hint="pass ResidualSteerer(..., d_model=...)")
        return self.steer(steering_vector(sigma, peer, topic, self.d_model, gain=gain, seed=seed))

    def remove(self) -> None:
        """Detach every hook (idempotent); the model behaves as if never hooked."""
        for h in self._handles:
            h.remove()
        self._handles = []
        self._delta = None
        self._cast = {}

    def __enter__(self) -> ResidualSteerer:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove()

    def __repr__(self) -> str:
        where = self.layer_indices if self.layer_indices is not None else f"{len(self.modules)} module(s)"
        return f"ResidualSteerer(layers={where}, d_model={self.d_model}, active={self.active})"

    # ------------------------------------------------------------------ the hook

    def _add(self, hidden: Any) -> Any:
        import torch

        if not isinstance(hidden, torch.Tensor):
            raise TypeError(f"cannot steer a block output of type {type(hidden).__name__}")
        key = (hidden.dtype, hidden.device)
        d = self._cast.get(key)
        if d is None:
            d = self._delta.to(dtype=hidden.dtype, device=hidden.device)
            self._cast[key] = d
        if hidden.shape[-1] != d.shape[-1]:
            raise InputError(f"steering vector has length {d.shape[-1]}, the hidden state has width {hidden.shape[-1]}")
        if d.ndim == 2:
            if hidden.ndim != 3 or hidden.shape[0] != d.shape[0]:
                raise InputError(
                    f"a per-row steering vector {tuple(d.shape)} needs hidden states "
                    f"(batch={d.shape[0]}, seq, d_model), got {tuple(hidden.shape)}"
                )
            d = d[:, None, :]
        return hidden + d

    def _hook(self, module: Any, args: Any, output: Any) -> Any:
        if self._delta is None:
            return None  # leave the output untouched
        if isinstance(output, (tuple, list)):
            if not output:
                raise TypeError("cannot steer a block that returns an empty tuple")
            items = [self._add(output[0]), *output[1:]]
            if hasattr(output, "_fields"):  # a namedtuple
                return type(output)(*items)
            return type(output)(items)
        return self._add(output)

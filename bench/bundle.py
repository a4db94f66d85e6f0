"""Start-to-window of the built bundle(s), one-folder vs one-file, for docs/packaging.md.

    python packaging/build.py                 # dist/sonetto/  (one-folder, the shipped form)
    python packaging/build.py --onefile       # dist/onefile/sonetto (optional)
    python bench/bundle.py --runs 7

Runs each bundle's ``--self-test`` offscreen on a fresh data dir, alternating between the bundles so
machine load hits both alike, and prints the medians (see packaging/smoke.py for how start to window
is measured from outside the process).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "packaging"))

import bundle_tools  # noqa: E402
import smoke  # noqa: E402

EXE = "sonetto.exe" if os.name == "nt" else "sonetto"
CANDIDATES = {
    "one-folder (dist/sonetto)": REPO / "dist" / "sonetto" / EXE,
    "one-file (dist/onefile)": REPO / "dist" / "onefile" / EXE,
}


SOURCE = "from source (python -m sonetto_desktop)"


def _size(label: str, exe) -> str:
    if label == SOURCE:
        return "-"
    size = bundle_tools.tree_size(exe.parent) if label.startswith("one-folder") else exe.stat().st_size
    return bundle_tools.mb(size)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--source", action="store_true", help="also time the app run from source, for reference")
    args = parser.parse_args(argv)
    bundles = {label: exe for label, exe in CANDIDATES.items() if exe.is_file()}
    if not bundles:
        print("bench: no bundle built; run `python packaging/build.py` first", file=sys.stderr)
        return 1
    if args.source:
        bundles[SOURCE] = [sys.executable, "-m", "sonetto_desktop"]
    results: dict[str, list[smoke.SmokeResult]] = {label: [] for label in bundles}
    for _ in range(args.runs):
        for label, exe in bundles.items():
            result = smoke.run_self_test(exe)
            if not result.ok:
                print(result.output, file=sys.stderr)
                print(f"bench: {label} --self-test failed", file=sys.stderr)
                return 1
            results[label].append(result)
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    print(f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs"
          + (f", load average {load[0]:.1f}" if load else "") + f", {args.runs} runs each (median, min-max)\n")
    print("| bundle | size | start to window | launch to exit |")
    print("|---|---|---|---|")
    for label, runs in results.items():
        windows = [r.start_to_window_ms for r in runs if r.start_to_window_ms is not None]
        totals = [r.launch_to_exit_ms for r in runs]
        window = (f"{statistics.median(windows):.0f} ms ({min(windows):.0f}-{max(windows):.0f})" if windows else "n/a")
        total = f"{statistics.median(totals):.0f} ms ({min(totals):.0f}-{max(totals):.0f})"
        print(f"| {label} | {_size(label, bundles[label])} | {window} | {total} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

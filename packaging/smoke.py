"""Run a built bundle's ``--self-test`` offscreen on a fresh data dir and time it.

    python packaging/smoke.py [dist/sonetto/sonetto] [--runs 5]

Start to window is measured from outside the process: the clock starts when the executable is
launched. The self-test prints its first line right after the app object is created and reports
``window_shown`` relative to that moment, so start-to-window = arrival of that first line + the
reported ``window_shown``. stdout goes through a pseudo-terminal (where Python flushes every line) so
the first line arrives when it is printed, not when the process exits. Without a pty (Windows) only
launch-to-exit is measured.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_EXE = REPO / "dist" / "sonetto" / ("sonetto.exe" if os.name == "nt" else "sonetto")
FIRST_LINE = "sonetto self-test:"
OK_LINE = "SELF-TEST OK"
_TIMING = re.compile(r"^\s+(?:\S+\s+)?([a-z_]+)\s+(\d+(?:\.\d+)?)\s*ms\s*$")


@dataclass
class SmokeResult:
    code: int
    output: str
    launch_to_exit_ms: float
    start_to_window_ms: float | None = None
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.code == 0 and OK_LINE in self.output


def parse_timings(text: str) -> dict[str, float]:
    """``{"window_shown": 184.0, ...}`` from the self-test's ``  name   123 ms`` lines (in a Chinese terminal
    ``  窗口显示  name   123 ms``: what it is before the name)."""
    found = {}
    for line in text.splitlines():
        match = _TIMING.match(line)
        if match:
            found[match.group(1)] = float(match.group(2))
    return found


def _environment(data_dir: Path, config_dir: Path, extra: dict[str, str] | None) -> dict[str, str]:
    env = dict(os.environ)
    for var in ("SONETTO_BASE_URL", "OPENAI_BASE_URL", "OPENAI_API_KEY", "SONETTO_MODEL"):
        env.pop(var, None)  # the self-test needs no model; never reach a real endpoint from a smoke run
    env.update({
        "QT_QPA_PLATFORM": "offscreen",
        "SONETTO_DATA_DIR": str(data_dir),
        "SONETTO_CONFIG_DIR": str(config_dir),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
    })
    env.update(extra or {})
    return env


def _run_with_pty(command: list[str], env: dict[str, str], timeout: float) -> tuple[int, str, float, float | None]:
    import pty
    import select

    master, slave = pty.openpty()
    started = time.perf_counter()
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=slave, stderr=subprocess.STDOUT, env=env)
    os.close(slave)
    chunks, buffer, first_line_at = [], b"", None
    deadline = started + timeout
    try:
        while True:
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                process.kill()
                raise TimeoutError(f"{' '.join(command)} did not finish within {timeout:.0f} s")
            ready, _, _ = select.select([master], [], [], min(remaining, 0.5))
            if not ready:
                if process.poll() is not None:
                    break
                continue
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the child closed its side
                break
            if not data:
                break
            now = time.perf_counter()
            chunks.append(data)
            buffer += data
            if first_line_at is None and FIRST_LINE.encode() in buffer:
                first_line_at = now
    finally:
        os.close(master)
    code = process.wait(timeout=max(1.0, deadline - time.perf_counter()))
    ended = time.perf_counter()
    text = b"".join(chunks).decode("utf-8", "replace").replace("\r\n", "\n")
    first_ms = (first_line_at - started) * 1000 if first_line_at is not None else None
    return code, text, (ended - started) * 1000, first_ms


def _run_plain(command: list[str], env: dict[str, str], timeout: float) -> tuple[int, str, float, None]:
    started = time.perf_counter()
    done = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          env=env, timeout=timeout)
    text = done.stdout.decode("utf-8", "replace")
    return done.returncode, text, (time.perf_counter() - started) * 1000, None


def run_self_test(executable: str | Path | list[str], *, timeout: float = 60.0, env: dict[str, str] | None = None,
                  data_dir: str | Path | None = None) -> SmokeResult:
    """One ``--self-test`` run of ``executable`` on a fresh temporary data + config dir.

    ``executable`` may also be a command list (``[python, "-m", "sonetto_desktop"]``) to time the
    app from source the same way.
    """
    if isinstance(executable, list):
        prefix = [str(part) for part in executable]
    else:
        executable = Path(executable)
        if not executable.is_file():
            raise FileNotFoundError(f"no bundle executable at {executable}: build it with `python packaging/build.py`")
        prefix = [str(executable)]
    with tempfile.TemporaryDirectory(prefix="sonetto-smoke-") as scratch:
        data = Path(data_dir) if data_dir else Path(scratch) / "data"
        config = Path(scratch) / "config"
        environment = _environment(data, config, env)
        command = [*prefix, "--self-test"]
        if os.name == "posix":
            code, text, total, first = _run_with_pty(command, environment, timeout)
        else:
            code, text, total, first = _run_plain(command, environment, timeout)
    timings = parse_timings(text)
    window = first + timings["window_shown"] if first is not None and "window_shown" in timings else None
    return SmokeResult(code=code, output=text, launch_to_exit_ms=total, start_to_window_ms=window, timings=timings)


def measure(executable: str | Path, runs: int = 5, **kwargs) -> list[SmokeResult]:
    return [run_self_test(executable, **kwargs) for _ in range(runs)]


def summary(results: list[SmokeResult]) -> str:
    windows = [r.start_to_window_ms for r in results if r.start_to_window_ms is not None]
    totals = [r.launch_to_exit_ms for r in results]
    passed = sum(r.ok for r in results)
    lines = [f"self-test passed {passed}/{len(results)} runs"]
    if windows:
        lines.append(f"start to window: median {statistics.median(windows):.0f} ms "
                     f"(min {min(windows):.0f}, max {max(windows):.0f}, {len(windows)} runs)")
    lines.append(f"launch to exit:  median {statistics.median(totals):.0f} ms "
                 f"(min {min(totals):.0f}, max {max(totals):.0f})")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run the bundle's --self-test offscreen and time start to window.")
    parser.add_argument("executable", nargs="?", default=str(DEFAULT_EXE))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=60.0)
    args = parser.parse_args(argv)
    try:
        results = measure(args.executable, args.runs, timeout=args.timeout)
    except (FileNotFoundError, TimeoutError) as exc:
        print(f"smoke: {exc}", file=sys.stderr)
        return 1
    failed = [r for r in results if not r.ok]
    if failed:
        print(failed[0].output, file=sys.stderr)
        print(f"smoke: --self-test FAILED (exit code {failed[0].code})", file=sys.stderr)
        return 1
    print(summary(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())

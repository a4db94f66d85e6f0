"""Build the standalone app with PyInstaller: ``python packaging/build.py``.

Builds a one-folder bundle from ``packaging/sonetto.spec`` into ``dist/sonetto/`` (executable
``dist/sonetto/sonetto``, ``sonetto.exe`` on Windows, ``Sonetto.app`` on macOS), then prints the
bundle size and its biggest parts.

    --onefile   one self-extracting file in dist/onefile/ (unpacks on every launch: slower start)
    --clean     clear PyInstaller's cache and the previous build first
    --smoke     run the bundle's --self-test offscreen on a fresh data dir and time start to window,
                then speak MCP to its ``sonetto mcp`` (packaging/mcp_smoke.py)
    --runs N    self-test runs for --smoke (median reported; default 3)
    --naive     no exclusions or trimming (to measure what trimming saves)
    --stock-numpy   bundle the installed numpy as it is (on Linux the build otherwise uses the same
                numpy version built without BLAS, 28.5 MB smaller: see blas_free_numpy.py)
    --max-mb N  fail when the one-folder bundle is larger than N MB (CI: 300)
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

import blas_free_numpy  # noqa: E402
import bundle_check  # noqa: E402
import bundle_tools  # noqa: E402
import mcp_smoke  # noqa: E402
import smoke  # noqa: E402
import trim  # noqa: E402

SPEC = HERE / "sonetto.spec"
GENERATED = HERE / "generated"
ICON_MASTER = REPO / "resources" / "icons" / "app.svg"
EXE_NAME = "sonetto.exe" if os.name == "nt" else "sonetto"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python packaging/build.py",
                                     description="Build SonettoHere Desktop as a standalone app with PyInstaller.")
    parser.add_argument("--onefile", action="store_true",
                        help="build one self-extracting executable (slower start; the folder build is the default)")
    parser.add_argument("--clean", action="store_true", help="clear PyInstaller's cache and the previous build first")
    parser.add_argument("--smoke", action="store_true",
                        help="run the bundle's --self-test offscreen on a fresh data dir and time start to window")
    parser.add_argument("--runs", type=int, default=3, help="self-test runs for --smoke (default 3)")
    parser.add_argument("--naive", action="store_true", help="build without exclusions or trimming (for comparison)")
    parser.add_argument("--stock-numpy", action="store_true",
                        help="bundle the installed numpy (with its OpenBLAS) instead of one built without BLAS")
    parser.add_argument("--max-mb", type=float, default=None,
                        help="fail when the one-folder bundle is larger than this many MB")
    parser.add_argument("--dist", default=str(REPO / "dist"), help="output folder (default: dist/)")
    parser.add_argument("--work", default=str(REPO / "build"), help="PyInstaller work folder (default: build/)")
    return parser


def generate_icons() -> None:
    if not ICON_MASTER.is_file():
        print(f"build: no icon master at {ICON_MASTER.relative_to(REPO)}; building without an app icon")
        return
    done = subprocess.run([sys.executable, str(HERE / "icons.py"), "--svg", str(ICON_MASTER), "--out", str(GENERATED)],
                          env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    if done.returncode != 0:
        raise SystemExit("build: icon generation failed (see above)")


def blas_free_numpy_folder(args: argparse.Namespace) -> Path | None:
    """The BLAS-free numpy to bundle instead of the installed one, or None (not Linux, --naive,
    --stock-numpy, or the app does not import numpy). Built once and cached; a failed build stops."""
    if args.naive or args.stock_numpy or not sys.platform.startswith("linux"):
        return None
    if "numpy" in trim.optional_excludes(REPO / "sonetto_desktop"):
        return None  # the app's code does not import numpy: the spec leaves it out
    from importlib.metadata import PackageNotFoundError, version

    try:
        installed = version("numpy")
    except PackageNotFoundError:
        return None
    try:
        return blas_free_numpy.prepare(installed)
    except RuntimeError as exc:
        raise SystemExit(f"build: {exc}\nbuild: pass --stock-numpy to bundle the installed numpy instead") from None


def run_pyinstaller(dist: Path, work: Path, *, onefile: bool, clean: bool, naive: bool,
                    numpy_folder: Path | None = None) -> None:
    env = dict(os.environ)
    if numpy_folder is not None:  # found before site-packages by PyInstaller and its hooks
        env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(numpy_folder), env.get("PYTHONPATH"))))
        print(f"build: bundling numpy without BLAS from {numpy_folder}")
    env["SONETTO_BUNDLE_ONEFILE"] = "1" if onefile else "0"
    env["SONETTO_BUNDLE_NAIVE"] = "1" if naive else "0"
    command = [sys.executable, "-m", "PyInstaller", str(SPEC), "--noconfirm",
               "--distpath", str(dist), "--workpath", str(work)]
    if clean:
        command.append("--clean")
    print("build: " + " ".join(command[1:]))
    done = subprocess.run(command, cwd=REPO, env=env)
    if done.returncode != 0:
        raise SystemExit(f"build: PyInstaller failed with exit code {done.returncode}")


def add_linux_integration(bundle: Path) -> None:
    """Put the .desktop file, its installer and the icons next to the executable."""
    shutil.copy2(HERE / "linux" / "sonetto.desktop", bundle / "sonetto.desktop")
    shutil.copy2(HERE / "linux" / "install.sh", bundle / "install.sh")
    os.chmod(bundle / "install.sh", 0o755)
    icons_dir = bundle / "icons"
    icons_dir.mkdir(exist_ok=True)
    for name in ("sonetto.svg", "sonetto-48.png", "sonetto-128.png", "sonetto-256.png", "sonetto-512.png"):
        if (GENERATED / name).is_file():
            shutil.copy2(GENERATED / name, icons_dir / name)
    if not (icons_dir / "sonetto.svg").is_file() and ICON_MASTER.is_file():
        shutil.copy2(ICON_MASTER, icons_dir / "sonetto.svg")


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    dist, work = Path(args.dist).resolve(), Path(args.work).resolve()
    if args.onefile:
        dist, work = dist / "onefile", work / "onefile"
    if args.naive:
        dist, work = dist / "naive", work / "naive"
    if args.clean:
        shutil.rmtree(work, ignore_errors=True)
    started = time.perf_counter()
    generate_icons()
    numpy_folder = blas_free_numpy_folder(args)
    run_pyinstaller(dist, work, onefile=args.onefile, clean=args.clean, naive=args.naive, numpy_folder=numpy_folder)
    built = time.perf_counter() - started

    if args.onefile:
        executable = dist / EXE_NAME
        print(f"\nbuild: one-file executable {executable}: {bundle_tools.mb(executable.stat().st_size)} "
              f"(built in {built:.0f} s)")
    else:
        bundle = dist / "sonetto"
        executable = bundle / EXE_NAME
        shutil.copy2(REPO / "NOTICE.md", bundle / "NOTICE.md")  # the shipped data's licences, in sight
        if sys.platform.startswith("linux"):
            add_linux_integration(bundle)
        print(f"\nbuild: {executable} (built in {built:.0f} s)\n")
        print(bundle_tools.size_report(bundle))
        problems = bundle_check.check_bundle(bundle, modules=bundle_check.pyz_modules(executable))
        if numpy_folder is not None and (blas := blas_free_numpy.links_blas(bundle)):
            problems.append(f"numpy was to be bundled without BLAS, but the bundle holds {', '.join(blas)}")
        size = sum(part.size for part in bundle_tools.parts(bundle))
        if args.max_mb is not None and size > args.max_mb * 1e6:
            problems.append(f"the bundle is {bundle_tools.mb(size)}, over the {args.max_mb:g} MB limit")
        if problems:
            print("\nbuild: the bundle check FAILED:\n  " + "\n  ".join(problems), file=sys.stderr)
            return 1
        print("\nbuild: contents check passed (resources, lexicon data, NOTICE.md, jieba dictionary, Qt plugins, "
              "app modules)")

    if args.smoke:
        print(f"\nsmoke: {executable} --self-test (offscreen, fresh data dir) x {args.runs}")
        try:
            results = smoke.measure(executable, args.runs)
        except (FileNotFoundError, TimeoutError) as exc:
            print(f"smoke: {exc}", file=sys.stderr)
            return 1
        failed = [result for result in results if not result.ok]
        if failed:
            print(failed[0].output, file=sys.stderr)
            print(f"smoke: --self-test FAILED (exit code {failed[0].code})", file=sys.stderr)
            return 1
        print(smoke.summary(results))
        problems = mcp_smoke.check_mcp(executable)  # `sonetto mcp` from the bundle, over stdio
        if problems:
            print("smoke: `sonetto mcp` FAILED:\n  " + "\n  ".join(problems), file=sys.stderr)
            return 1
        print("smoke: `sonetto mcp` answers over stdio (tools listed, a memory added and found)")
        problem = check_builtin_embeddings(executable)  # the check the app makes before loading the model
        if problem:
            print(f"smoke: the built-in embeddings model FAILED: {problem}", file=sys.stderr)
            return 1
    return 0


def check_builtin_embeddings(executable: Path) -> str:
    """The bundle's ``sonetto embeddings-check <key>`` for this platform's built-in model (the child
    process the app runs before loading the model in its own): "" when it loads and embeds, else why
    not. A platform without a built-in model has nothing to check."""
    from sonetto_desktop.memory.retrieval.builtin_model import platform_model

    model = platform_model()
    if model is None:
        print("smoke: no built-in embeddings model on this platform")
        return ""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    try:
        done = subprocess.run([str(executable), "embeddings-check", model.key], capture_output=True, text=True,
                              timeout=120, stdin=subprocess.DEVNULL, env=env)
    except subprocess.TimeoutExpired:
        return f"`{executable.name} embeddings-check {model.key}` did not finish within 120 s"
    if done.returncode != 0:
        return f"`{executable.name} embeddings-check {model.key}` exited {done.returncode}: {done.stderr.strip()[-500:]}"
    print(f"smoke: the built-in embeddings model ({model.label}) loads and embeds from the bundle")
    return ""


if __name__ == "__main__":
    sys.exit(main())

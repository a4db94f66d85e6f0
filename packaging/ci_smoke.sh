#!/bin/sh
# Packaging smoke check for CI: build the one-folder bundle and run its --self-test offscreen on a
# fresh data dir, then its `sonetto mcp` over stdio and its built-in embeddings model's check in a child process
# (build.py --smoke). Fails if the build fails, the
# bundle is missing a module or resource the app needs, is over 300 MB (issue 7's 200 MB target plus the built-in embeddings model, issue 36), the
# self-test does not pass or the MCP server does not answer. Prints how long it took. The first build
# on a machine also builds numpy without BLAS (5-10 minutes, then cached: packaging/blas_free_numpy.py).
#
#   sh packaging/ci_smoke.sh            (from anywhere; uses $PYTHON or python)
set -eu
cd "$(dirname "$0")/.."
python=${PYTHON:-python}
started=$(date +%s)
QT_QPA_PLATFORM=offscreen "$python" packaging/build.py --smoke --runs 1 --max-mb 300
echo "ci_smoke: bundle built and self-tested in $(( $(date +%s) - started )) s"

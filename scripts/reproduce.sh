#!/usr/bin/env bash
# Regenerate the seed papers' tables and figures (README.md and PNG plots) with
# pktdedup-eval, each number beside the paper's. A long job, not a test; progress on
# stderr every 10 s.
#   bash scripts/reproduce.sh [--scale S] [--jobs J] [--out DIR] [--only 000,001,002,004]
#   (default: --scale 0.1, about 6 minutes on 2 cores; --jobs = cores; --out
#   build/reproduce, and --out docs/reproduce refreshes the committed copy; --scale 1 is
#   the papers' full size: hours, and up to 1.3 GB of memory a job)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh python3-matplotlib
bash scripts/build.sh >/dev/null
# Debian's python3 (with python3-matplotlib), not whichever python3 is first on PATH
exec /usr/bin/python3 scripts/reproduce.py "$@"

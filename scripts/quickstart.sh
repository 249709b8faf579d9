#!/usr/bin/env bash
# The main job: install what is missing, build, and compare every filter on a synthetic
# stream (2M keys, 15% distinct, 1 MiB per filter) against the exact oracle.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
bash scripts/build.sh
exec build/app/eval/pktdedup-eval --filter all --memory 1M --stream uniform --n 2000000 \
	--distinct 0.15 "$@"

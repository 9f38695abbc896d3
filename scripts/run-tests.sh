#!/usr/bin/env bash
# Sets this machine up, builds msadvisor and runs every test. This is what CI runs (.ci/run).
#   scripts/run-tests.sh                 # preset "ci": RelWithDebInfo, warnings are errors
#   MSA_PRESET=asan scripts/run-tests.sh # another preset with a test preset (dev, asan, ci)
#   scripts/run-tests.sh -L core         # extra arguments go to ctest
# MSA_SANITIZERS="asan tsan" (or "asan") then runs scripts/run-sanitizers.sh (asan + fuzz smoke,
# tsan) after the ci preset's tests; .ci/run sets it, a local run leaves it off unless asked
# (its cold cost on 2 cores: docs/robustness.md, "Sanitizers").
# MSA_JOBS sets the parallelism of the build and of ctest (default: the number of cores).
# MSA_BUDGET_SECONDS (.ci/run sets it to CI's limit less a margin): a sanitizer phase that would
# not end within it, at its measured cold cost, is skipped and says so.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PRESET="${MSA_PRESET:-ci}"
JOBS="${MSA_JOBS:-$(nproc)}"
cd "${ROOT}"

T_STEP=${SECONDS}
step() { printf '\n== %s   (+%d s)\n' "$*" "$((SECONDS - T_STEP))"; }
t0=${SECONDS}
if [[ -n "${MSA_BUDGET_SECONDS:-}" ]]; then export MSA_DEADLINE=$(($(date +%s) + MSA_BUDGET_SECONDS)); fi
# A full disk fails tests that write files in ways that look like bugs: the space is on record.
free_space() { df -h --output=avail,target . | tail -1 | awk '{print "disk: " $1 " free on " $2}'; }
step "setup"
free_space
scripts/setup.sh
step "configure (preset ${PRESET})"
cmake --preset "${PRESET}"
step "build (-j${JOBS})"
cmake --build --preset "${PRESET}" -j "${JOBS}"
step "test"
rc=0
ctest --preset "${PRESET}" -j "${JOBS}" "$@" || rc=$?
free_space
if ((rc != 0)); then exit "${rc}"; fi
if [[ "${PRESET}" == ci && "${MSA_SANITIZERS:-none}" != none ]]; then
  step "sanitizers"
  scripts/run-sanitizers.sh
fi
free_space
printf '\nrun-tests: done in %d s\n' "$((SECONDS - t0))"

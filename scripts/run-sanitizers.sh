#!/usr/bin/env bash
# The sanitizer part of CI (scripts/run-tests.sh runs it after the ci preset's tests):
#   1. preset asan (clang, ASan + UBSan + LeakSanitizer): the tests labelled core and robustness,
#      then every libFuzzer target for MSA_FUZZ_SECONDS (default 20) from its seeds and regressions
#      (tests/fuzz/fuzz_smoke.sh judges each run);
#   2. preset tsan (clang, ThreadSanitizer): the tests labelled concurrent.
# Python tests (label python) are left to the ci preset (the asan test preset excludes them): the
# interpreter is not built with the sanitizer, whose runtime would have to be preloaded, and
# build/asan has no Python package (under asan, test_py_robustness imported an empty package and
# failed; ctest's -LE does not add to a preset's exclude filter). Only the targets those tests
# need are built. Suppressions (dependencies only, each with its
# reason): tests/sanitizers/*.supp. Each step prints its wall time and the total at the end.
#   scripts/run-sanitizers.sh                      # both
#   MSA_SANITIZERS=asan scripts/run-sanitizers.sh  # one of them
#   MSA_ASAN_LABELS='^robustness$' ...             # another label set under asan
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JOBS="${MSA_JOBS:-$(nproc)}"
WHICH="${MSA_SANITIZERS:-asan tsan}"
FUZZ_SECONDS="${MSA_FUZZ_SECONDS:-20}"
ASAN_LABELS="${MSA_ASAN_LABELS:-^core$|^robustness$}"
cd "${ROOT}"

T0=${SECONDS}
T_STEP=${SECONDS}
CPU_LOG="$(mktemp)"
trap 'rm -f "${CPU_LOG}"' EXIT
step() {  # CPU: user and system time of every command run so far (bash's times, in this shell)
  times >"${CPU_LOG}"
  printf '\n== %s   (previous step %d s, total %d s; CPU so far: %s)\n' "$*" "$((SECONDS - T_STEP))" \
    "$((SECONDS - T0))" "$(tail -n 1 "${CPU_LOG}")"
  T_STEP=${SECONDS}
}
# Test names of a preset for a label regex (ctest -N); those that are build targets (not every
# test is: acl_profiler_compiles builds inside its test) are built.
tests_of() { ctest --preset "$1" -N "${@:2}" 2>/dev/null | sed -n 's/^ *Test *#[0-9]*: *//p'; }
targets_among() {  # targets_among BUILD_DIR NAME...: the names that are targets of BUILD_DIR
  local known
  known="$(ninja -C "$1" -t targets all 2>/dev/null | sed -n 's/^\([^:/]*\): .*/\1/p')"
  for n in "${@:2}"; do grep -qx -- "$n" <<<"${known}" && echo "$n"; done
  return 0
}

# fits PHASE SECONDS: whether a phase that took SECONDS cold on 2 cores (docs/robustness.md,
# "Sanitizers") still ends before MSA_DEADLINE (run-tests.sh sets it from MSA_BUDGET_SECONDS).
fits() {
  [[ -z "${MSA_DEADLINE:-}" ]] && return 0
  local left=$((MSA_DEADLINE - $(date +%s)))
  if ((left < $2)); then
    printf '\n== %s skipped: %d s left of the time budget, it needs about %d s\n' "$1" "${left}" "$2"
    return 1
  fi
}

if [[ " ${WHICH} " == *" asan "* ]] && fits asan "${MSA_ASAN_SECONDS:-1300}"; then
  step "asan: configure"
  cmake --preset asan -DMSA_FUZZ_SECONDS="${FUZZ_SECONDS}" >/dev/null
  mapfile -t tests < <(tests_of asan -L "${ASAN_LABELS}")
  mapfile -t fuzzers < <(tests_of fuzz | sed -n 's/_smoke$//p')
  mapfile -t targets < <(targets_among build/asan msadvisor-cli "${tests[@]}" "${fuzzers[@]}" fuzz_seeds profile_fuzz_seeds)
  step "asan: build ${#tests[@]} tests' targets and ${#fuzzers[@]} fuzz targets (-j${JOBS})"
  cmake --build --preset asan -j "${JOBS}" --target "${targets[@]}"
  step "asan: test (labels ${ASAN_LABELS})"
  ctest --preset asan -j "${JOBS}" -L "${ASAN_LABELS}"
  step "asan: fuzz smoke (${FUZZ_SECONDS} s per target)"
  ctest --preset fuzz -j "${JOBS}"
fi

if [[ " ${WHICH} " == *" tsan "* ]] && fits tsan "${MSA_TSAN_SECONDS:-600}"; then
  step "tsan: configure"
  cmake --preset tsan >/dev/null
  mapfile -t tests < <(tests_of tsan)
  mapfile -t targets < <(targets_among build/tsan "${tests[@]}")
  step "tsan: build ${#targets[@]} tests (-j${JOBS})"
  cmake --build --preset tsan -j "${JOBS}" --target "${targets[@]}"
  step "tsan: test"
  ctest --preset tsan -j "${JOBS}"
fi
step "done"
printf 'run-sanitizers: done in %d s\n' "$((SECONDS - T0))"

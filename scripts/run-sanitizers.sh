#!/usr/bin/env bash
# The sanitizer part of CI (scripts/run-tests.sh runs it after the ci preset's tests when
# MSA_SANITIZERS is set):
#   1. preset asan (clang, ASan + UBSan + LeakSanitizer): the tests labelled core and robustness,
#      then every libFuzzer target for MSA_FUZZ_SECONDS (default 20) from its seeds and regressions;
#   2. preset tsan (clang, ThreadSanitizer): the tests labelled concurrent.
# Only the targets those tests need are built. Suppressions (dependencies only, each with its
# reason): tests/sanitizers/*.supp.
#   scripts/run-sanitizers.sh            # both
#   MSA_SANITIZERS=asan scripts/run-sanitizers.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
JOBS="${MSA_JOBS:-$(nproc)}"
WHICH="${MSA_SANITIZERS:-asan tsan}"
FUZZ_SECONDS="${MSA_FUZZ_SECONDS:-20}"
ASAN_LABELS='^core$|^robustness$'
cd "${ROOT}"

T0=${SECONDS}
step() { printf '\n== %s   (+%d s)\n' "$*" "$((SECONDS - T0))"; }
# Test names of a preset for a label regex (ctest -N): they are also their targets' names.
tests_of() { ctest --preset "$1" -N "${@:2}" | sed -n 's/^ *Test *#[0-9]*: *//p'; }

if [[ " ${WHICH} " == *" asan "* ]]; then
  step "asan: configure"
  cmake --preset asan -DMSA_FUZZ_SECONDS="${FUZZ_SECONDS}" >/dev/null
  mapfile -t tests < <(tests_of asan -L "${ASAN_LABELS}")
  mapfile -t fuzzers < <(ctest --test-dir build/asan -N -L libfuzzer | sed -n 's/^ *Test *#[0-9]*: *\(.*\)_smoke$/\1/p')
  step "asan: build ${#tests[@]} tests, ${#fuzzers[@]} fuzz targets"
  cmake --build --preset asan -j "${JOBS}" --target msadvisor-cli "${tests[@]}" "${fuzzers[@]}" fuzz_seeds profile_fuzz_seeds
  step "asan: test"
  ctest --preset asan -j "${JOBS}" -L "${ASAN_LABELS}"
  step "asan: fuzz smoke (${FUZZ_SECONDS} s per target)"
  LSAN_OPTIONS="suppressions=${ROOT}/tests/sanitizers/lsan.supp:print_suppressions=0" \
    ctest --test-dir build/asan --output-on-failure -j "${JOBS}" -L libfuzzer
fi

if [[ " ${WHICH} " == *" tsan "* ]]; then
  step "tsan: configure"
  cmake --preset tsan >/dev/null
  mapfile -t tests < <(tests_of tsan)
  step "tsan: build ${#tests[@]} tests"
  cmake --build --preset tsan -j "${JOBS}" --target "${tests[@]}"
  step "tsan: test"
  ctest --preset tsan -j "${JOBS}"
fi
printf '\nrun-sanitizers: done in %d s\n' "$((SECONDS - T0))"

#!/usr/bin/env bash
# A fuzz target's smoke test (label libfuzzer): runs it and judges its output.
#   fuzz_smoke.sh FUZZER [libFuzzer arguments and corpus folders]...
# Fails when the fuzzer does not end cleanly or when any sanitizer report starts in our code.
# fuzz_shape_inference runs libonnx in a forked child (core/model/shape_inference.cpp): a crash
# there costs that model's shapes, not the process, and the fuzzer goes on, but ASan in the
# child still reports it. A report whose frame #0 is inside libonnx or protobuf is such a crash
# of a dependency, contained by design: it is counted and shown, not failed. The same report
# starting in our code (the one pass also runs in the child) fails the test.
set -uo pipefail
log="$(mktemp)"
trap 'rm -f "${log}"' EXIT
"$@" >"${log}" 2>&1
rc=$?
verdict="$(awk '
  /==[0-9]+==ERROR: |: runtime error: / { open = 1; reports++; first = $0; next }
  open && /^ *#0 / {
    if ($0 ~ /lib(onnx|onnx_proto|protobuf)\.so/ && first ~ /AddressSanitizer: (SEGV|BUS)/) contained++
    else { ours++; print "in our code: " first > "/dev/stderr"; print "  " $0 > "/dev/stderr" }
    open = 0
  }
  END { printf "%d %d %d\n", reports + 0, contained + 0, ours + 0 }' "${log}")"
read -r reports contained ours <<<"${verdict}"
grep -E '^#[0-9]+[[:space:]]+DONE|^Done [0-9]+ runs' "${log}" || true
echo "fuzz_smoke: exit ${rc}; ${reports} sanitizer report(s): ${contained} contained in a dependency (libonnx in the shape-inference child), ${ours} in our code"
if [[ ${rc} -ne 0 || ${ours} -ne 0 || $((contained + ours)) -ne ${reports} ]]; then
  tail -n 120 "${log}"
  exit 1
fi

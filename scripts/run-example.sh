#!/usr/bin/env bash
# Sets this machine up, builds msadvisor (release preset) and runs it on the bundled example model:
# the CLI's report, then, where a display is available ($DISPLAY or $WAYLAND_DISPLAY, not in CI),
# the desktop application opened on the model with its analysis running.
#   scripts/run-example.sh               # the example model
#   scripts/run-example.sh MODEL.onnx    # your model
# MSA_JOBS sets the build parallelism (default: the number of cores); MSA_NO_GUI=1 keeps to the CLI.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PRESET=release
BUILD="${ROOT}/build/${PRESET}"
JOBS="${MSA_JOBS:-$(nproc)}"
DEVICE="${MSA_DEVICE:-ascend910b}"
cd "${ROOT}"

T_STEP=${SECONDS}
step() { printf '\n== %s   (+%d s)\n' "$*" "$((SECONDS - T_STEP))"; }
step "setup"
scripts/setup.sh
step "configure (preset ${PRESET})"
cmake --preset "${PRESET}" >/dev/null
# Only what the example needs: the CLI, the desktop application (where Qt is there) and the
# example models (written at build time).
has_target() { cmake --build --preset "${PRESET}" --target help 2>/dev/null | grep -q "^$1:"; }
targets=(msadvisor-cli)
if has_target msadvisor; then targets+=(msadvisor); fi
if has_target msa_examples; then targets+=(msa_examples); fi
step "build ${targets[*]} (-j${JOBS})"
cmake --build --preset "${PRESET}" -j "${JOBS}" --target "${targets[@]}"
CLI="${BUILD}/app/cli/msadvisor-cli"

# The model: the argument; else the example generated at build time; else ResNet-18 from the
# model corpus (unpacked into the build tree at configure time).
MODEL="${1:-}"
if [[ -z "${MODEL}" ]]; then
  for cand in "${BUILD}/examples/tiny_yolo.onnx" "${BUILD}/models/resnet18.onnx"; do
    if [[ -f "${cand}" ]]; then MODEL="${cand}"; break; fi
  done
fi
[[ -n "${MODEL}" ]] || { echo "run-example: no example model (build/${PRESET}/examples/tiny_yolo.onnx) and no corpus; pass a model path" >&2; exit 2; }

# The verbs this build has, from its own usage text; analyze supersedes the early estimate/profile pair.
mapfile -t VERBS < <("${CLI}" --help | awk '/^verbs:/ {on = 1; next} on && NF == 0 {exit} on {print $1}')
has_verb() { printf '%s\n' "${VERBS[@]}" | grep -qx "$1"; }
run() { printf '\n$ msadvisor-cli %s\n' "${*//"${ROOT}"\//}"; "${CLI}" "$@"; }
# Progress lines are for interactive use; here they would only interleave with the results.
quiet() { if "${CLI}" "$1" --help | grep -q -- '--progress'; then echo --progress none; fi; }

step "msadvisor-cli on ${MODEL#"${ROOT}"/}"
run info "${MODEL}"
if has_verb analyze; then
  run analyze "${MODEL}" --device "${DEVICE}" $(quiet analyze)
else
  # Until analyze lands: the estimate for the target device and a measured CPU profile.
  ran=0
  if has_verb estimate; then run estimate "${MODEL}" --device "${DEVICE}" $(quiet estimate); ran=1; fi
  if has_verb profile; then run profile "${MODEL}" $(quiet profile); ran=1; fi
  [[ "${ran}" -eq 1 ]] || printf '\n(this build has no analyze, estimate or profile verb yet: verbs are %s)\n' "${VERBS[*]}"
fi

# The desktop application on the same model, analysing it, where someone can see it.
GUI="${BUILD}/app/gui/msadvisor"
if [[ -x "${GUI}" && -z "${MSA_NO_GUI:-}" && "${CI:-}" != "true" && ( -n "${DISPLAY:-}" || -n "${WAYLAND_DISPLAY:-}" ) ]]; then
  step "msadvisor (desktop) on ${MODEL#"${ROOT}"/}, analysing"
  printf '$ msadvisor --analyze %s\n(close the window to finish)\n' "${MODEL#"${ROOT}"/}"
  "${GUI}" --analyze "${MODEL}"
elif [[ -x "${GUI}" ]]; then
  printf '\n(the desktop application is built at %s and opens where there is a display: msadvisor --analyze MODEL)\n' "${GUI#"${ROOT}"/}"
fi

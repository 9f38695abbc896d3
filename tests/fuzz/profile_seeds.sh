#!/usr/bin/env bash
# Writes the seed corpora of the profile fuzz targets: the real profiles in ../shared/real-profiles
# (decompressed, cut to the fuzzers' -max_len) and the repository's own test profiles.
#   profile_seeds.sh OUT_DIR SOURCE_DIR REAL_PROFILES_DIR(may be empty)
set -euo pipefail
out="$1" src="$2" real="${3:-}"
max=65536
rm -rf "${out}"
mkdir -p "${out}"/{ort,msprof,kineto,attachment,trt}
n=0
put() {  # put FORMAT FILE [PREFIX_BYTE]
  local dest="${out}/$1/seed$((n++))"
  if [[ "$2" == *.gz ]]; then gzip -dc "$2" | head -c "${max}" > "${dest}" || true
  else { [[ $# -gt 2 ]] && printf '%b' "$3"; head -c "${max}" "$2"; } > "${dest}"; fi
}
shopt -s nullglob globstar
for f in "${src}"/tests/data/msprof/**/op_summary*.csv "${src}"/tests/data/msprof/malformed/*.csv; do put msprof "$f" '\x00'; done
for f in "${src}"/tests/data/msprof/**/kernel_details*.csv; do put msprof "$f" '\x01'; done
if [[ -n "${real}" && -d "${real}" ]]; then
  for f in "${real}"/ort/**/*.json; do put ort "$f"; done
  for f in "${real}"/ascend/**/kernel_details*.csv; do put msprof "$f" '\x01'; done
  for f in "${real}"/ascend/**/op_summary*.csv; do put msprof "$f" '\x00'; done
  for f in "${real}"/kineto/**/*.json.gz "${real}"/kineto/**/*.json; do put kineto "$f"; done
  for f in "${real}"/trt/**/*.profile "${real}"/trt/**/*.json; do put trt "$f"; done
fi
# Formats with few real files get small hand-written seeds as well.
printf '%s' '{"signature":"netron:attachment","metrics":[{"kind":"node","target":"Relu_0","name":"latency","value":"1.5 ms"},{"kind":"node","identifier":"conv1","name":"time(us)","value":20}]}' > "${out}/attachment/seed-a"
printf '%s' '[{"count":10},{"name":"Relu_0","timeMs":1.0,"averageMs":0.1,"percentage":40},{"name":"conv1 + Relu_0","timeMs":2.0,"averageMs":0.2,"percentage":60}]' > "${out}/trt/seed-a"
printf '%s' '[{"cat":"Session","name":"model_run","ph":"X","ts":1,"dur":50,"args":{}},{"cat":"Node","name":"Relu_0_kernel_time","ph":"X","ts":2,"dur":5,"args":{"op_name":"Relu","provider":"CPUExecutionProvider","input_type_shape":[{"float":[1,8]}]}}]' > "${out}/ort/seed-a"
printf '%s' '{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},{"ph":"X","cat":"cpu_op","name":"aten::relu","pid":1,"tid":1,"ts":10,"dur":5},{"ph":"X","cat":"kernel","name":"relu_kernel","pid":0,"tid":7,"ts":12,"dur":3,"args":{"correlation":5}},{"ph":"s","id":5,"pid":1,"tid":1,"ts":10,"cat":"ac2g","name":"f"},{"ph":"f","id":5,"pid":0,"tid":7,"ts":12,"cat":"ac2g","bp":"e","name":"f"}]}' > "${out}/kineto/seed-a"
for d in "${out}"/*; do echo "$(basename "$d"): $(ls "$d" | wc -l) seeds"; done

#!/usr/bin/env bash
# Prepares this machine to build and test msadvisor: Debian/Ubuntu packages, and on Debian 12
# ONNX Runtime 1.21 laid out in .deps/onnxruntime (see DEVELOPERS.md, "ONNX Runtime").
#
# Idempotent: packages already installed are not touched (dpkg-query decides, apt runs only for
# what is missing), and ONNX Runtime is fetched only when .deps/onnxruntime/.stamp does not name
# the recipe below. A second run takes a second or two.
#
# Environment:
#   ONNXRUNTIME_ROOT=PREFIX  use an ONNX Runtime you provide (PREFIX/include/onnxruntime, PREFIX/lib);
#                            nothing is fetched. Pass the same -DONNXRUNTIME_ROOT= to cmake.
#   MSA_DEBIAN_MIRROR=URI    Debian archive to take the ONNX Runtime headers from, where this machine
#                            has no Debian mirror configured (e.g. Ubuntu without a system package).
#   MSA_SETUP_FORCE_ORT=1    re-fetch ONNX Runtime even if the stamp matches.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# The ONNX Runtime recipe for systems without a usable libonnxruntime-dev. The library comes from
# the npm package (registry-verified tarball), the headers from Debian 13's libonnxruntime-dev.
ORT_NPM_VERSION="1.21.1"
ORT_HEADERS_SUITE="trixie"
ORT_HEADERS_UPSTREAM="1.21."   # the Debian package's upstream version must start with this
ORT_RECIPE="onnxruntime-node@${ORT_NPM_VERSION} + libonnxruntime-dev(${ORT_HEADERS_SUITE}) ${ORT_HEADERS_UPSTREAM}x, recipe 1"
ORT_MIN_SYSTEM="1.21"          # a system libonnxruntime-dev at least this new is used as is
ORT_DIR="${ROOT}/.deps/onnxruntime"

say() { printf 'setup: %s\n' "$*"; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

SUDO=()
if [[ "$(id -u)" -ne 0 ]]; then
  command -v sudo >/dev/null || die "not root and sudo is not installed"
  SUDO=(sudo)
fi

[[ -r /etc/os-release ]] || die "/etc/os-release missing: only Debian 12/13 and Ubuntu 24.04 are supported"
# shellcheck disable=SC1091
. /etc/os-release
DISTRO="${ID:-unknown}"
CODENAME="${VERSION_CODENAME:-}"
case "${DISTRO}:${CODENAME}" in
  debian:bookworm | debian:trixie | debian:forky | debian:sid | ubuntu:noble | ubuntu:*) ;;
  *) say "warning: ${PRETTY_NAME:-this system} is not a tested system (Debian 12/13, Ubuntu 24.04); trying anyway" ;;
esac
command -v dpkg-query >/dev/null || die "dpkg-query not found: a Debian-based system is required"
ARCH="$(dpkg --print-architecture)"

# ---------------------------------------------------------------------------------------------
# Packages
PACKAGES=(
  # build tools
  cmake ninja-build g++ pkg-config dpkg-dev file
  # the sanitizer and fuzz builds (presets asan, tsan, fuzz): clang with libFuzzer and its runtimes
  clang-14 libclang-rt-14-dev
  # Qt 6 (QtCharts needs Qt6OpenGL: libqt6opengl6-dev is only a Recommends of qt6-base-dev)
  qt6-base-dev qt6-charts-dev qt6-svg-dev qt6-tools-dev qt6-tools-dev-tools qt6-l10n-tools
  qt6-translations-l10n qt6-qpa-plugins libgl-dev libqt6opengl6-dev
  # graph layout, ONNX, protobuf, JSON
  libgraphviz-dev graphviz libprotobuf-dev protobuf-compiler libonnx-dev libonnx-testdata python3-onnx
  nlohmann-json3-dev
  # the applications' allocator
  libjemalloc-dev
  # GUI tests and screenshots under a virtual display
  xvfb xauth
  # packaging checks (tests labelled "packaging")
  appstream desktop-file-utils
  # tst_import_pages counts the CLI's system calls on the model file
  strace
  # the Python package (pybind11 over core) and its tests on PyTorch (CPU)
  pybind11-dev python3-dev python3-torch python3-torchvision
)

# Prints the packages among the arguments that are neither installed ("ii") nor provided by an
# installed package (Debian 13's qt6-base-dev provides libqt6opengl6-dev, a package of its own in 12).
missing_packages() {
  local present
  present="$(dpkg-query -W -f='${db:Status-Abbrev}|${Package}|${Provides}\n' 2>/dev/null | awk -F'|' '
    $1 ~ /^ii/ { print $2; n = split($3, a, /, */); for (i = 1; i <= n; i++) { sub(/ .*/, "", a[i]); if (a[i] != "") print a[i] } }' || true)"
  local p
  for p in "$@"; do
    grep -qxF "${p}" <<<"${present}" || echo "${p}"
  done
}

APT_UPDATED=0
apt_update_once() {
  if [[ "${APT_UPDATED}" -eq 0 ]]; then
    say "apt-get update"
    "${SUDO[@]}" apt-get update -qq
    APT_UPDATED=1
  fi
}

# candidate_version PACKAGE: the version apt would install, or nothing.
candidate_version() {
  apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ {print $2}' | grep -v '(none)' || true
}

# How ONNX Runtime is had: "root" (given by the user), "system" (libonnxruntime-dev >= 1.21), or
# "local" (.deps/onnxruntime). Debian 12 has no libonnxruntime-dev; Debian 13 and newer Ubuntu do.
ORT_MODE=local
if [[ -n "${ONNXRUNTIME_ROOT:-}" ]]; then
  ORT_MODE=root
  [[ -f "${ONNXRUNTIME_ROOT}/include/onnxruntime/onnxruntime_cxx_api.h" ]] ||
    die "ONNXRUNTIME_ROOT=${ONNXRUNTIME_ROOT} has no include/onnxruntime/onnxruntime_cxx_api.h"
elif [[ "${CODENAME}" != "bookworm" ]]; then
  ort_version="$(dpkg-query -W -f='${Version}' libonnxruntime-dev 2>/dev/null || true)"
  if [[ -z "${ort_version}" ]]; then
    [[ -n "$(candidate_version libonnxruntime-dev)" ]] || apt_update_once
    ort_version="$(candidate_version libonnxruntime-dev)"
  fi
  if [[ -n "${ort_version}" ]] && dpkg --compare-versions "${ort_version}" ge "${ORT_MIN_SYSTEM}"; then
    ORT_MODE=system
    PACKAGES+=(libonnxruntime-dev)
  else
    say "no libonnxruntime-dev >= ${ORT_MIN_SYSTEM} in this system's archive (found: ${ort_version:-none}); using .deps/onnxruntime"
  fi
fi

# The local recipe checks the Debian 13 archive's signature. Its InRelease is signed by the trixie
# automatic and stable-release keys and by the bookworm automatic key; Debian 12's
# debian-archive-keyring carries the trixie keys since 2023.3+deb12u2 (a bookworm point release).
# apt accepts only these keys for it (Signed-By), never the whole trusted set.
ARCHIVE_KEYRINGS=(/usr/share/keyrings/debian-archive-trixie-automatic.gpg /usr/share/keyrings/debian-archive-trixie-stable.gpg)
FALLBACK_KEYRING=/usr/share/keyrings/debian-archive-bookworm-automatic.gpg
ort_stamp_ok() { [[ -f "${ORT_DIR}/.stamp" && -e "${ORT_DIR}/lib/libonnxruntime.so.1" ]] && [[ "$(head -n1 "${ORT_DIR}/.stamp")" == "${ORT_RECIPE}" ]]; }
NEED_ORT_FETCH=0
# A .deps that is a symlink (a git worktree sharing the main checkout's) belongs to someone else:
# it is used as it is when it holds a library and headers, and never written through.
if [[ "${ORT_MODE}" == local && ( -L "${ROOT}/.deps" || -L "${ORT_DIR}" ) ]]; then
  [[ -e "${ORT_DIR}/lib/libonnxruntime.so.1" && -f "${ORT_DIR}/include/onnxruntime/onnxruntime_cxx_api.h" ]] ||
    die "${ORT_DIR} is a symlink to an incomplete ONNX Runtime ($(readlink -f "${ORT_DIR}")); fix it or remove the link"
  ORT_MODE=linked
fi
if [[ "${ORT_MODE}" == local ]] && { [[ "${MSA_SETUP_FORCE_ORT:-0}" == 1 ]] || ! ort_stamp_ok; }; then
  NEED_ORT_FETCH=1
  [[ "${ARCH}" == amd64 ]] || die "the ONNX Runtime recipe for this system covers amd64 only (this is ${ARCH}); set ONNXRUNTIME_ROOT"
  # npm fetches the library. A Node.js installed from elsewhere (nodesource bundles npm) is used as
  # it is: Debian's npm package would conflict with it.
  PACKAGES+=(ca-certificates)
  command -v npm >/dev/null || PACKAGES+=(npm)
  if [[ "${DISTRO}" != debian && -z "${MSA_DEBIAN_MIRROR:-}" ]]; then
    die "this system's archive has no libonnxruntime-dev >= ${ORT_MIN_SYSTEM}; set MSA_DEBIAN_MIRROR to a Debian mirror URI (the headers come from Debian 13) or ONNXRUNTIME_ROOT to an ONNX Runtime 1.21 prefix"
  fi
  if [[ ! -f "${ARCHIVE_KEYRINGS[0]}" ]]; then
    # Missing, or installed but older than the trixie keys: apt-get install upgrades it.
    PACKAGES+=(debian-archive-keyring)
    [[ -n "$(missing_packages debian-archive-keyring)" ]] || FORCE_KEYRING_UPGRADE=1
  fi
fi

mapfile -t MISSING < <(missing_packages "${PACKAGES[@]}")
if [[ "${FORCE_KEYRING_UPGRADE:-0}" == 1 ]]; then MISSING+=(debian-archive-keyring); fi
if [[ "${#MISSING[@]}" -gt 0 ]]; then
  apt_update_once
  say "installing ${#MISSING[@]} packages: ${MISSING[*]}"
  # apt's and dpkg's chatter goes to a log, shown only when the install fails.
  apt_log="$(mktemp "${TMPDIR:-/tmp}/msa-apt.XXXXXX")"
  if ! "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${MISSING[@]}" >"${apt_log}" 2>&1; then
    cat "${apt_log}" >&2
    die "apt-get install failed"
  fi
  say "installed ($(grep -c '^Setting up' "${apt_log}") packages set up)"
  rm -f "${apt_log}"
else
  say "all ${#PACKAGES[@]} packages are installed"
fi

# ---------------------------------------------------------------------------------------------
# ONNX Runtime (local recipe)
case "${ORT_MODE}" in
  root) say "ONNX Runtime: ${ONNXRUNTIME_ROOT} (given)"; exit 0 ;;
  system) say "ONNX Runtime: system libonnxruntime-dev $(dpkg-query -W -f='${Version}' libonnxruntime-dev)"; exit 0 ;;
  linked) say "ONNX Runtime: ${ORT_DIR} links to $(readlink -f "${ORT_DIR}") (left as is)"; exit 0 ;;
esac
if [[ "${NEED_ORT_FETCH}" -eq 0 ]]; then
  say "ONNX Runtime: ${ORT_DIR} is up to date ($(sed -n 2p "${ORT_DIR}/.stamp"))"
  exit 0
fi
KEYRINGS=()
for k in "${ARCHIVE_KEYRINGS[@]}"; do [[ -f "${k}" ]] && KEYRINGS+=("${k}"); done
if [[ "${#KEYRINGS[@]}" -eq 0 && -f "${FALLBACK_KEYRING}" ]]; then
  say "debian-archive-keyring has no trixie keys (needs 2023.3+deb12u2); checking with the bookworm automatic key"
  KEYRINGS=("${FALLBACK_KEYRING}")
fi
[[ "${#KEYRINGS[@]}" -gt 0 ]] || die "no Debian archive key to check ${ORT_HEADERS_SUITE} with: install debian-archive-keyring"

# The Debian archive this machine already uses (deb822 .sources first, then sources.list): the
# suite of this release, not -security or -updates.
debian_mirror() {
  if [[ -n "${MSA_DEBIAN_MIRROR:-}" ]]; then echo "${MSA_DEBIAN_MIRROR}"; return; fi
  local f
  for f in /etc/apt/sources.list.d/*.sources; do
    [[ -r "${f}" ]] || continue
    # One stanza per paragraph; print the first URI of a "deb" stanza whose Suites name the release.
    awk -v suite="${CODENAME}" '
      function flush() { if (types ~ /(^|[ \t])deb([ \t]|$)/ && (" " suites " ") ~ ("[ \t]" suite "[ \t]") && uri != "" && enabled != "no") { print uri; found = 1; exit } types = suites = uri = ""; enabled = "" }
      /^[ \t]*#/ { next }
      /^[ \t]*$/ { flush(); next }
      tolower($1) == "types:" { $1 = ""; types = $0 }
      tolower($1) == "suites:" { $1 = ""; suites = $0 }
      tolower($1) == "uris:" { uri = $2 }
      tolower($1) == "enabled:" { enabled = tolower($2) }
      END { if (!found) flush() }' "${f}"
  done | head -n1 | grep . && return
  local l
  for l in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [[ -r "${l}" ]] || continue
    # deb [options] URI SUITE COMPONENTS...
    sed -E 's/\[[^]]*\]//' "${l}" | awk -v suite="${CODENAME}" '$1 == "deb" && $3 == suite {print $2; exit}'
  done | head -n1
}

MIRROR="$(debian_mirror || true)"
[[ -n "${MIRROR}" ]] || die "found no Debian archive for '${CODENAME}' in /etc/apt/sources.list{,.d}; set MSA_DEBIAN_MIRROR to a Debian mirror URI"
command -v npm >/dev/null || die "npm not found"
command -v node >/dev/null || die "node not found"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/msa-ort.XXXXXX")"
trap 'rm -rf "${WORK}"' EXIT
say "ONNX Runtime: fetching (${ORT_RECIPE})"

# 1. The library: the npm tarball, checked against the registry's integrity (sha512) before use.
say "npm pack onnxruntime-node@${ORT_NPM_VERSION}"
expected="$(cd "${WORK}" && npm view "onnxruntime-node@${ORT_NPM_VERSION}" dist.integrity)"
[[ "${expected}" == sha512-* ]] || die "the npm registry gave no sha512 integrity for onnxruntime-node@${ORT_NPM_VERSION}"
(cd "${WORK}" && npm pack --silent --ignore-scripts "onnxruntime-node@${ORT_NPM_VERSION}" >/dev/null)
tarball="${WORK}/onnxruntime-node-${ORT_NPM_VERSION}.tgz"
[[ -f "${tarball}" ]] || die "npm pack did not write ${tarball}"
actual="$(node -e 'const c = require("crypto"), f = require("fs");
  process.stdout.write("sha512-" + c.createHash("sha512").update(f.readFileSync(process.argv[1])).digest("base64"));' "${tarball}")"
[[ "${actual}" == "${expected}" ]] || die "integrity mismatch for ${tarball}: registry ${expected}, file ${actual}"
say "tarball integrity matches the registry (${expected:0:27}...)"
so="package/bin/napi-v3/linux/x64/libonnxruntime.so.${ORT_NPM_VERSION}"
tar -xzf "${tarball}" -C "${WORK}" "${so}" || die "${so} is not in the npm package"

# 2. The headers: Debian 13's libonnxruntime-dev, downloaded with a private apt configuration
#    (own lists, cache, status and sources) so the system's apt state is untouched. apt checks the
#    InRelease signature against the trixie keys only, and the .deb against the signed index.
A="${WORK}/apt"
mkdir -p "${A}/lists/partial" "${A}/cache/archives/partial" "${A}/sources.list.d" "${A}/preferences.d"
: >"${A}/status"
cat >"${A}/sources.list.d/${ORT_HEADERS_SUITE}.sources" <<EOF
Types: deb
URIs: ${MIRROR}
Suites: ${ORT_HEADERS_SUITE}
Components: main
Architectures: ${ARCH}
Targets: Packages
Signed-By: $(IFS=,; echo "${KEYRINGS[*]}")
EOF
APT_OPTS=(
  -o "Dir::State=${A}" -o "Dir::State::Lists=${A}/lists" -o "Dir::State::status=${A}/status"
  -o "Dir::Cache=${A}/cache" -o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=${A}/sources.list.d"
  -o "Dir::Etc::Preferences=/dev/null" -o "Dir::Etc::PreferencesParts=${A}/preferences.d"
  -o "Acquire::Languages=none" -o "APT::Sandbox::User=$(id -un)"
)
say "apt-get update (private state, ${ORT_HEADERS_SUITE} from ${MIRROR})"
apt-get "${APT_OPTS[@]}" -qq update || die "could not read the ${ORT_HEADERS_SUITE} archive at ${MIRROR} (signature or network)"
hdr_version="$(apt-cache "${APT_OPTS[@]}" policy libonnxruntime-dev | awk '/Candidate:/ {print $2}')"
[[ "${hdr_version}" == "${ORT_HEADERS_UPSTREAM}"* ]] ||
  die "${ORT_HEADERS_SUITE} has libonnxruntime-dev ${hdr_version:-none}, expected ${ORT_HEADERS_UPSTREAM}x"
(cd "${WORK}" && apt-get "${APT_OPTS[@]}" -qq download "libonnxruntime-dev=${hdr_version}")
deb="$(ls "${WORK}"/libonnxruntime-dev_*.deb)"
dpkg-deb -x "${deb}" "${WORK}/hdr"
[[ -f "${WORK}/hdr/usr/include/onnxruntime/onnxruntime_cxx_api.h" ]] || die "${deb} holds no onnxruntime_cxx_api.h"

# Both halves must speak the same C API version.
api_hdr="$(sed -n 's/^#define ORT_API_VERSION \([0-9]*\).*/\1/p' "${WORK}/hdr/usr/include/onnxruntime/onnxruntime_c_api.h")"
[[ "${ORT_NPM_VERSION}" == "1.${api_hdr}."* ]] || die "header API version ${api_hdr} does not match library ${ORT_NPM_VERSION}"

# 3. Lay out .deps/onnxruntime next to the old one and swap, so a build never sees half a tree.
NEW="${ORT_DIR}.new.$$"
mkdir -p "${NEW}/include" "${NEW}/lib"
cp -a "${WORK}/hdr/usr/include/onnxruntime" "${NEW}/include/"
install -m 0644 "${WORK}/${so}" "${NEW}/lib/"
ln -s "libonnxruntime.so.${ORT_NPM_VERSION}" "${NEW}/lib/libonnxruntime.so.1"
ln -s libonnxruntime.so.1 "${NEW}/lib/libonnxruntime.so"
for d in usr/share/doc/libonnxruntime-dev/copyright; do
  [[ -f "${WORK}/hdr/${d}" ]] && install -D -m 0644 "${WORK}/hdr/${d}" "${NEW}/share/doc/copyright.debian"
done
tar -xzf "${tarball}" -C "${WORK}" package/LICENSE 2>/dev/null && install -D -m 0644 "${WORK}/package/LICENSE" "${NEW}/share/doc/LICENSE" || true
printf '%s\nlibrary onnxruntime-node@%s (%s); headers libonnxruntime-dev=%s (%s %s)\n' \
  "${ORT_RECIPE}" "${ORT_NPM_VERSION}" "${expected}" "${hdr_version}" "${MIRROR}" "${ORT_HEADERS_SUITE}" >"${NEW}/.stamp"
mkdir -p "$(dirname "${ORT_DIR}")"
if [[ -e "${ORT_DIR}" ]]; then
  rm -rf "${ORT_DIR}.old.$$"
  mv "${ORT_DIR}" "${ORT_DIR}.old.$$"
  mv "${NEW}" "${ORT_DIR}"
  rm -rf "${ORT_DIR}.old.$$"
else
  mv "${NEW}" "${ORT_DIR}"
fi
say "ONNX Runtime ${ORT_NPM_VERSION} (headers ${hdr_version}) is in ${ORT_DIR}"

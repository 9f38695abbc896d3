#!/bin/sh
# Refreshes translations/*.ts from the sources (lupdate over ui/ and app/gui/). Run it after adding
# or changing a tr() string, translate the new entries in translations/msadvisor_zh_CN.ts (Qt
# Linguist, or by hand: remove type="unfinished"), and commit both files. The build compiles
# them with lrelease; the tst_translations test fails while a zh_CN entry is untranslated.
# Also: cmake --build --preset dev --target update-translations
set -eu
cd "$(dirname "$0")/.."
LUPDATE=${LUPDATE:-}
if [ -z "$LUPDATE" ]; then
  for c in /usr/lib/qt6/bin/lupdate /usr/lib/qt6/libexec/lupdate "$(command -v lupdate6 || true)" "$(command -v lupdate || true)"; do
    if [ -n "$c" ] && [ -x "$c" ]; then LUPDATE=$c; break; fi
  done
fi
[ -n "$LUPDATE" ] || { echo "update-translations: lupdate (qt6-l10n-tools) not found" >&2; exit 1; }
for lang in zh_CN en; do
  # No source locations: they change with every edit and make merges conflict.
  "$LUPDATE" -silent -no-obsolete -locations none -source-language en -target-language "$lang" \
    -extensions cpp,h ui app/gui -ts "translations/msadvisor_$lang.ts"
done

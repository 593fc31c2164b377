#!/usr/bin/env bash
# Vendor uPlot (MIT, https://github.com/leeoniya/uPlot) into the package for `--report FILE.html`:
# the minified IIFE build, its stylesheet and its licence, fetched from the npm registry with
# `npm pack`. The committed copy in src/schedframe/sim/report/_vendor/ is what the report inlines;
# run this only to change the version (then update VERSION below and the CHANGELOG).
#   scripts/vendor-uplot.sh [VERSION]
set -euo pipefail
VERSION="${1:-1.6.32}"
cd "$(dirname "$0")/.."
DEST=src/schedframe/sim/report/_vendor
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
(cd "$TMP" && npm pack --silent "uplot@$VERSION" >/dev/null && tar -xzf "uplot-$VERSION.tgz")
cp "$TMP/package/dist/uPlot.iife.min.js" "$DEST/uPlot.iife.min.js"
cp "$TMP/package/dist/uPlot.min.css" "$DEST/uPlot.min.css"
cp "$TMP/package/LICENSE" "$DEST/uPlot.LICENSE"
echo "$VERSION" > "$DEST/uPlot.VERSION"
ls -l "$DEST"

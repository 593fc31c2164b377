#!/usr/bin/env bash
# Build the binaries the integration tests (tests/integration) run: kube-apiserver,
# kube-scheduler, kube-controller-manager and etcd, of one Kubernetes release.
#
# Everything comes from the Go module proxy: the k8s.io/kubernetes module of the release (with its
# staging modules k8s.io/* at the matching v0.MINOR.PATCH) and the etcd server module of the
# version that release's go.mod requires (go.etcd.io/etcd/server/v3, run through its etcdmain).
# A throw-away Go module under the build directory names them; `go build` compiles the commands.
#
# Idempotent: when the directory already holds binaries of the release that run, it only prints
# the directory. Output (stdout, last line): the directory holding the binaries; point
# SCHEDFRAME_KUBE_BIN at it. Progress goes to stderr.
#
# Environment:
#   SCHEDFRAME_KUBE_VERSION    the Kubernetes release (default below: the newest emulated one)
#   SCHEDFRAME_KUBE_BIN        binary directory (default ~/.cache/schedframe/kube-bin/<release>)
#   SCHEDFRAME_KUBE_BUILD      the throw-away Go module (default ~/.cache/schedframe/kube-build)
#   GOMODCACHE                 the module cache (default ~/.cache/schedframe/go-mod, as the oracle)
#   GOCACHE                    Go's build cache (Go's default, ~/.cache/go-build)
set -euo pipefail

K8S_VERSION="${SCHEDFRAME_KUBE_VERSION:-v1.37.2}"
case "$K8S_VERSION" in v*) ;; *) K8S_VERSION="v$K8S_VERSION" ;; esac
CACHE="${HOME}/.cache/schedframe"
BIN="${SCHEDFRAME_KUBE_BIN:-$CACHE/kube-bin/$K8S_VERSION}"
BUILD="${SCHEDFRAME_KUBE_BUILD:-$CACHE/kube-build}"
export GOMODCACHE="${GOMODCACHE:-$CACHE/go-mod}"
COMMANDS=(kube-apiserver kube-scheduler kube-controller-manager)

log() { echo "kube-test-binaries: $*" >&2; }

have_binaries() {
    [ -x "$BIN/etcd" ] && "$BIN/etcd" --version >/dev/null 2>&1 || return 1
    local c
    for c in "${COMMANDS[@]}"; do
        [ -x "$BIN/$c" ] && [ "$("$BIN/$c" --version 2>/dev/null)" = "Kubernetes $K8S_VERSION" ] \
            || return 1
    done
}

if have_binaries; then
    log "already built: Kubernetes $K8S_VERSION, etcd $("$BIN/etcd" --version | sed -n 's/^etcd Version: //p') in $BIN"
    echo "$BIN"
    exit 0
fi

if ! command -v go >/dev/null 2>&1; then
    log "no Go toolchain (go) on PATH: Kubernetes $K8S_VERSION is built from its Go modules"
    exit 2
fi
export GOFLAGS=-mod=mod GOTOOLCHAIN="${GOTOOLCHAIN:-local}" CGO_ENABLED=0
log "using $(go version)"
start=$(date +%s)

# --- the module ------------------------------------------------------------------------------------
log "go mod download k8s.io/kubernetes@$K8S_VERSION"
KDIR="$(go mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')"
if [ -z "$KDIR" ] || [ ! -f "$KDIR/go.mod" ]; then
    log "the Go module proxy did not serve k8s.io/kubernetes@$K8S_VERSION"
    exit 1
fi
STAGING="v0.${K8S_VERSION#v1.}"
# the etcd the release is tested with: the version of the etcd modules its go.mod requires
ETCD_VERSION="$(sed -n 's|^\tgo.etcd.io/etcd/client/v3 \(v[0-9.]*\).*|\1|p' "$KDIR/go.mod" | head -n 1)"
if [ -z "$ETCD_VERSION" ]; then
    log "no go.etcd.io/etcd/client/v3 in $KDIR/go.mod"
    exit 1
fi
MOD="$BUILD/$K8S_VERSION"
rm -rf "$MOD"
mkdir -p "$MOD/etcd" "$BIN"
{
    printf 'module schedframe.dev/kube-test-binaries\n\ngo %s\n\n' "$(sed -n 's/^go //p' "$KDIR/go.mod")"
    printf 'require (\n\tgo.etcd.io/etcd/server/v3 %s\n\tk8s.io/kubernetes %s\n)\n\n' \
        "$ETCD_VERSION" "$K8S_VERSION"
    # k8s.io/kubernetes replaces its staging modules by ./staging/...; as a dependency, each is
    # the published module of the matching version
    echo 'replace ('
    sed -n 's|^\t\(k8s.io/[a-z0-9-]*\) => ./staging/.*|\t\1 => \1 '"$STAGING"'|p' "$KDIR/go.mod"
    echo ')'
} > "$MOD/go.mod"
cat > "$MOD/etcd/main.go" <<'EOF'
// Command etcd is the etcd server of the etcd module (etcdmain) as a binary of its own.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
EOF
{
    printf '//go:build tools\n\npackage tools\n\nimport (\n'
    for c in "${COMMANDS[@]}"; do printf '\t_ "k8s.io/kubernetes/cmd/%s"\n' "$c"; done
    printf ')\n'
} > "$MOD/tools.go"
(cd "$MOD" && go mod tidy >&2)

# --- the build -------------------------------------------------------------------------------------
pkgs=(./etcd)
for c in "${COMMANDS[@]}"; do pkgs+=("k8s.io/kubernetes/cmd/$c"); done
ldflags="-s -w"
# what `--version` prints, as the release's own build stamps it (hack/lib/version.sh)
minor="${K8S_VERSION#v1.}"
minor="${minor%%.*}"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags="$ldflags -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
    ldflags="$ldflags -X $pkg.gitTreeState=clean -X $pkg.buildDate=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
done
log "go build etcd $ETCD_VERSION and ${COMMANDS[*]} $K8S_VERSION (about 15 minutes on two cores from scratch)"
out="$BIN.tmp"
rm -rf "$out"
mkdir -p "$out"
(cd "$MOD" && go build -ldflags="$ldflags" -o "$out/" "${pkgs[@]}" >&2)
for f in "$out"/*; do mv -f "$f" "$BIN/"; done
rmdir "$out"
rm -rf "$MOD"

if ! have_binaries; then
    log "built, but the binaries in $BIN do not run or are not Kubernetes $K8S_VERSION"
    exit 1
fi
log "built Kubernetes $K8S_VERSION and etcd $ETCD_VERSION in $(( $(date +%s) - start ))s"
echo "$BIN"

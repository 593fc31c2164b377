#!/usr/bin/env bash
# Build the binaries the integration tests (tests/integration) run: kube-apiserver and etcd.
#
# The test machines reach package registries only, and no prebuilt kube-apiserver is packaged
# for Debian, so kube-apiserver is compiled from Debian bookworm's *source* package
# `kubernetes` (upstream v1.20.2, with its vendored Go modules) with bookworm's Go (1.19);
# etcd is Debian's etcd-server package (3.4).  Nothing is fetched from outside deb.debian.org.
#
# Idempotent: when the cache already holds working binaries it only prints the directory.
# Output (stdout, last line): the directory holding kube-apiserver and etcd; point
# SCHEDFRAME_KUBE_BIN at it.  Progress goes to stderr.
#
# Environment:
#   SCHEDFRAME_KUBE_BIN        binary directory (default ~/.cache/schedframe/kube-bin)
#   SCHEDFRAME_KUBE_BUILD      scratch directory for the source and Go caches
#                              (default: <parent of the binary directory>/kube-build)
#   SCHEDFRAME_KUBE_DEB_VERSION  the source package version (default below)
#   SCHEDFRAME_KUBE_KEEP_BUILD=1 keep the unpacked source and Go caches afterwards
set -euo pipefail

DEB_VERSION="${SCHEDFRAME_KUBE_DEB_VERSION:-1.20.5+really1.20.2-1.1+deb12u1}"
K8S_VERSION="v1.20.2"
BIN="${SCHEDFRAME_KUBE_BIN:-${HOME}/.cache/schedframe/kube-bin}"
BUILD="${SCHEDFRAME_KUBE_BUILD:-$(dirname "$BIN")/kube-build}"

log() { echo "kube-test-binaries: $*" >&2; }

have_binaries() {
    [ -x "$BIN/kube-apiserver" ] && [ -x "$BIN/etcd" ] \
        && "$BIN/kube-apiserver" --version >/dev/null 2>&1 \
        && "$BIN/etcd" --version >/dev/null 2>&1
}

if have_binaries; then
    log "already built: $("$BIN/kube-apiserver" --version), etcd $("$BIN/etcd" --version | sed -n 's/^etcd Version: //p')"
    echo "$BIN"
    exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
    log "apt-get not found: this script needs a Debian (bookworm) system"
    exit 2
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        SUDO="sudo -n"
    else
        log "needs root (or password-less sudo) to install packages with apt-get"
        exit 2
    fi
fi
export DEBIAN_FRONTEND=noninteractive

start=$(date +%s)
mkdir -p "$BIN" "$BUILD"

# --- packages: Go, etcd, dpkg-source ------------------------------------------------------------
need=()
command -v go >/dev/null 2>&1 || [ -x /usr/lib/go/bin/go ] || need+=(golang-go)
[ -x /usr/bin/etcd ] || need+=(etcd-server)
command -v dpkg-source >/dev/null 2>&1 || need+=(dpkg-dev)
if [ "${#need[@]}" -gt 0 ]; then
    log "apt-get install ${need[*]}"
    if ! $SUDO apt-get install -y -q --no-install-recommends "${need[@]}" >&2; then
        $SUDO apt-get update -q >&2
        $SUDO apt-get install -y -q --no-install-recommends "${need[@]}" >&2
    fi
fi
GO="$(command -v go || echo /usr/lib/go/bin/go)"
log "using $("$GO" version)"

# --- the source package ---------------------------------------------------------------------------
SRC="$BUILD/kubernetes-$DEB_VERSION"
if [ ! -f "$SRC/.unpacked" ]; then
    if ! apt-cache showsrc kubernetes 2>/dev/null | grep -qx "Version: $DEB_VERSION"; then
        if ! grep -rqs '^\(Types: *deb-src\|deb-src \)' /etc/apt/sources.list /etc/apt/sources.list.d/; then
            log "adding deb-src entries for bookworm"
            printf '%s\n' 'Types: deb-src' 'URIs: http://deb.debian.org/debian' \
                'Suites: bookworm bookworm-updates' 'Components: main' \
                'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' '' \
                'Types: deb-src' 'URIs: http://deb.debian.org/debian-security' \
                'Suites: bookworm-security' 'Components: main' \
                'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' \
                | $SUDO tee /etc/apt/sources.list.d/schedframe-debsrc.sources >/dev/null
        fi
        $SUDO apt-get update -q >&2
    fi
    dl="$BUILD/dl"
    rm -rf "$dl" "$SRC"
    mkdir -p "$dl"
    log "apt-get source kubernetes=$DEB_VERSION"
    # apt-get source drops privileges to _apt for the download when it can: let it write here.
    chmod 0777 "$dl" 2>/dev/null || true
    (cd "$dl" && apt-get source -q --download-only "kubernetes=$DEB_VERSION" >&2)
    dsc="$(ls "$dl"/kubernetes_*.dsc)"
    # the .dsc's checksums were checked by apt against the signed Release files; unpack + patch
    dpkg-source --no-check -x "$dsc" "$SRC.tmp" >&2
    mv "$SRC.tmp" "$SRC"
    touch "$SRC/.unpacked"
    rm -rf "$dl"
fi

# --- build kube-apiserver only ---------------------------------------------------------------------
# Kubernetes 1.20 builds in GOPATH mode with its vendor/ tree (hack/lib/init.sh sets
# GO111MODULE=off); in module mode Go >= 1.17 rejects its go.mod ("updates to go.mod needed").
log "go build ./cmd/kube-apiserver (this takes a while)"
GOPATH_DIR="$BUILD/gopath"
mkdir -p "$GOPATH_DIR/src/k8s.io"
ln -sfn "$SRC" "$GOPATH_DIR/src/k8s.io/kubernetes"
ldflags="-s -w"
for pkg in k8s.io/kubernetes/vendor/k8s.io/component-base/version \
    k8s.io/kubernetes/vendor/k8s.io/client-go/pkg/version; do
    ldflags="$ldflags -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=20"
    ldflags="$ldflags -X $pkg.gitTreeState=clean -X $pkg.buildDate=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
done
(
    cd "$GOPATH_DIR/src/k8s.io/kubernetes"
    export PWD="$GOPATH_DIR/src/k8s.io/kubernetes"
    export GO111MODULE=off GOFLAGS="" CGO_ENABLED=0 GOTOOLCHAIN=local GOPROXY=off \
        GOPATH="$GOPATH_DIR" GOCACHE="$BUILD/gocache"
    # pkg/generated/openapi/zz_generated.openapi.go is generated at build time (the gen_openapi
    # target of Makefile.generated_files): openapi-gen over every package of the tree (staging
    # named as vendor/k8s.io/...) tagged +k8s:openapi-gen, except code-generator's and
    # sample-apiserver's.
    if [ ! -f pkg/generated/openapi/zz_generated.openapi.go ]; then
        log "openapi-gen for pkg/generated/openapi"
        "$GO" build -o "$BUILD/openapi-gen" ./vendor/k8s.io/kube-openapi/cmd/openapi-gen >&2
        dirs="$(find -H . \( -path './_*' -o -path './.*' -o -path ./vendor -o -path ./debian \) -prune \
                -o -type f -name '*.go' -print \
            | xargs grep -l --color=never '^// *+k8s:' | xargs grep -l --color=never '+k8s:openapi-gen=' \
            | xargs -n1 dirname | sed 's|^\./staging/src/|vendor/|; s|^\./||' \
            | grep -v -e '^vendor/k8s.io/code-generator/' -e '^vendor/k8s.io/sample-apiserver/' \
            | LC_ALL=C sort -u | sed 's|^|k8s.io/kubernetes/|' | paste -sd, -)"
        "$BUILD/openapi-gen" --logtostderr -i "$dirs" -p k8s.io/kubernetes/pkg/generated/openapi \
            -O zz_generated.openapi -h vendor/k8s.io/code-generator/hack/boilerplate.go.txt \
            -r "$BUILD/openapi-violations.report" >&2
    fi
    "$GO" build -trimpath -ldflags="$ldflags" -o "$BIN/kube-apiserver.tmp" ./cmd/kube-apiserver >&2
)
mv "$BIN/kube-apiserver.tmp" "$BIN/kube-apiserver"
ln -sf /usr/bin/etcd "$BIN/etcd"

if [ "${SCHEDFRAME_KUBE_KEEP_BUILD:-0}" != 1 ]; then
    chmod -R u+w "$BUILD" 2>/dev/null || true
    rm -rf "$BUILD"
fi

if ! have_binaries; then
    log "built, but the binaries do not run"
    exit 1
fi
log "built $("$BIN/kube-apiserver" --version) in $(( $(date +%s) - start ))s"
echo "$BIN"

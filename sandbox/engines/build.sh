#!/usr/bin/env bash
# Builds the sandbox's engines from their Go modules (one module per engine in this
# folder, go.sum committed) into a cache outside the clone, keyed by a hash of the
# engine's go.mod and go.sum, the Go version, the flags and the folder's own Go sources and
# hook.sh: a second run builds nothing.
# Called by `gpufleet sandbox build` and by scripts/test.sh before the e2e tier.
# Usage: bash sandbox/engines/build.sh [--check] [ENGINE... | --with ENGINE...]
# Default: every engine folder but those holding an `opt-in` file (an engine only a test tier
# uses: pulumi-yaml), which are built when named; `--with NAME...` builds the default ones and those.
# An ENGINE with a slash is a folder elsewhere (a bench-only engine such as
# bench/engines/gatekeeper, which the default list never builds); it shares the cache.
# Prints one line per engine: NAME DIR (the folder holding its binaries). With --check
# nothing is built: an engine not built yet prints NAME - and the exit code is 4.
# Progress goes to stderr, one line when an engine starts building and one when it is
# done or found cached (`== kube: built in 326 s`, `== kube: cached`); the output of
# `go build` (its `go: downloading` lines) goes to a log file under the cache, whose
# path and last lines are printed when a build fails.
# An engine folder may hold hook.sh: the build then runs in a copy of the folder under
# the cache, `bash hook.sh pre` first (to write files a main embeds) and
# `bash hook.sh post OUT` after (to put scripts beside the binaries).
set -euo pipefail
check=0
if [ "${1:-}" = "--check" ]; then check=1; shift; fi
here=$(cd "$(dirname "$0")" && pwd)
. "$here/cold-build.env"  # BUILD_GB, BUILD_MINUTES (gpufleet/sandbox/needs.py reads them too)
# The oldest Go that builds every engine: the newest `go` directive of their go.mod files (as needs.py computes it).
gomin=$(awk '$1 == "go" {print $2}' "$here"/*/go.mod 2>/dev/null | sort -V | tail -n 1 || true)
cache=${GPUFLEET_ENGINES_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gpufleet/engines}
export GOMODCACHE=${GOMODCACHE_OVERRIDE:-$cache/gomod}
export GOCACHE=$cache/gobuild
export GOFLAGS=-mod=mod
export CGO_ENABLED=0
export GOTOOLCHAIN=local
# The compiler and linker collect garbage a quarter as often (the action cache's keys leave GOGC out, so cached
# builds stay valid): a cold compile then spends about a fifth less CPU (bench/engine_build_gc.py, docs/sandbox.md), and
# GOMEMLIMIT makes a process that reaches 3 GiB collect as usual again, so the largest packages stay bounded.
export GOGC=${GOGC:-400}
export GOMEMLIMIT=${GOMEMLIMIT:-3GiB}
command -v go >/dev/null 2>&1 || { echo "sandbox/engines/build.sh: Go is not on PATH; install Go $gomin or newer (about $BUILD_GB GB of disk under $cache for a cold build)" >&2; exit 3; }
gover=$(go env GOVERSION)
failed() {  # NAME LOG STEP: say which step of which engine failed, where its full output is, and its end
  echo "== $1: FAILED ($3); full output: $2" >&2
  tail -n 20 "$2" >&2
  exit 1
}
defaults() {  # every engine folder without an opt-in file; those with a `late` file last (the sandbox's engines first)
  (cd "$here" && for late in no yes; do
     for d in */; do
       if [ -f "$d/opt-in" ]; then continue; fi
       if [ -f "$d/late" ]; then is=yes; else is=no; fi
       if [ "$is" = "$late" ]; then echo "${d%/}"; fi
     done
   done)
}
if [ "${1:-}" = "--with" ]; then
  shift; engines=($(defaults) "$@")
else
  engines=("$@")
  [ ${#engines[@]} -gt 0 ] || engines=($(defaults))
fi
for name in "${engines[@]}"; do
  case "$name" in
    */*) [ -d "$name" ] || { echo "build.sh: no engine folder '$name'" >&2; exit 2; }
         dir=$(cd "$name" && pwd); name=$(basename "$dir") ;;
    *) dir=$here/$name ;;
  esac
  [ -f "$dir/go.mod" ] || { echo "build.sh: no engine '$name' (no $dir/go.mod)" >&2; exit 2; }
  ldflags=$(cat "$dir/ldflags" 2>/dev/null || true)
  # Our own sources (a main, hook.sh) count too; an engine without them keeps its key.
  own=$(cd "$dir" && find . \( -name '*.go' -o -name hook.sh \) -type f | LC_ALL=C sort)
  key=$( { cat "$dir/go.mod" "$dir/go.sum"; echo "$gover $ldflags"; [ -z "$own" ] || (cd "$dir" && cat $own); } \
         | sha256sum | cut -c1-16)
  out=$cache/bin/$name-$key
  if [ ! -f "$out/.complete" ] && [ $check = 1 ]; then
    echo "$name -"; missing=1; continue
  fi
  if [ -f "$out/.complete" ]; then
    [ $check = 1 ] || echo "== $name: cached" >&2
  else
    mkdir -p "$out" "$cache/logs"
    log=$cache/logs/$name-$key.log
    : > "$log"
    echo "== $name: building (log: $log)" >&2
    tools=$(cd "$dir" && awk '/^tool \(/{t=1;next} t&&/^\)/{t=0} t{print $1} /^tool [^(]/{print $2}' go.mod)
    start=$(date +%s)
    src=$dir
    if [ -f "$dir/hook.sh" ]; then
      src=$cache/src/$name-$key
      rm -rf "$src" && mkdir -p "$src" && cp -R "$dir/." "$src/"
      (cd "$src" && bash hook.sh pre) >>"$log" 2>&1 || failed "$name" "$log" "hook.sh pre"
    fi
    for pkg in $tools; do
      bin=$(basename "$pkg")
      case "$bin" in v[0-9]*) bin=$(awk -v p="$pkg" '$1 == "//" && $2 == "binary" && $3 == p {print $4}' "$dir/go.mod") ;; esac
      [ -n "$bin" ] || { echo "build.sh: $name: name the binary of $pkg with a '// binary $pkg NAME' line in go.mod" >&2; exit 2; }
      [ -x "$out/$bin" ] && continue
      echo "== go build $pkg" >>"$log"
      (cd "$src" && go build -trimpath -ldflags "$ldflags" -o "$out/$bin.tmp" "$pkg") >>"$log" 2>&1 \
        || failed "$name" "$log" "go build $pkg"
      mv "$out/$bin.tmp" "$out/$bin"
    done
    [ ! -f "$dir/hook.sh" ] || { (cd "$src" && bash hook.sh post "$out") >>"$log" 2>&1 || failed "$name" "$log" "hook.sh post"; }
    seconds=$(( $(date +%s) - start ))
    echo "$seconds" > "$out/.seconds"
    touch "$out/.complete"
    echo "== $name: built in $seconds s" >&2
  fi
  echo "$name $out"
done
[ "${missing:-0}" = 0 ] || exit 4

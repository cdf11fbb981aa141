#!/usr/bin/env bash
# Called by ../build.sh: after the build, puts the Python SDK's exec shim
# (python/cmd/pulumi-language-python-exec in the sdk/v3 module) beside the language
# host, where the host looks for it, as the upstream release does.
# Usage (by build.sh): bash hook.sh post OUT   (GOMODCACHE set, cwd = a copy of this folder)
set -euo pipefail
[ "${1:-}" = post ] || exit 0
module=github.com/pulumi/pulumi/sdk/v3
go mod download "$module"  # `go list -m` names no directory for a module not in the cache
sdk=$(go list -m -f '{{.Dir}}' "$module")
[ -n "$sdk" ] && [ -f "$sdk/python/cmd/pulumi-language-python-exec" ] \
  || { echo "hook.sh: $module has no python/cmd/pulumi-language-python-exec in the module cache (dir '${sdk}')" >&2; exit 1; }
install -m 0755 "$sdk/python/cmd/pulumi-language-python-exec" "$2/pulumi-language-python-exec"

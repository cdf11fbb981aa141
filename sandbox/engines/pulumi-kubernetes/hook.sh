#!/usr/bin/env bash
# Called by ../build.sh in a copy of this folder, before `go build`: writes the two files
# the provider's main embeds, as the upstream release build does (its generate.go): the
# module's schema.json with "version" set, and terraform-mapping.json, both compacted.
# Usage (by build.sh): bash hook.sh pre   (GOMODCACHE set, cwd = the copy)
set -euo pipefail
[ "${1:-}" = pre ] || exit 0
version=4.25.0
module=github.com/pulumi/pulumi-kubernetes/provider/v4
# On a cold module cache `go list -m` names no directory (it does not download): fetch the
# module first (from the Go module proxy, checked against go.sum), as `go build` would.
go mod download "$module"
dir=$(go list -m -f '{{.Dir}}' "$module")
[ -n "$dir" ] && [ -f "$dir/cmd/pulumi-resource-kubernetes/schema.json" ] \
  || { echo "hook.sh: $module has no cmd/pulumi-resource-kubernetes/schema.json in the module cache (dir '${dir}')" >&2; exit 1; }
out=cmd/pulumi-resource-kubernetes
python3 - "$dir/cmd/pulumi-resource-kubernetes" "$out" "$version" <<'PY'
import json, sys
src, out, version = sys.argv[1:4]
schema = json.load(open(f"{src}/schema.json"))
schema["version"] = version
json.dump(schema, open(f"{out}/schema-embed.json", "w"), separators=(",", ":"))
mapping = json.load(open(f"{src}/terraform-mapping.json"))
json.dump(mapping, open(f"{out}/terraform-mapping-embed.json", "w"), separators=(",", ":"))
PY

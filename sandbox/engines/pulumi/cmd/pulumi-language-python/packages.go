// GetRequiredPackages for gpufleet's language host: the resource plugins the program's
// virtualenv needs, read from each installed package's pulumi-plugin.json as the
// upstream host does (a package whose file says "resource": false needs none; without
// the file, a "pulumi-NAME" distribution needs the plugin NAME at its own version).
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// Distributions known to have no plugin (the upstream host's packagesWithoutPlugins).
var withoutPlugins = map[string]bool{"pulumi-policy": true, "pulumi-esc-sdk": true, "pulumi": true}

// listScript prints one JSON object per installed distribution that is a Pulumi package:
// its name and version and, when it ships one, its pulumi-plugin.json.
const listScript = `import importlib.metadata as md, json, os
out = []
for dist in md.distributions():
    name = (dist.metadata["Name"] or "").lower().replace("_", "-")
    plugin = None
    for f in dist.files or []:
        parts = f.parts
        if len(parts) == 2 and parts[1] == "pulumi-plugin.json":
            with open(dist.locate_file(f)) as fh:
                plugin = json.load(fh)
            break
    if plugin is not None or name.startswith("pulumi-"):
        out.append({"name": name, "version": dist.version, "plugin": plugin})
print(json.dumps(out))`

type pluginJSON struct {
	Resource bool   `json:"resource"`
	Name     string `json:"name"`
	Version  string `json:"version"`
	Server   string `json:"server"`
}

type distribution struct {
	Name    string      `json:"name"`
	Version string      `json:"version"`
	Plugin  *pluginJSON `json:"plugin"`
}

func (h *languageHost) GetRequiredPackages(ctx context.Context,
	req *pulumirpc.GetRequiredPackagesRequest,
) (*pulumirpc.GetRequiredPackagesResponse, error) {
	tc, err := venv(ctx, req.Info)
	if err != nil {
		return nil, err
	}
	cmd, err := tc.Command(ctx, "-c", listScript)
	if err != nil {
		return nil, err
	}
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("listing the virtualenv's Pulumi packages: %w", err)
	}
	var dists []distribution
	if err := json.Unmarshal(out, &dists); err != nil {
		return nil, fmt.Errorf("reading the virtualenv's Pulumi packages: %w", err)
	}
	var packages []*pulumirpc.PackageDependency
	for _, d := range dists {
		if dep := dependency(d); dep != nil {
			packages = append(packages, dep)
		}
	}
	return &pulumirpc.GetRequiredPackagesResponse{Packages: packages}, nil
}

// dependency is the plugin one distribution needs, or nil.
func dependency(d distribution) *pulumirpc.PackageDependency {
	if withoutPlugins[d.Name] || (d.Plugin != nil && !d.Plugin.Resource) {
		return nil
	}
	name, version, server := strings.TrimPrefix(d.Name, "pulumi-"), d.Version, ""
	if d.Plugin != nil {
		if d.Plugin.Name != "" {
			name = d.Plugin.Name
		}
		if d.Plugin.Version != "" {
			version = d.Plugin.Version
		}
		server = d.Plugin.Server
	}
	if strings.ContainsAny(version, "abr") || strings.Count(version, ".") != 2 {
		return nil // a pre-release or short PEP 440 version names no plugin version
	}
	if !strings.HasPrefix(version, "v") {
		version = "v" + version
	}
	return &pulumirpc.PackageDependency{Name: name, Version: version, Kind: "resource", Server: server}
}

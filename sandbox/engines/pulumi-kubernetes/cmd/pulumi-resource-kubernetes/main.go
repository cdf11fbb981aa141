// The Pulumi Kubernetes provider's main, for gpufleet sandbox: the upstream main of
// provider/v4 (cmd/pulumi-resource-kubernetes) embeds schema-embed.json and
// terraform-mapping-embed.json, which its release build generates and the module does
// not carry. sandbox/engines/pulumi-kubernetes/hook.sh writes both into a copy of this
// folder (from the module's schema.json, with the version set) before `go build`.
package main

import (
	_ "embed"

	"github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/provider"
	"github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/version"
)

//go:embed schema-embed.json
var pulumiSchema []byte

//go:embed terraform-mapping-embed.json
var terraformMapping []byte

func main() {
	provider.Serve("kubernetes", version.Version, pulumiSchema, terraformMapping)
}

// InstallDependencies for gpufleet's language host, which `pulumi install` and
// `pulumi package add DIR` call for a Python plugin folder (and a program): a virtualenv
// that is valid already (the one PulumiPlugin.yaml names, where gpufleet[pulumi] is
// installed) is used as it is; otherwise the SDK's toolchain creates it and installs the
// folder's requirements.txt, as the upstream host does.
package main

import (
	"fmt"

	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"github.com/pulumi/pulumi/sdk/v3/python/toolchain"
)

func (h *languageHost) InstallDependencies(req *pulumirpc.InstallDependenciesRequest,
	server pulumirpc.LanguageRuntime_InstallDependenciesServer,
) error {
	ctx := server.Context()
	opts, err := options(req.Info, req.IsPlugin)
	if err != nil {
		return err
	}
	tc, err := toolchain.ResolveToolchain(opts)
	if err != nil {
		return err
	}
	closer, stdout, stderr, err := rpcutil.MakeInstallDependenciesStreams(server, req.IsTerminal)
	if err != nil {
		return err
	}
	defer closer.Close()
	if tc.ValidateVenv(ctx) == nil {
		fmt.Fprintf(stdout, "the virtualenv %s is ready; nothing to install\n", opts.Virtualenv)
		return closer.Close()
	}
	if err := tc.InstallDependencies(ctx, req.Info.RootDirectory, req.UseLanguageVersionTools, true, stdout, stderr); err != nil {
		return err
	}
	return closer.Close()
}

// RunPlugin for gpufleet's language host, as the upstream host does for the two kinds of
// Python plugin gpufleet ships:
//   - a policy pack (kind analyzer): `python -u -m pulumi.policy ARGS... PACKDIR` in the
//     pack's virtualenv and directory, behind the SDK's policy proxy, which hands the pack
//     the stack's configuration (PULUMI_CONFIG, PULUMI_STACK, ...) before it starts;
//   - a component provider (kind resource, a folder with PulumiPlugin.yaml and __main__.py,
//     such as the one `gpufleet pulumi-package` writes): `python PLUGINDIR ARGS...` in the
//     plugin's virtualenv ("venv" when PulumiPlugin.yaml names none), in the working
//     directory of the program that uses it (the request's Pwd), so relative paths in the
//     component's inputs mean what they mean to that program.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"

	sdk "github.com/pulumi/pulumi/sdk/v3"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"github.com/pulumi/pulumi/sdk/v3/python/toolchain"
)

func (h *languageHost) RunPlugin(req *pulumirpc.RunPluginRequest,
	server pulumirpc.LanguageRuntime_RunPluginServer,
) error {
	switch req.Kind {
	case string(apitype.AnalyzerPlugin):
		return runPolicyPack(req, server)
	case string(apitype.ResourcePlugin):
		return runProvider(req, server)
	}
	return fmt.Errorf("gpufleet's language host runs policy packs and component providers only, not a %s plugin", req.Kind)
}

// runProvider runs a component provider's __main__.py; its exit code goes back to the CLI.
func runProvider(req *pulumirpc.RunPluginRequest, server pulumirpc.LanguageRuntime_RunPluginServer) error {
	cmd, out, err := python(req, server, true, append([]string{req.Info.ProgramDirectory}, req.Args...))
	if err != nil {
		return err
	}
	defer out.closer.Close()
	cmd.Dir = req.Pwd
	cmd.Env = append(cmd.Env, req.Env...)
	cmd.Stdout, cmd.Stderr = out.stdout, out.stderr
	if err := cmd.Run(); err != nil {
		return exited(server, err, "could not run the component provider")
	}
	return out.closer.Close()
}

// streams carry a plugin's output back to the CLI; closing them ends the run's output.
type streams struct {
	closer         io.Closer
	stdout, stderr io.Writer
}

// python is the plugin's Python command (its virtualenv's, "venv" by default for a
// resource plugin), with the host's environment, and the streams its output goes to.
// The caller closes the streams.
func python(req *pulumirpc.RunPluginRequest, server pulumirpc.LanguageRuntime_RunPluginServer, isPlugin bool,
	args []string,
) (*exec.Cmd, streams, error) {
	opts, err := options(req.Info, isPlugin)
	if err != nil {
		return nil, streams{}, err
	}
	tc, err := toolchain.ResolveToolchain(opts)
	if err != nil {
		return nil, streams{}, err
	}
	cmd, err := tc.Command(server.Context(), args...)
	if err != nil {
		return nil, streams{}, err
	}
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	closer, stdout, stderr, err := rpcutil.MakeRunPluginStreams(server, false)
	if err != nil {
		return nil, streams{}, err
	}
	return cmd, streams{closer, stdout, stderr}, nil
}

// exited reports a plugin's non-zero exit code to the CLI, or fails with what went wrong.
func exited(server pulumirpc.LanguageRuntime_RunPluginServer, err error, what string) error {
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return server.Send(&pulumirpc.RunPluginResponse{
			Output: &pulumirpc.RunPluginResponse_Exitcode{Exitcode: int32(exit.ExitCode())},
		})
	}
	return fmt.Errorf("%s: %w", what, err)
}

// runPolicyPack runs a policy pack behind the SDK's policy proxy.
func runPolicyPack(req *pulumirpc.RunPluginRequest, server pulumirpc.LanguageRuntime_RunPluginServer) error {
	ctx := server.Context()
	args := append([]string{"-u", "-m", "pulumi.policy"}, req.Args...)
	cmd, out, err := python(req, server, false, append(args, req.Info.ProgramDirectory))
	if err != nil {
		return err
	}
	defer out.closer.Close()
	cmd.Dir = req.Info.ProgramDirectory
	proxy, stdout, err := sdk.NewPolicyProxy(ctx, out.stdout)
	if err != nil {
		return fmt.Errorf("could not start the policy pack proxy: %w", err)
	}
	cfg, err := proxy.AwaitConfiguration(ctx)
	if err != nil {
		return fmt.Errorf("could not get the stack configuration: %w", err)
	}
	env, err := stackEnv(cfg)
	if err != nil {
		return err
	}
	cmd.Env = append(append(cmd.Env, env...), req.Env...)
	cmd.Stdout, cmd.Stderr = stdout, out.stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("could not run the policy pack: %w", err)
	}
	if err := proxy.Attach(ctx, cmd); err != nil {
		return exited(server, err, "could not attach the policy pack proxy")
	}
	return out.closer.Close()
}

// stackEnv is the environment a policy pack reads its stack's configuration from.
func stackEnv(cfg *pulumirpc.AnalyzerStackConfigureRequest) ([]string, error) {
	if cfg == nil {
		return nil, nil
	}
	var env []string
	add := func(k, v string) {
		if v != "" {
			env = append(env, k+"="+v)
		}
	}
	add("PULUMI_ORGANIZATION", cfg.Organization)
	add("PULUMI_PROJECT", cfg.Project)
	add("PULUMI_STACK", cfg.Stack)
	add("PULUMI_DRY_RUN", strconv.FormatBool(cfg.DryRun))
	if cfg.Config != nil {
		b, err := json.Marshal(cfg.Config)
		if err != nil {
			return nil, fmt.Errorf("could not marshal the stack configuration: %w", err)
		}
		add("PULUMI_CONFIG", string(b))
	}
	return env, nil
}

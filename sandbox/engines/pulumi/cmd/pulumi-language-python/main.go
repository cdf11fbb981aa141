// gpufleet's Python language host for the Pulumi CLI (pulumi-language-python), used by the
// real `pulumi up`, `preview --policy-pack` and `destroy` against gpufleet sandbox.
//
// Why our own: the upstream host is its own Go module
// (github.com/pulumi/pulumi/sdk/python/cmd/pulumi-language-python/v3) with no tags, and the
// Go module proxy serves no version of it, while the SDK module it is built on is served.
// This host implements the part of the LanguageRuntime service that running a program and
// a policy pack needs, on the SDK's own pieces (the Python toolchain, the policy proxy,
// the plugin streams). It runs programs through pulumi-language-python-exec, the shim the
// SDK module ships and build.sh puts beside this binary, exactly as the upstream host
// does: same arguments, same PULUMI_CONFIG variables, same exit-code handling.
// It also runs the two kinds of Python plugin gpufleet ships, a policy pack and the
// component provider of `gpufleet pulumi-package` (plugin.go), and installs a plugin's
// or a program's dependencies (install.go).
// Not implemented (the CLI gets Unimplemented): code generation, Pack, Link, debugging,
// typecheckers, and other kinds of plugin.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"time"

	"github.com/pulumi/pulumi/sdk/v3/go/common/util/cmdutil"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/logging"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	"github.com/pulumi/pulumi/sdk/v3/go/common/version"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"github.com/pulumi/pulumi/sdk/v3/python/toolchain"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/emptypb"
)

// The exec shim's exit code after it has shown the user an actionable message (the
// upstream host's pythonProcessExitedAfterShowingUserActionableMessage).
const bailExitCode = 32

func main() {
	showVersion := flag.Bool("version", false, "print the plugin version and exit")
	tracing := flag.String("tracing", "", "tracing endpoint (passed on to the program)")
	executor := flag.String("use-executor", "", "the exec shim to run programs with")
	// Older plugin hosts (the one inside pulumi-language-yaml, on SDK v3.206.0) pass the
	// runtime options as flags (-virtualenv=..., -toolchain=..., -root=...), as the upstream
	// host accepts them; every request carries the same options, which are what is used.
	for _, name := range []string{"virtualenv", "toolchain", "typechecker", "root"} {
		flag.String(name, "", "ignored: the request's program info carries it")
	}
	flag.Parse()
	if *showVersion {
		fmt.Println(version.Version)
		return
	}
	logging.InitLogging(false, 0, false)
	shim, err := findShim(*executor)
	if err != nil {
		cmdutil.Exit(err)
	}
	host := &languageHost{exec: shim, tracing: *tracing}
	if args := flag.Args(); len(args) > 0 {
		host.engineAddress = args[0]
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt)
	done := make(chan bool)
	go func() { <-ctx.Done(); cancel(); close(done) }()
	if host.engineAddress != "" {
		if err := rpcutil.Healthcheck(ctx, host.engineAddress, 5*time.Minute, cancel); err != nil {
			cmdutil.Exit(fmt.Errorf("could not start the health check: %w", err))
		}
	}
	handle, err := rpcutil.ServeWithOptions(rpcutil.ServeOptions{
		Cancel: done,
		Init: func(srv *grpc.Server) error {
			pulumirpc.RegisterLanguageRuntimeServer(srv, host)
			return nil
		},
	})
	if err != nil {
		cmdutil.Exit(fmt.Errorf("could not start the language host: %w", err))
	}
	fmt.Printf("%d\n", handle.Port)
	if err := <-handle.Done; err != nil {
		cmdutil.Exit(fmt.Errorf("language host stopped serving: %w", err))
	}
}

// findShim returns the exec shim: the one given, or pulumi-language-python-exec beside
// this binary.
func findShim(given string) (string, error) {
	if given != "" {
		return given, nil
	}
	self, err := os.Executable()
	if err != nil {
		return "", err
	}
	shim := filepath.Join(filepath.Dir(self), "pulumi-language-python-exec")
	if _, err := os.Stat(shim); err != nil {
		return "", fmt.Errorf("missing executor %s: %w", shim, err)
	}
	return shim, nil
}

type languageHost struct {
	pulumirpc.UnimplementedLanguageRuntimeServer
	exec          string
	engineAddress string
	tracing       string
}

func (h *languageHost) Handshake(ctx context.Context,
	req *pulumirpc.LanguageHandshakeRequest,
) (*pulumirpc.LanguageHandshakeResponse, error) {
	h.engineAddress = req.EngineAddress
	hc, cancel := context.WithCancel(context.Background())
	if err := rpcutil.Healthcheck(hc, h.engineAddress, 5*time.Minute, cancel); err != nil {
		return nil, fmt.Errorf("could not start the health check: %w", err)
	}
	return &pulumirpc.LanguageHandshakeResponse{}, nil
}

func (h *languageHost) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: version.Version}, nil
}

func (h *languageHost) Cancel(context.Context, *emptypb.Empty) (*emptypb.Empty, error) {
	return &emptypb.Empty{}, nil
}

// options reads the project's runtime options (virtualenv, toolchain) as the upstream
// host does; a plugin without a virtualenv option gets "venv".
func options(info *pulumirpc.ProgramInfo, isPlugin bool) (toolchain.PythonOptions, error) {
	opts := toolchain.PythonOptions{Root: info.RootDirectory, ProgramDir: info.ProgramDirectory}
	raw := info.Options.AsMap()
	if v, ok := raw["virtualenv"]; ok {
		s, ok := v.(string)
		if !ok {
			return opts, errors.New("virtualenv option must be a string")
		}
		opts.Virtualenv = s
	}
	switch raw["toolchain"] {
	case nil, "pip":
		opts.Toolchain = toolchain.Pip
	case "uv":
		opts.Toolchain = toolchain.Uv
	case "poetry":
		opts.Toolchain = toolchain.Poetry
	default:
		return opts, fmt.Errorf("unsupported toolchain option: %v", raw["toolchain"])
	}
	if isPlugin && opts.Virtualenv == "" {
		opts.Virtualenv = "venv"
	}
	return opts, nil
}

// venv is the project's Python toolchain, its virtualenv checked to exist.
func venv(ctx context.Context, info *pulumirpc.ProgramInfo) (toolchain.Toolchain, error) {
	opts, err := options(info, false)
	if err != nil {
		return nil, err
	}
	tc, err := toolchain.ResolveToolchain(opts)
	if err != nil {
		return nil, err
	}
	return tc, tc.ValidateVenv(ctx)
}

func (h *languageHost) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	tc, err := venv(ctx, req.Info)
	if err != nil {
		return nil, err
	}
	cmd, err := tc.Command(ctx, append([]string{h.exec}, h.arguments(req)...)...)
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 5 * time.Second
	env, err := configEnv(req)
	if err != nil {
		return nil, err
	}
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, env...)
	if err := cmd.Run(); err != nil {
		_ = os.Stdout.Sync()
		_ = os.Stderr.Sync()
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			return &pulumirpc.RunResponse{Error: fmt.Sprintf(
				"problem executing program (could not run language executor): %v", err)}, nil
		}
		if exit.ExitCode() == bailExitCode {
			return &pulumirpc.RunResponse{Bail: true}, nil
		}
		return &pulumirpc.RunResponse{Error: fmt.Sprintf(
			"program exited with non-zero exit code: %d", exit.ExitCode())}, nil
	}
	return &pulumirpc.RunResponse{}, nil
}

// arguments is the exec shim's command line, in the upstream host's order.
func (h *languageHost) arguments(req *pulumirpc.RunRequest) []string {
	var args []string
	add := func(k, v string) {
		if v != "" {
			args = append(args, "--"+k, v)
		}
	}
	add("monitor", req.GetMonitorAddress())
	add("engine", h.engineAddress)
	add("project", req.GetProject())
	add("root_directory", req.GetInfo().RootDirectory)
	add("stack", req.GetStack())
	add("pwd", req.GetPwd())
	add("dry_run", strconv.FormatBool(req.GetDryRun()))
	add("parallel", strconv.Itoa(int(req.GetParallel())))
	add("tracing", h.tracing)
	add("organization", req.GetOrganization())
	args = append(args, req.Info.EntryPoint)
	return append(args, req.GetArgs()...)
}

// configEnv carries the stack's configuration to the program, as the upstream host does.
func configEnv(req *pulumirpc.RunRequest) ([]string, error) {
	var env []string
	if cfg := req.GetConfig(); cfg != nil {
		b, err := json.Marshal(cfg)
		if err != nil {
			return nil, fmt.Errorf("failed to serialize configuration: %w", err)
		}
		env = append(env, "PULUMI_CONFIG="+string(b))
	}
	keys := req.GetConfigSecretKeys()
	if keys == nil {
		keys = []string{}
	}
	b, err := json.Marshal(keys)
	if err != nil {
		return nil, fmt.Errorf("failed to serialize configuration secret keys: %w", err)
	}
	return append(env, "PULUMI_CONFIG_SECRET_KEYS="+string(b)), nil
}

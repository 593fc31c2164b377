// Command oracle runs the real kube-scheduler of one Kubernetes release in-process on a case
// file and prints every decision it takes, for schedframe's differential tests
// (scripts/oracle; docs/fidelity.rst).
//
//	oracle run [--feature-gates A=true,B=false] CASE...   decisions, one JSON object per case and line
//	oracle facts [--feature-gates ...]                              the release's feature gates and
//	                                                                defaulted configuration
//	oracle bench [--feature-gates ...] [--parallelism N] CASE       the scheduler's throughput and
//	                                                                latency over the case's pending
//	                                                                pods (bench.go), one JSON object
//
// A case is a `kubectl get -o yaml`-style List: Nodes, bound Pods (spec.nodeName set) and the
// other objects the plugins read, then pending Pods, scheduled one at a time in file order. An
// optional KubeSchedulerConfiguration item configures the scheduler.
//
// Kubernetes is a dependency of this module, not copied into it: the scheduler, its framework
// runtime, its default registry and its configuration defaulting and validation are the
// release's own.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"k8s.io/klog/v2"
)

func usage() {
	fmt.Fprintln(os.Stderr, "usage: oracle run [--feature-gates GATES] CASE... | oracle facts [--feature-gates GATES] | oracle bench [--feature-gates GATES] [--parallelism N] CASE")
	os.Exit(2)
}

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	// the scheduler's own logs would drown the record; errors reach the record instead
	klogFlags := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(klogFlags)
	_ = klogFlags.Set("logtostderr", "false")
	_ = klogFlags.Set("stderrthreshold", "FATAL")
	_ = klogFlags.Set("v", "0")
	klog.SetOutput(io.Discard)

	mode := os.Args[1]
	fs := flag.NewFlagSet(mode, flag.ExitOnError)
	gates := fs.String("feature-gates", "", "feature gates, as kube-scheduler's --feature-gates")
	parallelism := defaultBenchParallelism
	if mode == "bench" {
		fs.IntVar(&parallelism, "parallelism", defaultBenchParallelism, "the scheduler's parallelism (kube-scheduler's default: 16)")
	}
	_ = fs.Parse(os.Args[2:])

	if err := setFeatureGates(*gates); err != nil {
		fail(err)
	}
	var out any
	var err error
	switch mode {
	case "run":
		if fs.NArg() == 0 {
			usage()
		}
		enc := json.NewEncoder(os.Stdout)
		for _, path := range fs.Args() {
			result, err := runCaseFile(path)
			if err != nil {
				// one broken case does not stop the others
				result = &runOutput{Release: kubernetesRelease(), Error: strings.TrimSpace(err.Error())}
			}
			result.Case = path
			if err := enc.Encode(result); err != nil {
				fail(err)
			}
		}
		return
	case "facts":
		if fs.NArg() != 0 {
			usage()
		}
		out, err = releaseFacts()
	case "bench":
		if fs.NArg() != 1 {
			usage()
		}
		result, err := benchCase(fs.Arg(0), parallelism)
		if err != nil {
			fail(err)
		}
		if err := writeBench(result); err != nil {
			fail(err)
		}
		return
	default:
		usage()
	}
	if err != nil {
		fail(err)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	if err := enc.Encode(out); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "oracle: %s\n", strings.TrimSpace(err.Error()))
	os.Exit(1)
}

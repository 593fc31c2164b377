package main

// oracle bench: the real scheduler's throughput and latency on a case, for a side-by-side
// benchmark against schedframe (scripts/bench). The scheduler runs as kube-scheduler runs it
// (sched.Run: the queue's goroutines and the ScheduleOne loop, asynchronous binding, the
// release's default feature gates and the given parallelism) against the fake clientset, whose
// reactors are kept cheap: this mode is measured.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	goruntime "runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2"

	"k8s.io/kubernetes/pkg/scheduler"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

const (
	// defaultBenchParallelism is upstream's default parallelism (kube-scheduler's
	// KubeSchedulerConfiguration.parallelism).
	defaultBenchParallelism = 16
	// benchQueueWait bounds the wait for the created pods to reach the scheduling queue;
	// benchRunWait the measured run.
	benchQueueWait = 10 * time.Minute
	benchRunWait   = 30 * time.Minute
	// benchQuiet: with nothing happening for this long and activeQ and backoffQ empty, the pods
	// left unbound stay so.
	benchQuiet = 200 * time.Millisecond
	// benchPoll is the measuring poll's interval.
	benchPoll = 2 * time.Millisecond
)

// benchOutput is what oracle bench prints: one JSON object.
type benchOutput struct {
	Release string `json:"release"`
	// the gates whose value differs from the release's default
	Gates       map[string]bool `json:"gates"`
	Parallelism int             `json:"parallelism"`
	Gomaxprocs  int             `json:"gomaxprocs"`
	// the measured (pending) pods; those bound at the end; those not
	Pods          int `json:"pods"`
	Bound         int `json:"bound"`
	Unschedulable int `json:"unschedulable"`
	// runs of the scheduling algorithm (SchedulePod calls: the latency samples); the attempts
	// the failure handler was called for, and the pods it was called for
	Attempts       int `json:"attempts"`
	FailedAttempts int `json:"failedAttempts"`
	FailedPods     int `json:"failedPods"`
	// pods preemption deleted
	Victims int `json:"victims"`
	// process CPU (user + system, every thread) and wall time from the start of the scheduler
	// to the last progress (bind, failure, deletion or end of a SchedulePod call)
	CPUSeconds       float64 `json:"cpuSeconds"`
	WallSeconds      float64 `json:"wallSeconds"`
	PodsPerCPUSecond float64 `json:"podsPerCpuSecond"`
	// the SchedulePod calls' total (wall) time: the share of the CPU the algorithm took
	AlgorithmSeconds float64 `json:"algorithmSeconds"`
	// nearest-rank percentiles of the SchedulePod calls' durations
	LatencyP50Ms float64 `json:"latencyP50Ms"`
	LatencyP99Ms float64 `json:"latencyP99Ms"`
	PeakRSSMb    float64 `json:"peakRssMb"`
	// measured pod (namespace/name) -> the node it is bound to at the end
	Placements map[string]string `json:"placements"`
}

// bencher holds the counters the reactors and the scheduler's hooks update while measured.
type bencher struct {
	client   *fake.Clientset
	measured map[string]bool // read-only once the pods are created
	// the clock of the counters (set before any hook can run), and when the measured run started
	base, start time.Time

	rv atomic.Int64

	mu        sync.Mutex
	bound     map[string]string // measured pod -> node
	failures  map[string]int    // pod -> failed attempts
	latencies []time.Duration
	open      []time.Time // the SchedulePod calls under way, innermost last

	// monotonic event counters: progress is any of them changing
	binds, fails, deletes, started, finished atomic.Int64
	// time since base of the last bind, failure, deletion or SchedulePod return (ns)
	last atomic.Int64
}

func (b *bencher) nextResourceVersion() string {
	return strconv.FormatInt(b.rv.Add(1), 10)
}

func (b *bencher) mark() { b.last.Store(int64(time.Since(b.base))) }

func (b *bencher) events() int64 {
	return b.binds.Load() + b.fails.Load() + b.deletes.Load() + b.started.Load() + b.finished.Load()
}

// installReactors: pod creates get a resourceVersion; a binding sets the pod's node (with a new
// resourceVersion) and is recorded; a strategic-merge status patch (a failure's PodScheduled
// condition, preemption's nominated node and DisruptionTarget) is applied with a new
// resourceVersion, so that the scheduler's informer does not drop the update; deletions
// (preemption's victims) are counted and unbind a measured pod.
func (b *bencher) installReactors() {
	gvr := v1.SchemeGroupVersion.WithResource("pods")
	tracker := b.client.Tracker()
	b.client.PrependReactor("create", "pods", func(action clienttesting.Action) (bool, runtime.Object, error) {
		create := action.(clienttesting.CreateAction)
		if action.GetSubresource() != "binding" {
			if pod, ok := create.GetObject().(*v1.Pod); ok && action.GetSubresource() == "" {
				pod.ResourceVersion = b.nextResourceVersion()
			}
			return false, nil, nil
		}
		binding, ok := create.GetObject().(*v1.Binding)
		if !ok {
			return false, nil, nil
		}
		obj, err := tracker.Get(gvr, binding.Namespace, binding.Name) // a copy
		if err != nil {
			return true, nil, err
		}
		pod := obj.(*v1.Pod)
		pod.Spec.NodeName = binding.Target.Name
		pod.ResourceVersion = b.nextResourceVersion()
		if err := tracker.Update(gvr, pod, pod.Namespace); err != nil {
			return true, nil, err
		}
		key := binding.Namespace + "/" + binding.Name
		if b.measured[key] {
			b.mu.Lock()
			b.bound[key] = binding.Target.Name
			b.mu.Unlock()
		}
		b.binds.Add(1)
		b.mark()
		return true, binding, nil
	})
	b.client.PrependReactor("patch", "pods", strategicPatchReactor(tracker, gvr, newPod,
		func(m metav1.Object) { m.SetResourceVersion(b.nextResourceVersion()) }))
	b.client.PrependReactor("delete", "pods", func(action clienttesting.Action) (bool, runtime.Object, error) {
		d := action.(clienttesting.DeleteAction)
		key := d.GetNamespace() + "/" + d.GetName()
		if b.measured[key] {
			b.mu.Lock()
			delete(b.bound, key)
			b.mu.Unlock()
		}
		b.deletes.Add(1)
		b.mark()
		return false, nil, nil // the tracker deletes it
	})
}

// hook times every SchedulePod call and counts the failed attempts.
func (b *bencher) hook(s *scheduler.Scheduler) {
	wrapSchedulePod(s,
		func() {
			now := time.Now()
			b.mu.Lock()
			b.open = append(b.open, now)
			b.mu.Unlock()
			b.started.Add(1)
		},
		func(framework.Framework, *v1.Pod, scheduler.ScheduleResult, error, cycleStateT) {
			now := time.Now()
			b.mu.Lock()
			if n := len(b.open); n > 0 {
				b.latencies = append(b.latencies, now.Sub(b.open[n-1]))
				b.open = b.open[:n-1]
			}
			b.mu.Unlock()
			b.finished.Add(1)
			b.mark()
		})
	wrapFailureHandler(s, func(pod *v1.Pod, _ statusT, _ string) {
		b.mu.Lock()
		b.failures[podKey(pod)]++
		b.mu.Unlock()
		b.fails.Add(1)
		b.mark()
	})
}

// cpuTime is the process's CPU time so far (user + system, every thread).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// peakRSSMb is the process's peak resident set (Maxrss: KiB on Linux), in MiB.
func peakRSSMb() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Maxrss) / 1024
}

// percentileMs is the nearest-rank percentile p of sorted durations, in milliseconds.
func percentileMs(sorted []time.Duration, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	rank = max(1, min(rank, len(sorted)))
	return float64(sorted[rank-1]) / float64(time.Millisecond)
}

func round(x float64, digits int) float64 {
	scale := math.Pow(10, float64(digits))
	return math.Round(x*scale) / scale
}

// benchCase runs the scheduler over the case's pending pods, measured.
func benchCase(path string, parallelism int) (*benchOutput, error) {
	if parallelism < 1 {
		return nil, fmt.Errorf("--parallelism must be at least 1, got %d", parallelism)
	}
	c, err := readCase(path)
	if err != nil {
		return nil, err
	}
	defer c.restore()
	doc := c.config
	if doc == nil {
		doc = []byte(defaultConfigDocument)
	}
	cfg, err := decodeConfig(doc)
	if err != nil {
		var invalid *configInvalid
		if errors.As(err, &invalid) {
			return nil, fmt.Errorf("the configuration is refused: %w", err)
		}
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := fake.NewSimpleClientset()
	b := &bencher{
		client: client, measured: map[string]bool{}, bound: map[string]string{}, failures: map[string]int{},
		base: time.Now(),
	}
	for _, pod := range c.pending {
		key := podKey(pod)
		if b.measured[key] {
			return nil, fmt.Errorf("pod %s is in the case twice", key)
		}
		b.measured[key] = true
	}
	for _, obj := range c.objects {
		if m, err := meta.Accessor(obj); err == nil {
			m.SetResourceVersion(b.nextResourceVersion())
		}
		if err := client.Tracker().Add(obj); err != nil {
			return nil, fmt.Errorf("adding %T: %w", obj, err)
		}
	}
	b.installReactors()
	// the fake clientset's watchers (the informers' watches) hold 100 undelivered events and
	// panic past that: the pods created here, and the bindings of a scheduler running flat out,
	// outrun them. Room for every write the run can make, each ring buffer touched only as far
	// as it is filled.
	watch.DefaultChanSize = int32(min(4*(len(c.pending)+len(c.objects))+1000, 1<<24))
	built, err := buildScheduler(ctx, client, cfg, parallelism)
	if err != nil {
		return nil, err
	}
	sched := built.sched
	for _, pod := range c.pending {
		if _, ok := sched.Profiles[pod.Spec.SchedulerName]; !ok {
			return nil, fmt.Errorf("pod %s: no profile for schedulerName %q", podKey(pod), pod.Spec.SchedulerName)
		}
	}
	b.hook(sched)

	// every pending pod created, in file order, and in the scheduling queue
	uids := make(map[types.UID]bool, len(c.pending))
	for _, pod := range c.pending {
		if _, err := client.CoreV1().Pods(pod.Namespace).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			return nil, fmt.Errorf("creating pod %s: %w", podKey(pod), err)
		}
		uids[pod.UID] = true
	}
	deadline := time.Now().Add(benchQueueWait)
	for {
		pods, _ := sched.SchedulingQueue.PendingPods()
		queued := 0
		for _, p := range pods {
			if uids[p.UID] {
				queued++
			}
		}
		if queued >= len(uids) {
			break
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("timed out after %s: %d of the %d pods reached the scheduling queue", benchQueueWait, queued, len(uids))
		}
		time.Sleep(time.Millisecond)
	}
	client.ClearActions() // the fake clientset keeps every action: none of the set-up's
	goruntime.GC()        // the set-up's garbage is not the run's

	// measured: from sched.Run to the last progress
	cpuStart := cpuTime()
	b.start = time.Now()
	go sched.Run(ctx)
	var (
		seen     int64
		cpuLast  = cpuStart
		lastSeen = b.start
		polls    int
		// the pods bound when the unschedulable ones were last activated (-1: never)
		flushedAt = -1
		runEnd    = b.start.Add(benchRunWait)
	)
	for {
		time.Sleep(benchPoll)
		now := time.Now()
		if ev := b.events(); ev != seen {
			seen, cpuLast, lastSeen = ev, cpuTime(), now
		}
		b.mu.Lock()
		allBound := len(b.bound) == len(b.measured)
		b.mu.Unlock()
		if allBound {
			break
		}
		if now.Sub(lastSeen) >= benchQuiet && b.started.Load() == b.finished.Load() {
			_, summary := sched.SchedulingQueue.PendingPods()
			active, err := queueCount(summary, "activeQ")
			if err != nil {
				return nil, err
			}
			backoff, err := queueCount(summary, "backoffQ")
			if err != nil {
				return nil, err
			}
			if active == 0 && backoff == 0 {
				// the pool's periodic flush would retry pods left unschedulable (a preemptor
				// whose victims' deletion raced its own requeueing); do it now, until a round
				// binds nothing more
				b.mu.Lock()
				bound := len(b.bound)
				b.mu.Unlock()
				if flushedAt == bound {
					break
				}
				flushedAt = bound
				retry := map[string]*v1.Pod{}
				pending, _ := sched.SchedulingQueue.PendingPods()
				b.mu.Lock()
				for _, p := range pending {
					if _, done := b.bound[podKey(p)]; !done && uids[p.UID] {
						retry[podKey(p)] = p
					}
				}
				b.mu.Unlock()
				if len(retry) == 0 {
					break
				}
				sched.SchedulingQueue.Activate(klog.FromContext(ctx), retry)
				lastSeen = now
			}
		}
		if now.After(runEnd) {
			_, summary := sched.SchedulingQueue.PendingPods()
			return nil, fmt.Errorf("the scheduler still had pods to schedule after %s (queue %s)", benchRunWait, summary)
		}
		if polls++; polls%50 == 0 {
			client.ClearActions()
		}
	}
	wall := max(0, time.Duration(b.last.Load())-b.start.Sub(b.base))
	cancel()

	b.mu.Lock()
	defer b.mu.Unlock()
	out := &benchOutput{
		Release:     kubernetesRelease(),
		Gates:       gateOverrides(),
		Parallelism: parallelism,
		Gomaxprocs:  goruntime.GOMAXPROCS(0),
		Pods:        len(b.measured),
		Bound:       len(b.bound),
		Attempts:    len(b.latencies),
		FailedPods:  len(b.failures),
		Victims:     int(b.deletes.Load()),
		Placements:  make(map[string]string, len(b.bound)),
	}
	out.Unschedulable = out.Pods - out.Bound
	for _, n := range b.failures {
		out.FailedAttempts += n
	}
	for key, node := range b.bound {
		out.Placements[key] = node
	}
	cpu := cpuLast - cpuStart
	out.CPUSeconds = round(cpu.Seconds(), 6)
	out.WallSeconds = round(wall.Seconds(), 6)
	if cpu > 0 {
		out.PodsPerCPUSecond = round(float64(out.Bound)/cpu.Seconds(), 1)
	}
	sorted := slices.Clone(b.latencies)
	slices.Sort(sorted)
	var total time.Duration
	for _, d := range sorted {
		total += d
	}
	out.AlgorithmSeconds = round(total.Seconds(), 6)
	out.LatencyP50Ms = round(percentileMs(sorted, 50), 4)
	out.LatencyP99Ms = round(percentileMs(sorted, 99), 4)
	out.PeakRSSMb = round(peakRSSMb(), 1)
	return out, nil
}

// writeBench prints the benchmark's result as one JSON object.
func writeBench(out *benchOutput) error {
	return json.NewEncoder(os.Stdout).Encode(out)
}

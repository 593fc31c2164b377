package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"

	"k8s.io/kubernetes/pkg/scheduler"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/profile"
)

// minFeasibleNodesToFind and minFeasibleNodesPercentageToFind are upstream's constants of
// numFeasibleNodesToFind (pkg/scheduler/schedule_one.go), used to check the cycle's window.
const (
	minFeasibleNodesToFind           = 100
	minFeasibleNodesPercentageToFind = 5
)

// waitFor bounds every wait on the scheduler's goroutines and informers.
const waitFor = 30 * time.Second

// startTimeBase is the start time of the first pod bound during a case (later ones follow a
// second apart): after the start times a case's bound pods carry, before the wall clock.
var startTimeBase = time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)

type statusRecord struct {
	Code    string   `json:"code"`
	Plugin  string   `json:"plugin,omitempty"`
	Reasons []string `json:"reasons,omitempty"`
}

type nodeStatus struct {
	Node string `json:"node"`
	statusRecord
}

type pluginScore struct {
	Plugin string `json:"plugin"`
	Score  int64  `json:"score"`
}

type nodeScore struct {
	Node   string        `json:"node"`
	Scores []pluginScore `json:"scores"`
	Raw    []pluginScore `json:"raw,omitempty"`
	Total  int64         `json:"total"`
}

// cycleRecord is one scheduling attempt of one pod.
type cycleRecord struct {
	Pod     string `json:"pod"`
	Attempt int    `json:"attempt"`
	Profile string `json:"profile"`
	// bound, unschedulable, error, gated (a PreEnqueue plugin kept it out of the queue)
	Outcome string `json:"outcome"`
	Node    string `json:"node,omitempty"`
	Message string `json:"message,omitempty"`
	Code    string `json:"code,omitempty"`
	Plugin  string `json:"plugin,omitempty"`

	algorithmRecord

	// the cycle's own diagnosis: the nodes it rejected
	Diagnosis            []nodeStatus `json:"diagnosis,omitempty"`
	UnschedulablePlugins []string     `json:"unschedulablePlugins,omitempty"`
	PendingPlugins       []string     `json:"pendingPlugins,omitempty"`

	NominatedNode string   `json:"nominatedNode,omitempty"`
	Victims       []string `json:"victims,omitempty"`
	// the start time the pod was given once bound (RFC 3339)
	StartTime string `json:"startTime,omitempty"`
	// the PersistentVolumes and claims the emulated storage controllers wrote
	Storage []runtime.Object `json:"storage,omitempty"`

	// the pod's PodGroup (namespace/name): a pod with spec.schedulingGroup
	PodGroup string `json:"podGroup,omitempty"`
	// the number of the scheduler's ScheduleOne call the attempt was part of (1, 2, ...; none
	// for a gated pod): the attempts of one PodGroup scheduling cycle share it, in the order the
	// cycle reached their pods
	Cycle int `json:"cycle,omitempty"`
	// a PodGroup cycle that tried placements (TopologyAwareWorkloadScheduling): the placement
	// whose result the pod's outcome is (bound or nominated: the one holding its node; else the
	// first tried, whose results upstream reports when none is feasible), and every placement
	// tried, in order (the same on every record of the cycle); each as its sorted node names.
	// The record's algorithm fields are the pod's trial in Placement (none: it was not tried
	// there).
	Placement  []string   `json:"placement,omitempty"`
	Placements [][]string `json:"placements,omitempty"`
	// each placement's total score (PlacementScore plugins), in the order of Placements; null for
	// one not scored (not feasible: upstream scores the feasible placements, when there are two
	// or more); omitted when the cycle scored none
	PlacementScores []*int64 `json:"placementScores,omitempty"`
	// the scheduler's round-robin start after the cycle with placements (its last trial's next
	// start, not necessarily that of the record's trial): where the next cycle starts
	CycleNextStartIndex *int `json:"cycleNextStartIndex,omitempty"`
	// a pod of a PodGroup in a CompositePodGroup (1.37), placed in a cycle of the root of its
	// composites: those composites, from the root down to the PodGroup's parent, each with the
	// placements it tried and the one chosen (see compositeRecord). Placements, Placement and
	// PlacementScores are then the PodGroup's own: its placements tried inside the placement its
	// parent chose (not every placement of the cycle), and the one chosen there.
	Composites []compositeRecord `json:"composites,omitempty"`
	// the condition the cycle left on the pod's PodGroup (PodGroupScheduled at 1.36,
	// PodGroupInitiallyScheduled at 1.37)
	PodGroupCondition *groupCondition `json:"podGroupCondition,omitempty"`
	// the oracle deleted the pod after this attempt, its last: it stayed unscheduled (a pod of a
	// PodGroup held at PreEnqueue, waiting for the rest of its group, is kept)
	Deleted bool `json:"deleted,omitempty"`

	// the oracle's own consistency checks that failed: the record is not to be trusted
	Warnings []string `json:"warnings,omitempty"`

	// the pod's algorithm ran already in this attempt (without placements): a PodGroupPostFilter
	// simulation runs it again, and the results upstream reports are those of the first run
	algorithmDone bool
}

// compositeRecord is one CompositePodGroup of a composite cycle, as a pod's record shows it: the
// placements of its evaluation inside the placement its parent chose (the root: the only one,
// over every node), in the order tried, each as its sorted node names; the placement chosen (the
// one holding the nodes the pods below it were bound to or nominated; else, nothing placed below
// it, the first tried, whose results upstream reports when no placement is feasible); each
// placement's total score, in the order of Placements, null for one not scored, omitted when
// none was (upstream scores the feasible placements when there are two or more).
type compositeRecord struct {
	Name            string     `json:"name"`
	Placement       []string   `json:"placement,omitempty"`
	Placements      [][]string `json:"placements,omitempty"`
	PlacementScores []*int64   `json:"placementScores,omitempty"`
}

// groupEvaluation is one evaluation of a group (a CompositePodGroup, or a PodGroup in one) in a
// composite cycle: the placements generated for it inside its parent's placement, and their
// scores.
type groupEvaluation struct {
	group      string
	parent     string // the parent placement's key
	placements []triedPlacement
	scores     map[string]int64 // placement key -> total; nil: none scored
}

// algorithmRecord is what one run of the scheduling algorithm for a pod found: a pod's cycle,
// or its trial in one placement of a PodGroup cycle (over the placement's nodes only).
type algorithmRecord struct {
	NumAllNodes    int `json:"numAllNodes"`
	StartIndex     int `json:"startIndex"`
	NextStartIndex int `json:"nextStartIndex"`
	// from the cycle's ScheduleResult, or its FitError
	Evaluated int `json:"evaluated"`
	Feasible  int `json:"feasible"`
	// search (the round robin), nominated (the nominated node passed), hint (opportunistic
	// batching's node hint passed), prefilter (rejected in PreFilter), none (no filtering ran)
	Path string `json:"path"`

	PreFilter      statusRecord `json:"preFilter"`
	PreFilterNodes []string     `json:"preFilterNodes,omitempty"`
	// every node (of the placement), in the snapshot's order, judged on its own (run with
	// nominated pods)
	Filter []nodeStatus `json:"filter"`

	Scored   []string    `json:"scored,omitempty"`
	Scores   []nodeScore `json:"scores,omitempty"`
	Top      []string    `json:"top,omitempty"`
	TopScore int64       `json:"topScore,omitempty"`
}

// placementTrial is a pod's trial in one placement of a PodGroup cycle, kept until the cycle's
// outcome says which trial the pod's record is.
type placementTrial struct {
	algorithmRecord
	warnings []string
	// the node the trial chose ("": none fitted)
	suggested string
}

// placementScore is a placement's total score in a PodGroup cycle's findBestPlacement.
type placementScore struct {
	nodes []nodeInfoT
	total int64
}

// triedPlacement is a placement a PodGroup cycle assumed in the snapshot.
type triedPlacement struct {
	key   string
	nodes []string // sorted
}

// groupCondition is the condition the PodGroup scheduling cycle sets on its PodGroup.
type groupCondition struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

type runOutput struct {
	Case    string `json:"case"`
	Release string `json:"release"`
	// the case could not be run (a malformed file, a scheduler that hung): why
	Error  string          `json:"error,omitempty"`
	Gates  map[string]bool `json:"gates"`
	Config map[string]any  `json:"config,omitempty"`
	// each profile's plugins per extension point, multiPoint expanded, as the framework runs them
	Plugins map[string]any `json:"plugins,omitempty"`
	// the configuration was refused (kube-scheduler would not start): its error
	ConfigError string        `json:"configError,omitempty"`
	Cycles      []cycleRecord `json:"cycles,omitempty"`
}

// kubernetesRelease is the version of the k8s.io/kubernetes module this binary was built with.
func kubernetesRelease() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == "k8s.io/kubernetes" {
				return strings.TrimPrefix(dep.Version, "v")
			}
		}
	}
	return "unknown"
}

type builtScheduler struct {
	sched     *scheduler.Scheduler
	profiles  []schedconfig.KubeSchedulerProfile
	informers informers.SharedInformerFactory
}

// buildScheduler builds the scheduler as kube-scheduler's Setup does, with the given
// parallelism (1 for the decisions, so that the nodes a cycle visits do not depend on goroutine
// timing; upstream's 16 for a benchmark). It starts the informers, not the scheduler: the
// caller runs startAPIDispatcher before driving ScheduleOne itself, or sched.Run (which starts
// the API dispatcher too).
func buildScheduler(ctx context.Context, client *fake.Clientset, cfg *schedconfig.KubeSchedulerConfiguration, parallelism int) (*builtScheduler, error) {
	if len(cfg.Extenders) > 0 {
		return nil, fmt.Errorf("the oracle does not run extenders")
	}
	informerFactory := newInformerFactory(client)
	broadcaster := events.NewBroadcaster(&events.EventSinkImpl{Interface: client.EventsV1()})
	var mu sync.Mutex
	var captured []schedconfig.KubeSchedulerProfile
	sched, err := scheduler.New(ctx, client, informerFactory, nil, profile.NewRecorderFactory(broadcaster),
		scheduler.WithComponentConfigVersion(cfg.TypeMeta.APIVersion),
		scheduler.WithProfiles(cfg.Profiles...),
		scheduler.WithPercentageOfNodesToScore(cfg.PercentageOfNodesToScore),
		scheduler.WithPodInitialBackoffSeconds(cfg.PodInitialBackoffSeconds),
		scheduler.WithPodMaxBackoffSeconds(cfg.PodMaxBackoffSeconds),
		scheduler.WithParallelism(int32(parallelism)),
		scheduler.WithBuildFrameworkCapturer(func(p schedconfig.KubeSchedulerProfile) {
			mu.Lock()
			defer mu.Unlock()
			captured = append(captured, p)
		}),
	)
	if err != nil {
		return nil, err
	}
	informerFactory.Start(ctx.Done())
	informerFactory.WaitForCacheSync(ctx.Done())
	if err := sched.WaitForHandlersSync(ctx); err != nil {
		return nil, err
	}
	// the frameworks are built in profile order
	order := map[string]int{}
	for i, p := range cfg.Profiles {
		order[p.SchedulerName] = i
	}
	sort.SliceStable(captured, func(i, j int) bool { return order[captured[i].SchedulerName] < order[captured[j].SchedulerName] })
	return &builtScheduler{sched: sched, profiles: captured, informers: informerFactory}, nil
}

// expandedPlugins lists each profile's plugins per extension point as its framework holds them.
func expandedPlugins(s *scheduler.Scheduler) map[string]any {
	out := map[string]any{}
	for name, fw := range s.Profiles {
		out[name] = fw.ListPlugins()
	}
	return out
}

func status(st statusT) statusRecord {
	if st.IsSuccess() {
		return statusRecord{Code: "Success"}
	}
	return statusRecord{Code: st.Code().String(), Plugin: st.Plugin(), Reasons: st.Reasons()}
}

func podKey(pod *v1.Pod) string { return pod.Namespace + "/" + pod.Name }

func sortedSet(s sets.Set[string]) []string {
	if s.Len() == 0 {
		return nil
	}
	return sets.List(s)
}

// nextStartNodeIndex reads the scheduler's round-robin start (a private field, read only).
func nextStartNodeIndex(s *scheduler.Scheduler) int {
	return int(reflect.ValueOf(s).Elem().FieldByName("nextStartNodeIndex").Int())
}

// numFeasibleNodesToFind is upstream's function of the same name, to check the cycle's window.
func numFeasibleNodesToFind(percentage int32, numAllNodes int32) int32 {
	if numAllNodes < minFeasibleNodesToFind {
		return numAllNodes
	}
	if percentage == 0 {
		percentage = int32(50) - numAllNodes/125
		if percentage < minFeasibleNodesPercentageToFind {
			percentage = minFeasibleNodesPercentageToFind
		}
	}
	n := numAllNodes * percentage / 100
	if n < minFeasibleNodesToFind {
		return minFeasibleNodesToFind
	}
	return n
}

// runner drives one scheduler over one case.
type runner struct {
	ctx    context.Context
	client *fake.Clientset
	built  *builtScheduler
	cfg    *schedconfig.KubeSchedulerConfiguration
	mu     sync.Mutex
	// inside an attempt: what the scheduler does is recorded
	collecting bool
	// the records of the current attempt (pod key ->), the pods in the order the cycle reached
	// them, the pods the failure handler was called for
	recs       map[string]*cycleRecord
	order      []string
	recPods    map[string]*v1.Pod
	failedPods map[string]bool
	// a PodGroup cycle with placements: those tried, in order; pod key -> placement key -> the
	// pod's trial there
	placements []triedPlacement
	trials     map[string]map[string]*placementTrial
	// placement key -> its total score, from the cycle's placement scoring
	placementScores map[string]int64
	// the case's group tree (1.37): PodGroup -> its parent CompositePodGroup, CompositePodGroup
	// -> its parent (namespace/name; a root is not listed)
	podGroupParents, compositeParents map[string]string
	// a composite cycle: the evaluations of its groups in order; done once its root is evaluated
	// a second time (a PodGroupPostFilter's simulation, whose results upstream does not report)
	evaluations     []*groupEvaluation
	evaluationsDone bool
	// the scheduler's round-robin start once the current attempt's cycle returned
	nextStartAfter int
	// pod key -> attempts recorded; ScheduleOne calls made
	attempts map[string]int
	cycles   int
	// the start-time slots taken before the current attempt
	startBase int
	// what the storage controllers and the scheduler wrote during the current attempt
	storage []runtime.Object
	// every pending pod created (pod key ->), and its place in the creation order
	created    map[string]*v1.Pod
	createdSeq map[string]int
	// the pods whose algorithm ran in the current attempt
	tried map[string]bool
	// PodGroup (or CompositePodGroup) resource -> namespace/name -> the resourceVersion of the
	// scheduler's last write to it
	podGroupWrites map[schema.GroupVersionResource]map[string]string
	bound          map[string]string // pod key -> node, from the binding subresource
	victims        []*v1.Pod
	rv             int64
	started        int
	// pod key -> the start time given at binding
	startTimes map[string]string
}

func runCaseFile(path string) (*runOutput, error) {
	c, err := readCase(path)
	if err != nil {
		return nil, err
	}
	defer c.restore()
	// preemption runs synchronously: the same victims and nomination as the asynchronous
	// default, and nothing left running when the next cycle starts
	forceGate("SchedulerAsyncPreemption", false)
	out := &runOutput{Release: kubernetesRelease(), Gates: gateOverrides(), Cycles: []cycleRecord{}}
	doc := c.config
	if doc == nil {
		doc = []byte(defaultConfigDocument)
	}
	cfg, err := decodeConfig(doc)
	if err != nil {
		var invalid *configInvalid
		if errors.As(err, &invalid) {
			out.ConfigError = err.Error()
			return out, nil
		}
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := fake.NewSimpleClientset()
	r := &runner{
		ctx: ctx, client: client, cfg: cfg, bound: map[string]string{}, startTimes: map[string]string{},
		attempts: map[string]int{}, created: map[string]*v1.Pod{}, createdSeq: map[string]int{}, podGroupWrites: map[schema.GroupVersionResource]map[string]string{},
	}
	r.podGroupParents, r.compositeParents = groupParents(c.objects)
	for _, obj := range c.objects {
		if m, err := meta.Accessor(obj); err == nil {
			m.SetResourceVersion(r.nextResourceVersion())
		}
		if err := client.Tracker().Add(obj); err != nil {
			return nil, fmt.Errorf("adding %T: %w", obj, err)
		}
	}
	r.installReactors()
	r.installPodGroupReactors()
	r.emulateStorageControllers()
	r.recordClaimWrites()
	r.stampResourceVersions() // runs first: every write gets its resourceVersion
	built, err := buildScheduler(ctx, client, cfg, 1)
	if err != nil {
		return nil, err
	}
	startAPIDispatcher(ctx, built.sched)
	r.built = built
	full := *cfg
	full.Profiles = built.profiles
	if out.Config, err = encodeConfig(&full); err != nil {
		return nil, err
	}
	out.Plugins = expandedPlugins(built.sched)
	r.hook()
	for _, pod := range c.pending {
		records, err := r.schedule(pod)
		out.Cycles = append(out.Cycles, records...)
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// nextResourceVersion gives each write of a pod a new resourceVersion, as the API server does
// (the fake clientset's tracker leaves it empty, and the scheduler ignores a pod update whose
// resourceVersion did not change).
func (r *runner) nextResourceVersion() string {
	r.rv++
	return strconv.FormatInt(r.rv, 10)
}

func (r *runner) installReactors() {
	gvr := v1.SchemeGroupVersion.WithResource("pods")
	// status patches (a failure's condition and nominated node, preemption's DisruptionTarget)
	// applied here, with a new resourceVersion
	r.client.PrependReactor("patch", "pods", strategicPatchReactor(r.client.Tracker(), gvr, newPod,
		func(m metav1.Object) {
			r.mu.Lock()
			m.SetResourceVersion(r.nextResourceVersion())
			r.mu.Unlock()
		}))
	r.client.PrependReactor("create", "pods", func(action clienttesting.Action) (bool, runtime.Object, error) {
		if action.GetSubresource() != "binding" {
			if pod, ok := action.(clienttesting.CreateAction).GetObject().(*v1.Pod); ok {
				r.mu.Lock()
				pod.ResourceVersion = r.nextResourceVersion()
				r.mu.Unlock()
			}
			return false, nil, nil
		}
		binding := action.(clienttesting.CreateAction).GetObject().(*v1.Binding)
		obj, err := r.client.Tracker().Get(gvr, binding.Namespace, binding.Name)
		if err != nil {
			return true, nil, err
		}
		pod := obj.(*v1.Pod).DeepCopy()
		pod.Spec.NodeName = binding.Target.Name
		r.mu.Lock()
		pod.ResourceVersion = r.nextResourceVersion()
		// the kubelet starts the pod: a start time, one second after the previous binding's,
		// so that preemption (which prefers victims that started last) meets no tie between
		// pods bound during the case; the pods of one PodGroup cycle (bound concurrently) in
		// the order the cycle placed them
		slot := 0
		for i, key := range r.order {
			if r.collecting && key == binding.Namespace+"/"+binding.Name {
				slot = r.startBase + i + 1
			}
		}
		if slot == 0 {
			r.started++
			slot = r.started
		}
		start := metav1.NewTime(startTimeBase.Add(time.Duration(slot) * time.Second))
		pod.Status.StartTime = &start
		pod.Status.Phase = v1.PodRunning
		r.startTimes[binding.Namespace+"/"+binding.Name] = start.UTC().Format(time.RFC3339)
		r.mu.Unlock()
		if err := r.client.Tracker().Update(gvr, pod, pod.Namespace); err != nil {
			return true, nil, err
		}
		r.mu.Lock()
		r.bound[binding.Namespace+"/"+binding.Name] = binding.Target.Name
		r.mu.Unlock()
		return true, binding, nil
	})
	r.client.PrependReactor("delete", "pods", func(action clienttesting.Action) (bool, runtime.Object, error) {
		d := action.(clienttesting.DeleteAction)
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.collecting {
			if obj, err := r.client.Tracker().Get(v1.SchemeGroupVersion.WithResource("pods"), d.GetNamespace(), d.GetName()); err == nil {
				r.victims = append(r.victims, obj.(*v1.Pod))
			}
		}
		return false, nil, nil
	})
}

// hook wraps the scheduler's SchedulePod (to record the cycle) and its failure handler.
func (r *runner) hook() {
	s := r.built.sched
	var start int
	wrapSchedulePod(s,
		func() { start = nextStartNodeIndex(s) },
		func(fw framework.Framework, pod *v1.Pod, result scheduler.ScheduleResult, err error, state cycleStateT) {
			r.recordAlgorithm(fw, pod, state, start, nextStartNodeIndex(s), result, err)
		})
	wrapPlacementScoring(s, func(group string, scores []placementScore) {
		r.mu.Lock()
		defer r.mu.Unlock()
		if !r.collecting {
			return
		}
		if ev := r.lastEvaluation(group); ev != nil && ev.scores == nil && !r.evaluationsDone {
			ev.scores = map[string]int64{}
			for _, ps := range scores {
				ev.scores[placementKey(ps.nodes)] = ps.total
			}
		}
		if r.placementScores != nil {
			return // the cycle's own scoring came first (a PodGroupPostFilter's simulation may score again)
		}
		r.placementScores = map[string]int64{}
		for _, ps := range scores {
			r.placementScores[placementKey(ps.nodes)] = ps.total
		}
	}, func(group string, composite bool, parent []nodeInfoT, placements [][]nodeInfoT) {
		r.mu.Lock()
		defer r.mu.Unlock()
		if !r.collecting || r.evaluationsDone {
			return
		}
		if composite {
			if _, child := r.compositeParents[group]; !child && r.lastEvaluation(group) != nil {
				r.evaluationsDone = true // the root again: a simulation
				return
			}
		} else if r.podGroupParents[group] == "" {
			return // a PodGroup cycle of its own: its placements are noted by its pods' trials
		}
		ev := &groupEvaluation{group: group, parent: placementKey(parent)}
		for _, p := range placements {
			ev.placements = append(ev.placements, triedPlacement{key: placementKey(p), nodes: sortedNodeNames(p)})
		}
		r.evaluations = append(r.evaluations, ev)
	})
	wrapFailureHandler(s, func(pod *v1.Pod, st statusT, nominated string) {
		r.mu.Lock()
		defer r.mu.Unlock()
		if !r.collecting {
			return
		}
		rec := r.recordFor(pod)
		rec.Outcome = "unschedulable"
		if !st.IsRejected() {
			rec.Outcome = "error"
		}
		rec.Message = st.Message()
		rec.Code = st.Code().String()
		rec.Plugin = st.Plugin()
		rec.Node = ""
		rec.NominatedNode = nominated
		if fit, ok := asFitError(st.AsError()); ok {
			rec.Diagnosis = nil
			forEachExplicitNode(fit, func(node string, ns statusT) {
				rec.Diagnosis = append(rec.Diagnosis, nodeStatus{node, status(ns)})
			})
			sort.Slice(rec.Diagnosis, func(i, j int) bool { return rec.Diagnosis[i].Node < rec.Diagnosis[j].Node })
			rec.UnschedulablePlugins = sortedSet(fit.Diagnosis.UnschedulablePlugins)
			rec.PendingPlugins = sortedSet(fit.Diagnosis.PendingPlugins)
			if rec.Evaluated == 0 {
				rec.Evaluated = fit.Diagnosis.NodeToStatus.Len()
			}
		}
		r.failedPods[podKey(pod)] = true
	})
}

// newRecord starts the record of the pod's next attempt.
func (r *runner) newRecord(pod *v1.Pod) *cycleRecord {
	key := podKey(pod)
	r.attempts[key]++
	rec := &cycleRecord{Pod: key, Attempt: r.attempts[key], Profile: pod.Spec.SchedulerName}
	rec.PodGroup = podGroupOf(pod)
	return rec
}

// recordFor is the record of the pod in the current attempt, started when the scheduler first
// reaches the pod (r.mu held).
func (r *runner) recordFor(pod *v1.Pod) *cycleRecord {
	key := podKey(pod)
	if rec, ok := r.recs[key]; ok {
		return rec
	}
	rec := r.newRecord(pod)
	rec.Cycle = r.cycles
	r.recs[key] = rec
	r.recPods[key] = pod
	r.order = append(r.order, key)
	return rec
}

// recordAlgorithm records the filter and score phases: every node judged with a fresh cycle
// state (the same plugins and snapshot as the cycle), the cycle's window reconstructed from its
// round-robin start and checked against its ScheduleResult, and the scores of that window. In a
// PodGroup scheduling cycle the fresh state is part of the group's cycle too, and the snapshot
// holds the group's pods placed before this one. With placements (TopologyAwareWorkloadScheduling)
// the group's pods are tried once per placement, the snapshot restricted to its nodes: each trial
// is kept apart, over the placement's nodes, and the cycle's outcome picks the pod's record
// (choosePlacementTrial).
func (r *runner) recordAlgorithm(fw framework.Framework, pod *v1.Pod, cycle cycleStateT, start, next int, result scheduler.ScheduleResult, err error) {
	nodes, lerr := fw.SnapshotSharedLister().NodeInfos().List()
	placement, perr := placementNodes(fw)
	r.mu.Lock()
	if !r.collecting {
		r.mu.Unlock()
		return
	}
	rec := r.recordFor(pod)
	r.tried[podKey(pod)] = true
	rec.Profile = fw.ProfileName()
	dst, warnings := &rec.algorithmRecord, &rec.Warnings
	if placement != nil {
		key := r.notePlacement(placement)
		trials := r.trials[podKey(pod)]
		if trials == nil {
			trials = map[string]*placementTrial{}
			r.trials[podKey(pod)] = trials
		}
		if trials[key] != nil {
			// the same trial again (a PodGroupPostFilter's simulation): the pod's results
			// upstream reports are those of the first
			r.mu.Unlock()
			return
		}
		trial := &placementTrial{suggested: result.SuggestedHost}
		trials[key] = trial
		dst, warnings, nodes = &trial.algorithmRecord, &trial.warnings, placement
	} else {
		if rec.algorithmDone {
			r.mu.Unlock()
			return
		}
		rec.algorithmDone = true
	}
	r.mu.Unlock()
	if lerr == nil {
		lerr = perr
	}
	r.runAlgorithm(fw, pod, cycle, start, next, result, err, nodes, lerr, dst, warnings)
}

// placementLister is the scheduler's snapshot from 1.36 on: in a PodGroup cycle with
// TopologyAwareWorkloadScheduling it is restricted to one placement at a time, and lists that
// placement's nodes (in the snapshot's order) here. Older snapshots have no such method.
type placementLister interface {
	ListNodesInPlacement() ([]nodeInfoT, error)
}

// placementNodes are the nodes of the placement the framework's snapshot has assumed (nil:
// none, or older releases). The snapshot assumes no placement of all its nodes (it forgets the
// placement instead), so the same number of nodes as the snapshot's is none.
func placementNodes(fw framework.Framework) ([]nodeInfoT, error) {
	lister := fw.SnapshotSharedLister()
	pl, ok := lister.(placementLister)
	if !ok {
		return nil, nil
	}
	in, err := pl.ListNodesInPlacement()
	if err != nil {
		return nil, err
	}
	all, err := lister.NodeInfos().List()
	if err != nil {
		return nil, err
	}
	if len(in) == len(all) {
		return nil, nil
	}
	return in, nil
}

// notePlacement adds the placement to those the cycle tried, if new; its key (r.mu held).
// Placements are told apart by their nodes: a cycle's placements are disjoint.
func (r *runner) notePlacement(nodes []nodeInfoT) string {
	key := placementKey(nodes)
	for _, p := range r.placements {
		if p.key == key {
			return key
		}
	}
	r.placements = append(r.placements, triedPlacement{key: key, nodes: sortedNodeNames(nodes)})
	return key
}

func sortedNodeNames(nodes []nodeInfoT) []string {
	names := make([]string, len(nodes))
	for i, ni := range nodes {
		names[i] = ni.Node().Name
	}
	sort.Strings(names)
	return names
}

// placementKey tells a cycle's placements apart by their nodes.
func placementKey(nodes []nodeInfoT) string {
	return strings.Join(sortedNodeNames(nodes), "\x00")
}

// choosePlacementTrial makes the record of a pod of a PodGroup cycle with placements that of its
// trial in the placement whose results upstream acted on (r.mu held): the placement holding the
// node the pod was bound to or nominated (the best placement's), else the first one tried (whose
// results upstream reports when no placement is feasible). A record of a cycle without
// placements is left as it is.
func (r *runner) choosePlacementTrial(key string, rec *cycleRecord) {
	if len(r.placements) == 0 {
		return
	}
	next := r.nextStartAfter
	rec.CycleNextStartIndex = &next
	rec.Placements = make([][]string, len(r.placements))
	for i, p := range r.placements {
		rec.Placements[i] = p.nodes
	}
	if r.placementScores != nil {
		rec.PlacementScores = make([]*int64, len(r.placements))
		for i, p := range r.placements {
			if total, ok := r.placementScores[p.key]; ok {
				rec.PlacementScores[i] = &total
			}
		}
	}
	chosen := &r.placements[0]
	if node := cmp.Or(rec.Node, rec.NominatedNode); node != "" {
		chosen = nil
		for i := range r.placements {
			if _, found := slices.BinarySearch(r.placements[i].nodes, node); found {
				chosen = &r.placements[i]
				break
			}
		}
		if chosen == nil {
			rec.Warnings = append(rec.Warnings, fmt.Sprintf("placements: node %s is in none of the placements tried", node))
			return
		}
	}
	rec.Placement = chosen.nodes
	r.useTrial(key, rec, chosen)
}

// useTrial makes the pod's record that of its trial in the chosen placement (r.mu held).
func (r *runner) useTrial(key string, rec *cycleRecord, chosen *triedPlacement) {
	trial := r.trials[key][chosen.key]
	if trial == nil {
		return // not tried there (the placement's trial stopped before it)
	}
	// a failure's evaluated nodes come from its FitError when the trial's result has none
	evaluated := rec.Evaluated
	rec.algorithmRecord = trial.algorithmRecord
	if rec.Evaluated == 0 {
		rec.Evaluated = evaluated
	}
	rec.Warnings = append(rec.Warnings, trial.warnings...)
	if rec.Node != "" && trial.suggested != rec.Node {
		rec.Warnings = append(rec.Warnings, fmt.Sprintf("placements: bound to %s, its trial in the placement chose %q", rec.Node, trial.suggested))
	}
}

// lastEvaluation is the group's latest evaluation in the current composite cycle (nil: none;
// r.mu held).
func (r *runner) lastEvaluation(group string) *groupEvaluation {
	for i := len(r.evaluations) - 1; i >= 0; i-- {
		if r.evaluations[i].group == group {
			return r.evaluations[i]
		}
	}
	return nil
}

// ancestry is the PodGroup's composites from the root down, then the PodGroup itself.
func (r *runner) ancestry(podGroup string) []string {
	chain := []string{podGroup}
	parent := r.podGroupParents[podGroup]
	for parent != "" && len(chain) <= 8 {
		chain = append([]string{parent}, chain...)
		parent = r.compositeParents[parent]
	}
	return chain
}

// orderCompositeCycle puts the records of a composite cycle in a deterministic order (r.mu held):
// the pods the cycle tried, in the order tried, then the others (the failure handling of a
// composite reaches its PodGroups in a map's order) by PodGroup, then in the order created.
// Other cycles keep the order the scheduler reached their pods in.
func (r *runner) orderCompositeCycle() {
	composite := false
	for _, key := range r.order {
		composite = composite || r.podGroupParents[r.recs[key].PodGroup] != ""
	}
	if !composite {
		return
	}
	position := map[string]int{}
	for i, key := range r.order {
		position[key] = i
	}
	sort.SliceStable(r.order, func(i, j int) bool {
		a, b := r.order[i], r.order[j]
		if r.tried[a] != r.tried[b] {
			return r.tried[a]
		}
		if r.tried[a] {
			return position[a] < position[b]
		}
		if ga, gb := r.recs[a].PodGroup, r.recs[b].PodGroup; ga != gb {
			return ga < gb
		}
		return r.createdSeq[a] < r.createdSeq[b]
	})
}

// chooseCompositeTrial fills the record of a pod of a composite cycle (r.mu held): from the root
// down, each group's evaluation inside the placement its parent chose, and there the placement
// it chose (the one holding the nodes its pods, of the group or below it, were bound to or
// nominated; else the first tried); the pod's own PodGroup's placements as the record's, and its
// trial in the placement chosen as the record's algorithm fields. A group not evaluated inside
// its parent's placement (its parent's evaluation stopped before it) ends the walk.
func (r *runner) chooseCompositeTrial(key string, rec *cycleRecord) {
	next := r.nextStartAfter
	rec.CycleNextStartIndex = &next
	chain := r.ancestry(rec.PodGroup)
	parentKey := ""
	for depth, group := range chain {
		var ev *groupEvaluation
		for _, e := range r.evaluations {
			if e.group == group && (depth == 0 || e.parent == parentKey) {
				ev = e
				break
			}
		}
		if ev == nil || len(ev.placements) == 0 {
			return
		}
		placements := make([][]string, len(ev.placements))
		var scores []*int64
		if ev.scores != nil {
			scores = make([]*int64, len(ev.placements))
		}
		for i, p := range ev.placements {
			placements[i] = p.nodes
			if total, ok := ev.scores[p.key]; ok {
				scores[i] = &total
			}
		}
		chosen := r.placementOfGroup(group, ev)
		if chosen == nil {
			rec.Warnings = append(rec.Warnings, fmt.Sprintf("placements: the pods of %s were placed in none of its placements", group))
			return
		}
		if depth < len(chain)-1 {
			rec.Composites = append(rec.Composites, compositeRecord{Name: group, Placement: chosen.nodes, Placements: placements, PlacementScores: scores})
		} else {
			rec.Placements, rec.Placement, rec.PlacementScores = placements, chosen.nodes, scores
			r.useTrial(key, rec, chosen)
		}
		parentKey = chosen.key
	}
}

// placementOfGroup is the placement of the evaluation holding the nodes the cycle's pods of the
// group (or below it) were bound to or nominated, else the first tried; nil when a node is in
// none (r.mu held).
func (r *runner) placementOfGroup(group string, ev *groupEvaluation) *triedPlacement {
	for _, other := range r.recs {
		node := cmp.Or(other.Node, other.NominatedNode)
		if node == "" || other.PodGroup == "" || !slices.Contains(r.ancestry(other.PodGroup), group) {
			continue
		}
		for i := range ev.placements {
			if _, found := slices.BinarySearch(ev.placements[i].nodes, node); found {
				return &ev.placements[i]
			}
		}
		return nil
	}
	return &ev.placements[0]
}

// runAlgorithm fills dst with the filter and score phases over nodes (the snapshot's, or the
// placement's), and warnings with the checks that failed.
func (r *runner) runAlgorithm(fw framework.Framework, pod *v1.Pod, cycle cycleStateT, start, next int, result scheduler.ScheduleResult, err error, nodes []nodeInfoT, lerr error, dst *algorithmRecord, warnings *[]string) {
	ctx := r.ctx
	dst.StartIndex, dst.NextStartIndex = start, next
	dst.Evaluated, dst.Feasible = result.EvaluatedNodes, result.FeasibleNodes
	if lerr != nil {
		*warnings = append(*warnings, "listing nodes: "+lerr.Error())
		return
	}
	dst.NumAllNodes = len(nodes)
	state := newCycleStateLike(cycle)
	preRes, preStatus, _ := fw.RunPreFilterPlugins(ctx, state, pod)
	dst.PreFilter = status(preStatus)
	var allowed sets.Set[string]
	if preStatus.IsSuccess() && preRes != nil && !preRes.AllNodes() {
		allowed = preRes.NodeNames
		dst.PreFilterNodes = sets.List(preRes.NodeNames)
	}
	passed := make([]bool, len(nodes))
	dst.Filter = make([]nodeStatus, len(nodes))
	for i, ni := range nodes {
		name := ni.Node().Name
		var st statusT
		switch {
		case !preStatus.IsSuccess():
			dst.Filter[i] = nodeStatus{name, status(preStatus)}
			continue
		case allowed != nil && !allowed.Has(name):
			dst.Filter[i] = nodeStatus{name, statusRecord{Code: "UnschedulableAndUnresolvable", Reasons: []string{"(outside PreFilterResult)"}}}
			continue
		default:
			st = fw.RunFilterPluginsWithNominatedPods(ctx, state, pod, ni)
		}
		dst.Filter[i] = nodeStatus{name, status(st)}
		passed[i] = st.IsSuccess()
	}
	if !preStatus.IsSuccess() {
		dst.Path = "prefilter"
		return
	}
	if err != nil {
		dst.Path = "search"
		return
	}
	// the window: nominated node or hint first (no round robin), else the round robin
	byName := map[string]int{}
	for i, ni := range nodes {
		byName[ni.Node().Name] = i
	}
	var feasible []int
	shortcut := result.EvaluatedNodes == 1 && result.FeasibleNodes == 1 && next == start && len(nodes) > 1
	if nnn := pod.Status.NominatedNodeName; shortcut && nnn != "" && result.SuggestedHost == nnn {
		dst.Path = "nominated"
		feasible = []int{byName[nnn]}
	} else if shortcut && allowed == nil {
		dst.Path = "hint"
		feasible = []int{byName[result.SuggestedHost]}
	} else {
		dst.Path = "search"
		candidates := make([]int, 0, len(nodes))
		for i, ni := range nodes {
			if allowed == nil || allowed.Has(ni.Node().Name) {
				candidates = append(candidates, i)
			}
		}
		if allowed != nil && len(candidates) > minFeasibleNodesToFind {
			*warnings = append(*warnings, "the window over a PreFilterResult of more than 100 nodes follows Go's map order")
		}
		toFind := int(numFeasibleNodesToFind(r.percentage(fw), int32(len(candidates))))
		if !fw.HasScorePlugins() {
			toFind = 1
		}
		processed := 0
		for k := 0; k < len(candidates); k++ {
			i := candidates[(start+k)%len(candidates)]
			if passed[i] {
				if len(feasible) == toFind {
					break // the node that cancels the search: filtered, not counted
				}
				feasible = append(feasible, i)
			}
			processed++
		}
		if want := (start + processed) % len(nodes); want != next {
			*warnings = append(*warnings, fmt.Sprintf("window: reconstructed next start %d, the scheduler's %d", want, next))
		}
	}
	if len(feasible) != result.FeasibleNodes {
		*warnings = append(*warnings, fmt.Sprintf("window: reconstructed %d feasible nodes, the scheduler found %d", len(feasible), result.FeasibleNodes))
		return
	}
	if len(feasible) < 2 {
		return
	}
	window := make([]nodeInfoT, len(feasible))
	for k, i := range feasible {
		window[k] = nodes[i]
		dst.Scored = append(dst.Scored, nodes[i].Node().Name)
	}
	if st := fw.RunPreScorePlugins(ctx, state, pod, window); !st.IsSuccess() {
		*warnings = append(*warnings, "PreScore: "+st.Message())
		return
	}
	scores, st := fw.RunScorePlugins(ctx, state, pod, window)
	if !st.IsSuccess() {
		*warnings = append(*warnings, "Score: "+st.Message())
		return
	}
	var top int64 = -1 << 62
	for _, nps := range scores {
		ns := nodeScore{Node: nps.Name, Total: nps.TotalScore}
		for _, s := range nps.Scores {
			ns.Scores = append(ns.Scores, pluginScore{s.Name, s.Score})
		}
		ns.Raw = rawScoresOf(nps)
		dst.Scores = append(dst.Scores, ns)
		if nps.TotalScore > top {
			top = nps.TotalScore
			dst.Top = nil
		}
		if nps.TotalScore == top {
			dst.Top = append(dst.Top, nps.Name)
		}
	}
	dst.TopScore = top
	sort.Strings(dst.Top)
	if i := sort.SearchStrings(dst.Top, result.SuggestedHost); i == len(dst.Top) || dst.Top[i] != result.SuggestedHost {
		*warnings = append(*warnings, fmt.Sprintf("scores: the scheduler chose %s, not among the top-scoring %v", result.SuggestedHost, dst.Top))
	}
}

func (r *runner) percentage(fw framework.Framework) int32 {
	if p := fw.PercentageOfNodesToScore(); p != nil {
		return *p
	}
	if r.cfg.PercentageOfNodesToScore != nil {
		return *r.cfg.PercentageOfNodesToScore
	}
	return 0
}

// schedule runs the cycles of one pending pod: one attempt; after a preemption the victims are
// gone and the pod is tried once more (as the queue would retry it); a pod left unscheduled is
// deleted, so that every later cycle sees the same cluster on both sides.
//
// A pod of a PodGroup (spec.schedulingGroup, GenericWorkload on) is scheduled with its group:
// creating it may start no cycle at all (GangScheduling holds the group's pods at PreEnqueue
// until minCount of them exist: the pod is recorded gated and kept), or a PodGroup scheduling
// cycle that places the pods of the group waiting with it (one record per pod the cycle
// reached, sharing its cycle number; each left unscheduled is deleted).
func (r *runner) schedule(pod *v1.Pod) ([]cycleRecord, error) {
	var records []cycleRecord
	if _, err := r.client.CoreV1().Pods(pod.Namespace).Create(r.ctx, pod, metav1.CreateOptions{}); err != nil {
		return nil, fmt.Errorf("creating pod %s: %w", podKey(pod), err)
	}
	r.created[podKey(pod)] = pod
	r.createdSeq[podKey(pod)] = len(r.createdSeq)
	if err := r.waitQueued(pod); err != nil {
		return nil, err
	}
	var lastVictims []*v1.Pod
	for attempt := 1; attempt <= 2; attempt++ {
		recs, victims, err := r.attempt(pod)
		records = append(records, recs...)
		if err != nil {
			return records, err
		}
		lastVictims = victims
		var own *cycleRecord
		for i := range recs {
			if recs[i].Pod == podKey(pod) {
				own = &recs[i]
			}
		}
		if own != nil && own.PodGroup != "" && len(victims) > 0 && attempt == 1 {
			// a PodGroup cycle that preempted: once the victims are gone the group's pods left
			// unscheduled are tried again, in one more cycle
			retry, err := r.groupRetry(recs, victims)
			if err != nil {
				return records, err
			}
			if retry {
				continue
			}
			break
		}
		if own == nil || len(recs) != 1 || own.PodGroup != "" {
			break // no retry in a PodGroup cycle that did not preempt
		}
		if own.Outcome != "unschedulable" || own.NominatedNode == "" || attempt == 2 {
			break
		}
		// the preemptor back in activeQ, as the victims' deletion would move it
		if err := r.waitVictimsGone(lastVictims); err != nil {
			return records, err
		}
		current, err := r.client.Tracker().Get(v1.SchemeGroupVersion.WithResource("pods"), pod.Namespace, pod.Name)
		if err != nil {
			return records, err
		}
		if err := r.waitNominated(current.(*v1.Pod)); err != nil {
			return records, err
		}
		r.built.sched.SchedulingQueue.Activate(klog.FromContext(r.ctx), map[string]*v1.Pod{podKey(pod): current.(*v1.Pod)})
		if err := r.waitQueued(pod); err != nil {
			return records, err
		}
	}
	// each pod's last record says whether it stays
	seen := map[string]bool{}
	for i := len(records) - 1; i >= 0; i-- {
		rec := &records[i]
		if seen[rec.Pod] {
			continue
		}
		seen[rec.Pod] = true
		if rec.Outcome == "bound" || (rec.Outcome == "gated" && rec.PodGroup != "") {
			continue
		}
		if err := r.remove(r.created[rec.Pod]); err != nil {
			return records, err
		}
		rec.Deleted = true
	}
	return records, nil
}

// attempt runs one ScheduleOne of the scheduler and records every pod it reached (one pod, or
// the pods of a PodGroup scheduling cycle), once each is bound or failed; with nothing in
// activeQ, the pod is recorded gated and no cycle runs.
func (r *runner) attempt(pod *v1.Pod) ([]cycleRecord, []*v1.Pod, error) {
	active, err := r.activeCount()
	if err != nil {
		return nil, nil, err
	}
	if active == 0 {
		r.mu.Lock()
		rec := r.newRecord(pod)
		r.mu.Unlock()
		rec.Outcome = "gated"
		rec.Message = podScheduledMessage(r.client, pod)
		return []cycleRecord{*rec}, nil, nil
	}
	r.mu.Lock()
	r.cycles++
	r.collecting, r.victims, r.storage = true, nil, nil
	r.startBase = r.started
	r.recs, r.order, r.recPods, r.failedPods = map[string]*cycleRecord{}, nil, map[string]*v1.Pod{}, map[string]bool{}
	r.placements, r.trials, r.placementScores = nil, map[string]map[string]*placementTrial{}, nil
	r.evaluations, r.evaluationsDone, r.tried = nil, false, map[string]bool{}
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.collecting = false
		r.mu.Unlock()
	}()
	r.built.sched.ScheduleOne(r.ctx)
	r.mu.Lock()
	r.nextStartAfter = nextStartNodeIndex(r.built.sched)
	r.orderCompositeCycle()
	order := append([]string(nil), r.order...)
	r.mu.Unlock()
	if len(order) == 0 {
		return nil, nil, fmt.Errorf("pod %s: the scheduling cycle reached no pod", podKey(pod))
	}
	deadline := time.Now().Add(waitFor)
	for _, key := range order {
		r.mu.Lock()
		rec, reached := r.recs[key], r.recPods[key]
		r.mu.Unlock()
		for {
			r.mu.Lock()
			node, bound := r.bound[key]
			failed := r.failedPods[key]
			r.mu.Unlock()
			if failed {
				break
			}
			if bound {
				assumed, err := r.built.sched.Cache.IsAssumedPod(reached)
				if err == nil && !assumed {
					if _, err := r.built.sched.Cache.GetPod(reached); err == nil {
						r.mu.Lock()
						rec.Outcome, rec.Node = "bound", node
						rec.StartTime = r.startTimes[key]
						r.mu.Unlock()
						break
					}
				}
			}
			if time.Now().After(deadline) {
				return nil, nil, fmt.Errorf("pod %s: neither bound nor failed after %s", key, waitFor)
			}
			time.Sleep(200 * time.Microsecond)
		}
	}
	// the next cycle reads the PodGroup conditions this one wrote (a group scheduled once is not
	// marked unschedulable again): the scheduler has to have seen them
	if err := r.waitPodGroupWritesSeen(); err != nil {
		return nil, nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.started < r.startBase+len(order) {
		r.started = r.startBase + len(order)
	}
	var victims []string
	for _, v := range r.victims {
		victims = append(victims, podKey(v))
	}
	sort.Strings(victims)
	out := make([]cycleRecord, 0, len(order))
	conditions := map[string]*groupCondition{}
	nominated := false
	for _, key := range order {
		nominated = nominated || r.recs[key].NominatedNode != ""
	}
	for i, key := range order {
		rec := r.recs[key]
		// preemption's victims and the storage writes belong to the cycle: to its one pod, or to
		// the pods of the group that nominated a node, or to the first pod when none did (a
		// group's preemption at 1.36 nominates only the members that were feasible); the writes
		// to the first pod
		if len(order) == 1 || rec.NominatedNode != "" || (i == 0 && !nominated) {
			rec.Victims = victims
		}
		if i == 0 {
			rec.Storage = r.storage
		}
		if r.podGroupParents[rec.PodGroup] != "" && len(r.evaluations) > 0 {
			r.chooseCompositeTrial(key, rec)
		} else {
			r.choosePlacementTrial(key, rec)
		}
		if rec.PodGroup != "" {
			if _, ok := conditions[rec.PodGroup]; !ok {
				ns, name, _ := strings.Cut(rec.PodGroup, "/")
				conditions[rec.PodGroup] = podGroupCondition(r.client, ns, name)
			}
			rec.PodGroupCondition = conditions[rec.PodGroup]
		}
		out = append(out, *rec)
	}
	return out, r.victims, nil
}

// podScheduledMessage is the reason and message of the pod's PodScheduled condition as the API
// server holds it ("" without one).
func podScheduledMessage(client *fake.Clientset, pod *v1.Pod) string {
	obj, err := client.Tracker().Get(v1.SchemeGroupVersion.WithResource("pods"), pod.Namespace, pod.Name)
	if err != nil {
		return ""
	}
	for _, c := range obj.(*v1.Pod).Status.Conditions {
		if c.Type == v1.PodScheduled && c.Status != v1.ConditionTrue {
			return strings.TrimSpace(c.Reason + ": " + c.Message)
		}
	}
	return ""
}

// activeCount is the number of pods in activeQ (the queue's summary).
func (r *runner) activeCount() (int, error) {
	_, summary := r.built.sched.SchedulingQueue.PendingPods()
	return queueCount(summary, "activeQ")
}

// queueCount reads one queue's length ("activeQ", "backoffQ", ...) from the summary the
// scheduling queue's PendingPods gives ("activeQ:3; backoffQ:0; unschedulablePods:1").
func queueCount(summary, queue string) (int, error) {
	for _, part := range strings.Split(summary, ";") {
		part = strings.TrimSpace(part)
		if strings.HasPrefix(part, queue+":") {
			return strconv.Atoi(strings.TrimPrefix(part, queue+":"))
		}
	}
	return 0, fmt.Errorf("cannot read %s from the queue's summary %q", queue, summary)
}

func (r *runner) poll(what string, cond func() bool) error {
	deadline := time.Now().Add(waitFor)
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %s waiting for %s", waitFor, what)
		}
		time.Sleep(200 * time.Microsecond)
	}
	return nil
}

func (r *runner) waitQueued(pod *v1.Pod) error {
	return r.poll("pod "+podKey(pod)+" in the scheduling queue", func() bool {
		pods, _ := r.built.sched.SchedulingQueue.PendingPods()
		for _, p := range pods {
			if p.UID == pod.UID {
				return true
			}
		}
		return false
	})
}

// groupRetry puts the pods of a PodGroup cycle that preempted back into activeQ once the
// victims' deletion reached the cache (as the deletion would move them), each with the nominated
// node its status was given; false when every pod of the cycle was bound.
func (r *runner) groupRetry(recs []cycleRecord, victims []*v1.Pod) (bool, error) {
	if err := r.waitVictimsGone(victims); err != nil {
		return false, err
	}
	activate := map[string]*v1.Pod{}
	for _, rec := range recs {
		if rec.Outcome != "unschedulable" {
			continue
		}
		created := r.created[rec.Pod]
		if created == nil {
			continue
		}
		current, err := r.client.Tracker().Get(v1.SchemeGroupVersion.WithResource("pods"), created.Namespace, created.Name)
		if err != nil {
			return false, err
		}
		pod := current.(*v1.Pod)
		if pod.Status.NominatedNodeName != "" {
			if err := r.waitNominated(pod); err != nil {
				return false, err
			}
		}
		activate[rec.Pod] = pod
	}
	if len(activate) == 0 {
		return false, nil
	}
	r.built.sched.SchedulingQueue.Activate(klog.FromContext(r.ctx), activate)
	for _, pod := range activate {
		if err := r.waitQueued(pod); err != nil {
			return false, err
		}
	}
	return true, nil
}

// waitNominated waits until the scheduling queue holds the pod with the nominated node its
// status was given (the informer's update), so the retry starts from the nominated node.
func (r *runner) waitNominated(pod *v1.Pod) error {
	if pod.Status.NominatedNodeName == "" {
		return fmt.Errorf("pod %s: preemption nominated a node, but the pod's status has none", podKey(pod))
	}
	return r.poll("pod "+podKey(pod)+" nominated in the scheduling queue", func() bool {
		pods, _ := r.built.sched.SchedulingQueue.PendingPods()
		for _, p := range pods {
			if p.UID == pod.UID {
				return p.Status.NominatedNodeName == pod.Status.NominatedNodeName
			}
		}
		return false
	})
}

func (r *runner) waitVictimsGone(victims []*v1.Pod) error {
	return r.poll("the victims' deletion to reach the cache", func() bool {
		for _, v := range victims {
			if p, err := r.built.sched.Cache.GetPod(v); err == nil && p != nil {
				return false
			}
		}
		return true
	})
}

// remove deletes a pod that stays unscheduled, and waits until the queue has let it go.
func (r *runner) remove(pod *v1.Pod) error {
	if err := r.client.CoreV1().Pods(pod.Namespace).Delete(r.ctx, pod.Name, metav1.DeleteOptions{}); err != nil {
		return fmt.Errorf("deleting pod %s: %w", podKey(pod), err)
	}
	return r.poll("pod "+podKey(pod)+" to leave the queue", func() bool {
		pods, _ := r.built.sched.SchedulingQueue.PendingPods()
		for _, p := range pods {
			if p.UID == pod.UID {
				return false
			}
		}
		return true
	})
}

func forceGate(name string, value bool) {
	for gate, spec := range utilfeature.DefaultMutableFeatureGate.GetAll() {
		if string(gate) == name && !spec.LockToDefault {
			_ = utilfeature.DefaultMutableFeatureGate.SetFromMap(map[string]bool{name: value})
		}
	}
}

// gateOverrides lists the gates whose value differs from the release's default.
func gateOverrides() map[string]bool {
	out := map[string]bool{}
	for gate, spec := range utilfeature.DefaultMutableFeatureGate.GetAll() {
		if v := utilfeature.DefaultFeatureGate.Enabled(gate); v != spec.Default {
			out[string(gate)] = v
		}
	}
	return out
}

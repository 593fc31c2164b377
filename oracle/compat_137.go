//go:build !k8s132 && !k8s133 && !k8s134 && !k8s135 && !k8s136

package main

// The scheduler's API as 1.37 has it: the framework's types in k8s.io/kube-scheduler/framework,
// SchedulePod taking the queued pod, pod groups beside pods in the queue.

import (
	"context"
	"errors"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/operation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/registry/rest"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	clientset "k8s.io/client-go/kubernetes"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

type statusT = *fwk.Status

// schedulingInformerVersion is the version of scheduling.k8s.io whose Workloads and PodGroups
// the scheduler lists: v1beta1 at 1.37 (the cache's PodGroup informer; v1alpha3 is served too).
var schedulingInformerVersion = schema.GroupVersion{Group: "scheduling.k8s.io", Version: "v1beta1"}

// podGroupConditionType is the condition the PodGroup scheduling cycle sets on its PodGroup at
// 1.37 (1.36's PodGroupScheduled, renamed).
const podGroupConditionType = "PodGroupInitiallyScheduled"

type cycleStateT = fwk.CycleState
type nodeInfoT = fwk.NodeInfo

func newInformerFactory(client clientset.Interface) informers.SharedInformerFactory {
	return scheduler.NewInformerFactory(client, 0, nil)
}

// newCycleStateLike is a fresh cycle state that is part of the same PodGroup scheduling cycle as
// the cycle's (plugins such as GangScheduling read the group's state in that cycle).
func newCycleStateLike(cycle fwk.CycleState) fwk.CycleState {
	state := framework.NewCycleState()
	if cycle != nil && cycle.IsPodGroupSchedulingCycle() {
		state.SetPodGroupSchedulingCycle(cycle.GetPodGroupSchedulingCycle())
	}
	return state
}

func wrapSchedulePod(s *scheduler.Scheduler, before func(), after func(framework.Framework, *v1.Pod, scheduler.ScheduleResult, error, cycleStateT)) {
	orig := s.SchedulePod
	s.SchedulePod = func(ctx context.Context, fw framework.Framework, state fwk.CycleState, podInfo *framework.QueuedPodInfo) (scheduler.ScheduleResult, error) {
		before()
		result, err := orig(ctx, fw, state, podInfo)
		after(fw, podInfo.Pod, result, err, state)
		return result, err
	}
}

func wrapFailureHandler(s *scheduler.Scheduler, record func(*v1.Pod, statusT, string)) {
	orig := s.FailureHandler
	s.FailureHandler = func(ctx context.Context, fw framework.Framework, podInfo *framework.QueuedPodInfo, st *fwk.Status, ni *fwk.NominatingInfo, start time.Time) {
		nominated := ""
		if ni != nil && ni.NominatingMode == fwk.ModeOverride {
			nominated = ni.NominatedNodeName
		}
		record(podInfo.Pod, st, nominated)
		orig(ctx, fw, podInfo, st, ni, start)
	}
}

func rawScoresOf(nps fwk.NodePluginScores) []pluginScore {
	out := make([]pluginScore, 0, len(nps.RawScores))
	for _, s := range nps.RawScores {
		out = append(out, pluginScore{s.Name, s.Score})
	}
	return out
}

func asFitError(err error) (*framework.FitError, bool) {
	var fit *framework.FitError
	ok := errors.As(err, &fit)
	return fit, ok
}

func forEachExplicitNode(fit *framework.FitError, fn func(string, statusT)) {
	fit.Diagnosis.NodeToStatus.ForEachExplicitNode(fn)
}

func startAPIDispatcher(ctx context.Context, s *scheduler.Scheduler) {
	if s.APIDispatcher != nil {
		s.APIDispatcher.Run(klog.FromContext(ctx))
	}
}

func versionedSpecs() map[featuregate.Feature]featuregate.VersionedSpecs {
	return utilfeature.DefaultMutableFeatureGate.GetAllVersioned()
}

func gateDependencies() map[featuregate.Feature][]featuregate.Feature {
	return utilfeature.DefaultFeatureGate.Dependencies()
}

// placementScoring is a profile's framework that shows each placement scoring of a PodGroup
// cycle (TopologyAwareWorkloadScheduling's findBestPlacement) to observe.
type placementScoring struct {
	framework.Framework
	observe   func(string, []placementScore)
	generated func(group string, composite bool, parent []nodeInfoT, placements [][]nodeInfoT)
}

// RunPlacementGeneratePlugins shows the placements generated for each group of a cycle (its
// namespace/name, whether it is a CompositePodGroup, the nodes of the parent placement they were
// made from, and the placements in the order the cycle tries them) to generated; a failed
// generation (no placement) as none.
func (f placementScoring) RunPlacementGeneratePlugins(ctx context.Context, state fwk.PodGroupCycleState, pgi fwk.PodGroupInfo, nodes []fwk.NodeInfo) ([]*fwk.Placement, *fwk.Status) {
	placements, st := f.Framework.RunPlacementGeneratePlugins(ctx, state, pgi, nodes)
	out := make([][]nodeInfoT, 0, len(placements))
	if st.IsSuccess() {
		for _, p := range placements {
			out = append(out, p.Nodes)
		}
	}
	f.generated(pgi.GetNamespace()+"/"+pgi.GetName(), pgi.GetCompositePodGroup() != nil, nodes, out)
	return placements, st
}

func (f placementScoring) RunPlacementScorePlugins(ctx context.Context, state fwk.PodGroupCycleState, pgi fwk.PodGroupInfo, assignments []*fwk.PodGroupAssignments, states []fwk.PlacementCycleState) ([]fwk.PlacementPluginScores, *fwk.Status) {
	scores, st := f.Framework.RunPlacementScorePlugins(ctx, state, pgi, assignments, states)
	if st.IsSuccess() {
		out := make([]placementScore, 0, len(scores))
		for _, ps := range scores {
			if ps.Placement != nil {
				out = append(out, placementScore{nodes: ps.Placement.Nodes, total: ps.TotalScore})
			}
		}
		f.observe(pgi.GetNamespace()+"/"+pgi.GetName(), out)
	}
	return scores, st
}

// wrapPlacementScoring has every profile's framework show its placement scores (by group,
// namespace/name) to observe and the placements it generates to generated, with
// TopologyAwareWorkloadScheduling on (else no cycle scores placements, and the frameworks are
// left as they are).
func wrapPlacementScoring(s *scheduler.Scheduler, observe func(string, []placementScore), generated func(string, bool, []nodeInfoT, [][]nodeInfoT)) {
	if !utilfeature.DefaultFeatureGate.Enabled(features.TopologyAwareWorkloadScheduling) {
		return
	}
	for name, fw := range s.Profiles {
		s.Profiles[name] = placementScoring{Framework: fw, observe: observe, generated: generated}
	}
}

// validateDeclaratively adds the declarative validation of a scheduling.k8s.io object on create
// to its handwritten errs, as the registry's BeforeCreate runs it at 1.37 (a CompositePodGroup's
// spec has no other validation).
func validateDeclaratively(ctx context.Context, strategy createStrategy, obj runtime.Object, errs field.ErrorList) field.ErrorList {
	if dv, ok := strategy.(rest.DeclarativeValidationStrategy); ok {
		errs = dv.ValidateDeclaratively(ctx, obj, nil, errs, operation.Create, dv.DeclarativeValidationConfig(ctx, obj, nil))
	}
	return errs
}

//go:build k8s136

package main

// The scheduler's API as 1.36 has it: the framework's types in k8s.io/kube-scheduler/framework,
// SchedulePod taking the queued pod.

import (
	"context"
	"errors"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
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
// the scheduler lists: v1alpha2 at 1.36 (GangScheduling's PodGroup lister).
var schedulingInformerVersion = schema.GroupVersion{Group: "scheduling.k8s.io", Version: "v1alpha2"}

// podGroupConditionType is the condition the PodGroup scheduling cycle sets on its PodGroup at
// 1.36.
const podGroupConditionType = "PodGroupScheduled"

type cycleStateT = fwk.CycleState
type nodeInfoT = fwk.NodeInfo

func newInformerFactory(client clientset.Interface) informers.SharedInformerFactory {
	return scheduler.NewInformerFactory(client, 0)
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

func rawScoresOf(fwk.NodePluginScores) []pluginScore { return nil }

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
	observe func(string, []placementScore)
}

func (f placementScoring) RunPlacementScorePlugins(ctx context.Context, state fwk.PodGroupCycleState, pgi fwk.PodGroupInfo, assignments []*fwk.PodGroupAssignments) ([]fwk.PlacementPluginScores, *fwk.Status) {
	scores, st := f.Framework.RunPlacementScorePlugins(ctx, state, pgi, assignments)
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
// namespace/name) to observe, with TopologyAwareWorkloadScheduling on (else no cycle scores
// placements, and the frameworks are left as they are). generated is not called: composites
// (whose placements the oracle follows through it) come at 1.37.
func wrapPlacementScoring(s *scheduler.Scheduler, observe func(string, []placementScore), generated func(string, bool, []nodeInfoT, [][]nodeInfoT)) {
	if !utilfeature.DefaultFeatureGate.Enabled(features.TopologyAwareWorkloadScheduling) {
		return
	}
	for name, fw := range s.Profiles {
		s.Profiles[name] = placementScoring{Framework: fw, observe: observe}
	}
}

// compositeKinds: no CompositePodGroup before 1.37.
func compositeKinds() map[string]schedulingKind { return nil }

func compositeStatusResources() []groupStatusResource { return nil }

// validateDeclaratively: at 1.36 a scheduling.k8s.io strategy's Validate runs the declarative
// validation itself.
func validateDeclaratively(_ context.Context, _ createStrategy, _ runtime.Object, errs field.ErrorList) field.ErrorList {
	return errs
}

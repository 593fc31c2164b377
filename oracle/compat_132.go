//go:build k8s132 || k8s133

package main

// The scheduler's API as 1.32 and 1.33 have it: every framework type in
// k8s.io/kubernetes/pkg/scheduler/framework.

import (
	"context"
	"errors"
	"time"

	v1 "k8s.io/api/core/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	clientset "k8s.io/client-go/kubernetes"
	"k8s.io/component-base/featuregate"

	"k8s.io/kubernetes/pkg/scheduler"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

type statusT = *framework.Status
type cycleStateT = *framework.CycleState
type nodeInfoT = *framework.NodeInfo

func newInformerFactory(client clientset.Interface) informers.SharedInformerFactory {
	return scheduler.NewInformerFactory(client, 0)
}

func newCycleState() *framework.CycleState { return framework.NewCycleState() }

// newCycleStateLike is a fresh cycle state (no PodGroup scheduling cycles before 1.36).
func newCycleStateLike(cycleStateT) cycleStateT { return newCycleState() }

func wrapSchedulePod(s *scheduler.Scheduler, before func(), after func(framework.Framework, *v1.Pod, scheduler.ScheduleResult, error, cycleStateT)) {
	orig := s.SchedulePod
	s.SchedulePod = func(ctx context.Context, fw framework.Framework, state *framework.CycleState, pod *v1.Pod) (scheduler.ScheduleResult, error) {
		before()
		result, err := orig(ctx, fw, state, pod)
		after(fw, pod, result, err, state)
		return result, err
	}
}

func wrapFailureHandler(s *scheduler.Scheduler, record func(*v1.Pod, statusT, string)) {
	orig := s.FailureHandler
	s.FailureHandler = func(ctx context.Context, fw framework.Framework, podInfo *framework.QueuedPodInfo, st *framework.Status, ni *framework.NominatingInfo, start time.Time) {
		nominated := ""
		if ni != nil && ni.NominatingMode == framework.ModeOverride {
			nominated = ni.NominatedNodeName
		}
		record(podInfo.Pod, st, nominated)
		orig(ctx, fw, podInfo, st, ni, start)
	}
}

func rawScoresOf(framework.NodePluginScores) []pluginScore { return nil }

func asFitError(err error) (*framework.FitError, bool) {
	var fit *framework.FitError
	ok := errors.As(err, &fit)
	return fit, ok
}

func forEachExplicitNode(fit *framework.FitError, fn func(string, statusT)) {
	fit.Diagnosis.NodeToStatus.ForEachExplicitNode(fn)
}

func startAPIDispatcher(ctx context.Context, s *scheduler.Scheduler) {
	_ = ctx
}

func versionedSpecs() map[featuregate.Feature]featuregate.VersionedSpecs {
	return utilfeature.DefaultMutableFeatureGate.GetAllVersioned()
}

func gateDependencies() map[featuregate.Feature][]featuregate.Feature {
	return nil
}

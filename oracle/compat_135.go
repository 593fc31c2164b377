//go:build k8s135

package main

// The scheduler's API as 1.35 has it: the framework's types in k8s.io/kube-scheduler/framework,
// SchedulePod taking the pod.

import (
	"context"
	"errors"
	"time"

	v1 "k8s.io/api/core/v1"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	clientset "k8s.io/client-go/kubernetes"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"k8s.io/kubernetes/pkg/scheduler"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

type statusT = *fwk.Status
type cycleStateT = fwk.CycleState
type nodeInfoT = fwk.NodeInfo

func newInformerFactory(client clientset.Interface) informers.SharedInformerFactory {
	return scheduler.NewInformerFactory(client, 0)
}

func newCycleState() fwk.CycleState { return framework.NewCycleState() }

// newCycleStateLike is a fresh cycle state (no PodGroup scheduling cycles before 1.36).
func newCycleStateLike(cycleStateT) cycleStateT { return newCycleState() }

func wrapSchedulePod(s *scheduler.Scheduler, before func(), after func(framework.Framework, *v1.Pod, scheduler.ScheduleResult, error, cycleStateT)) {
	orig := s.SchedulePod
	s.SchedulePod = func(ctx context.Context, fw framework.Framework, state fwk.CycleState, pod *v1.Pod) (scheduler.ScheduleResult, error) {
		before()
		result, err := orig(ctx, fw, state, pod)
		after(fw, pod, result, err, state)
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

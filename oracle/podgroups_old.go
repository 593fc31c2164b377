//go:build k8s132 || k8s133 || k8s134 || k8s135

package main

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"k8s.io/kubernetes/pkg/scheduler"
)

// schedulingCreate: the oracle runs Workloads and PodGroups from 1.36 on (scheduling.k8s.io
// v1alpha2); before, they are objects like any other.
func schedulingCreate(obj runtime.Object) (runtime.Object, bool, error) { return obj, false, nil }

func podGroupCondition(*fake.Clientset, string, string) *groupCondition { return nil }

func podGroupOf(*v1.Pod) string { return "" }

func groupParents([]runtime.Object) (map[string]string, map[string]string) { return nil, nil }

func (r *runner) installPodGroupReactors() {}

func (r *runner) waitPodGroupWritesSeen() error { return nil }

// wrapPlacementScoring: no placements before 1.36.
func wrapPlacementScoring(*scheduler.Scheduler, func(string, []placementScore), func(string, bool, []nodeInfoT, [][]nodeInfoT)) {
}

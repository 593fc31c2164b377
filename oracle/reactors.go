package main

import (
	"encoding/json"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	clienttesting "k8s.io/client-go/testing"
)

// strategicPatchReactor applies the strategic-merge patches of one resource (the scheduler's
// status patches: a failure's condition and nominated node, preemption's DisruptionTarget, a
// PodGroup's condition) to the fake clientset's tracker as the API server does: the object
// patched, then stored with the resourceVersion stamp sets. The fake clientset's own patch keeps
// the old resourceVersion, and the scheduler's handlers ignore an update whose resourceVersion
// did not change. blank gives an empty object of the resource's kind (the patch's schema, then
// the patched object).
func strategicPatchReactor(tracker clienttesting.ObjectTracker, gvr schema.GroupVersionResource,
	blank func() (runtime.Object, error), stamp func(metav1.Object)) clienttesting.ReactionFunc {
	return func(action clienttesting.Action) (bool, runtime.Object, error) {
		pa := action.(clienttesting.PatchAction)
		if pa.GetPatchType() != types.StrategicMergePatchType {
			return false, nil, nil
		}
		obj, err := tracker.Get(gvr, pa.GetNamespace(), pa.GetName())
		if err != nil {
			return true, nil, err
		}
		original, err := json.Marshal(obj)
		if err != nil {
			return true, nil, err
		}
		kind, err := blank()
		if err != nil {
			return true, nil, err
		}
		patched, err := strategicpatch.StrategicMergePatch(original, pa.GetPatch(), kind)
		if err != nil {
			return true, nil, err
		}
		out, err := blank()
		if err != nil {
			return true, nil, err
		}
		if err := json.Unmarshal(patched, out); err != nil {
			return true, nil, err
		}
		m, err := meta.Accessor(out)
		if err != nil {
			return true, nil, err
		}
		stamp(m)
		if err := tracker.Update(gvr, out, m.GetNamespace()); err != nil {
			return true, nil, err
		}
		return true, out, nil
	}
}

// newPod is the blank of strategicPatchReactor for pods.
func newPod() (runtime.Object, error) { return &v1.Pod{}, nil }

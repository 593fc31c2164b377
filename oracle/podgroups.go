//go:build !k8s132 && !k8s133 && !k8s134 && !k8s135

package main

// Workload-aware scheduling (1.36 on): the scheduling.k8s.io Workload and PodGroup kinds as the
// API server creates them, and the PodGroupScheduled condition the scheduler writes.

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/client-go/kubernetes/fake"

	"k8s.io/kubernetes/pkg/api/legacyscheme"
	schedulingapi "k8s.io/kubernetes/pkg/apis/scheduling"
	podgroupstore "k8s.io/kubernetes/pkg/registry/scheduling/podgroup"
	workloadstore "k8s.io/kubernetes/pkg/registry/scheduling/workload"
)

type createStrategy interface {
	PrepareForCreate(ctx context.Context, obj runtime.Object)
	Validate(ctx context.Context, obj runtime.Object) field.ErrorList
}

// schedulingCreate runs a Workload or PodGroup, of any version the release serves, through its
// registry strategy on create (PodGroup: the status reset, disabled fields dropped; both: the
// handwritten and declarative validation, for the version the case wrote) and returns it in the
// version the scheduler's informers list (the fake clientset serves each object in the version
// it was added with). handled is false for every other object.
func schedulingCreate(obj runtime.Object) (out runtime.Object, handled bool, err error) {
	gvks, _, err := legacyscheme.Scheme.ObjectKinds(obj)
	if err != nil || len(gvks) == 0 || gvks[0].Group != schedulingapi.GroupName {
		return obj, false, nil
	}
	gvk := gvks[0]
	var strategy createStrategy
	var resource string
	switch gvk.Kind {
	case "PodGroup":
		strategy, resource = podgroupstore.NewStrategy(), "podgroups"
	case "Workload":
		strategy, resource = workloadstore.Strategy, "workloads"
	default:
		return obj, false, nil
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, true, err
	}
	if m.GetNamespace() == "" {
		m.SetNamespace("default")
	}
	// declarative validation reads the request's group, version and resource
	ctx := genericapirequest.WithNamespace(context.Background(), m.GetNamespace())
	ctx = genericapirequest.WithRequestInfo(ctx, &genericapirequest.RequestInfo{
		IsResourceRequest: true,
		Verb:              "create",
		APIPrefix:         "apis",
		APIGroup:          gvk.Group,
		APIVersion:        gvk.Version,
		Namespace:         m.GetNamespace(),
		Resource:          resource,
		Name:              m.GetName(),
	})
	internal, err := legacyscheme.Scheme.ConvertToVersion(obj, schedulingapi.SchemeGroupVersion)
	if err != nil {
		return nil, true, err
	}
	strategy.PrepareForCreate(ctx, internal)
	if errs := strategy.Validate(ctx, internal); len(errs) > 0 {
		return nil, true, errs.ToAggregate()
	}
	out, err = legacyscheme.Scheme.ConvertToVersion(internal, schedulingInformerVersion)
	if err != nil {
		return nil, true, fmt.Errorf("%s %s/%s in %s: %w", gvk.Kind, m.GetNamespace(), m.GetName(), schedulingInformerVersion, err)
	}
	return out, true, nil
}

// podGroupOf is the pod's PodGroup, namespace/name ("": none).
func podGroupOf(pod *v1.Pod) string {
	if sg := pod.Spec.SchedulingGroup; sg != nil && sg.PodGroupName != nil {
		return pod.Namespace + "/" + *sg.PodGroupName
	}
	return ""
}

// podGroupCondition is the condition the scheduler set on the pod group (PodGroupScheduled at
// 1.36, PodGroupInitiallyScheduled at 1.37; nil: none, or no such group), read from the API
// server after the cycle.
func podGroupCondition(client *fake.Clientset, namespace, name string) *groupCondition {
	gvr := schedulingInformerVersion.WithResource("podgroups")
	obj, err := client.Tracker().Get(gvr, namespace, name)
	if err != nil {
		return nil
	}
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil
	}
	status, _ := u["status"].(map[string]any)
	conditions, _ := status["conditions"].([]any)
	for _, c := range conditions {
		cond, _ := c.(map[string]any)
		if cond["type"] == podGroupConditionType {
			out := &groupCondition{Type: podGroupConditionType}
			out.Status, _ = cond["status"].(string)
			out.Reason, _ = cond["reason"].(string)
			out.Message, _ = cond["message"].(string)
			return out
		}
	}
	return nil
}

// installPodGroupReactors applies the scheduler's status patches of PodGroups as the API server
// does: with a new resourceVersion (the fake clientset's own patch keeps it, and the
// scheduler's PodGroup handlers ignore an update whose resourceVersion did not change).
func (r *runner) installPodGroupReactors() {
	gvr := schedulingInformerVersion.WithResource("podgroups")
	gvk := schedulingInformerVersion.WithKind("PodGroup")
	r.client.PrependReactor("patch", "podgroups", strategicPatchReactor(r.client.Tracker(), gvr,
		func() (runtime.Object, error) { return legacyscheme.Scheme.New(gvk) },
		func(m metav1.Object) {
			r.mu.Lock()
			m.SetResourceVersion(r.nextResourceVersion())
			r.podGroupWrites[m.GetNamespace()+"/"+m.GetName()] = m.GetResourceVersion()
			r.mu.Unlock()
		}))
}

// waitPodGroupWritesSeen waits until the scheduler's PodGroup informer holds every PodGroup as
// the scheduler last wrote it.
func (r *runner) waitPodGroupWritesSeen() error {
	r.mu.Lock()
	writes := map[string]string{}
	for k, v := range r.podGroupWrites {
		writes[k] = v
	}
	r.mu.Unlock()
	if len(writes) == 0 {
		return nil
	}
	informer, err := r.built.informers.ForResource(schedulingInformerVersion.WithResource("podgroups"))
	if err != nil {
		return err
	}
	return r.poll("the PodGroup status writes to reach the scheduler", func() bool {
		for key, rv := range writes {
			obj, exists, err := informer.Informer().GetStore().GetByKey(key)
			if err != nil || !exists {
				return false
			}
			if m, err := meta.Accessor(obj); err != nil || m.GetResourceVersion() != rv {
				return false
			}
		}
		return true
	})
}

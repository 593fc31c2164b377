//go:build !k8s132 && !k8s133 && !k8s134 && !k8s135

package main

// Workload-aware scheduling (1.36 on): the scheduling.k8s.io Workload and PodGroup kinds (and
// from 1.37 CompositePodGroup, compositeKinds) as the API server creates them, and the
// PodGroupScheduled condition the scheduler writes.

import (
	"context"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
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

// schedulingKind is a scheduling.k8s.io kind the oracle creates through its registry strategy:
// the strategy, its resource, and the version of it the scheduler's informers list.
type schedulingKind struct {
	strategy func() createStrategy
	resource string
	informer schema.GroupVersion
}

// schedulingKinds are the kinds of schedulingCreate: Workload and PodGroup, and the release's
// own (compositeKinds: CompositePodGroup from 1.37).
func schedulingKinds() map[string]schedulingKind {
	kinds := map[string]schedulingKind{
		"PodGroup": {func() createStrategy { return podgroupstore.NewStrategy() }, "podgroups", schedulingInformerVersion},
		"Workload": {func() createStrategy { return workloadstore.Strategy }, "workloads", schedulingInformerVersion},
	}
	for name, kind := range compositeKinds() {
		kinds[name] = kind
	}
	return kinds
}

// schedulingCreate runs a Workload, PodGroup or CompositePodGroup, of any version the release
// serves, through its registry strategy on create (PodGroup and CompositePodGroup: the status
// reset, disabled fields dropped; all: the handwritten and declarative validation, for the
// version the case wrote) and returns it in the version the scheduler's informers list (the
// fake clientset serves each object in the version it was added with). handled is false for
// every other object.
func schedulingCreate(obj runtime.Object) (out runtime.Object, handled bool, err error) {
	gvks, _, err := legacyscheme.Scheme.ObjectKinds(obj)
	if err != nil || len(gvks) == 0 || gvks[0].Group != schedulingapi.GroupName {
		return obj, false, nil
	}
	gvk := gvks[0]
	kind, ok := schedulingKinds()[gvk.Kind]
	if !ok {
		return obj, false, nil
	}
	strategy, resource := kind.strategy(), kind.resource
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
	if errs := validateDeclaratively(ctx, strategy, internal, strategy.Validate(ctx, internal)); len(errs) > 0 {
		return nil, true, errs.ToAggregate()
	}
	out, err = legacyscheme.Scheme.ConvertToVersion(internal, kind.informer)
	if err != nil {
		return nil, true, fmt.Errorf("%s %s/%s in %s: %w", gvk.Kind, m.GetNamespace(), m.GetName(), kind.informer, err)
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

// groupParents reads the parent of each PodGroup and CompositePodGroup of the case
// (spec.parentCompositePodGroupName, 1.37) as namespace/name -> namespace/name, apart for the two
// kinds; a group without a parent is not listed.
func groupParents(objects []runtime.Object) (podGroups, composites map[string]string) {
	podGroups, composites = map[string]string{}, map[string]string{}
	for _, obj := range objects {
		gvks, _, err := legacyscheme.Scheme.ObjectKinds(obj)
		if err != nil || len(gvks) == 0 || gvks[0].Group != schedulingapi.GroupName {
			continue
		}
		var into map[string]string
		switch gvks[0].Kind {
		case "PodGroup":
			into = podGroups
		case "CompositePodGroup":
			into = composites
		default:
			continue
		}
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			continue
		}
		spec, _ := u["spec"].(map[string]any)
		parent, _ := spec["parentCompositePodGroupName"].(string)
		if m, err := meta.Accessor(obj); err == nil && parent != "" {
			into[m.GetNamespace()+"/"+m.GetName()] = m.GetNamespace() + "/" + parent
		}
	}
	return podGroups, composites
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

// groupStatusResource is a kind whose status the scheduler patches: PodGroup (its condition), and
// the release's own (compositeStatusResources: CompositePodGroup from 1.37, to which 1.37.2's
// scheduler writes nothing).
type groupStatusResource struct {
	gvr schema.GroupVersionResource
	gvk schema.GroupVersionKind
}

func groupStatusResources() []groupStatusResource {
	return append([]groupStatusResource{{
		gvr: schedulingInformerVersion.WithResource("podgroups"),
		gvk: schedulingInformerVersion.WithKind("PodGroup"),
	}}, compositeStatusResources()...)
}

// installPodGroupReactors applies the scheduler's status patches of PodGroups (and of
// CompositePodGroups) as the API server does: with a new resourceVersion (the fake clientset's
// own patch keeps it, and the scheduler's PodGroup handlers ignore an update whose
// resourceVersion did not change).
func (r *runner) installPodGroupReactors() {
	for _, res := range groupStatusResources() {
		r.client.PrependReactor("patch", res.gvr.Resource, strategicPatchReactor(r.client.Tracker(), res.gvr,
			func() (runtime.Object, error) { return legacyscheme.Scheme.New(res.gvk) },
			func(m metav1.Object) {
				r.mu.Lock()
				m.SetResourceVersion(r.nextResourceVersion())
				if r.podGroupWrites[res.gvr] == nil {
					r.podGroupWrites[res.gvr] = map[string]string{}
				}
				r.podGroupWrites[res.gvr][m.GetNamespace()+"/"+m.GetName()] = m.GetResourceVersion()
				r.mu.Unlock()
			}))
	}
}

// waitPodGroupWritesSeen waits until the scheduler's PodGroup (and CompositePodGroup) informers
// hold every group as the scheduler last wrote it.
func (r *runner) waitPodGroupWritesSeen() error {
	r.mu.Lock()
	writes := map[schema.GroupVersionResource]map[string]string{}
	for gvr, objs := range r.podGroupWrites {
		writes[gvr] = map[string]string{}
		for k, v := range objs {
			writes[gvr][k] = v
		}
	}
	r.mu.Unlock()
	for gvr, objs := range writes {
		informer, err := r.built.informers.ForResource(gvr)
		if err != nil {
			return err
		}
		err = r.poll("the "+gvr.Resource+" status writes to reach the scheduler", func() bool {
			for key, rv := range objs {
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
		if err != nil {
			return err
		}
	}
	return nil
}

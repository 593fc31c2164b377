package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	api "k8s.io/kubernetes/pkg/apis/core"
	nodestore "k8s.io/kubernetes/pkg/registry/core/node"
	podstore "k8s.io/kubernetes/pkg/registry/core/pod"
	"sigs.k8s.io/yaml"

	// the API server's defaulting of every kind a case may hold
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	_ "k8s.io/kubernetes/pkg/apis/policy/install"
	_ "k8s.io/kubernetes/pkg/apis/resource/install"
	_ "k8s.io/kubernetes/pkg/apis/scheduling/install"
	_ "k8s.io/kubernetes/pkg/apis/storage/install"
)

// caseFile is a case: the cluster before the first cycle, the pods to schedule in order, and
// the scheduler's configuration document (nil: kube-scheduler's defaults).
type caseFile struct {
	objects []runtime.Object
	pending []*v1.Pod
	config  []byte
	// restore sets the feature gates back to what they were before the case's annotation
	restore func()
}

// gatesAnnotation on a case's List sets feature gates for that case alone
// ("GenericWorkload=true,GangScheduling=true"): the API server's defaulting and validation of
// its objects and the scheduler run with them. A gate the release does not have is left out
// (a case can name the gates of several releases); a gate given with --feature-gates keeps its
// command-line value.
const gatesAnnotation = "oracle.schedframe.io/feature-gates"

type typeMeta struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

func readCase(path string) (*caseFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var list struct {
		typeMeta
		Metadata struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"metadata"`
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(js, &list); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if list.Kind != "List" && !strings.HasSuffix(list.Kind, "List") {
		return nil, fmt.Errorf("%s: want a List, got kind %q", path, list.Kind)
	}
	restore, err := applyCaseGates(list.Metadata.Annotations[gatesAnnotation])
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", path, gatesAnnotation, err)
	}
	c := &caseFile{restore: restore}
	ok := false
	defer func() {
		if !ok {
			restore()
		}
	}()
	decoder := legacyscheme.Codecs.UniversalDeserializer()
	for i, raw := range list.Items {
		var tm typeMeta
		if err := json.Unmarshal(raw, &tm); err != nil {
			return nil, fmt.Errorf("%s: items[%d]: %w", path, i, err)
		}
		if strings.HasPrefix(tm.APIVersion, "kubescheduler.config.k8s.io/") {
			c.config = raw
			continue
		}
		obj, _, err := decoder.Decode(raw, nil, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: items[%d] (%s %s): %w", path, i, tm.APIVersion, tm.Kind, err)
		}
		if pod, ok := obj.(*v1.Pod); ok && (pod.Status.Phase == v1.PodSucceeded || pod.Status.Phase == v1.PodFailed) {
			// the scheduler's pod informer lists non-terminal pods only (a field selector the
			// fake clientset would not apply)
			continue
		}
		// what the API server does on create: defaulting, its strategy's mutations, validation
		legacyscheme.Scheme.Default(obj)
		if obj, err = apiServerCreate(obj); err != nil {
			return nil, fmt.Errorf("%s: items[%d] (%s %s): the API server refuses it: %w", path, i, tm.APIVersion, tm.Kind, err)
		}
		if pod, ok := obj.(*v1.Pod); ok && pod.Spec.NodeName == "" {
			c.pending = append(c.pending, pod)
			continue
		}
		c.objects = append(c.objects, obj)
	}
	if err := admit(c); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	ok = true
	return c, nil
}

// applyCaseGates sets the gates of a case's annotation (see gatesAnnotation); restore sets them
// back.
func applyCaseGates(text string) (restore func(), err error) {
	known := utilfeature.DefaultMutableFeatureGate.GetAll()
	set := map[string]bool{}
	for _, part := range strings.Split(text, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, value, found := strings.Cut(part, "=")
		name = strings.TrimSpace(name)
		enabled, perr := strconv.ParseBool(strings.TrimSpace(value))
		if !found || perr != nil {
			return nil, fmt.Errorf("want Gate=true|false, got %q", part)
		}
		if _, ok := known[featuregate.Feature(name)]; !ok || cliGates[name] {
			continue
		}
		set[name] = enabled
	}
	previous := map[string]bool{}
	for name := range set {
		previous[name] = utilfeature.DefaultFeatureGate.Enabled(featuregate.Feature(name))
	}
	if err := utilfeature.DefaultMutableFeatureGate.SetFromMap(set); err != nil {
		_ = utilfeature.DefaultMutableFeatureGate.SetFromMap(previous)
		return nil, err
	}
	return func() { _ = utilfeature.DefaultMutableFeatureGate.SetFromMap(previous) }, nil
}

// apiServerCreate runs a Pod, Node, Workload or PodGroup through what the API server's registry
// does on create: the strategy's PrepareForCreate (for a pod: matchLabelKeys merged into
// affinity and spread selectors, pod-level resources defaulted, the status reset) and its
// validation. A bound pod keeps the status it was given (a cluster dump's pods were created,
// then bound and started). A Workload or PodGroup comes back in the version the scheduler
// lists (schedulingCreate).
func apiServerCreate(obj runtime.Object) (runtime.Object, error) {
	if out, handled, err := schedulingCreate(obj); handled {
		return out, err
	}
	ctx := context.Background()
	switch o := obj.(type) {
	case *v1.Pod:
		if o.Namespace == "" {
			o.Namespace = "default"
		}
		internal := &api.Pod{}
		if err := legacyscheme.Scheme.Convert(o, internal, nil); err != nil {
			return nil, err
		}
		podstore.Strategy.PrepareForCreate(ctx, internal)
		if errs := podstore.Strategy.Validate(ctx, internal); len(errs) > 0 {
			return nil, errs.ToAggregate()
		}
		status := o.Status.DeepCopy()
		out := &v1.Pod{}
		if err := legacyscheme.Scheme.Convert(internal, out, nil); err != nil {
			return nil, err
		}
		if o.Spec.NodeName != "" {
			out.Status = *status
		}
		*o = *out
	case *v1.Node:
		internal := &api.Node{}
		if err := legacyscheme.Scheme.Convert(o, internal, nil); err != nil {
			return nil, err
		}
		nodestore.Strategy.PrepareForCreate(ctx, internal)
		if errs := nodestore.Strategy.Validate(ctx, internal); len(errs) > 0 {
			return nil, errs.ToAggregate()
		}
		out := &v1.Node{}
		if err := legacyscheme.Scheme.Convert(internal, out, nil); err != nil {
			return nil, err
		}
		*o = *out
	}
	return obj, nil
}

// admit does what the API server's admission and registry do to a pod on create that the
// scheduler depends on: a UID, and the Priority admission plugin's priority and preemption
// policy from the pod's PriorityClass (or the global default class).
func admit(c *caseFile) error {
	classes := map[string]*schedulingv1.PriorityClass{}
	var global *schedulingv1.PriorityClass
	for _, obj := range c.objects {
		if pc, ok := obj.(*schedulingv1.PriorityClass); ok {
			classes[pc.Name] = pc
			if pc.GlobalDefault && (global == nil || pc.Value > global.Value) {
				global = pc
			}
		}
	}
	// the system classes the API server creates
	for name, value := range map[string]int32{"system-cluster-critical": 2000000000, "system-node-critical": 2000001000} {
		if _, ok := classes[name]; !ok {
			classes[name] = &schedulingv1.PriorityClass{Value: value}
		}
	}
	pods := append([]*v1.Pod{}, c.pending...)
	for _, obj := range c.objects {
		if pod, ok := obj.(*v1.Pod); ok {
			pods = append(pods, pod)
		}
	}
	for _, pod := range pods {
		if pod.UID == "" {
			pod.UID = types.UID("uid-" + pod.Namespace + "-" + pod.Name)
		}
		if pod.Spec.Priority != nil {
			continue
		}
		var pc *schedulingv1.PriorityClass
		if pod.Spec.PriorityClassName != "" {
			pc = classes[pod.Spec.PriorityClassName]
			if pc == nil {
				return fmt.Errorf("pod %s/%s: no PriorityClass with name %s was found", pod.Namespace, pod.Name, pod.Spec.PriorityClassName)
			}
		} else if global != nil {
			pc = global
			pod.Spec.PriorityClassName = global.Name
		}
		value := int32(0)
		if pc != nil {
			value = pc.Value
			if pod.Spec.PreemptionPolicy == nil {
				policy := v1.PreemptLowerPriority
				if pc.PreemptionPolicy != nil {
					policy = *pc.PreemptionPolicy
				}
				pod.Spec.PreemptionPolicy = &policy
			}
		}
		pod.Spec.Priority = &value
	}
	// every object a uid, as the API server gives one (claims need theirs: a PV's claimRef
	// names it, and a provisioned PV is named after it)
	for _, obj := range c.objects {
		if m, err := meta.Accessor(obj); err == nil && m.GetUID() == "" {
			kind := strings.ToLower(fmt.Sprintf("%T", obj))
			kind = kind[strings.LastIndex(kind, ".")+1:]
			m.SetUID(types.UID("uid-" + kind + "-" + m.GetNamespace() + "-" + m.GetName()))
		}
	}
	return nil
}

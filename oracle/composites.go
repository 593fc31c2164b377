//go:build !k8s132 && !k8s133 && !k8s134 && !k8s135 && !k8s136

package main

// CompositePodGroups (1.37 on, scheduling.k8s.io/v1alpha3, the CompositePodGroup gate): groups
// of PodGroups and of other composites, which the scheduler places in one cycle of their root.

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	compositepodgroupstore "k8s.io/kubernetes/pkg/registry/scheduling/compositepodgroup"
)

// compositeInformerVersion is the version of the CompositePodGroups the scheduler lists
// (v1alpha3, the only one 1.37 serves; PodGroups are listed in v1beta1).
var compositeInformerVersion = schema.GroupVersion{Group: "scheduling.k8s.io", Version: "v1alpha3"}

// compositeKinds adds CompositePodGroup to schedulingCreate's kinds.
func compositeKinds() map[string]schedulingKind {
	return map[string]schedulingKind{
		"CompositePodGroup": {func() createStrategy { return compositepodgroupstore.NewStrategy() }, "compositepodgroups", compositeInformerVersion},
	}
}

// compositeStatusResources adds CompositePodGroups to the resources whose status patches are
// applied as the API server does (1.37.2's scheduler writes no status of a CompositePodGroup: its
// PodGroup cycle conditions the leaf PodGroups only).
func compositeStatusResources() []groupStatusResource {
	return []groupStatusResource{{
		gvr: compositeInformerVersion.WithResource("compositepodgroups"),
		gvk: compositeInformerVersion.WithKind("CompositePodGroup"),
	}}
}

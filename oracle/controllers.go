package main

// What the API server and the controllers around the scheduler do that a fake clientset does
// not: resourceVersions on every write, and the PV controller and a CSI provisioner on the
// scheduler's volume bindings (schedframe's VolumeBinding PreBind does their part the same way;
// docs/fidelity.rst). Each storage object they write is recorded, so the comparison can bring
// schedframe's cluster to the same state.

import (
	"strings"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"
	clienttesting "k8s.io/client-go/testing"
)

const (
	annBindCompleted     = "pv.kubernetes.io/bind-completed"
	annBoundByController = "pv.kubernetes.io/bound-by-controller"
	annSelectedNode      = "volume.kubernetes.io/selected-node"
	annProvisionedBy     = "pv.kubernetes.io/provisioned-by"
	labelZone            = "topology.kubernetes.io/zone"
)

var (
	pvsResource  = v1.SchemeGroupVersion.WithResource("persistentvolumes")
	pvcsResource = v1.SchemeGroupVersion.WithResource("persistentvolumeclaims")
)

// stampResourceVersions gives every created or updated object a new resourceVersion.
func (r *runner) stampResourceVersions() {
	stamp := func(action clienttesting.Action) (bool, runtime.Object, error) {
		var obj runtime.Object
		switch a := action.(type) {
		case clienttesting.CreateAction:
			obj = a.GetObject()
		case clienttesting.UpdateAction:
			obj = a.GetObject()
		}
		if m, err := meta.Accessor(obj); err == nil && obj != nil {
			r.mu.Lock()
			m.SetResourceVersion(r.nextResourceVersion())
			r.mu.Unlock()
		}
		return false, nil, nil
	}
	r.client.PrependReactor("create", "*", stamp)
	r.client.PrependReactor("update", "*", stamp)
}

// emulateStorageControllers binds a PV the scheduler gave a claimRef to its claim (the PV
// controller), and provisions a PV for a claim the scheduler annotated with a selected node
// (the external provisioner, then the PV controller).
func (r *runner) emulateStorageControllers() {
	r.client.PrependReactor("update", "persistentvolumes", func(action clienttesting.Action) (bool, runtime.Object, error) {
		pv, ok := action.(clienttesting.UpdateAction).GetObject().(*v1.PersistentVolume)
		if !ok || pv.Spec.ClaimRef == nil || pv.Spec.ClaimRef.UID == "" || pv.Status.Phase == v1.VolumeBound {
			return false, nil, nil
		}
		pv.Status.Phase = v1.VolumeBound
		if err := r.bindClaim(pv.Spec.ClaimRef.Namespace, pv.Spec.ClaimRef.Name, pv); err != nil {
			return true, nil, err
		}
		r.recordStorage(pv)
		return false, nil, nil
	})
	r.client.PrependReactor("update", "persistentvolumeclaims", func(action clienttesting.Action) (bool, runtime.Object, error) {
		pvc, ok := action.(clienttesting.UpdateAction).GetObject().(*v1.PersistentVolumeClaim)
		if !ok || pvc.Spec.VolumeName != "" || pvc.Annotations[annSelectedNode] == "" {
			return false, nil, nil
		}
		pv, err := r.provision(pvc, pvc.Annotations[annSelectedNode])
		if err != nil {
			return true, nil, err
		}
		bound(pvc, pv)
		r.recordStorage(pv)
		r.recordStorage(pvc)
		return false, nil, nil
	})
}

// bound marks *pvc* bound to *pv*, as the PV controller leaves it.
func bound(pvc *v1.PersistentVolumeClaim, pv *v1.PersistentVolume) {
	if pvc.Annotations == nil {
		pvc.Annotations = map[string]string{}
	}
	pvc.Annotations[annBindCompleted] = "yes"
	if pvc.Spec.VolumeName == "" {
		pvc.Annotations[annBoundByController] = "yes"
	}
	pvc.Spec.VolumeName = pv.Name
	pvc.Status.Phase = v1.ClaimBound
	pvc.Status.AccessModes = pvc.Spec.AccessModes
	pvc.Status.Capacity = pv.Spec.Capacity
}

func (r *runner) bindClaim(namespace, name string, pv *v1.PersistentVolume) error {
	obj, err := r.client.Tracker().Get(pvcsResource, namespace, name)
	if err != nil {
		return err
	}
	pvc := obj.(*v1.PersistentVolumeClaim).DeepCopy()
	bound(pvc, pv)
	r.mu.Lock()
	pvc.ResourceVersion = r.nextResourceVersion()
	r.mu.Unlock()
	if err := r.client.Tracker().Update(pvcsResource, pvc, namespace); err != nil {
		return err
	}
	r.recordStorage(pvc)
	return nil
}

// provision creates the PV a provisioner would for *pvc* on *node*: named after the claim's
// uid, of its class and size, bound to it, pinned to the node's values of the driver's
// topology keys (from the node's CSINode), else of the keys the class's allowedTopologies
// name, else of the zone label.
func (r *runner) provision(pvc *v1.PersistentVolumeClaim, node string) (*v1.PersistentVolume, error) {
	className := ""
	if pvc.Spec.StorageClassName != nil {
		className = *pvc.Spec.StorageClassName
	}
	var class *storagev1.StorageClass
	if obj, err := r.client.Tracker().Get(storagev1.SchemeGroupVersion.WithResource("storageclasses"), "", className); err == nil {
		class = obj.(*storagev1.StorageClass)
	}
	labels := map[string]string{}
	if obj, err := r.client.Tracker().Get(v1.SchemeGroupVersion.WithResource("nodes"), "", node); err == nil {
		labels = obj.(*v1.Node).Labels
	}
	provisioner := ""
	if class != nil {
		provisioner = class.Provisioner
	}
	var keys []string
	csiNode, err := r.client.Tracker().Get(storagev1.SchemeGroupVersion.WithResource("csinodes"), "", node)
	listed := false
	if err == nil {
		for _, d := range csiNode.(*storagev1.CSINode).Spec.Drivers {
			if d.Name == provisioner {
				keys, listed = d.TopologyKeys, true
			}
		}
	}
	if !listed {
		if class != nil && len(class.AllowedTopologies) > 0 {
			seen := map[string]bool{}
			for _, term := range class.AllowedTopologies {
				for _, req := range term.MatchLabelExpressions {
					if !seen[req.Key] {
						seen[req.Key] = true
						keys = append(keys, req.Key)
					}
				}
			}
		} else if _, ok := labels[labelZone]; ok {
			keys = []string{labelZone}
		}
	}
	var reqs []v1.NodeSelectorRequirement
	for _, k := range keys {
		if value, ok := labels[k]; ok {
			reqs = append(reqs, v1.NodeSelectorRequirement{Key: k, Operator: v1.NodeSelectorOpIn, Values: []string{value}})
		}
	}
	reclaim := v1.PersistentVolumeReclaimDelete
	if class != nil && class.ReclaimPolicy != nil {
		reclaim = *class.ReclaimPolicy
	}
	pv := &v1.PersistentVolume{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolume"},
		ObjectMeta: metav1.ObjectMeta{Name: "pvc-" + string(pvc.UID), UID: types.UID("uid-pv-pvc-" + string(pvc.UID))},
		Spec: v1.PersistentVolumeSpec{
			Capacity:                      v1.ResourceList{v1.ResourceStorage: pvc.Spec.Resources.Requests[v1.ResourceStorage]},
			AccessModes:                   pvc.Spec.AccessModes,
			StorageClassName:              className,
			VolumeMode:                    pvc.Spec.VolumeMode,
			PersistentVolumeReclaimPolicy: reclaim,
			ClaimRef: &v1.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: pvc.Namespace,
				Name: pvc.Name, UID: pvc.UID},
		},
		Status: v1.PersistentVolumeStatus{Phase: v1.VolumeBound},
	}
	if provisioner != "" {
		pv.Annotations = map[string]string{annProvisionedBy: provisioner}
	}
	if len(reqs) > 0 {
		pv.Spec.NodeAffinity = &v1.VolumeNodeAffinity{Required: &v1.NodeSelector{
			NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: reqs}}}}
	}
	r.mu.Lock()
	pv.ResourceVersion = r.nextResourceVersion()
	r.mu.Unlock()
	if err := r.client.Tracker().Add(pv); err != nil && !strings.Contains(err.Error(), "already exists") {
		return nil, err
	}
	return pv, nil
}

// recordStorage notes an object the controllers or the scheduler wrote during the current
// attempt (volumes and claims bound or provisioned, ResourceClaims allocated and reserved).
func (r *runner) recordStorage(obj runtime.Object) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.collecting {
		return
	}
	out := obj.DeepCopyObject()
	if gvks, _, err := scheme.Scheme.ObjectKinds(out); err == nil && len(gvks) > 0 {
		out.GetObjectKind().SetGroupVersionKind(gvks[0])
	}
	if m, err := meta.Accessor(out); err == nil {
		m.SetResourceVersion("")
		m.SetManagedFields(nil)
	}
	r.storage = append(r.storage, out)
}

// recordClaimWrites records each ResourceClaim the scheduler writes (DynamicResources' PreBind:
// the finalizer, the allocation, the pod among the consumers).
func (r *runner) recordClaimWrites() {
	r.client.PrependReactor("update", "resourceclaims", func(action clienttesting.Action) (bool, runtime.Object, error) {
		r.recordStorage(action.(clienttesting.UpdateAction).GetObject())
		return false, nil, nil
	})
}

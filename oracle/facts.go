package main

import (
	"context"
	"fmt"
	"sort"
	"strings"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/kubernetes/fake"
	"sigs.k8s.io/yaml"

	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"
	configv1 "k8s.io/kubernetes/pkg/scheduler/apis/config/v1"
	"k8s.io/kubernetes/pkg/scheduler/apis/config/validation"

	"k8s.io/apimachinery/pkg/runtime"
)

// gateFact is one feature gate as the release's binary knows it.
type gateFact struct {
	Name      string        `json:"name"`
	Default   bool          `json:"default"`
	Stage     string        `json:"stage"`
	Locked    bool          `json:"locked"`
	Value     bool          `json:"value"`
	Versioned []gateVersion `json:"versioned,omitempty"`
	DependsOn []string      `json:"dependsOn,omitempty"`
}

type gateVersion struct {
	Version string `json:"version"`
	Default bool   `json:"default"`
	Stage   string `json:"stage"`
	Locked  bool   `json:"locked"`
}

type facts struct {
	Release string         `json:"release"`
	Gates   []gateFact     `json:"gates"`
	Config  map[string]any `json:"config"`
	Plugins map[string]any `json:"plugins"`
}

func stageName(p string) string {
	if p == "" {
		return "GA"
	}
	return p
}

// cliGates are the gates --feature-gates set (a case's annotation does not change them).
var cliGates = map[string]bool{}

func setFeatureGates(text string) error {
	if strings.TrimSpace(text) == "" {
		return nil
	}
	for _, part := range strings.Split(text, ",") {
		if name, _, _ := strings.Cut(part, "="); strings.TrimSpace(name) != "" {
			cliGates[strings.TrimSpace(name)] = true
		}
	}
	return utilfeature.DefaultMutableFeatureGate.Set(text)
}

func gateFacts() []gateFact {
	all := utilfeature.DefaultMutableFeatureGate.GetAll()
	versioned := versionedSpecs()
	deps := gateDependencies()
	out := make([]gateFact, 0, len(all))
	for name, spec := range all {
		g := gateFact{
			Name:    string(name),
			Default: spec.Default,
			Stage:   stageName(string(spec.PreRelease)),
			Locked:  spec.LockToDefault,
			Value:   utilfeature.DefaultFeatureGate.Enabled(name),
		}
		for _, v := range versioned[name] {
			g.Versioned = append(g.Versioned, gateVersion{v.Version.String(), v.Default, stageName(string(v.PreRelease)), v.LockToDefault})
		}
		for _, d := range deps[name] {
			g.DependsOn = append(g.DependsOn, string(d))
		}
		sort.Strings(g.DependsOn)
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// defaultConfigDocument is what kube-scheduler reads when it is given no configuration file.
const defaultConfigDocument = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"

// decodeConfig decodes a KubeSchedulerConfiguration document as kube-scheduler's --config does
// (the universal decoder: conversion and defaulting), then validates it.
func decodeConfig(data []byte) (*schedconfig.KubeSchedulerConfiguration, error) {
	obj, gvk, err := scheme.Codecs.UniversalDecoder().Decode(data, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("configuration: %w", err)
	}
	cfg, ok := obj.(*schedconfig.KubeSchedulerConfiguration)
	if !ok {
		return nil, fmt.Errorf("configuration: couldn't decode as KubeSchedulerConfiguration, got %s", gvk)
	}
	cfg.TypeMeta.APIVersion = gvk.GroupVersion().String()
	if err := validation.ValidateKubeSchedulerConfiguration(cfg); err != nil {
		return nil, &configInvalid{err}
	}
	return cfg, nil
}

// configInvalid is a configuration that kube-scheduler refuses at startup.
type configInvalid struct{ err error }

func (c *configInvalid) Error() string { return c.err.Error() }

// encodeConfig writes the configuration in v1 as kube-scheduler's --write-config-to does, with
// the profiles the frameworks were built from.
func encodeConfig(cfg *schedconfig.KubeSchedulerConfiguration) (map[string]any, error) {
	info, ok := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), runtime.ContentTypeYAML)
	if !ok {
		return nil, fmt.Errorf("no YAML serializer")
	}
	var buf strings.Builder
	encoder := scheme.Codecs.EncoderForVersion(info.Serializer, configv1.SchemeGroupVersion)
	if err := encoder.Encode(cfg, &buf); err != nil {
		return nil, err
	}
	var out map[string]any
	if err := yaml.Unmarshal([]byte(buf.String()), &out); err != nil {
		return nil, err
	}
	return out, nil
}

func releaseFacts() (*facts, error) {
	cfg, err := decodeConfig([]byte(defaultConfigDocument))
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := fake.NewSimpleClientset()
	built, err := buildScheduler(ctx, client, cfg, 1)
	if err != nil {
		return nil, err
	}
	startAPIDispatcher(ctx, built.sched)
	cfg.Profiles = built.profiles
	encoded, err := encodeConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &facts{Release: kubernetesRelease(), Gates: gateFacts(), Config: encoded, Plugins: expandedPlugins(built.sched)}, nil
}

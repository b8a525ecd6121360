// values-oracle answers, for each case on stdin, which values helm-controller hands to Helm
// for a HelmRelease: fluxcd/pkg/chartutil's ChartValuesFromReferences called as
// helm-controller's reconciler calls it (the HelmRelease's namespace, GetValues() and
// spec.valuesFrom), against a fake Kubernetes client holding the case's ConfigMaps and
// Secrets.
//
// A case: {"helmRelease": {...}, "objects": [{"kind": "ConfigMap", "namespace": "apps",
// "name": "podinfo", "data": {"values.yaml": "..."}}]}
// An answer: {"result": {...the values...}} or {"error": "..."}
package main

import (
	"context"
	"encoding/json"
	"fmt"

	v2 "github.com/fluxcd/helm-controller/api/v2"
	"github.com/fluxcd/pkg/chartutil"
	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"fluxlens/test/differential/internal/lines"
)

type object struct {
	Kind      string            `json:"kind"`
	Namespace string            `json:"namespace"`
	Name      string            `json:"name"`
	Data      map[string]string `json:"data"`
}

type composition struct {
	HelmRelease json.RawMessage `json:"helmRelease"`
	Objects     []object        `json:"objects"`
}

var scheme = runtime.NewScheme()

func main() {
	if err := corev1.AddToScheme(scheme); err != nil {
		panic(err)
	}
	lines.Main(answer)
}

func answer(line []byte) lines.Answer {
	var c composition
	if err := json.Unmarshal(line, &c); err != nil {
		return lines.Answer{Error: "oracle: unreadable case: " + err.Error()}
	}
	var hr v2.HelmRelease
	if err := json.Unmarshal(c.HelmRelease, &hr); err != nil {
		return lines.Answer{Error: "oracle: unreadable HelmRelease: " + err.Error()}
	}
	objects, err := clusterObjects(c.Objects)
	if err != nil {
		return lines.Answer{Error: "oracle: " + err.Error()}
	}
	kube := fake.NewClientBuilder().WithScheme(scheme).WithObjects(objects...).Build()
	values, err := chartutil.ChartValuesFromReferences(context.Background(), logr.Discard(), kube,
		hr.Namespace, hr.GetValues(), hr.Spec.ValuesFrom...)
	if err != nil {
		return lines.Answer{Error: err.Error()}
	}
	return lines.Answer{Result: map[string]any(values)}
}

// clusterObjects are the case's ConfigMaps and Secrets as the API server holds them; a
// Secret's data is the same text as bytes.
func clusterObjects(in []object) ([]client.Object, error) {
	out := make([]client.Object, 0, len(in))
	for _, o := range in {
		meta := metav1.ObjectMeta{Namespace: o.Namespace, Name: o.Name}
		switch o.Kind {
		case "ConfigMap":
			out = append(out, &corev1.ConfigMap{ObjectMeta: meta, Data: o.Data})
		case "Secret":
			data := make(map[string][]byte, len(o.Data))
			for key, value := range o.Data {
				data[key] = []byte(value)
			}
			out = append(out, &corev1.Secret{ObjectMeta: meta, Data: data})
		default:
			return nil, fmt.Errorf("unknown object kind %q", o.Kind)
		}
	}
	return out, nil
}

package serve

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestClient calls every endpoint through Client and checks an error
// answer's status and message.
func TestClient(t *testing.T) {
	d := tinyData(t, 40, 4, 18)
	m := sageModel(t, d, []int{4, 6, 3}, nil)
	s, ts := start(t, Config{Cache: true}, d, m)
	c := &Client{URL: ts.URL + "/"}
	ctx := context.Background()
	h, err := c.Health(ctx)
	if err != nil || h.Status != "ok" || h.Nodes != 40 {
		t.Fatalf("health: %+v %v", h, err)
	}
	p, err := c.Predict(ctx, &PredictRequest{Nodes: []int64{3, 4}})
	if err != nil || len(p.Predictions) != 2 || p.Predictions[1].Node != 4 {
		t.Fatalf("predict: %+v %v", p, err)
	}
	want, _ := s.Predict(ctx, &PredictRequest{Nodes: []int64{3, 4}})
	if sameRow(p.Predictions[0].Probabilities, want.Predictions[0].Probabilities) != nil {
		t.Errorf("over HTTP %v, directly %v", p.Predictions[0], want.Predictions[0])
	}
	e, err := c.Embed(ctx, &EmbedRequest{PredictRequest: PredictRequest{Nodes: []int64{1}}, Layer: Layer(0)})
	if err != nil || e.Layer != 0 || len(e.Embeddings[0].Embedding) != 6 {
		t.Fatalf("embed: %+v %v", e, err)
	}
	r, err := c.Refresh(ctx)
	if err != nil || r.Generation != 2 {
		t.Fatalf("refresh: %+v %v", r, err)
	}
	_, err = c.Predict(ctx, &PredictRequest{Nodes: []int64{40}})
	var ae *APIError
	if !errors.As(err, &ae) || ae.Status != 400 || !strings.Contains(ae.Message, "node 40 (nodes[0]) is not in the graph") {
		t.Errorf("unknown node: %v", err)
	}
	s.Close()
	if _, err := c.Health(ctx); !errors.As(err, &ae) || ae.Status != 503 || ae.Message != "stopping" {
		t.Errorf("health after Close: %v", err)
	}
}

package serve

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestBadRequests checks that every malformed or invalid request is
// answered with its 4xx and a JSON message naming what was wrong, and that
// the server answers normally afterwards.
func TestBadRequests(t *testing.T) {
	d := tinyData(t, 30, 4, 5)
	m := sageModel(t, d, []int{4, 8, 3}, []int{2, 2})
	_, ts := start(t, Config{MaxNodes: 10, MaxNewNodes: 2, MaxBodyBytes: 4096, MaxInputs: 12}, d, m)
	long := `{"nodes":[` + strings.Repeat("1,", 3000) + `1]}`
	for _, tc := range []struct {
		name, path, method, body string
		code                     int
		msg                      string
	}{
		{"malformed", "/v1/predict", "POST", `{"nodes":[1,2`, 400, "malformed JSON"},
		{"syntax", "/v1/predict", "POST", `{"nodes":[1,,2]}`, 400, "malformed JSON at byte"},
		{"not an object", "/v1/predict", "POST", `[1,2]`, 400, "malformed request"},
		{"empty body", "/v1/predict", "POST", ``, 400, "empty request body"},
		{"trailing data", "/v1/predict", "POST", `{"nodes":[1]} {}`, 400, "more data after"},
		{"unknown field", "/v1/predict", "POST", `{"node":[1]}`, 400, `unknown field "node"`},
		{"fractional id", "/v1/predict", "POST", `{"nodes":[1.5]}`, 400, `field "nodes"`},
		{"unknown node", "/v1/predict", "POST", `{"nodes":[1,30]}`, 400, "node 30 (nodes[1]) is not in the graph, whose nodes are 0 to 29"},
		{"negative node", "/v1/embed", "POST", `{"nodes":[-1]}`, 400, "node -1 (nodes[0])"},
		{"empty", "/v1/predict", "POST", `{"nodes":[]}`, 400, "names no nodes"},
		{"too many", "/v1/predict", "POST", `{"nodes":[1,2,3,4,5,6,7,8,9,10,11]}`, 400, "11 nodes (nodes and new_nodes), the limit is 10"},
		{"too many new", "/v1/predict", "POST", `{"new_nodes":[{"features":[1,2,3,4]},{"features":[1,2,3,4]},{"features":[1,2,3,4]}]}`, 400, "3 new nodes, the limit is 2"},
		{"feature width", "/v1/predict", "POST", `{"new_nodes":[{"features":[1,2,3]}]}`, 400, "new_nodes[0] has 3 features, the model takes 4"},
		{"feature range", "/v1/predict", "POST", `{"new_nodes":[{"features":[1,2,3,1e300]}]}`, 400, "new_nodes[0].features[3] is 1e+300, not a finite float32"},
		{"edge range", "/v1/predict", "POST", `{"new_nodes":[{"features":[1,2,3,4],"out_edges":[31]}]}`, 400, "new_nodes[0].out_edges[0] is node 31, which is neither in the graph (0 to 29) nor a new node of the request (30 to 30)"},
		{"layer", "/v1/embed", "POST", `{"nodes":[1],"layer":2}`, 400, "layer 2: the model has 2 layers, numbered 0 to 1"},
		{"neighbourhood", "/v1/predict", "POST", `{"nodes":[1,2,3,4,5,6,7,8]}`, 400, "reach"},
		{"layer name", "/v1/embed", "POST", `{"nodes":[1],"layer":"gcn1"}`, 400, `layer "gcn1": the model's layers have no names; give a number from 0 to 1`},
		{"layer type", "/v1/embed", "POST", `{"nodes":[1],"layer":true}`, 400, "layer true: want a layer's index"},
		{"layer in predict", "/v1/predict", "POST", `{"nodes":[1],"layer":0}`, 400, `unknown field "layer"`},
		{"oversize", "/v1/predict", "POST", long, 413, "over the limit of 4096 bytes"},
		{"no cache", "/v1/refresh", "POST", ``, 400, "without a cache"},
		{"method", "/v1/predict", "GET", ``, 405, "GET /v1/predict: use POST"},
		{"method health", "/healthz", "POST", ``, 405, "use GET"},
		{"path", "/v2/predict", "POST", `{}`, 404, "no endpoint /v2/predict"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, ts.URL+tc.path, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var e errorBody
			if err := json.NewDecoder(resp.Body).Decode(&e); err != nil {
				t.Fatalf("status %d, body not JSON: %v", resp.StatusCode, err)
			}
			if resp.StatusCode != tc.code || !strings.Contains(e.Error, tc.msg) {
				t.Errorf("got %d %q, want %d and a message containing %q", resp.StatusCode, e.Error, tc.code, tc.msg)
			}
		})
	}
	var ok PredictResponse
	if code, body := post(t, ts.URL+"/v1/predict", PredictRequest{Nodes: []int64{29}, NewNodes: []NewNode{{Features: []float64{1, 2, 3, 4}}}}, &ok); code != 200 || len(ok.Predictions) != 2 {
		t.Errorf("after the bad requests: %d %s", code, body)
	}
}

// TestNotReady checks the answers before Start and after Close, and that
// Start refuses a model that does not fit the data.
func TestNotReady(t *testing.T) {
	s, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	defer ts.Close()
	for _, path := range []string{"/healthz", "/v1/predict"} {
		method := "GET"
		if path != "/healthz" {
			method = "POST"
		}
		req, _ := http.NewRequest(method, ts.URL+path, strings.NewReader(`{"nodes":[0]}`))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 503 {
			t.Errorf("%s before Start: %d, want 503", path, resp.StatusCode)
		}
	}
	d := tinyData(t, 40, 4, 6)
	wrong := sageModel(t, tinyData(t, 40, 5, 6), []int{5, 4, 3}, nil)
	if err := s.Start(d, wrong); err == nil || !strings.Contains(err.Error(), "the features have 4 columns but the model takes 5") {
		t.Errorf("a model of 5 inputs on 4 features: %v", err)
	}
	short := sageModel(t, d, []int{4, 4, 3}, nil)
	short.Fanouts = []int{1}
	if err := s.Start(d, short); err == nil || !strings.Contains(err.Error(), "1 fan-outs for a model of 2 layers") {
		t.Errorf("1 fan-out for 2 layers: %v", err)
	}
	if err := s.Start(d, sageModel(t, d, []int{4, 4, 3}, nil)); err != nil {
		t.Fatal(err)
	}
	var h Health
	resp, err := http.Get(ts.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	json.NewDecoder(resp.Body).Decode(&h)
	resp.Body.Close()
	if resp.StatusCode != 200 || h.Status != "ok" || h.Nodes != 40 || h.Classes != 3 || h.Layers != 2 || h.Mode != "full" {
		t.Errorf("healthz after Start: %d %+v", resp.StatusCode, h)
	}
	s.Close()
	if _, err := s.Predict(context.Background(), &PredictRequest{Nodes: []int64{1}}); err != errStopping {
		t.Errorf("Predict after Close: %v", err)
	}
	if code, _ := post(t, ts.URL+"/healthz", nil, nil); code != 405 {
		t.Errorf("POST /healthz: %d", code)
	}
	resp, err = http.Get(ts.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 503 {
		t.Errorf("healthz after Close: %d, want 503", resp.StatusCode)
	}
}

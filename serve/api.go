package serve

import (
	"encoding/json"
	"fmt"
)

// PredictRequest is the body of POST /v1/predict: nodes of the graph by ID
// (repeats allowed, answered in order), and new nodes, answered after them.
// Either may be empty, not both.
type PredictRequest struct {
	Nodes    []int64   `json:"nodes"`
	NewNodes []NewNode `json:"new_nodes,omitempty"`
	// Seed selects the sampled neighbourhoods (Config.Seed when absent);
	// the same nodes and seed always get the same answer.
	Seed *uint64 `json:"seed,omitempty"`
}

// NewNode is a node that is not in the graph, given with its features and
// its edges. Edge ends are node IDs of the graph (0 to N-1) or of the
// request's new nodes (N + their index in NewNodes).
type NewNode struct {
	Features []float64 `json:"features"`
	// InEdges lists the sources u of edges u -> this node; OutEdges the
	// destinations v of edges this node -> v. Both change the
	// neighbourhoods of the nodes they reach within the request only.
	InEdges  []int64 `json:"in_edges,omitempty"`
	OutEdges []int64 `json:"out_edges,omitempty"`
}

// EmbedRequest is the body of POST /v1/embed: a PredictRequest and the
// layer whose outputs to return; absent means the last layer.
type EmbedRequest struct {
	PredictRequest
	Layer *LayerRef `json:"layer,omitempty"`
}

// LayerRef names a layer: by its position, counted from 0 (the first
// layer's output), a JSON number, or by its name (Model.LayerNames, such as
// "gcn1" in a model file), a JSON string.
type LayerRef struct {
	Index int
	Name  string // used when not empty
}

// Layer returns a reference to layer l.
func Layer(l int) *LayerRef { return &LayerRef{Index: l} }

// LayerNamed returns a reference to the layer called name.
func LayerNamed(name string) *LayerRef { return &LayerRef{Name: name} }

// MarshalJSON writes the name as a string, or the index as a number.
func (r LayerRef) MarshalJSON() ([]byte, error) {
	if r.Name != "" {
		return json.Marshal(r.Name)
	}
	return json.Marshal(r.Index)
}

// UnmarshalJSON reads a number (an index) or a string (a name).
func (r *LayerRef) UnmarshalJSON(b []byte) error {
	*r = LayerRef{}
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &r.Name); err != nil {
			return err
		}
		if r.Name == "" {
			return fmt.Errorf(`layer "": want a layer's name or index`)
		}
		return nil
	}
	if err := json.Unmarshal(b, &r.Index); err != nil {
		return fmt.Errorf("layer %s: want a layer's index (a whole number) or name (a string)", b)
	}
	return nil
}

// Prediction is the answer for one node: the class of the largest output
// and the softmax of the outputs.
type Prediction struct {
	Node          int64     `json:"node"`
	New           bool      `json:"new,omitempty"` // a new node of the request
	Class         int       `json:"class"`
	Probabilities []float64 `json:"probabilities"`
}

// PredictResponse is the answer to POST /v1/predict, one prediction per
// requested node: the nodes in order, then the new nodes.
type PredictResponse struct {
	Predictions []Prediction `json:"predictions"`
}

// Embedding is one node's outputs of a layer.
type Embedding struct {
	Node      int64     `json:"node"`
	New       bool      `json:"new,omitempty"`
	Embedding []float64 `json:"embedding"`
}

// EmbedResponse is the answer to POST /v1/embed.
type EmbedResponse struct {
	Layer      int         `json:"layer"`
	LayerName  string      `json:"layer_name,omitempty"`
	Embeddings []Embedding `json:"embeddings"`
}

// RefreshResponse is the answer to POST /v1/refresh.
type RefreshResponse struct {
	Generation int     `json:"generation"` // 1 for the cache computed at start
	Seconds    float64 `json:"seconds"`
}

// Health is the answer to GET /healthz.
type Health struct {
	Status          string `json:"status"` // "ok", "loading" or "stopping"
	Nodes           int    `json:"nodes,omitempty"`
	Layers          int    `json:"layers,omitempty"`
	Classes         int    `json:"classes,omitempty"`
	Mode            string `json:"mode,omitempty"` // "sampled", "full" or "cached"
	CacheGeneration int    `json:"cache_generation,omitempty"`
}

// errorBody is the body of every 4xx and 5xx answer.
type errorBody struct {
	Error string `json:"error"`
}

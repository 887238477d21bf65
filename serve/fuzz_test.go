package serve

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// fuzzServer is one started server shared by the fuzz inputs.
var fuzzServer = struct {
	once sync.Once
	s    *Server
}{}

// FuzzRequest sends arbitrary bodies to /v1/predict and /v1/embed: every
// answer must be 200, 400 or 413 with a JSON body, and nothing may panic.
func FuzzRequest(f *testing.F) {
	for _, seed := range []string{
		`{"nodes":[0,1,2]}`,
		`{"nodes":[0],"seed":3,"layer":1}`,
		`{"new_nodes":[{"features":[1,2,3,4],"in_edges":[0,20],"out_edges":[1]}]}`,
		`{"nodes":[1,1,1],"new_nodes":[{"features":[0,0,0,0],"in_edges":[21,20]},{"features":[1,1,1,1],"out_edges":[20]}]}`,
		`{"nodes":[-1]}`, `{"nodes":[1e30]}`, `{"layer":"sage1","nodes":[2]}`, `[]`, `{`, ``, `null`,
	} {
		f.Add(seed, false)
		f.Add(seed, true)
	}
	f.Fuzz(func(t *testing.T, body string, embed bool) {
		fuzzServer.once.Do(func() {
			d := tinyData(t, 40, 4, 16)
			m := sageModel(t, d, []int{4, 6, 3}, []int{3, -1})
			s, err := New(Config{MaxNodes: 50, MaxNewNodes: 5, MaxBodyBytes: 1 << 12})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Start(d, m); err != nil {
				t.Fatal(err)
			}
			fuzzServer.s = s
		})
		path := "/v1/predict"
		if embed {
			path = "/v1/embed"
		}
		w := httptest.NewRecorder()
		fuzzServer.s.ServeHTTP(w, httptest.NewRequest("POST", path, strings.NewReader(body)))
		if c := w.Code; c != 200 && c != 400 && c != 413 {
			t.Fatalf("%s %q: status %d %s", path, body, c, w.Body.String())
		}
		if !json.Valid(w.Body.Bytes()) {
			t.Fatalf("%s %q: answer is not JSON: %s", path, body, w.Body.String())
		}
	})
}

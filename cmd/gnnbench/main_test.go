package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gnngo/gnn/cmd/gnnbench/internal/bench"
)

// hogEnv makes the test binary misbehave as a child, to test the caps.
const hogEnv = "GNNBENCH_TEST_HOG"

// TestMain lets the test binary be the harness's child process (and a
// misbehaving one under hogEnv).
func TestMain(m *testing.M) {
	switch os.Getenv(hogEnv) {
	case "mem":
		var keep [][]byte
		for range 2048 { // at most 2 GiB, 1 MiB a millisecond
			b := make([]byte, 1<<20)
			for i := range b {
				b[i] = 1
			}
			keep = append(keep, b)
			time.Sleep(time.Millisecond)
		}
		os.Exit(3)
	case "epochs":
		os.Stdout.WriteString(`{"epoch_done":{"epoch":0,"warmup":true,"ms":5}}` + "\n")
		os.Stdout.WriteString(`{"epoch_done":{"epoch":1,"ms":7}}` + "\n")
		os.Stdout.WriteString(`{"epoch_done":{"epoch":2,"ms":9}}` + "\n")
		time.Sleep(time.Minute)
		os.Exit(0)
	case "crash":
		panic("boom from the child")
	case "sigkill":
		if p, err := os.FindProcess(os.Getpid()); err == nil {
			p.Kill() // SIGKILL on Unix
		}
		time.Sleep(time.Minute)
	}
	if isChild() {
		os.Exit(childMain(os.Stdin, os.Stdout))
	}
	os.Exit(m.Run())
}

// required are the fields every JSON result must have.
var required = []string{"suite", "model", "path", "dataset", "dropout", "nodes", "edges", "feat", "hidden", "heads", "epoch_ms", "peak_rss_bytes",
	"alloc_bytes_per_epoch", "live_heap_bytes", "status"}

// runHarness runs the harness and returns its exit code, stdout and
// stderr.
func runHarness(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// parseResults parses JSON lines, checking the required fields.
func parseResults(t *testing.T, s string) []bench.Result {
	t.Helper()
	var rs []bench.Result
	for _, line := range strings.Split(strings.TrimSpace(s), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not JSON: %q: %v", line, err)
		}
		for _, k := range required {
			if _, ok := m[k]; !ok {
				t.Errorf("result lacks %q: %s", k, line)
			}
		}
		var r bench.Result
		json.Unmarshal([]byte(line), &r)
		rs = append(rs, r)
	}
	return rs
}

// checkRuns checks that every case ran on all three paths, fine, and that
// the paths agree on the first loss where no dropout makes them differ.
func checkRuns(t *testing.T, rs []bench.Result, want int) {
	t.Helper()
	if len(rs) != want {
		t.Fatalf("%d results, want %d", len(rs), want)
	}
	first := map[string]float64{}
	paths := map[string]int{}
	for _, r := range rs {
		paths[r.Path]++
		if r.Status != bench.StatusOK || !(r.EpochMS > 0) || r.PeakRSS <= 0 || r.Timed != r.Epochs {
			t.Errorf("%s: status %s, %v ms, peak %d, %d timed (%s %s)", r.Describe(), r.Status, r.EpochMS, r.PeakRSS, r.Timed, r.Error, r.Note)
		}
		if r.LiveHeap <= 0 || r.LiveHeap > r.PeakRSS || (!r.IsKernel() && r.AllocPerEpoch <= 0) {
			t.Errorf("%s: live heap %d, alloc %d per epoch, peak RSS %d", r.Describe(), r.LiveHeap, r.AllocPerEpoch, r.PeakRSS)
		}
		if r.IsKernel() || r.Dropout {
			continue
		}
		if f, ok := first[r.Key()]; !ok {
			first[r.Key()] = r.LossFirst
		} else if d := f - r.LossFirst; d > 1e-4 || d < -1e-4 {
			t.Errorf("%s: first loss %v, another path %v", r.Describe(), r.LossFirst, f)
		}
	}
	for _, p := range bench.Paths {
		if paths[p] != want/3 {
			t.Errorf("%d runs of path %s, want %d", paths[p], p, want/3)
		}
	}
}

// The whole harness on tiny sizes: every path of both models, JSON lines,
// the table, the plots, and the table again from the saved results.
func TestQuickSynth(t *testing.T) {
	dir := t.TempDir()
	saved := filepath.Join(dir, "results.jsonl")
	code, out, errs := runHarness(t, "-quick", "-sweeps", "density", "-json", "-out", saved, "-plot", dir, "synth")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	checkRuns(t, parseResults(t, out), 12)
	for _, want := range []string{"[1/12] gcn fused synth", "### synth", "| density | gat | 256 |", "unfused/fused"} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	png, err := os.ReadFile(filepath.Join(dir, "synth_density.png"))
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Errorf("no PNG chart: %v", err)
	}
	code, out, errs = runHarness(t, "-from", saved)
	if code != 0 || !strings.Contains(out, "| density | gcn | 256 |") {
		t.Errorf("-from: exit %d, table:\n%s%s", code, out, errs)
	}
}

// GATv2 runs on the fused path only: one run per density.
func TestQuickGATv2(t *testing.T) {
	code, out, errs := runHarness(t, "-quick", "-json", "-models", "gatv2", "-sweeps", "density", "synth")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	rs := parseResults(t, out)
	if len(rs) != 2 {
		t.Fatalf("%d results, want 2:\n%s", len(rs), errs)
	}
	for _, r := range rs {
		if r.Status != bench.StatusOK || r.Model != bench.GATv2 || r.Path != bench.Fused {
			t.Errorf("%s: %s %s", r.Describe(), r.Status, r.Error)
		}
	}
	if !strings.Contains(errs, "| density | gatv2 | 256 |") {
		t.Errorf("table lacks gatv2:\n%s", errs)
	}
}

func TestQuickKernels(t *testing.T) {
	code, out, errs := runHarness(t, "-quick", "-json", "-suite", "kernels")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	checkRuns(t, parseResults(t, out), 3*len(kernelCases))
}

func TestQuickScale(t *testing.T) {
	code, out, errs := runHarness(t, "-quick", "-json", "-paths", "fused", "-suite", "scale")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	rs := parseResults(t, out)
	if len(rs) != 3 {
		t.Fatalf("%d results, want 3:\n%s", len(rs), errs)
	}
	for _, r := range rs {
		if r.Status != bench.StatusOK {
			t.Errorf("%s: %s %s", r.Describe(), r.Status, r.Error)
		}
	}
}

// The Planetoid suite on Cora, when the data is there.
func TestQuickPlanetoid(t *testing.T) {
	data := filepath.Join("..", "..", "..", "shared", "data", "planetoid")
	if _, err := os.Stat(filepath.Join(data, "cora", "meta.txt")); err != nil {
		t.Skipf("no Planetoid data in %s", data)
	}
	code, out, errs := runHarness(t, "-quick", "-json", "-models", "gcn", "-data", data, "planetoid")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	rs := parseResults(t, out)
	checkRuns(t, rs, 6)
	for _, r := range rs {
		if r.Dataset != "cora" || r.Input != bench.InputSparse || r.Nodes != 2708 || r.Feat != 1433 {
			t.Errorf("%s: dataset %s, input %s, %d nodes, %d features", r.Describe(), r.Dataset, r.Input, r.Nodes, r.Feat)
		}
	}
	if !strings.Contains(errs, "| gcn | cora | sparse | on |") {
		t.Errorf("table lacks the input form:\n%s", errs)
	}
}

// The caps: a child over the memory cap, over the time cap (after some
// epochs), crashing, and killed by a SIGKILL it was not sent.
func TestCaps(t *testing.T) {
	spec := bench.Spec{Suite: "synth", Model: "gcn", Path: "fused", Dataset: "synth", Epochs: 2}
	for _, c := range []struct {
		hog, status, errPart string
		epochMS              float64
		limit                time.Duration
	}{
		{"mem", bench.StatusOOM, "over the cap", 0, 10 * time.Second},
		{"epochs", bench.StatusTimeout, "time cap", 8, 500 * time.Millisecond},
		{"crash", bench.StatusError, "boom from the child", 0, 10 * time.Second},
		{"sigkill", bench.StatusOOM, "SIGKILL", 0, 10 * time.Second},
	} {
		t.Run(c.hog, func(t *testing.T) {
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), hogEnv+"="+c.hog)
			cp := caps{mem: 64 << 20, time: c.limit, poll: 20 * time.Millisecond}
			var epochs int
			r := supervise(cmd, spec, cp, func(bench.Epoch) { epochs++ }, nil)
			if r.Status != c.status || !strings.Contains(r.Error, c.errPart) {
				t.Errorf("status %s, error %q; want %s, %q", r.Status, r.Error, c.status, c.errPart)
			}
			if r.EpochMS != c.epochMS {
				t.Errorf("epoch %v ms, want %v (note %q)", r.EpochMS, c.epochMS, r.Note)
			}
			if c.hog == "mem" && r.PeakRSS < 64<<20 {
				t.Errorf("peak RSS %d, want over the cap", r.PeakRSS)
			}
			if c.hog == "epochs" && epochs != 3 {
				t.Errorf("%d epochs reported, want 3", epochs)
			}
		})
	}
}

func TestParse(t *testing.T) {
	for s, want := range map[string]int64{"20GiB": 20 << 30, "512MiB": 512 << 20, "1.5G": 3 << 29, "4096": 4096, "2 kb": 2048} {
		if got, err := parseBytes(s); err != nil || got != want {
			t.Errorf("parseBytes(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "-1G", "x", "0"} {
		if _, err := parseBytes(s); err == nil {
			t.Errorf("parseBytes(%q) succeeded", s)
		}
	}
	cs, err := parseScaleCases("gcn:5m:250m:64:16:1,gat:2.4m:62m:100:8:8:47")
	if err != nil || len(cs) != 2 || cs[0].nodes != 5_000_000 || cs[0].edges != 250_000_000 || cs[1].nodes != 2_400_000 || cs[1].classes != 47 {
		t.Errorf("parseScaleCases: %v, %v", cs, err)
	}
	if _, err := parseScaleCases("gin:1:2:3:4:5"); err == nil {
		t.Error("parseScaleCases accepted an unknown model")
	}
}

// Bad flags and suites exit 2 with a message.
func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{{"-suite", "nope"}, {"-models", "gin"}, {"-dropout", "maybe"}, {"-mem-cap", "lots"}, {"-suite", "synth", "kernels"}, {"-device", "tpu"}, {"-device", "emu", "-paths", "dense"}} {
		if code, _, errs := runHarness(t, args...); code != 2 || errs == "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, errs)
		}
	}
}

// TestMemProfile: -memprofile writes a heap profile per run, named after
// it, and the progress line and the table report the heap.
func TestMemProfile(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := runHarness(t, "-quick", "-sweeps", "nodes", "-nodes", "256", "-models", "gcn", "-paths", "fused", "-memprofile", dir, "synth")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "gcn_fused_synth_n256_e*.mem.pprof"))
	if len(files) != 1 {
		t.Fatalf("profiles %v, want one gcn_fused_synth_n256_e*.mem.pprof", files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil || !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
		t.Errorf("%s is not a gzipped profile (%v)", files[0], err)
	}
	for _, want := range []string{"ms/epoch, peak ", ", live ", "alloc "} {
		if !strings.Contains(errs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errs)
		}
	}
	if want := "| fused RSS | fused live | fused alloc/epoch |"; !strings.Contains(out, want) {
		t.Errorf("the table lacks %q:\n%s", want, out)
	}
}

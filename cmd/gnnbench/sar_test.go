package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestSarSuite checks that -suite sar hands its flags to the sar benchmark,
// which rejects a run without the example and partitions.
func TestSarSuite(t *testing.T) {
	for _, args := range [][]string{{"-suite", "sar"}, {"-suite=sar", "-np", "2"}} {
		var out, errs bytes.Buffer
		if code := run(args, &out, &errs); code != 2 || !strings.Contains(errs.String(), "need -exe and -parts") {
			t.Errorf("%q: exit %d, stderr %q", args, code, errs.String())
		}
	}
	if _, ok := sarSuite([]string{"-suite", "planetoid"}); ok {
		t.Error("-suite planetoid taken for the sar suite")
	}
}

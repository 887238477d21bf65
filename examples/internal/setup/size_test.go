package setup

import (
	"strings"
	"testing"
)

func TestCheckModelSize(t *testing.T) {
	if err := CheckModelSize("-hidden", 2708, 1433, 16, 1, 2); err != nil {
		t.Fatalf("Cora's GCN refused: %v", err)
	}
	for _, c := range []struct {
		hidden, heads int
		want          string
	}{
		{100000000, 1, "-hidden (2 layers of 100000000 features on 2708 nodes, 1433 inputs) needs about"},
		{8, 1000000000, "-hidden: 8 x 1000000000 = 8000000000 features a node, more than 2147483647"},
	} {
		err := CheckModelSize("-hidden", 2708, 1433, c.hidden, c.heads, 2)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("hidden %d heads %d: got %v, want %q", c.hidden, c.heads, err, c.want)
		}
	}
}

package hetero

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadRefusesHugeSchema: node counts a schema declares that cannot be
// held are refused before any file is read or anything allocated (a
// featureless type of 2e9 nodes was a fatal out-of-memory error in
// ToHomogeneous).
func TestLoadRefusesHugeSchema(t *testing.T) {
	var many strings.Builder
	many.WriteString("node author 2000000000\nnode paper 10\n")
	for i := range 20 {
		fmt.Fprintf(&many, "edge author r%d author r%d.txt\n", i, i)
	}
	for _, c := range []struct{ schema, want string }{
		{"node author 2000000000\nnode paper 2000000000\n", "declares 4000000000 nodes in all, more than graph.MaxNodes"},
		{many.String(), `(largest type "author", 2000000000 nodes) needs about`},
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "schema.txt"), []byte(c.schema), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadDataset(dir)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "schema.txt") {
			t.Errorf("got %v, want an error naming schema.txt and containing %q", err, c.want)
		}
	}
}

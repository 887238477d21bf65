package setup

import (
	"fmt"

	"github.com/gnngo/gnn/internal/limits"
)

// CheckModelSize refuses, naming what (the flags that set the sizes, such
// as "-hidden and -heads"; the sizes follow in the message), a model whose values cannot fit in the
// machine's memory: layers layers of width = hidden x heads features on
// nodes nodes
// (values, gradients, dropout masks and pre-activations: 16 bytes a
// value) and their weights, in x width then width x width (with their
// gradients and Adam's two moments: 16 bytes a weight). The examples call
// it once the data is loaded, before building the model, so that
// "-hidden 100000000" is an error instead of "fatal error: out of memory".
func CheckModelSize(what string, nodes, in, hidden, heads, layers int) error {
	w := float64(hidden) * float64(heads)
	if w > limits.MaxCount {
		return fmt.Errorf("%s: %d x %d = %.0f features a node, more than %d", what, hidden, heads, w, limits.MaxCount)
	}
	est := 16 * (float64(nodes)*w*float64(layers) + float64(in)*w + float64(max(layers-1, 0))*w*w)
	return limits.Bytes(fmt.Sprintf("%s (%d layers of %.0f features on %d nodes, %d inputs)", what, layers, w, nodes, in), est)
}

// GeneratedOnly is Refuse's reason for the flags that shape the generated
// graph when -data is given.
const GeneratedOnly = "it shapes the generated graph, and -data is given"

// Refuse returns an error naming the first of the flags names that asks
// for something the example cannot honour, why saying what it does
// instead: for "device", a device other than cpu; for "dense", -dense set;
// for any other name, the flag given on the command line (see Given).
// Examples call it after Check, so that such a flag is an error rather
// than silently ignored.
func (f *Flags) Refuse(why string, names ...string) error {
	for _, n := range names {
		given := f.Given(n)
		switch n {
		case "device":
			given = f.Device != "" && f.Device != "cpu"
		case "dense":
			given = f.Dense
		}
		if given {
			return fmt.Errorf("-%s does not apply: %s", n, why)
		}
	}
	return nil
}

// Writable checks that a file can be written at path (its directory
// exists and takes a new file; path is not a directory) without creating
// path, for commands that check an output flag before they start.
func Writable(path string) error { return writable(path) }

package layerkit

import (
	"fmt"

	"github.com/gnngo/gnn/internal/enum"
)

// Enum names the values of a layer's choice type (gcn.Norm,
// sage.Aggregator, ...), numbered from 0 in the order of Names, so that
// the type's String and its option's check are written once:
//
//	var norms = layerkit.Enum[Norm]{Type: "Norm", What: "norm", Names: []string{"both", "right", "left", "none"}}
//
//	func (n Norm) String() string { return norms.Name(n) }
type Enum[T ~uint8] struct {
	// Type is the type's name, for values without a name: "Norm(7)".
	Type string
	// What names the choice in errors: "unknown norm 7".
	What string
	// Names are the values' names, value 0 first.
	Names []string
}

// Name returns v's name, or Type(v) for a value without one (enum.Name).
func (e Enum[T]) Name(v T) string { return enum.Name(v, e.Type, e.Names...) }

// Check returns an error, prefixed with pkg, when v has no name.
func (e Enum[T]) Check(pkg string, v T) error {
	if int(v) >= len(e.Names) {
		return fmt.Errorf("%s: unknown %s %d", pkg, e.What, v)
	}
	return nil
}

// Choice is the option setting the choice *field(c) to v, one of e's
// values.
func Choice[C Configured, O ~func(C) error, T ~uint8](k Kit[C, O], e Enum[T], v T, field func(C) *T) O {
	return func(c C) error {
		if err := e.Check(k.Pkg, v); err != nil {
			return err
		}
		*field(c) = v
		return nil
	}
}

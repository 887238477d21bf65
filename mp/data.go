package mp

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Data holds named feature tensors with one row per element of one side of
// a frame's graph: its nodes, source nodes, destination nodes or edges
// (DGL's ndata, srcdata, dstdata and edata). A field is any float32 or
// float64 node of an expression graph whose first dimension is that row
// count; the rest is its feature shape.
//
// Setting a field rebinds a name and builds nothing. A Data belongs to its
// Frame, and like a map it is not safe for concurrent use.
type Data struct {
	what   string // the side, for messages: "node", "source node", "edge", ...
	rows   int
	fields map[string]*gorgonia.Node
	err    error // when set, the view is unusable and every call reports it
}

func newData(what string, rows int) *Data {
	return &Data{what: what, rows: rows, fields: map[string]*gorgonia.Node{}}
}

// clone returns a copy of d whose fields can change independently.
func (d *Data) clone() *Data {
	c := *d
	c.fields = maps.Clone(d.fields)
	return &c
}

// Set binds name to x. It returns an error, and changes nothing, when the
// name is empty, x is nil, not float32 or float64, a scalar, or does not
// have one row per element of this side.
func (d *Data) Set(name string, x *gorgonia.Node) error {
	if d.err != nil {
		return fmt.Errorf("mp: %w", d.err)
	}
	if err := checkField(d.what+" data", d.rows, d.what, name, x); err != nil {
		return fmt.Errorf("mp: %w", err)
	}
	d.fields[name] = x
	return nil
}

// Get returns the field name, or an error naming the fields there are.
func (d *Data) Get(name string) (*gorgonia.Node, error) {
	x, err := d.lookup(name)
	if err != nil {
		return nil, fmt.Errorf("mp: %w", err)
	}
	return x, nil
}

// Has reports whether the field name is set.
func (d *Data) Has(name string) bool {
	_, ok := d.fields[name]
	return ok && d.err == nil
}

// Delete removes the field name; it does nothing when there is none.
func (d *Data) Delete(name string) { delete(d.fields, name) }

// Names returns the names of the fields in increasing order.
func (d *Data) Names() []string {
	if d.err != nil {
		return nil
	}
	return slices.Sorted(maps.Keys(d.fields))
}

// Rows returns the number of rows every field has.
func (d *Data) Rows() int { return d.rows }

// lookup returns the field name, or an error without the package prefix.
func (d *Data) lookup(name string) (*gorgonia.Node, error) {
	if d.err != nil {
		return nil, d.err
	}
	x, ok := d.fields[name]
	if !ok {
		return nil, fmt.Errorf("field %q not found in %s data%s", name, d.what, have(d.Names()))
	}
	return x, nil
}

// have lists names for an error message.
func have(names []string) string {
	if len(names) == 0 {
		return " (it has no fields)"
	}
	return " (it has " + strings.Join(names, ", ") + ")"
}

// checkField validates a field before it is stored: where names the store
// in errors ("source node data", "the message function's result"), and
// every row is one element of kind.
func checkField(where string, rows int, kind, name string, x *gorgonia.Node) error {
	if name == "" {
		return fmt.Errorf("empty field name in %s", where)
	}
	if x == nil {
		return fmt.Errorf("field %q of %s is nil", name, where)
	}
	if dt := x.Dtype(); dt != tensor.Float32 && dt != tensor.Float64 {
		return fmt.Errorf("field %q of %s has dtype %v; want float32 or float64", name, where, dt)
	}
	s := x.Shape()
	if len(s) == 0 || x.IsScalar() {
		return fmt.Errorf("field %q of %s is a scalar; want one row per %s (%d)", name, where, kind, rows)
	}
	if s[0] != rows {
		return fmt.Errorf("field %q of %s has %d rows; want one per %s (%d)", name, where, s[0], kind, rows)
	}
	return nil
}

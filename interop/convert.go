package interop

import (
	"fmt"
	"strings"
)

// kind is a module kind a framework's converter maps, with the function
// that converts its tensors.
type kind struct {
	name    string
	convert func(*converter) error
}

// convert converts the module l.Kind of framework fw found in ts, as DGL
// and PyG do: it reads the module's tensors with the function of its entry
// in kinds, then checks that no tensor under the prefix was left unread. A
// kind not in kinds is an error listing those that are, in kinds' order.
func convert(fw string, kinds []kind, ts *Tensors, l Layer) (Params, error) {
	c, err := newConverter(fw, ts, l)
	if err != nil {
		return nil, err
	}
	for _, k := range kinds {
		if k.name == l.Kind {
			if err := k.convert(c); err != nil {
				return nil, err
			}
			return c.finish()
		}
	}
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = k.name
	}
	last := len(names) - 1
	return nil, fmt.Errorf("interop: %s kind %q is not mapped; the mapped kinds are %s and %s", fw, l.Kind, strings.Join(names[:last], ", "), names[last])
}

package layerkit_test

import (
	"testing"

	"github.com/gnngo/gnn/nn/internal/layerkit"
)

type shade uint8

var shades = layerkit.Enum[shade]{Type: "shade", What: "shade", Names: []string{"light", "dark"}}

type shaded struct {
	layerkit.Config
	s shade
}

func TestEnumNamesAndChoice(t *testing.T) {
	if got := shades.Name(1); got != "dark" {
		t.Errorf("Name(1) = %q, want dark", got)
	}
	if got := shades.Name(7); got != "shade(7)" {
		t.Errorf("Name(7) = %q, want shade(7)", got)
	}
	k := layerkit.Kit[*shaded, func(*shaded) error]{Pkg: "toy"}
	field := func(c *shaded) *shade { return &c.s }
	var c shaded
	if err := layerkit.Choice(k, shades, 1, field)(&c); err != nil || c.s != 1 {
		t.Errorf("Choice(1): %v, value %d", err, c.s)
	}
	err := layerkit.Choice(k, shades, 2, field)(&c)
	if err == nil || err.Error() != "toy: unknown shade 2" || c.s != 1 {
		t.Errorf("Choice(2): %v, value %d; want toy: unknown shade 2 and the value kept", err, c.s)
	}
}

package fn_test

import (
	"testing"

	"github.com/gnngo/gnn/ops"
	"github.com/gnngo/gnn/ops/fn"
)

func TestNames(t *testing.T) {
	for _, c := range []struct {
		m          fn.Message
		name, desc string
	}{
		{fn.CopyU("h", "m"), "copy_u", "copy_u(h -> m)"},
		{fn.CopyV("h", "m"), "copy_v", "copy_v(h -> m)"},
		{fn.CopyE("w", "m"), "copy_e", "copy_e(w -> m)"},
		{fn.UMulE("h", "w", "m"), "u_mul_e", "u_mul_e(h, w -> m)"},
		{fn.EDotV("a", "b", "s"), "e_dot_v", "e_dot_v(a, b -> s)"},
		{fn.Message{Op: ops.CopyRHS, RHS: ops.E, RHSField: "w", Out: "m"}, "copy_e", "copy_e(w -> m)"},
	} {
		if got := c.m.MessageName(); got != c.name {
			t.Errorf("%+v: MessageName() = %q, want %q", c.m, got, c.name)
		}
		if got := c.m.String(); got != c.desc {
			t.Errorf("%+v: String() = %q, want %q", c.m, got, c.desc)
		}
	}
	for _, c := range []struct {
		r    fn.Reducer
		desc string
	}{
		{fn.Sum("m", "h"), "sum(m -> h)"},
		{fn.Mean("m", "h"), "mean(m -> h)"},
		{fn.Max("m", "h"), "max(m -> h)"},
		{fn.Min("m", "h"), "min(m -> h)"},
		{fn.Prod("m", "h"), "prod(m -> h)"},
	} {
		if got := c.r.String(); got != c.desc {
			t.Errorf("String() = %q, want %q", got, c.desc)
		}
		if got := c.r.ReduceName(); got != c.r.Op.String() {
			t.Errorf("ReduceName() = %q", got)
		}
	}
	if got := fn.Reduction(9).String(); got != "Reduction(9)" {
		t.Errorf("unknown reduction prints %q", got)
	}
}

// TestGenerated checks that every generated x_OP_y constructor builds the
// message its name says.
func TestGenerated(t *testing.T) {
	targets := map[string]ops.Target{"U": ops.U, "V": ops.V, "E": ops.E}
	opsByName := map[string]ops.Binary{"Add": ops.Add, "Sub": ops.Sub, "Mul": ops.Mul, "Div": ops.Div, "Dot": ops.Dot}
	ctors := map[string]func(lhs, rhs, out string) fn.Message{
		"UAddU": fn.UAddU, "UAddV": fn.UAddV, "UAddE": fn.UAddE, "USubU": fn.USubU, "USubV": fn.USubV, "USubE": fn.USubE,
		"UMulU": fn.UMulU, "UMulV": fn.UMulV, "UMulE": fn.UMulE, "UDivU": fn.UDivU, "UDivV": fn.UDivV, "UDivE": fn.UDivE,
		"UDotU": fn.UDotU, "UDotV": fn.UDotV, "UDotE": fn.UDotE,
		"VAddU": fn.VAddU, "VAddV": fn.VAddV, "VAddE": fn.VAddE, "VSubU": fn.VSubU, "VSubV": fn.VSubV, "VSubE": fn.VSubE,
		"VMulU": fn.VMulU, "VMulV": fn.VMulV, "VMulE": fn.VMulE, "VDivU": fn.VDivU, "VDivV": fn.VDivV, "VDivE": fn.VDivE,
		"VDotU": fn.VDotU, "VDotV": fn.VDotV, "VDotE": fn.VDotE,
		"EAddU": fn.EAddU, "EAddV": fn.EAddV, "EAddE": fn.EAddE, "ESubU": fn.ESubU, "ESubV": fn.ESubV, "ESubE": fn.ESubE,
		"EMulU": fn.EMulU, "EMulV": fn.EMulV, "EMulE": fn.EMulE, "EDivU": fn.EDivU, "EDivV": fn.EDivV, "EDivE": fn.EDivE,
		"EDotU": fn.EDotU, "EDotV": fn.EDotV, "EDotE": fn.EDotE,
	}
	if len(ctors) != 45 {
		t.Fatalf("%d constructors listed, want 45", len(ctors))
	}
	for name, ctor := range ctors {
		want := fn.Binary(opsByName[name[1:4]], targets[name[:1]], "a", targets[name[4:]], "b", "m")
		if got := ctor("a", "b", "m"); got != want {
			t.Errorf("%s = %+v, want %+v", name, got, want)
		}
	}
}

package enum

import (
	"fmt"
	"testing"
)

type direction uint8

type signed int

func TestName(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Name(direction(0), "Direction", "in", "out"), "in"},
		{Name(direction(1), "Direction", "in", "out"), "out"},
		{Name(direction(2), "Direction", "in", "out"), "Direction(2)"},
		{Name(direction(255), "Direction", "in", "out"), "Direction(255)"},
		{Name(signed(-1), "Signed", "zero"), "Signed(-1)"},
		{Name(signed(0), "Type", "", "int32"), "Type(0)"},
		{Name(signed(1), "Type", "", "int32"), "int32"},
		{Name(signed(0), "Empty"), "Empty(0)"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func ExampleName() {
	type Reducer int
	fmt.Println(Name(Reducer(1), "Reducer", "sum", "max"))
	fmt.Println(Name(Reducer(5), "Reducer", "sum", "max"))
	// Output:
	// max
	// Reducer(5)
}

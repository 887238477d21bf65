package fn_test

import (
	"fmt"

	"github.com/gnngo/gnn/ops/fn"
)

func Example() {
	msg, red := fn.UMulE("h", "w", "m"), fn.Sum("m", "h")
	fmt.Println(msg, red)
	fmt.Println(msg.MessageName(), red.ReduceName())
	// Output:
	// u_mul_e(h, w -> m) sum(m -> h)
	// u_mul_e sum
}

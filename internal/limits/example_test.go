package limits_test

import (
	"fmt"

	"github.com/gnngo/gnn/internal/limits"
)

// A command checks a flag's count and the bytes it implies before
// allocating anything.
func Example() {
	edges := int64(99999999999999)
	if err := limits.Count("-gen rmat:10:99999999999999: edges", edges); err != nil {
		fmt.Println(err)
	}
	if err := limits.Bytes("-hidden 100000000", 1e30); err != nil {
		fmt.Println("refused")
	}
	// Output:
	// -gen rmat:10:99999999999999: edges 99999999999999: more than the 2147483647 this build can index (int32 IDs)
	// refused
}

package heads_test

import (
	"fmt"

	"github.com/gnngo/gnn/ops/heads"
)

// The scores of two nodes under two heads of two features, and the
// gradient of the attention vector for score gradients of one.
func ExampleDot() {
	z := []float64{
		1, 2, 3, 4, // node 0: head 0 (1, 2), head 1 (3, 4)
		5, 6, 7, 8, // node 1
	}
	a := []float64{1, 0, 0, 1} // head 0 reads feature 0, head 1 feature 1
	s := make([]float64, 4)
	heads.Dot(s, z, a, 2, 2, 2)
	fmt.Println(s)
	da := make([]float64, 4)
	heads.Sum(da, z, []float64{1, 1, 1, 1}, 2, 2, 2)
	fmt.Println(da)
	// Output:
	// [1 4 5 8]
	// [6 8 10 12]
}

package comm_test

import (
	"fmt"

	"github.com/gnngo/gnn/dist/comm"
)

// Four goroutine ranks sum a gradient and pass a message around a ring.
func ExampleRunInProcess() {
	err := comm.RunInProcess(4, func(c comm.Comm) error {
		grad := []float64{float64(c.Rank()), 1}
		if err := c.AllReduceFloat64(grad, comm.Sum); err != nil {
			return err
		}
		n, r := c.Size(), c.Rank()
		got, err := c.SendRecv([]byte{byte(r)}, (r+1)%n, (r-1+n)%n, 0)
		if err != nil {
			return err
		}
		if r == 0 {
			fmt.Println("sum:", grad, "rank 0 got a message from rank", got[0])
		}
		return nil
	})
	fmt.Println("error:", err)
	// Output:
	// sum: [6 4] rank 0 got a message from rank 3
	// error: <nil>
}

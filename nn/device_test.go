//go:build gnncuda

package nn_test

import (
	"fmt"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/gpu"
	"github.com/gnngo/gnn/internal/testkit/devicetest"
	"github.com/gnngo/gnn/nn"
)

// TestDeviceDenseOps runs each of nn's dense ops, forward and backward, on the
// emulator, with the data input on the device and parameters on the host,
// against the CPU op.
func TestDeviceDenseOps(t *testing.T) {
	devicetest.ForDevices(t, func(t *testing.T, dev *gpu.Device) {
		mode := nn.NewMode()
		mode.Next()
		cases := []struct {
			name   string
			shapes [][]int
			dev    []bool
			build  func(in []*gorgonia.Node) (*gorgonia.Node, error)
		}{
			{"matmul", [][]int{{37, 13}, {13, 5}}, []bool{true, false}, func(in []*gorgonia.Node) (*gorgonia.Node, error) { return nn.MatMul(in[0], in[1]) }},
			{"matmul_both_on_device", [][]int{{9, 300}, {300, 4}}, []bool{true, true}, func(in []*gorgonia.Node) (*gorgonia.Node, error) { return nn.MatMul(in[0], in[1]) }},
			{"bias", [][]int{{41, 6}, {6}}, []bool{true, false}, func(in []*gorgonia.Node) (*gorgonia.Node, error) { return nn.AddBias(in[0], in[1]) }},
			{"relu", [][]int{{33, 7}}, []bool{true}, func(in []*gorgonia.Node) (*gorgonia.Node, error) { return nn.ReLU(in[0]) }},
			{"elu", [][]int{{33, 7}}, []bool{true}, func(in []*gorgonia.Node) (*gorgonia.Node, error) { return nn.ELU(in[0]) }},
			{"dropout", [][]int{{27, 11}}, []bool{true}, func(in []*gorgonia.Node) (*gorgonia.Node, error) { return nn.Dropout(in[0], 0.4, 17, mode) }},
			{"mean_heads", [][]int{{19, 12}}, []bool{true}, func(in []*gorgonia.Node) (*gorgonia.Node, error) { return nn.MeanHeads(in[0], 3) }},
			{"cross_entropy", [][]int{{50, 7}}, []bool{true}, func(in []*gorgonia.Node) (*gorgonia.Node, error) {
				labels := make([]int32, 50)
				for i := range labels {
					labels[i] = int32(i*5) % 7
				}
				return nn.CrossEntropy(in[0], labels, []int32{3, 9, 0, 44, 17, 28, 49, 8})
			}},
			{"cross_entropy_repeated_nodes", [][]int{{20, 4}}, []bool{true}, func(in []*gorgonia.Node) (*gorgonia.Node, error) {
				labels := make([]int32, 20)
				for i := range labels {
					labels[i] = int32(i) % 4
				}
				return nn.CrossEntropy(in[0], labels, []int32{3, 9, 3, 11})
			}},
			{"two_layers_shared_input", [][]int{{23, 8}, {8, 8}, {8}}, []bool{true, false, false}, func(in []*gorgonia.Node) (*gorgonia.Node, error) {
				// x feeds two products: Gorgonia's Add sums its gradients on the device.
				h, err := nn.MatMul(in[0], in[1])
				if err != nil {
					return nil, err
				}
				if h, err = nn.AddBias(h, in[2]); err != nil {
					return nil, err
				}
				if h, err = nn.ReLU(h); err != nil {
					return nil, err
				}
				return nn.MatMul(h, in[1])
			}},
		}
		for _, dt := range devicetest.Dtypes {
			for ci, c := range cases {
				t.Run(fmt.Sprintf("%s/%v", c.name, dt), func(t *testing.T) {
					inputs := make([]*tensor.Dense, len(c.shapes))
					for i, s := range c.shapes {
						inputs[i] = devicetest.Random(dt, uint64(10*ci+i), s...)
					}
					devicetest.Compare(t, dev, inputs, c.dev, c.build)
				})
			}
		}
	})
}

// TestDeviceDropoutEvaluation checks that dropout in evaluation mode copies on
// the device.
func TestDeviceDropoutEvaluation(t *testing.T) {
	devicetest.ForDevices(t, func(t *testing.T, dev *gpu.Device) {
		mode := nn.NewMode()
		mode.Eval()
		x := devicetest.Random(tensor.Float32, 5, 10, 10)
		devicetest.Compare(t, dev, []*tensor.Dense{x}, []bool{true}, func(in []*gorgonia.Node) (*gorgonia.Node, error) {
			return nn.Dropout(in[0], 0.5, 3, mode)
		})
	})
}

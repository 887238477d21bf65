// Package device is the default-build side of gnn's GPU path: the interface
// a device backend implements (memory, dense kernels, sparse kernels), the
// registration through which a build with the gnncuda tag installs one, and
// the helpers ops use to run on it.
//
// A device value is a *tensor.Dense whose memory Go cannot read
// (IsNativelyAccessible false): its storage pointer is a device address.
// opkit.Op.Do consults Current before running an op: with no backend
// registered (every default build) that is one atomic load, and the CPU
// path is unchanged; with one registered and an input on the device, the
// op's DeviceDo runs instead of its Do.
//
// Gorgonia itself touches device values in a few places, found by running
// its TapeMachine and Grad over values in memory that faults when read from
// the host (package gpu's emulator, whose device memory is a PROT_NONE
// mapping; nn/train's TestDeviceFitCora trains that way): every output gets
// the machine's engine (flags are kept), Reshape makes a shallow clone, and
// gradient sums (ReduceAdd) run Gorgonia's Add through the first operand's
// engine, with the output register's previous value as a reuse target.
// Bind installs Engine, whose Add runs on the device, as a machine's
// engine. The dual values of BindDualValues accumulate gradients with a
// host Add, so a device run reads the gradient nodes instead (nn/train
// and cmd/gnnbench do, through Placed, HostGrads and Adam).
package device

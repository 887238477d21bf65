// Package gpu runs gnn's training on an NVIDIA GPU, with the same user
// code as on the CPU: open a device, place the graph and the input
// tensors on it, and the layers' ops run there, because every gnn op
// checks whether an input lives on the device (see internal/ops/device).
//
//	dev, err := gpu.Open(0)          // or gpu.OpenEmulator()
//	defer dev.Close()
//	dev.PlaceGraph(g)                // structure uploaded once, cached
//	dev.PlaceNode(x)                 // features: an input node's value, now on the device
//	... build the model as for the CPU, train.Fit(task, cfg, nil) ...
//	fmt.Println(dev.Stats())         // bytes copied each way
//
// Parameters stay on the host: the ops that read them upload them for the
// step, train.Fit downloads their gradients and steps Gorgonia's solver on
// the host. Per epoch only parameters, their gradients, the loss (and, for
// Fit's accuracies, the logits) cross PCIe; node and edge tensors stay on
// the device. Values the ops produce live until Recycle, which train.Fit
// calls before every run of its machines.
//
// # Build tag
//
// The device path is built only with the gnncuda tag. Without it (every
// default build) this package is a stub: Open and OpenEmulator return an
// error saying the binary was built without -tags gnncuda, and nothing of
// CUDA is loaded or linked. With it, the driver is loaded at run time
// (dlopen of libcuda.so.1, gpu/internal/cuda), kernels are PTX embedded
// in the binary (gpu/kernels), and OpenEmulator runs the same kernels
// compiled for the host with device memory that faults when host code
// reads it, which is how the device path is tested without a GPU.
//
// # Where the time goes
//
// With GNN_CUDA_PROFILE=1 in the environment when a GPU is opened, every
// launch and copy waits for the device, its wall time is summed per kernel
// and per copy, and Close prints the table to standard error (the
// emulator ignores it). Epochs run slower that way; the shares show which
// kernels to work on without a profiler.
//
// # Dense products
//
// On a GPU, the matrix products of layers and their gradients run through
// cuBLAS's gemm where a cuBLAS library loads (libcublas.so.13, .12 or .11,
// opened at run time like the driver; in pedantic math mode, so float32
// products use no TF32), and through gnn's own kernels otherwise or with
// GNN_CUBLAS=0 in the environment when the device is opened. Device.BLAS
// says which, and why not cuBLAS. cuBLAS sums in its own order, so
// results differ from the kernels' in the last bits, and are reproducible
// from run to run on one GPU model and library version. The emulator
// always runs the kernels. Under GNN_CUDA_PROFILE, gemm calls are timed
// as cublasSgemm and cublasDgemm.
//
// # Design
//
// A device value is a *tensor.Dense whose storage is device memory and
// which Gorgonia sees as not natively accessible. Gorgonia's TapeMachine
// passes such values between ops untouched (it sets their engine, keeps
// their flags, and Reshape makes a shallow clone); the one Gorgonia op
// that computes on them in GCN and GAT training is the Add of gradient
// sums, which runs through the machine's engine: train.Fit installs
// internal/ops/device's Engine, whose Add is a device kernel. BindDualValues
// adds gradients into host dual values, so on the device Fit reads the
// gradient nodes instead.
package gpu

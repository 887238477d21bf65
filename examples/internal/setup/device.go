package setup

import (
	"fmt"
	"io"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/gpu"
	"github.com/gnngo/gnn/nn/train"
)

// openDevice opens the device -device names: none for cpu.
func openDevice(name string) (*gpu.Device, error) {
	switch name {
	case "", "cpu":
		return nil, nil
	case "gpu":
		return gpu.Open(0)
	case "emu":
		return gpu.OpenEmulator()
	}
	return nil, fmt.Errorf("unknown device %q (want cpu, gpu or emu)", name)
}

// openDevice opens the device of -device into f.dev, unless it is open
// already. Check calls it, so that a missing driver or build tag is
// reported before any data is loaded; Place uses the device it opened.
func (f *Flags) openDevice() error {
	if f.dev != nil {
		return nil
	}
	dev, err := openDevice(f.Device)
	if err != nil {
		return fmt.Errorf("-device %s: %w", f.Device, err)
	}
	f.dev = dev
	return nil
}

// Place opens the device of -device (nothing for cpu) and places the input
// features on it, so that the model built on them trains there; Finish
// reports the traffic and closes the device.
func (f *Flags) Place(in Input) error {
	if err := f.openDevice(); err != nil {
		return err
	}
	dev := f.dev
	if dev == nil {
		return nil
	}
	x := in.Dense
	if in.Sparse != nil {
		x = in.Sparse.Values
		if err := dev.PlaceGraph(in.Sparse.Graph); err != nil {
			return fmt.Errorf("-device %s: %w", f.Device, err)
		}
	}
	if err := dev.PlaceNode(x); err != nil {
		return fmt.Errorf("-device %s: %w", f.Device, err)
	}
	return nil
}

// placeParams moves the parameters to the device Place opened, if any:
// the optimiser then steps there and only scalars cross per epoch.
func (f *Flags) placeParams(params gorgonia.Nodes) error {
	if f.dev == nil {
		return nil
	}
	for _, p := range params {
		if err := f.dev.PlaceNode(p); err != nil {
			return fmt.Errorf("-device %s: %w", f.Device, err)
		}
	}
	return nil
}

// paramsToHost copies parameters on the device back into host values (for
// -save, and before the device closes).
func (f *Flags) paramsToHost(params gorgonia.Nodes) error {
	if f.dev == nil {
		return nil
	}
	for _, p := range params {
		h, err := f.dev.ToHost(p.Value())
		if err != nil {
			return fmt.Errorf("-device %s: parameter %q: %w", f.Device, p.Name(), err)
		}
		if err := gorgonia.Let(p, h); err != nil {
			return fmt.Errorf("-device %s: parameter %q: %w", f.Device, p.Name(), err)
		}
	}
	return nil
}

// closeDevice closes the device Place opened, if any.
func (f *Flags) closeDevice() {
	if f.dev != nil {
		f.dev.Close()
		f.dev = nil
	}
}

// traffic records the device's traffic per epoch around an epoch callback.
type traffic struct {
	dev    *gpu.Device
	last   gpu.Stats
	epochs []gpu.Stats
}

func (t *traffic) wrap(next func(train.Epoch)) func(train.Epoch) {
	t.last = t.dev.Stats()
	return func(e train.Epoch) {
		s := t.dev.Stats()
		t.epochs = append(t.epochs, s.Sub(t.last))
		t.last = s
		next(e)
	}
}

// report prints the first epoch's traffic (constants and the graph cross
// then) and the mean of the later ones.
func (t *traffic) report(w io.Writer) {
	if len(t.epochs) == 0 {
		return
	}
	fmt.Fprintf(w, "device %s: dense products by %s\n", t.dev.Name(), t.dev.BLAS())
	fmt.Fprintf(w, "device %s: epoch 1: %v\n", t.dev.Name(), t.epochs[0])
	if n := len(t.epochs) - 1; n > 0 {
		var sum gpu.Stats
		for _, s := range t.epochs[1:] {
			sum.HostToDevice += s.HostToDevice
			sum.DeviceToHost += s.DeviceToHost
			sum.DeviceToDevice += s.DeviceToDevice
			sum.Launches += s.Launches
		}
		k := int64(n)
		fmt.Fprintf(w, "device %s: per later epoch: %v\n", t.dev.Name(),
			gpu.Stats{HostToDevice: sum.HostToDevice / k, DeviceToHost: sum.DeviceToHost / k, DeviceToDevice: sum.DeviceToDevice / k, Launches: sum.Launches / k})
	}
}

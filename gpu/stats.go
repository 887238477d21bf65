package gpu

import "fmt"

// Stats counts a device's traffic since it was opened or its stats reset.
type Stats struct {
	HostToDevice   int64 // bytes copied from the host
	DeviceToHost   int64 // bytes copied to the host
	DeviceToDevice int64 // bytes copied within the device
	Launches       int64 // kernels launched (a library call, such as a cuBLAS product, counts as one)
}

// Sub returns s - t, the traffic between two readings.
func (s Stats) Sub(t Stats) Stats {
	return Stats{s.HostToDevice - t.HostToDevice, s.DeviceToHost - t.DeviceToHost, s.DeviceToDevice - t.DeviceToDevice, s.Launches - t.Launches}
}

func (s Stats) String() string {
	return fmt.Sprintf("%d B to the device, %d B to the host, %d B within it, %d launches", s.HostToDevice, s.DeviceToHost, s.DeviceToDevice, s.Launches)
}

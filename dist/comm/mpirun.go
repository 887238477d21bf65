package comm

import (
	"fmt"
	"os/exec"
	"strconv"
	"time"
)

// MPIRunArgs returns the mpirun arguments gnn's tests and examples run a
// job of np ranks on this machine with: Open MPI's launcher, ranks allowed
// to outnumber cores (--oversubscribe) and to run as root, no binding,
// and every byte over loopback only (the TCP transport and the runtime's
// out-of-band channel restricted to lo). A positive timeout makes mpirun
// end the job after that long (--timeout, whole seconds, at least 1).
func MPIRunArgs(np int, timeout time.Duration) []string {
	args := []string{"--allow-run-as-root", "--oversubscribe", "--bind-to", "none",
		"--mca", "btl", "self,tcp", "--mca", "btl_tcp_if_include", "lo", "--mca", "oob_tcp_if_include", "lo",
		"-np", strconv.Itoa(np)}
	if timeout > 0 {
		args = append(args, "--timeout", strconv.Itoa(max(1, int(timeout.Seconds()))))
	}
	return args
}

// MPIRunCommand returns the command that runs program with args on np
// ranks under mpirun with MPIRunArgs. It fails when mpirun is not on the
// PATH (install the apt packages openmpi-bin and libopenmpi-dev).
func MPIRunCommand(np int, timeout time.Duration, program string, args ...string) (*exec.Cmd, error) {
	if np < 1 {
		return nil, fmt.Errorf("comm: mpirun needs at least one rank, got %d", np)
	}
	mpirun, err := exec.LookPath("mpirun")
	if err != nil {
		return nil, fmt.Errorf("comm: mpirun not found (apt-get install openmpi-bin libopenmpi-dev): %w", err)
	}
	all := append(MPIRunArgs(np, timeout), program)
	return exec.Command(mpirun, append(all, args...)...), nil
}

//go:build !mpi

package comm

import (
	"errors"
	"testing"
)

func TestMPI(t *testing.T) {
	if _, err := MPI(); !errors.Is(err, ErrNotBuilt) {
		t.Fatalf("MPI() = %v, want ErrNotBuilt", err)
	}
	if err := RunMPI(func(Comm) error { return nil }); !errors.Is(err, ErrNotBuilt) {
		t.Fatalf("RunMPI = %v, want ErrNotBuilt", err)
	}
	t.Skip("the Open MPI engine is not built in: run go test -tags mpi ./dist/comm (needs openmpi-bin and libopenmpi-dev)")
}

//go:build !mpi

package comm

// MPI returns ErrNotBuilt: this build has no Open MPI engine. Build with
// -tags mpi to get it.
func MPI() (Comm, error) { return nil, ErrNotBuilt }

// RunMPI returns ErrNotBuilt: this build has no Open MPI engine. Build with
// -tags mpi to get it.
func RunMPI(f func(c Comm) error) error { return ErrNotBuilt }

// Finalize does nothing in a build without the Open MPI engine.
func Finalize() error { return nil }

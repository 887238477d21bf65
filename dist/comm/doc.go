// Package comm is the communication layer of distributed training: a small
// Comm interface (rank, size, pairwise exchange, variable all-to-all,
// all-reduce, broadcast, barrier, abort) and the engines behind it.
//
// Two engines implement Comm:
//
//   - the in-process engine, RunInProcess, runs one goroutine per rank in the
//     calling process. It is the default build, needs no cgo, and drives the
//     unit tests;
//   - the Open MPI engine, MPI and RunMPI, is a thin cgo binding of our own
//     over the MPI C API, built only with the build tag mpi (apt packages
//     openmpi-bin and libopenmpi-dev). Without the tag, MPI returns
//     ErrNotBuilt.
//
// Both engines give the same results bit for bit: all-reduces gather every
// rank's buffer and fold them in rank order (rank 0, then 1, ...), so a sum
// does not depend on the engine, the transport or GOMAXPROCS.
//
// # Rules shared with MPI
//
// Collectives (AllToAllV, AllReduce*, Broadcast, Barrier) must be called by
// every rank in the same order, by one goroutine of a rank at a time.
// SendRecv may be called concurrently by several goroutines of one rank when
// their tags differ; messages with the same source, destination and tag
// arrive in the order they were sent. User tags lie in [0, MaxTag].
//
// Payloads are bytes in the host's byte order; the typed helpers
// (Float32sToBytes, BytesToFloat32s, ...) convert without copying where they
// can. Received slices belong to the caller.
//
// # Failure
//
// A rank that cannot go on calls Abort. Under MPI this prints "rank R: err"
// to stderr and ends every process of the job with a non-zero status
// (MPI_Abort). In the in-process engine the calling goroutine ends and every
// other rank's pending and later calls return an *AbortError naming rank R;
// RunInProcess returns that error. A rank whose function returns an error or
// panics aborts the job the same way, and a rank that waits for a message
// from a rank that has already returned gets an error instead of hanging.
package comm

// Package limits checks sizes a user passes (flags, file headers, schema
// lines) against what this build and this machine can hold, before
// anything is allocated: counts against 2^31-1 (the int32 node and edge
// IDs of package graph), and byte estimates against the machine's memory
// (MemTotal of /proc/meminfo, or a documented fallback where that cannot
// be read). A check that fails returns an error naming what was asked for,
// so that a command reports "-hidden 100000000: ..." instead of dying of
// "fatal error: out of memory" or a makeslice panic.
//
// It is a leaf package: package graph and the commands import it, and it
// imports only the standard library.
package limits

// Package binop defines the binary operator of a message, the one enum that
// package ops (Binary) and the kernel packages ops/spmm and ops/sddmm (Op)
// share as aliases, so that an operator has one number everywhere.
package binop

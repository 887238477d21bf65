// Command gengatv2 writes ops/sddmm/gatv2_amd64.s, GATv2's AVX2 kernels:
// the loops of each kernel are copies, one per mode (heads of 1, 2, 4, 8
// or 8k features) and per presence of edge features (and, backward, of
// the gradient of A), which differ only in the lines that spread or sum
// heads, so that no loop tests a mode per block. Edit this program, not
// the assembly, and run go generate ./ops/sddmm.
package main

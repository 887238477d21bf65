// Package plotfile writes gonum plots to PNG files: the one way gnn's
// commands (gnnbench's charts, the examples' -plot) lay out a grid of plots
// on a canvas and save it, atomically, so that a crash never leaves half
// an image under the file's name.
package plotfile

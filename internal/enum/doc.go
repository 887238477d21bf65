// Package enum spells the values of the library's small enumerations (a
// reducer, a direction, an element type): one String method shape for all
// of them, each value's name at its index and typ(v) for a value outside
// the list. It imports nothing of the library, so that every package,
// graph included, can use it.
package enum

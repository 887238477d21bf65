package enum

import "fmt"

// Integer is the underlying type of an enumeration.
type Integer interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64
}

// Name returns names[v], the name of value v of the enumeration typ, or
// typ(v), as in "Direction(7)", when v has no name: it is negative, past
// the end of names, or its name is empty (a value left unused, as 0 is
// where the values start at 1).
func Name[T Integer](v T, typ string, names ...string) string {
	if v >= 0 && uint64(v) < uint64(len(names)) && names[v] != "" {
		return names[v]
	}
	return fmt.Sprintf("%s(%d)", typ, int64(v))
}

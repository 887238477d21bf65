package limits

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"sync"
)

// MaxCount is the most nodes, edges or other int32-indexed items that can
// be held: 2^31-1.
const MaxCount = 1<<31 - 1

// FallbackMemory is the memory assumed where /proc/meminfo cannot be read
// (not Linux, or a sandbox): 64 GiB, so that a size no workstation holds is
// still refused while anything a laptop might run is allowed.
const FallbackMemory = 64 << 30

// memory is the machine's memory in bytes, read once.
var memory = sync.OnceValue(func() int64 {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return FallbackMemory
	}
	if n, ok := parseMemTotal(data); ok {
		return n
	}
	return FallbackMemory
})

// Memory returns the machine's total memory in bytes: MemTotal of
// /proc/meminfo, or FallbackMemory where that cannot be read.
func Memory() int64 { return memory() }

// parseMemTotal returns the MemTotal line of /proc/meminfo in bytes.
func parseMemTotal(data []byte) (int64, bool) { return parseKiB(data, "MemTotal:") }

// parseKiB returns in bytes the value of the line of a /proc file that
// starts with key, a count of kB ("MemTotal:       24683656 kB").
func parseKiB(data []byte, key string) (int64, bool) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) >= 2 && string(f[0]) == key {
			kb, err := strconv.ParseInt(string(f[1]), 10, 64)
			if err != nil || kb <= 0 {
				return 0, false
			}
			return kb << 10, true
		}
	}
	return 0, false
}

// Count checks that 0 <= n <= MaxCount; what names the size in the error
// ("-parts", "rmat edges").
func Count(what string, n int64) error {
	if n < 0 {
		return fmt.Errorf("%s %d: negative", what, n)
	}
	if n > MaxCount {
		return fmt.Errorf("%s %d: more than the %d this build can index (int32 IDs)", what, n, MaxCount)
	}
	return nil
}

// Bytes checks that an estimate of the bytes a request will allocate fits
// in the machine's memory; what names the request in the error. The
// estimate is a float64 so that products of large sizes cannot overflow.
func Bytes(what string, bytes float64) error {
	return bytesWithin(what, bytes, Memory())
}

func bytesWithin(what string, bytes float64, mem int64) error {
	if !(bytes <= float64(mem)) { // NaN is refused too
		return fmt.Errorf("%s needs about %s, more than the %s of memory this machine has", what, Human(bytes), Human(float64(mem)))
	}
	return nil
}

// Human formats a byte count as "12.3 GB" (powers of 1000).
func Human(b float64) string {
	units := []string{"B", "kB", "MB", "GB", "TB", "PB", "EB"}
	i := 0
	for b >= 1000 && i < len(units)-1 {
		b /= 1000
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f B", b)
	}
	return fmt.Sprintf("%.1f %s", b, units[i])
}

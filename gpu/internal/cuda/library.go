//go:build gnncuda

package cuda

import (
	"fmt"
	"strings"
	"sync"
)

// Library is a shared library of CUDA's (cuBLAS, cuSPARSE) that a package
// opens with dlopen, once per process: the first of several sonames that
// opens and has every function the package calls.
type Library struct {
	what  string
	names []string
	open  func(name string) (why string)

	once   sync.Once
	loaded string
	err    error
}

// NewLibrary returns the library what (for messages, "cuBLAS") among
// names, tried in order; open loads one soname and returns "" or why it
// failed (dlerror's message, or the function it lacks).
func NewLibrary(what string, names []string, open func(name string) (why string)) *Library {
	return &Library{what: what, names: names, open: open}
}

// Load opens the library on its first call and returns the soname that
// loaded; its error lists why each soname failed.
func (l *Library) Load() (string, error) {
	l.once.Do(func() {
		var why []string
		for _, name := range l.names {
			msg := l.open(name)
			if msg == "" {
				l.loaded = name
				return
			}
			why = append(why, msg)
		}
		l.err = fmt.Errorf("no usable %s library: %s", l.what, strings.Join(why, "; "))
	})
	return l.loaded, l.err
}

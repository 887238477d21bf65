//go:build gnncuda

package kernels

import (
	"embed"
	"io/fs"
	"strings"
)

//go:embed *.ptx
var ptxFS embed.FS

// Modules returns the PTX module of every .cu file, keyed by the file's
// name without extension ("sparse" for sparse.cu). Each module is
// NUL-terminated, as cuModuleLoadData wants PTX text.
func Modules() map[string][]byte {
	mods := map[string][]byte{}
	names, _ := fs.Glob(ptxFS, "*.ptx")
	for _, n := range names {
		b, err := ptxFS.ReadFile(n)
		if err != nil {
			panic(err) // embedded files are always readable
		}
		mods[strings.TrimSuffix(n, ".ptx")] = append(b, 0)
	}
	return mods
}

package genkit

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWriteGo checks that WriteGo writes its source gofmt'ed and Write its
// text as it is.
func TestWriteGo(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "x_gen.go")
	WriteGo(name, []byte("package x\nfunc  F( ) int {return 1}\n"))
	got, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if want := "package x\n\nfunc F() int { return 1 }\n"; string(got) != want {
		t.Errorf("WriteGo wrote %q, want %q", got, want)
	}
	name = filepath.Join(dir, "x.s")
	Write(name, []byte("TEXT ·f(SB)\n"))
	if got, err := os.ReadFile(name); err != nil || string(got) != "TEXT ·f(SB)\n" {
		t.Errorf("Write wrote %q (%v)", got, err)
	}
}

package genkit

import (
	"go/format"
	"log"
	"os"
)

// WriteGo formats src as Go source (gofmt) and writes it to the file name
// (Write). A generator's output is text it fixes itself: an error formatting
// it is a bug of the generator, and ends it.
func WriteGo(name string, src []byte) {
	out, err := format.Source(src)
	if err != nil {
		log.Fatalf("%s: %v", name, err)
	}
	Write(name, out)
}

// Write writes text to the file name, replacing it, and ends the generator
// (log.Fatal) when it cannot.
func Write(name string, text []byte) {
	if err := os.WriteFile(name, text, 0o644); err != nil {
		log.Fatal(err)
	}
}

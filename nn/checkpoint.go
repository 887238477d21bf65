package nn

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/atomicfile"
	"github.com/gnngo/gnn/internal/paramio"
)

// The parameter file format, version 1 (little-endian):
//
//	magic "GNNPARAM", version uint32, count uint32, then count records:
//	  name length uint32, name bytes, dtype uint8 (1 float32, 2 float64),
//	  rank uint32, rank dimensions uint64, elements (4 or 8 bytes each),
//	then a CRC-32C (Castagnoli) of every byte before it.
//
// The records are internal/paramio's, which package model's files share.
const (
	paramMagic   = "GNNPARAM"
	paramVersion = 1
)

// SaveParams writes the values of params to path, atomically: a crash never
// leaves a half-written file under that name. Every parameter must have a
// name (unique among params) and a float32 or float64 tensor value.
func SaveParams(path string, params gorgonia.Nodes) error {
	seen := map[string]bool{}
	for _, p := range params {
		if p.Name() == "" || seen[p.Name()] {
			return fmt.Errorf("nn: save %s: parameter names must be unique and non-empty (%q)", path, p.Name())
		}
		seen[p.Name()] = true
		if p.Value() == nil {
			return fmt.Errorf("nn: save %s: parameter %q has no value", path, p.Name())
		}
	}
	err := atomicfile.Write(path, func(w io.Writer) error {
		cw := paramio.NewWriter(w)
		if _, err := io.WriteString(cw, paramMagic); err != nil {
			return err
		}
		if err := cw.Put([2]uint32{paramVersion, uint32(len(params))}); err != nil {
			return err
		}
		for _, p := range params {
			v, ok := p.Value().(tensor.Tensor)
			if !ok {
				return fmt.Errorf("parameter %q holds %T", p.Name(), p.Value())
			}
			if err := cw.Record(p.Name(), v); err != nil {
				return err
			}
		}
		return cw.Finish()
	})
	if err != nil {
		return fmt.Errorf("nn: save %s: %w", path, err)
	}
	return nil
}

// LoadParams reads a file written by SaveParams into params, matching by
// name. Every parameter must be in the file with the same dtype and shape,
// and the file must hold no other parameter; the checksum must match. Values
// are copied into the parameters' existing tensors, bit-exact.
func LoadParams(path string, params gorgonia.Nodes) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("nn: load %s: %w", path, err)
	}
	defer f.Close()
	if err := readParams(bufio.NewReaderSize(f, 1<<20), params); err != nil {
		return fmt.Errorf("nn: load %s: %w", path, err)
	}
	return nil
}

func readParams(r io.Reader, params gorgonia.Nodes) error {
	cr := paramio.NewReader(r)
	magic := make([]byte, len(paramMagic))
	if _, err := io.ReadFull(cr, magic); err != nil || string(magic) != paramMagic {
		return fmt.Errorf("not a gnn parameter file")
	}
	var hdr [2]uint32
	if err := cr.Get(&hdr); err != nil {
		return fmt.Errorf("truncated header: %w", err)
	}
	if hdr[0] != paramVersion {
		return fmt.Errorf("unsupported version %d (this build reads %d)", hdr[0], paramVersion)
	}
	byName := map[string]*gorgonia.Node{}
	for _, p := range params {
		byName[p.Name()] = p
	}
	if int(hdr[1]) != len(params) {
		return fmt.Errorf("the file holds %d parameters, the model has %d", hdr[1], len(params))
	}
	expect := func(name string) tensor.Tensor {
		if p, ok := byName[name]; ok {
			if v, ok := p.Value().(tensor.Tensor); ok {
				return v
			}
		}
		return nil
	}
	// Values are staged and copied into the model only once the whole file
	// has been read and its checksum verified: a bad file changes nothing.
	staged := map[string]any{}
	for i := range int(hdr[1]) {
		name, vals, err := cr.Record(expect)
		if err != nil {
			return fmt.Errorf("parameter %d: %w", i, err)
		}
		if _, dup := staged[name]; dup {
			return fmt.Errorf("parameter %q appears twice", name)
		}
		staged[name] = vals
	}
	if err := cr.Finish(); err != nil {
		return err
	}
	for name, vals := range staged {
		switch d := byName[name].Value().Data().(type) {
		case []float32:
			copy(d, vals.([]float32))
		case []float64:
			copy(d, vals.([]float64))
		}
	}
	return nil
}

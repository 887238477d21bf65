package interop_test

import (
	"fmt"
	"log"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/interop"
	"github.com/gnngo/gnn/nn/gcn"
)

// Reading the state dict of a PyG GCNConv (saved with
// safetensors.torch.save_file) and loading it into gnn's GraphConv.
func ExampleReadSafetensors() {
	ts, err := interop.ReadSafetensors("testdata/pyg_gcn.f32.safetensors")
	if err != nil {
		log.Fatal(err)
	}
	for _, name := range ts.Names() {
		t := ts.Get(name)
		fmt.Println(name, t.Dtype, t.Shape)
	}
	params, err := interop.PyG(ts, interop.Layer{Kind: "GCNConv", Name: "gcn1"})
	if err != nil {
		log.Fatal(err)
	}
	eg := gorgonia.NewGraph()
	layer, err := gcn.New(eg, 6, 4, gcn.WithName("gcn1"))
	if err != nil {
		log.Fatal(err)
	}
	if err := params.Assign(layer.Learnables()); err != nil {
		log.Fatal(err)
	}
	for _, p := range layer.Learnables() {
		fmt.Println(p.Name(), p.Shape())
	}
	fmt.Println("unused:", ts.Unused())
	// Output:
	// bias F32 [4]
	// lin.weight F32 [4 6]
	// gcn1.weight (6, 4)
	// gcn1.bias (4)
	// unused: []
}

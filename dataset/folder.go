package dataset

// LoadFolder reads the node-classification dataset in dir as the examples
// and the server train and answer on it: OGB's raw layout when dir has one
// (IsOGB), read with the options OGBOptionsFor gives the folder's name, and
// the Planetoid format otherwise, its features row-normalised as PyG's
// NormalizeFeatures does. OGB's features are returned as they are.
func LoadFolder(dir string) (*Dataset, error) {
	if IsOGB(dir) {
		opts, _ := OGBOptionsFor(dir)
		return LoadOGB(dir, opts)
	}
	ds, err := LoadPlanetoid(dir)
	if err != nil {
		return nil, err
	}
	ds.Features.RowNormalize()
	return ds, nil
}

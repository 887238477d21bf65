// Package train runs the full-graph, semi-supervised node classification
// loop of the GCN and GAT papers on a Gorgonia expression graph: Adam with
// weight decay on chosen parameters, a loss over the training nodes, accuracy
// on the training, validation and test nodes every epoch, and early stopping
// as in the GAT paper (patience restarts whenever validation accuracy or
// validation loss reaches a new best). The test accuracy reported is the one
// at the epoch of best validation accuracy, ties going to the lower
// validation loss, and Fit leaves the model with that epoch's weights: saved
// with nn.SaveParams and loaded into the same model built again
// (nn.LoadParams), it gives the same accuracy (Evaluate). A run whose loss
// stops being finite ends with an error naming the epoch.
package train

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
//
// Fit runs each epoch through a placement: on the host the graph runs on
// nn/vm machines (one for the loss and gradients, one for evaluation,
// sharing one pool), which reuse every value's buffer from one epoch to
// the next and free values after their last reader; with features on a
// device it runs Gorgonia's tape machine with the device engine. A rank of
// a data-parallel job (Config.Sync) runs nn/vm machines as the host does:
// Sync reads and sums the gradients through the parameters' Grad, which
// returns the value of each parameter's gradient node, the buffer the
// solver then steps with (no dual values, no copy).
//
// Mini-batch training (DGL's sampled training) builds the model afresh on
// every batch: a batch's blocks have their own shapes, and Gorgonia nodes
// have fixed shapes, so a Stack adds its layers to a new expression graph
// per batch (BuildBatch) and a Shared binds their parameter nodes, by name,
// to one set of tensors and keeps one Adam state across the batches.
// FitBatches runs the epochs over a sampling.Loader, slicing the batch's
// input features and output labels (Rows, Labels) without copying the
// tables, in a goroutine one batch ahead and into two recycled buffers, so
// the per-batch rebuild is only the expression graph's (under a
// millisecond); each batch runs on its own nn/vm machine, which frees a
// value once consumed. Inference evaluates the trained model on the whole
// graph one layer at a time, in chunks of destination nodes (DGL's
// layer-wise inference).
package train

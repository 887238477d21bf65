// Package metrics computes the evaluation metrics of link prediction and
// binary classification, exactly and in a streaming way (add batch after
// batch, read the result at the end), in pure Go:
//
//   - ROC-AUC and average precision, as scikit-learn's roc_auc_score and
//     average_precision_score compute them, tied scores included (AUC,
//     AveragePrecision, and the accumulator Binary);
//   - the mean reciprocal rank and Hits@K of each positive against its own
//     negatives, with the tie rule of OGB's link-prediction evaluator
//     (ogbl-citation2's MRR against 1,000 negatives per positive; Ranking);
//   - Hits@K against one global set of negatives, as OGB's ogbl-collab,
//     ogbl-ppa and ogbl-ddi evaluators (HitsAtK).
//
// Scores are float64; a NaN score is an error. Results are deterministic:
// they depend on the scores added, not on how they were split into batches.
package metrics

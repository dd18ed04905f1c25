package io.cqlrows.capture.gen;

import java.util.List;

/**
 * What a synthetic capture's requests are grouped by: the CQL text of a QUERY, of a PREPARE, and of
 * the PREPARE whose id an EXECUTE carries (a statement's PREPARE and EXECUTE requests share one
 * key); for a BATCH, a label of the generator's own ({@code text}) with the texts of the batch's
 * statements in order ({@code batchStatements}), for a statement given by prepared id the text of
 * its PREPARE. A consumer that names batches its own way builds its name from {@code
 * batchStatements}. Immutable.
 *
 * @param text the statement's CQL text, or the generator's label of a batch
 * @param batchStatements the texts of a batch's statements in order; empty for anything else
 */
public record StatementKey(String text, List<String> batchStatements) {
  /** Copies the list. */
  public StatementKey {
    batchStatements = List.copyOf(batchStatements);
  }

  /** The key of a QUERY, PREPARE or EXECUTE of {@code text}. */
  public static StatementKey of(String text) {
    return new StatementKey(text, List.of());
  }

  /** Whether this is a BATCH's key. */
  public boolean isBatch() {
    return !batchStatements.isEmpty();
  }
}

package io.cqlrows.core;

/**
 * A ROWS result (kind 0x0002) whose rows were delivered to a sink.
 *
 * @param metadata the resolved metadata (paging state, new metadata id, columns)
 * @param rowCount the number of rows delivered
 */
public record RowsResult(RowsMetadata metadata, int rowCount) implements CqlResult {
  /** Rows. */
  public static final int KIND = 0x0002;

  @Override
  public int kind() {
    return KIND;
  }
}

package io.cqlrows.core.sink;

import io.cqlrows.core.ResultColumns;
import io.cqlrows.core.RowsMetadata;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Materialises rows as {@link Row} objects: the convenient sink, when a page fits comfortably in
 * memory and typed getters are wanted. Values are boxed and copied (blobs and vectors included),
 * so rows stay valid after the frame is released. Rows accumulate across results (pages) until
 * {@link #clear()}. Not thread-safe.
 */
public final class RowsCollector implements RowSink {
  private final List<Row> rows = new ArrayList<>();
  private RowsMetadata metadata;
  private ResultColumns columns;
  private Object[] values;
  private byte[] states;

  @Override
  public void onResultStart(RowsMetadata metadata, int rowCount) {
    this.metadata = metadata;
    this.columns = metadata.columns();
  }

  @Override
  public void onRowStart(int row) {
    values = new Object[columns.size()];
    states = new byte[columns.size()];
    java.util.Arrays.fill(states, Row.NULL); // skipped columns read as NULL
  }

  @Override
  public void onRowEnd(int row) {
    rows.add(new Row(columns, values, states));
    values = null;
    states = null;
  }

  @Override
  public void onNull(int column) {
    states[column] = Row.NULL;
  }

  @Override
  public void onNotSet(int column) {
    states[column] = Row.NOT_SET;
  }

  @Override
  public void onEmpty(int column) {
    states[column] = Row.EMPTY;
  }

  @Override
  public void onObject(int column, Object value) {
    values[column] = value;
    states[column] = Row.VALUE;
  }

  /** The rows collected so far (unmodifiable view). */
  public List<Row> rows() {
    return Collections.unmodifiableList(rows);
  }

  /** Metadata of the last result seen, or {@code null}. */
  public RowsMetadata metadata() {
    return metadata;
  }

  /** Forgets the collected rows. */
  public void clear() {
    rows.clear();
  }
}

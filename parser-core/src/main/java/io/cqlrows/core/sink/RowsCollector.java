package io.cqlrows.core.sink;

import io.cqlrows.core.ResultColumns;
import io.cqlrows.core.RowSink;
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
  /** Most rows the list is grown for ahead of their arrival. */
  private static final int PRESIZE_LIMIT = 1 << 16;

  private final ArrayList<Row> rows = new ArrayList<>();
  private RowsMetadata metadata;
  private ResultColumns columns;
  private Object[] values;

  @Override
  public void onResultStart(RowsMetadata metadata, int rowCount) {
    this.metadata = metadata;
    this.columns = metadata.columns();
    // The count is the server's claim: grow for it, but not by more than a bounded step at once.
    rows.ensureCapacity(rows.size() + Math.min(rowCount, PRESIZE_LIMIT));
  }

  @Override
  public void onRowStart(int row) {
    values = new Object[columns.size()]; // skipped columns stay null: they read as NULL
  }

  @Override
  public void onRowEnd(int row) {
    rows.add(new Row(columns, values));
    values = null;
  }

  @Override
  public void onNull(int column) {
    values[column] = null;
  }

  @Override
  public void onNotSet(int column) {
    values[column] = Row.Marker.NOT_SET;
  }

  @Override
  public void onEmpty(int column) {
    values[column] = Row.Marker.EMPTY;
  }

  @Override
  public void onObject(int column, Object value) {
    values[column] = value;
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

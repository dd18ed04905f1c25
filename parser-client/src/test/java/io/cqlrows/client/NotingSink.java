package io.cqlrows.client;

import io.cqlrows.core.RowSink;
import io.cqlrows.core.RowsMetadata;
import io.cqlrows.core.sink.RowsCollector;
import java.util.List;

/**
 * Delegates to a {@link RowsCollector} and adds its name to a shared list when its result ends: the
 * order in which responses were parsed, on the event loop.
 */
final class NotingSink implements RowSink {
  private final String name;
  private final List<String> order;
  private final RowsCollector rows;

  NotingSink(String name, List<String> order, RowsCollector rows) {
    this.name = name;
    this.order = order;
    this.rows = rows;
  }

  @Override
  public void onResultStart(RowsMetadata metadata, int rowCount) {
    rows.onResultStart(metadata, rowCount);
  }

  @Override
  public void onResultEnd(int rowCount) {
    rows.onResultEnd(rowCount);
    order.add(name);
  }

  @Override
  public void onRowStart(int row) {
    rows.onRowStart(row);
  }

  @Override
  public void onRowEnd(int row) {
    rows.onRowEnd(row);
  }

  @Override
  public void onNull(int column) {
    rows.onNull(column);
  }

  @Override
  public void onNotSet(int column) {
    rows.onNotSet(column);
  }

  @Override
  public void onEmpty(int column) {
    rows.onEmpty(column);
  }

  @Override
  public void onObject(int column, Object value) {
    rows.onObject(column, value);
  }
}

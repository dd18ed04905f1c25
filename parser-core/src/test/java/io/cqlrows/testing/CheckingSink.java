package io.cqlrows.testing;

import io.cqlrows.core.DoubleVector;
import io.cqlrows.core.FloatVector;
import io.cqlrows.core.IntVector;
import io.cqlrows.core.LongVector;
import io.cqlrows.core.RowSink;
import io.cqlrows.core.RowsMetadata;
import io.netty.buffer.ByteBuf;
import java.util.Objects;

/**
 * Forwards every event to another sink, unchanged (typed events stay typed), and checks that the
 * parser keeps {@link RowSink}'s event protocol: {@code onResultStart}, {@code
 * onRowsContentLength}, then rows numbered from 0, each with exactly one event per wanted column in
 * column order, and {@code onResultEnd} with the announced row count. A parse may abort at any
 * point (the next result starts afresh), but never deliver events outside a result.
 *
 * <p>Violations throw {@link AssertionError}, which a fuzz test reports as a finding.
 */
public final class CheckingSink implements RowSink {
  private final RowSink delegate;
  private int columns = -1;
  private int announcedRows;
  private boolean contentLengthSeen;
  private int row = -1;
  private int nextRow;
  private int lastColumn;
  private int rowsEnded;
  private int results;

  public CheckingSink(RowSink delegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
  }

  /** Results that ended with {@code onResultEnd}. */
  public int completedResults() {
    return results;
  }

  /** Rows completed in the current (or last) result. */
  public int rowsEnded() {
    return rowsEnded;
  }

  private static void check(boolean ok, String what) {
    if (!ok) {
      throw new AssertionError("sink protocol: " + what);
    }
  }

  private void cell(int column) {
    check(row >= 0, "cell event for column " + column + " outside a row");
    check(
        column > lastColumn && column < columns,
        "cell event for column " + column + " after column " + lastColumn + " of " + columns);
    check(delegate.wantsColumn(column), "cell event for unwanted column " + column);
    lastColumn = column;
  }

  @Override
  public void onResultStart(RowsMetadata metadata, int rowCount) {
    check(metadata != null, "null metadata");
    check(rowCount >= 0, "rowCount " + rowCount);
    // a raw No_metadata result without rows has no columns (ResultReader.rawCellsWithoutMetadata)
    check(
        metadata.columns().size() == metadata.columnCount()
            || (metadata.noMetadata() && rowCount == 0 && metadata.columns().size() == 0),
        "columns " + metadata.columns().size() + " != columnCount " + metadata.columnCount());
    columns = metadata.columns().size();
    announcedRows = rowCount;
    contentLengthSeen = false;
    row = -1;
    nextRow = 0;
    rowsEnded = 0;
    delegate.onResultStart(metadata, rowCount);
  }

  @Override
  public void onRowsContentLength(int bytes) {
    check(columns >= 0 && !contentLengthSeen && nextRow == 0, "onRowsContentLength out of order");
    check(bytes >= 0, "negative content length " + bytes);
    contentLengthSeen = true;
    delegate.onRowsContentLength(bytes);
  }

  @Override
  public boolean wantsColumn(int column) {
    check(columns >= 0 && column >= 0 && column < columns, "wantsColumn(" + column + ")");
    return delegate.wantsColumn(column);
  }

  @Override
  public void onRowStart(int r) {
    check(columns >= 0 && row < 0, "onRowStart(" + r + ") inside row " + row);
    check(
        r == nextRow && r < announcedRows,
        "onRowStart(" + r + "), expected " + nextRow + " of " + announcedRows);
    row = r;
    lastColumn = -1;
    delegate.onRowStart(r);
  }

  @Override
  public void onRowEnd(int r) {
    check(r == row, "onRowEnd(" + r + ") in row " + row);
    for (int c = lastColumn + 1; c < columns; c++) {
      check(!delegate.wantsColumn(c), "row " + r + " ended without a cell for column " + c);
    }
    row = -1;
    nextRow++;
    rowsEnded++;
    delegate.onRowEnd(r);
  }

  @Override
  public void onResultEnd(int rowCount) {
    check(columns >= 0 && row < 0, "onResultEnd inside row " + row);
    check(
        rowCount == announcedRows && nextRow == announcedRows,
        "onResultEnd(" + rowCount + ") after " + nextRow + " rows, announced " + announcedRows);
    columns = -1;
    results++;
    delegate.onResultEnd(rowCount);
  }

  @Override
  public void onNull(int column) {
    cell(column);
    delegate.onNull(column);
  }

  @Override
  public void onNotSet(int column) {
    cell(column);
    delegate.onNotSet(column);
  }

  @Override
  public void onEmpty(int column) {
    cell(column);
    delegate.onEmpty(column);
  }

  @Override
  public void onObject(int column, Object value) {
    cell(column);
    check(value != null, "onObject(" + column + ", null)");
    delegate.onObject(column, value);
  }

  @Override
  public void onBoolean(int column, boolean value) {
    cell(column);
    delegate.onBoolean(column, value);
  }

  @Override
  public void onTinyint(int column, byte value) {
    cell(column);
    delegate.onTinyint(column, value);
  }

  @Override
  public void onSmallint(int column, short value) {
    cell(column);
    delegate.onSmallint(column, value);
  }

  @Override
  public void onInt(int column, int value) {
    cell(column);
    delegate.onInt(column, value);
  }

  @Override
  public void onBigint(int column, long value) {
    cell(column);
    delegate.onBigint(column, value);
  }

  @Override
  public void onFloat(int column, float value) {
    cell(column);
    delegate.onFloat(column, value);
  }

  @Override
  public void onDouble(int column, double value) {
    cell(column);
    delegate.onDouble(column, value);
  }

  @Override
  public void onTimestamp(int column, long epochMillis) {
    cell(column);
    delegate.onTimestamp(column, epochMillis);
  }

  @Override
  public void onDate(int column, int epochDays) {
    cell(column);
    delegate.onDate(column, epochDays);
  }

  @Override
  public void onTime(int column, long nanosOfDay) {
    cell(column);
    delegate.onTime(column, nanosOfDay);
  }

  @Override
  public void onUuid(int column, long mostSigBits, long leastSigBits) {
    cell(column);
    delegate.onUuid(column, mostSigBits, leastSigBits);
  }

  @Override
  public void onString(int column, String value) {
    cell(column);
    check(value != null, "onString(" + column + ", null)");
    delegate.onString(column, value);
  }

  @Override
  public void onBlob(int column, ByteBuf value) {
    cell(column);
    check(value != null && value.refCnt() > 0, "onBlob(" + column + ") with a released buffer");
    delegate.onBlob(column, value);
  }

  @Override
  public void onFloatVector(int column, FloatVector value) {
    cell(column);
    delegate.onFloatVector(column, value);
  }

  @Override
  public void onDoubleVector(int column, DoubleVector value) {
    cell(column);
    delegate.onDoubleVector(column, value);
  }

  @Override
  public void onIntVector(int column, IntVector value) {
    cell(column);
    delegate.onIntVector(column, value);
  }

  @Override
  public void onLongVector(int column, LongVector value) {
    cell(column);
    delegate.onLongVector(column, value);
  }
}

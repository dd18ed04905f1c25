package io.cqlrows.core.sink;

import io.cqlrows.core.DoubleVector;
import io.cqlrows.core.FloatVector;
import io.cqlrows.core.IntVector;
import io.cqlrows.core.LongVector;
import io.cqlrows.core.RowSink;
import io.netty.buffer.ByteBuf;

/**
 * Counts rows and cells without keeping or boxing anything: the cheapest possible sink, for
 * benchmarks and smoke tests. Totals accumulate across results until {@link #reset()}. Not
 * thread-safe.
 */
public final class CountingSink implements RowSink {
  private long results;
  private long rows;
  private long values;
  private long nulls;
  private long notSets;
  private long empties;

  @Override
  public void onResultStart(io.cqlrows.core.RowsMetadata metadata, int rowCount) {
    results++;
  }

  @Override
  public void onRowStart(int row) {}

  @Override
  public void onRowEnd(int row) {
    rows++;
  }

  @Override
  public void onNull(int column) {
    nulls++;
  }

  @Override
  public void onNotSet(int column) {
    notSets++;
  }

  @Override
  public void onEmpty(int column) {
    empties++;
  }

  @Override
  public void onObject(int column, Object value) {
    values++;
  }

  @Override
  public void onBoolean(int column, boolean value) {
    values++;
  }

  @Override
  public void onTinyint(int column, byte value) {
    values++;
  }

  @Override
  public void onSmallint(int column, short value) {
    values++;
  }

  @Override
  public void onInt(int column, int value) {
    values++;
  }

  @Override
  public void onBigint(int column, long value) {
    values++;
  }

  @Override
  public void onFloat(int column, float value) {
    values++;
  }

  @Override
  public void onDouble(int column, double value) {
    values++;
  }

  @Override
  public void onTimestamp(int column, long epochMillis) {
    values++;
  }

  @Override
  public void onDate(int column, int epochDays) {
    values++;
  }

  @Override
  public void onTime(int column, long nanosOfDay) {
    values++;
  }

  @Override
  public void onUuid(int column, long mostSigBits, long leastSigBits) {
    values++;
  }

  @Override
  public void onString(int column, String value) {
    values++;
  }

  @Override
  public void onBlob(int column, ByteBuf value) {
    values++;
  }

  @Override
  public void onFloatVector(int column, FloatVector value) {
    values++;
  }

  @Override
  public void onDoubleVector(int column, DoubleVector value) {
    values++;
  }

  @Override
  public void onIntVector(int column, IntVector value) {
    values++;
  }

  @Override
  public void onLongVector(int column, LongVector value) {
    values++;
  }

  /** ROWS results seen. */
  public long results() {
    return results;
  }

  /** Rows completed. */
  public long rows() {
    return rows;
  }

  /** Cells with a value (a vector counts as one cell). */
  public long values() {
    return values;
  }

  /** NULL cells. */
  public long nulls() {
    return nulls;
  }

  /** Not-set cells. */
  public long notSets() {
    return notSets;
  }

  /** Empty (zero-length) cells of types whose empty value is not a normal value. */
  public long empties() {
    return empties;
  }

  /** All cells delivered: values, NULLs, not-sets and empties. */
  public long cells() {
    return values + nulls + notSets + empties;
  }

  /** Sets every count back to zero. */
  public void reset() {
    results = rows = values = nulls = notSets = empties = 0;
  }
}

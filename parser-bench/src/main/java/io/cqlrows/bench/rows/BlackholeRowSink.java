package io.cqlrows.bench.rows;

import io.cqlrows.core.DoubleVector;
import io.cqlrows.core.FloatVector;
import io.cqlrows.core.IntVector;
import io.cqlrows.core.LongVector;
import io.cqlrows.core.RowSink;
import io.cqlrows.core.RowsMetadata;
import io.netty.buffer.ByteBuf;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Consumes every typed event into a {@link Blackhole}, unboxed: the parser's own cost with the
 * cheapest possible consumer. Vectors are copied into a reused array ({@code copyTo}), blobs are
 * consumed as their length and first byte (no copy). Counts rows, non-NULL values and the sum of
 * the {@code int} cells so a trial can check that the parse happened.
 */
final class BlackholeRowSink implements RowSink {
  private final Blackhole bh;
  private float[] floats = new float[0];
  private double[] doubles = new double[0];
  private int[] ints = new int[0];
  private long[] longs = new long[0];
  long rows;
  long values;
  long intSum;

  BlackholeRowSink(Blackhole bh) {
    this.bh = bh;
  }

  @Override
  public void onResultStart(RowsMetadata metadata, int rowCount) {
    rows = 0;
    values = 0;
    intSum = 0;
  }

  @Override
  public void onRowStart(int row) {}

  @Override
  public void onRowEnd(int row) {
    rows++;
  }

  @Override
  public void onNull(int column) {
    bh.consume(column);
  }

  @Override
  public void onNotSet(int column) {
    bh.consume(column);
  }

  @Override
  public void onEmpty(int column) {
    bh.consume(column);
  }

  @Override
  public void onObject(int column, Object value) {
    values++;
    bh.consume(value);
  }

  @Override
  public void onBoolean(int column, boolean value) {
    values++;
    bh.consume(value);
  }

  @Override
  public void onTinyint(int column, byte value) {
    values++;
    bh.consume(value);
  }

  @Override
  public void onSmallint(int column, short value) {
    values++;
    bh.consume(value);
  }

  @Override
  public void onInt(int column, int value) {
    values++;
    intSum += value;
    bh.consume(value);
  }

  @Override
  public void onBigint(int column, long value) {
    values++;
    bh.consume(value);
  }

  @Override
  public void onFloat(int column, float value) {
    values++;
    bh.consume(value);
  }

  @Override
  public void onDouble(int column, double value) {
    values++;
    bh.consume(value);
  }

  @Override
  public void onTimestamp(int column, long epochMillis) {
    values++;
    bh.consume(epochMillis);
  }

  @Override
  public void onDate(int column, int epochDays) {
    values++;
    bh.consume(epochDays);
  }

  @Override
  public void onTime(int column, long nanosOfDay) {
    values++;
    bh.consume(nanosOfDay);
  }

  @Override
  public void onUuid(int column, long mostSigBits, long leastSigBits) {
    values++;
    bh.consume(mostSigBits);
    bh.consume(leastSigBits);
  }

  @Override
  public void onString(int column, String value) {
    values++;
    bh.consume(value);
  }

  @Override
  public void onBlob(int column, ByteBuf value) {
    values++;
    bh.consume(value.readableBytes());
    if (value.isReadable()) {
      bh.consume(value.getByte(value.readerIndex()));
    }
  }

  @Override
  public void onFloatVector(int column, FloatVector value) {
    values++;
    int n = value.dimension();
    if (floats.length < n) {
      floats = new float[n];
    }
    value.copyTo(floats, 0);
    bh.consume(floats);
  }

  @Override
  public void onDoubleVector(int column, DoubleVector value) {
    values++;
    int n = value.dimension();
    if (doubles.length < n) {
      doubles = new double[n];
    }
    value.copyTo(doubles, 0);
    bh.consume(doubles);
  }

  @Override
  public void onIntVector(int column, IntVector value) {
    values++;
    int n = value.dimension();
    if (ints.length < n) {
      ints = new int[n];
    }
    value.copyTo(ints, 0);
    bh.consume(ints);
  }

  @Override
  public void onLongVector(int column, LongVector value) {
    values++;
    int n = value.dimension();
    if (longs.length < n) {
      longs = new long[n];
    }
    value.copyTo(longs, 0);
    bh.consume(longs);
  }
}

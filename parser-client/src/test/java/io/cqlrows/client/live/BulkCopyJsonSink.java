package io.cqlrows.client.live;

import io.cqlrows.core.DoubleVector;
import io.cqlrows.core.FloatVector;
import io.cqlrows.core.IntVector;
import io.cqlrows.core.LongVector;
import io.cqlrows.core.RowSink;
import io.cqlrows.core.RowsMetadata;
import io.cqlrows.core.sink.JsonLinesSink;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * A {@link JsonLinesSink} that writes the same text, but copies {@code vector<float, N>} cells and
 * blobs out of the frame in one bulk copy each before rendering them, where {@link JsonLinesSink}
 * reads them element by element ({@link FloatVector#get}, {@link ByteBuf#getByte}). Under the
 * tests' paranoid leak detection every read of a frame buffer records a stack trace (about 2 us
 * here), so a 1,536-float vector read one float at a time costs milliseconds, and a load of vector
 * reads would measure the leak detector rather than the client. Every other call is passed on
 * unchanged.
 *
 * <p>Not thread-safe, like the sink it wraps.
 */
final class BulkCopyJsonSink implements RowSink {
  private final JsonLinesSink json;

  BulkCopyJsonSink(Appendable out) {
    this.json = new JsonLinesSink(out);
  }

  /** A vector cell copied to the heap. */
  @SuppressWarnings("ArrayRecordComponent") // a vector over its array, never compared
  private record FloatArray(float[] values) implements FloatVector {
    @Override
    public int dimension() {
      return values.length;
    }

    @Override
    public float get(int i) {
      return values[i];
    }

    @Override
    public void copyTo(float[] dst, int dstOffset) {
      System.arraycopy(values, 0, dst, dstOffset, values.length);
    }
  }

  @Override
  public void onFloatVector(int column, FloatVector value) {
    json.onFloatVector(column, new FloatArray(value.toArray()));
  }

  /** The bytes copied into an unpooled heap buffer (not tracked by the leak detector). */
  @Override
  public void onBlob(int column, ByteBuf value) {
    byte[] copy = new byte[value.readableBytes()];
    value.getBytes(value.readerIndex(), copy);
    ByteBuf heap = Unpooled.wrappedBuffer(copy);
    try {
      json.onBlob(column, heap);
    } finally {
      heap.release();
    }
  }

  @Override
  public void onResultStart(RowsMetadata metadata, int rowCount) {
    json.onResultStart(metadata, rowCount);
  }

  @Override
  public void onRowsContentLength(int bytes) {
    json.onRowsContentLength(bytes);
  }

  @Override
  public boolean wantsColumn(int column) {
    return json.wantsColumn(column);
  }

  @Override
  public void onRowStart(int row) {
    json.onRowStart(row);
  }

  @Override
  public void onRowEnd(int row) {
    json.onRowEnd(row);
  }

  @Override
  public void onResultEnd(int rowCount) {
    json.onResultEnd(rowCount);
  }

  @Override
  public void onNull(int column) {
    json.onNull(column);
  }

  @Override
  public void onNotSet(int column) {
    json.onNotSet(column);
  }

  @Override
  public void onEmpty(int column) {
    json.onEmpty(column);
  }

  @Override
  public void onObject(int column, Object value) {
    json.onObject(column, value);
  }

  @Override
  public void onBoolean(int column, boolean value) {
    json.onBoolean(column, value);
  }

  @Override
  public void onTinyint(int column, byte value) {
    json.onTinyint(column, value);
  }

  @Override
  public void onSmallint(int column, short value) {
    json.onSmallint(column, value);
  }

  @Override
  public void onInt(int column, int value) {
    json.onInt(column, value);
  }

  @Override
  public void onBigint(int column, long value) {
    json.onBigint(column, value);
  }

  @Override
  public void onFloat(int column, float value) {
    json.onFloat(column, value);
  }

  @Override
  public void onDouble(int column, double value) {
    json.onDouble(column, value);
  }

  @Override
  public void onTimestamp(int column, long epochMillis) {
    json.onTimestamp(column, epochMillis);
  }

  @Override
  public void onDate(int column, int epochDays) {
    json.onDate(column, epochDays);
  }

  @Override
  public void onTime(int column, long nanosOfDay) {
    json.onTime(column, nanosOfDay);
  }

  @Override
  public void onUuid(int column, long mostSigBits, long leastSigBits) {
    json.onUuid(column, mostSigBits, leastSigBits);
  }

  @Override
  public void onString(int column, String value) {
    json.onString(column, value);
  }

  @Override
  public void onDoubleVector(int column, DoubleVector value) {
    json.onDoubleVector(column, value);
  }

  @Override
  public void onIntVector(int column, IntVector value) {
    json.onIntVector(column, value);
  }

  @Override
  public void onLongVector(int column, LongVector value) {
    json.onLongVector(column, value);
  }
}

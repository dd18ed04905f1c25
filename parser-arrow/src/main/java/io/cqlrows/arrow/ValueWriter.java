package io.cqlrows.arrow;

import io.cqlrows.core.DoubleVector;
import io.cqlrows.core.FloatVector;
import io.cqlrows.core.IntVector;
import io.cqlrows.core.LongVector;
import io.cqlrows.core.value.NotSet;
import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.util.UUID;
import org.apache.arrow.vector.FieldVector;

/**
 * Writes the values of one CQL type into one Arrow vector, at an index the caller gives. One
 * instance per vector of the schema tree, built once per schema by {@link Writers} and kept while
 * the vectors are reused.
 *
 * <p>Top-level cells arrive through the typed methods, which mirror {@link
 * io.cqlrows.core.RowSink}'s events; each defaults to boxing into {@link #write}, and a writer
 * overrides the ones its type receives, so a primitive cell is stored without a Java object. Nested
 * values arrive boxed, as the parser decodes them, through {@link #writeValue}.
 *
 * <p>Capacity: every method grows the vector as needed (Arrow's {@code setSafe} family or the
 * writer's own check), so an index may run past the capacity the vector was allocated with.
 */
abstract class ValueWriter {
  final FieldVector vector;

  ValueWriter(FieldVector vector) {
    this.vector = vector;
  }

  /** A value of this type, boxed as {@link io.cqlrows.core.RowSink} documents; never null. */
  abstract void write(int index, Object value);

  /** Index {@code index} has no value. */
  void writeNull(int index) {
    vector.setNull(index);
  }

  /** A nested element: null and not-set are Arrow nulls. */
  final void writeValue(int index, Object value) {
    if (value == null || value == NotSet.INSTANCE) {
      writeNull(index);
    } else {
      write(index, value);
    }
  }

  /** Clears the vector for a new batch, keeping its buffers. */
  void reset() {
    vector.reset();
  }

  /** Called before the batch of {@code rows} rows is handed out. */
  void finish(int rows) {}

  void onBoolean(int index, boolean value) {
    write(index, value);
  }

  void onInt(int index, int value) {
    write(index, value);
  }

  void onBigint(int index, long value) {
    write(index, value);
  }

  void onFloat(int index, float value) {
    write(index, value);
  }

  void onDouble(int index, double value) {
    write(index, value);
  }

  void onTimestamp(int index, long epochMillis) {
    write(index, Instant.ofEpochMilli(epochMillis));
  }

  void onDate(int index, int epochDays) {
    write(index, LocalDate.ofEpochDay(epochDays));
  }

  void onTime(int index, long nanosOfDay) {
    write(index, LocalTime.ofNanoOfDay(nanosOfDay));
  }

  void onUuid(int index, long mostSigBits, long leastSigBits) {
    write(index, new UUID(mostSigBits, leastSigBits));
  }

  void onString(int index, String value) {
    write(index, value);
  }

  /** A blob cell. {@code value} is borrowed: read it during the call only. */
  void onBlob(int index, ByteBuf value) {
    byte[] copy = new byte[value.readableBytes()];
    value.getBytes(value.readerIndex(), copy);
    write(index, ByteBuffer.wrap(copy));
  }

  /** A {@code vector<float, N>} cell; the view is borrowed. */
  void onFloatVector(int index, FloatVector value) {
    write(index, value.toArray());
  }

  /** A {@code vector<double, N>} cell; the view is borrowed. */
  void onDoubleVector(int index, DoubleVector value) {
    write(index, value.toArray());
  }

  /** A {@code vector<int, N>} cell; the view is borrowed. */
  void onIntVector(int index, IntVector value) {
    write(index, value.toArray());
  }

  /** A {@code vector<bigint, N>} cell; the view is borrowed. */
  void onLongVector(int index, LongVector value) {
    write(index, value.toArray());
  }

  /**
   * A value the mapping cannot represent; {@link ArrowSink} adds the row and column and throws
   * {@link ArrowMappingException}.
   */
  static final class Unrepresentable extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final ArrowMappingException.Reason reason;
    final String value;

    Unrepresentable(ArrowMappingException.Reason reason, String value) {
      super(null, null, false, false);
      this.reason = reason;
      this.value = value;
    }
  }
}

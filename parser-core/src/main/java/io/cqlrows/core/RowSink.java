package io.cqlrows.core;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.util.UUID;

/**
 * Receives the rows of a ROWS result, cell by cell, as the parser reads them.
 *
 * <p><b>Event order</b> for one result: {@link #onResultStart}, {@link #onRowsContentLength}, then
 * for each row {@link #onRowStart}, one event per cell of a column the sink wants (see {@link
 * #wantsColumn}), {@link #onRowEnd}; finally {@link #onResultEnd}. Cells of unwanted columns are
 * skipped without being decoded and produce no event.
 *
 * <p><b>One event per cell.</b> A cell is exactly one of: {@link #onNull} (length -1), {@link
 * #onNotSet} (length -2), {@link #onEmpty} (length 0 for a type whose empty value is not a normal
 * value: every type except text, ascii, blob and opaque custom types, which receive an empty string
 * or empty bytes), or a typed value event:
 *
 * <table>
 *   <caption>CQL type to event</caption>
 *   <tr><th>CQL</th><th>event</th><th>default boxing ({@link #onObject})</th></tr>
 *   <tr><td>boolean</td><td>{@link #onBoolean}</td><td>{@code Boolean}</td></tr>
 *   <tr><td>tinyint</td><td>{@link #onTinyint}</td><td>{@code Byte}</td></tr>
 *   <tr><td>smallint</td><td>{@link #onSmallint}</td><td>{@code Short}</td></tr>
 *   <tr><td>int</td><td>{@link #onInt}</td><td>{@code Integer}</td></tr>
 *   <tr><td>bigint, counter</td><td>{@link #onBigint}</td><td>{@code Long}</td></tr>
 *   <tr><td>float</td><td>{@link #onFloat}</td><td>{@code Float}</td></tr>
 *   <tr><td>double</td><td>{@link #onDouble}</td><td>{@code Double}</td></tr>
 *   <tr><td>timestamp</td><td>{@link #onTimestamp} (ms since epoch)</td>
 *       <td>{@code Instant}</td></tr>
 *   <tr><td>date</td><td>{@link #onDate} (days since epoch)</td><td>{@code LocalDate}</td></tr>
 *   <tr><td>time</td><td>{@link #onTime} (ns since midnight)</td><td>{@code LocalTime}</td></tr>
 *   <tr><td>uuid, timeuuid</td><td>{@link #onUuid}</td><td>{@code UUID}</td></tr>
 *   <tr><td>text, ascii</td><td>{@link #onString}</td><td>{@code String}</td></tr>
 *   <tr><td>blob, unknown custom</td><td>{@link #onBlob}</td>
 *       <td>{@code ByteBuffer} (a copy)</td></tr>
 *   <tr><td>vector&lt;float|double|int|bigint, N&gt;</td><td>{@link #onFloatVector} ...
 *       {@link #onLongVector}</td><td>{@code float[]}, {@code double[]}, {@code int[]},
 *       {@code long[]}</td></tr>
 *   <tr><td>everything else</td><td>{@link #onObject}</td><td>see below</td></tr>
 * </table>
 *
 * <p>{@link #onObject} receives: decimal {@code BigDecimal}, varint {@code BigInteger}, inet {@code
 * InetAddress}, duration {@link io.cqlrows.core.value.CqlDuration}, list and set {@code List} (wire
 * order), map {@code Map} (a {@code LinkedHashMap} in wire order), UDT {@link
 * io.cqlrows.core.value.UdtValue}, tuple {@link io.cqlrows.core.value.TupleValue}, other vectors
 * {@code List}. Elements inside these use the boxed types of the table; a NULL element is {@code
 * null}, a not-set element {@link io.cqlrows.core.value.NotSet#INSTANCE}, and an empty
 * (zero-length) element is {@code null} for scalars, an empty collection for collections and an
 * all-null value for UDTs and tuples (as the Java driver decodes them).
 *
 * <p>The typed events have defaults that box and call {@link #onObject}; a sink overrides the
 * events it wants unboxed. {@link #onRowStart}, {@link #onRowEnd}, {@link #onNull}, {@link
 * #onNotSet}, {@link #onEmpty} and {@link #onObject} must be implemented: there is no safe default
 * for telling NULL, not-set and empty apart.
 *
 * <p><b>Ownership.</b> Buffers and vector views handed to a sink are <em>borrowed</em>: valid only
 * during the call; copy them or take a {@code retainedSlice} to keep them.
 *
 * <p><b>Threading.</b> The parser calls a sink from one thread at a time. A sink that throws aborts
 * the parse; the exception propagates unchanged.
 */
public interface RowSink {

  /**
   * A ROWS result begins.
   *
   * @param metadata the resolved metadata (columns, paging state, new metadata id)
   * @param rowCount {@code rows_count}, already checked against the bytes of the body
   */
  default void onResultStart(RowsMetadata metadata, int rowCount) {}

  /**
   * Called right after {@link #onResultStart} with the number of bytes the rows of this result can
   * occupy at most (the rest of the RESULT body). A sink may pre-size from it: no cell can take
   * more, so an allocation bounded by it is bounded by what the frame carries, whatever {@code
   * rows_count} claims.
   */
  default void onRowsContentLength(int bytes) {}

  /**
   * Asked once per result, after {@link #onResultStart}, for each column: whether its cells should
   * be decoded. Cells of unwanted columns are skipped by length and produce no event.
   */
  default boolean wantsColumn(int column) {
    return true;
  }

  /** Row {@code row} (zero-based within this result) begins. */
  void onRowStart(int row);

  /** Row {@code row} is complete. */
  void onRowEnd(int row);

  /** The result is complete; {@code rowCount} rows were delivered. */
  default void onResultEnd(int rowCount) {}

  /** The cell is NULL (wire length -1). */
  void onNull(int column);

  /** The cell is "not set" (wire length -2): never sent by Cassandra in results, never NULL. */
  void onNotSet(int column);

  /** The cell has length 0 for a type whose empty value is not a normal value (see above). */
  void onEmpty(int column);

  /** A decoded value with no primitive event (see the class documentation). */
  void onObject(int column, Object value);

  /** A boolean. */
  default void onBoolean(int column, boolean value) {
    onObject(column, value);
  }

  /** A tinyint. */
  default void onTinyint(int column, byte value) {
    onObject(column, value);
  }

  /** A smallint. */
  default void onSmallint(int column, short value) {
    onObject(column, value);
  }

  /** An int. */
  default void onInt(int column, int value) {
    onObject(column, value);
  }

  /** A bigint or counter. */
  default void onBigint(int column, long value) {
    onObject(column, value);
  }

  /** A float. */
  default void onFloat(int column, float value) {
    onObject(column, value);
  }

  /** A double. */
  default void onDouble(int column, double value) {
    onObject(column, value);
  }

  /** A timestamp, in milliseconds since the Unix epoch (UTC). */
  default void onTimestamp(int column, long epochMillis) {
    onObject(column, Instant.ofEpochMilli(epochMillis));
  }

  /** A date, in days since 1970-01-01 (already converted from the wire's unsigned form). */
  default void onDate(int column, int epochDays) {
    onObject(column, LocalDate.ofEpochDay(epochDays));
  }

  /** A time of day, in nanoseconds since midnight (0 to 86,399,999,999,999). */
  default void onTime(int column, long nanosOfDay) {
    onObject(column, LocalTime.ofNanoOfDay(nanosOfDay));
  }

  /** A uuid or timeuuid as its two halves (no allocation). */
  default void onUuid(int column, long mostSigBits, long leastSigBits) {
    onObject(column, new UUID(mostSigBits, leastSigBits));
  }

  /** A text or ascii value. */
  default void onString(int column, String value) {
    onObject(column, value);
  }

  /**
   * A blob (or a custom type's raw bytes).
   *
   * @param value the bytes, from its reader index to its writer index. Borrowed: valid only during
   *     this call; copy or {@code retainedSlice} to keep it. The parser may hand the same view,
   *     re-windowed, for the next blob, and its capacity and indexes outside the window belong to
   *     the frame: read only between the reader and writer index, and never keep the object.
   */
  default void onBlob(int column, ByteBuf value) {
    byte[] copy = new byte[value.readableBytes()];
    value.getBytes(value.readerIndex(), copy);
    onObject(column, ByteBuffer.wrap(copy));
  }

  /**
   * A {@code vector<float, N>}. The view reads straight from the frame bytes.
   *
   * @param value Borrowed: valid only during this call; copy out what you keep.
   */
  default void onFloatVector(int column, FloatVector value) {
    onObject(column, value.toArray());
  }

  /** A {@code vector<double, N>}; the view is borrowed, as for {@link #onFloatVector}. */
  default void onDoubleVector(int column, DoubleVector value) {
    onObject(column, value.toArray());
  }

  /** A {@code vector<int, N>}; the view is borrowed, as for {@link #onFloatVector}. */
  default void onIntVector(int column, IntVector value) {
    onObject(column, value.toArray());
  }

  /** A {@code vector<bigint, N>}; the view is borrowed, as for {@link #onFloatVector}. */
  default void onLongVector(int column, LongVector value) {
    onObject(column, value.toArray());
  }
}

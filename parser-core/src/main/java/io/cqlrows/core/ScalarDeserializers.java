package io.cqlrows.core;

import io.cqlrows.core.CqlParseException.Reason;
import io.cqlrows.core.type.CqlType;
import io.cqlrows.core.type.NativeType;
import io.netty.buffer.ByteBuf;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.util.UUID;

/**
 * Deserializers for the CQL types without parameters (native_protocol_v5.spec section 5,
 * native_protocol_v4.spec section 6). {@link #forType} chooses one for each; this class holds the
 * fixed-width ones, which check the exact length. {@code text} and {@code ascii} are decoded by
 * {@link TextDeserializer}; {@code blob}, {@code varint}, {@code decimal}, {@code inet} and {@code
 * duration} by {@link VariableWidthDeserializers}. All reads are absolute and big-endian.
 */
final class ScalarDeserializers {
  /** Largest valid {@code time}: 24 h in nanoseconds, minus one. */
  static final long MAX_TIME_NANOS = 86_399_999_999_999L;

  private ScalarDeserializers() {}

  /**
   * The deserializer of a native type.
   *
   * @param replaceMalformedText {@link ParseLimits#replaceMalformedText()}, for text and ascii
   */
  static ValueDeserializer forType(NativeType type, boolean replaceMalformedText) {
    switch (type) {
      case BOOLEAN:
        return new BooleanDeserializer();
      case TINYINT:
        return new TinyintDeserializer();
      case SMALLINT:
        return new SmallintDeserializer();
      case INT:
        return new IntDeserializer();
      case BIGINT:
      case COUNTER:
        return new BigintDeserializer(type);
      case FLOAT:
        return new FloatDeserializer();
      case DOUBLE:
        return new DoubleDeserializer();
      case TIMESTAMP:
        return new TimestampDeserializer();
      case DATE:
        return new DateDeserializer();
      case TIME:
        return new TimeDeserializer();
      case UUID:
      case TIMEUUID:
        return new UuidDeserializer(type);
      case TEXT:
      case ASCII:
        return new TextDeserializer(type, replaceMalformedText);
      case BLOB:
        return new VariableWidthDeserializers.BlobDeserializer(type);
      case VARINT:
        return new VariableWidthDeserializers.VarintDeserializer();
      case DECIMAL:
        return new VariableWidthDeserializers.DecimalDeserializer();
      case INET:
        return new VariableWidthDeserializers.InetDeserializer();
      case DURATION:
        return new VariableWidthDeserializers.DurationDeserializer();
      default:
        throw new AssertionError(type);
    }
  }

  /**
   * Base for fixed-width types: checks the exact length once. One small class per type, each a
   * one-line {@link #decodeFixed}, rather than one class switching on the type: a nested value (a
   * collection element, a UDT field) is then decoded by one virtual call and no second dispatch.
   */
  abstract static class Fixed extends ValueDeserializer {
    final int width;

    Fixed(CqlType type, int width) {
      super(type);
      this.width = width;
    }

    /**
     * Top-level cells: the row loop decodes these inline ({@link RowsParser}); this is the same for
     * any other caller.
     */
    @Override
    final void deliver(ByteBuf buf, int index, int length, RowSink sink, int column) {
      if (length == width) {
        deliverFixed(buf, index, sink, column);
      } else if (length == 0) {
        sink.onEmpty(column);
      } else {
        throw lengthMismatch(index, width, length);
      }
    }

    /** The typed event of the {@link #width} bytes at {@code index}. */
    abstract void deliverFixed(ByteBuf buf, int index, RowSink sink, int column);

    @Override
    final Object decode(ByteBuf buf, int index, int length) {
      if (length != width) {
        throw lengthMismatch(index, width, length);
      }
      return decodeFixed(buf, index);
    }

    abstract Object decodeFixed(ByteBuf buf, int index);
  }

  static final class BooleanDeserializer extends Fixed {
    BooleanDeserializer() {
      super(NativeType.BOOLEAN, 1);
    }

    @Override
    void deliverFixed(ByteBuf buf, int index, RowSink sink, int column) {
      sink.onBoolean(column, buf.getByte(index) != 0);
    }

    @Override
    Object decodeFixed(ByteBuf buf, int index) {
      return buf.getByte(index) != 0;
    }
  }

  static final class TinyintDeserializer extends Fixed {
    TinyintDeserializer() {
      super(NativeType.TINYINT, 1);
    }

    @Override
    void deliverFixed(ByteBuf buf, int index, RowSink sink, int column) {
      sink.onTinyint(column, buf.getByte(index));
    }

    @Override
    Object decodeFixed(ByteBuf buf, int index) {
      return buf.getByte(index);
    }
  }

  static final class SmallintDeserializer extends Fixed {
    SmallintDeserializer() {
      super(NativeType.SMALLINT, 2);
    }

    @Override
    void deliverFixed(ByteBuf buf, int index, RowSink sink, int column) {
      sink.onSmallint(column, buf.getShort(index));
    }

    @Override
    Object decodeFixed(ByteBuf buf, int index) {
      return buf.getShort(index);
    }
  }

  static final class IntDeserializer extends Fixed {
    IntDeserializer() {
      super(NativeType.INT, 4);
    }

    @Override
    void deliverFixed(ByteBuf buf, int index, RowSink sink, int column) {
      sink.onInt(column, buf.getInt(index));
    }

    @Override
    Object decodeFixed(ByteBuf buf, int index) {
      return buf.getInt(index);
    }
  }

  static final class BigintDeserializer extends Fixed {
    BigintDeserializer(NativeType type) {
      super(type, 8);
    }

    @Override
    void deliverFixed(ByteBuf buf, int index, RowSink sink, int column) {
      sink.onBigint(column, buf.getLong(index));
    }

    @Override
    Object decodeFixed(ByteBuf buf, int index) {
      return buf.getLong(index);
    }
  }

  static final class FloatDeserializer extends Fixed {
    FloatDeserializer() {
      super(NativeType.FLOAT, 4);
    }

    @Override
    void deliverFixed(ByteBuf buf, int index, RowSink sink, int column) {
      sink.onFloat(column, buf.getFloat(index));
    }

    @Override
    Object decodeFixed(ByteBuf buf, int index) {
      return buf.getFloat(index);
    }
  }

  static final class DoubleDeserializer extends Fixed {
    DoubleDeserializer() {
      super(NativeType.DOUBLE, 8);
    }

    @Override
    void deliverFixed(ByteBuf buf, int index, RowSink sink, int column) {
      sink.onDouble(column, buf.getDouble(index));
    }

    @Override
    Object decodeFixed(ByteBuf buf, int index) {
      return buf.getDouble(index);
    }
  }

  static final class TimestampDeserializer extends Fixed {
    TimestampDeserializer() {
      super(NativeType.TIMESTAMP, 8);
    }

    @Override
    void deliverFixed(ByteBuf buf, int index, RowSink sink, int column) {
      sink.onTimestamp(column, buf.getLong(index));
    }

    @Override
    Object decodeFixed(ByteBuf buf, int index) {
      return Instant.ofEpochMilli(buf.getLong(index));
    }
  }

  /** {@code date}: an unsigned 32-bit day number with 2^31 at 1970-01-01. */
  static final class DateDeserializer extends Fixed {
    DateDeserializer() {
      super(NativeType.DATE, 4);
    }

    /** Unsigned days with the epoch at 2^31, to signed days since the epoch. */
    static int epochDays(int unsignedDays) {
      return unsignedDays ^ Integer.MIN_VALUE;
    }

    @Override
    void deliverFixed(ByteBuf buf, int index, RowSink sink, int column) {
      sink.onDate(column, epochDays(buf.getInt(index)));
    }

    @Override
    Object decodeFixed(ByteBuf buf, int index) {
      return LocalDate.ofEpochDay(epochDays(buf.getInt(index)));
    }
  }

  /** {@code time}: nanoseconds since midnight, 0 to 86,399,999,999,999. */
  static final class TimeDeserializer extends Fixed {
    TimeDeserializer() {
      super(NativeType.TIME, 8);
    }

    /** {@code v} if it is a time of day; a typed error naming {@code index} otherwise. */
    static long checked(long v, int index, CqlType type) {
      if (v < 0 || v > MAX_TIME_NANOS) {
        throw CqlParseException.at(
            Reason.INVALID_VALUE,
            "value",
            index,
            type,
            v + " ns is not a time of day (expected: 0 to " + MAX_TIME_NANOS + ")");
      }
      return v;
    }

    @Override
    void deliverFixed(ByteBuf buf, int index, RowSink sink, int column) {
      sink.onTime(column, checked(buf.getLong(index), index, type));
    }

    @Override
    Object decodeFixed(ByteBuf buf, int index) {
      return LocalTime.ofNanoOfDay(checked(buf.getLong(index), index, type));
    }
  }

  static final class UuidDeserializer extends Fixed {
    UuidDeserializer(NativeType type) {
      super(type, 16);
    }

    @Override
    void deliverFixed(ByteBuf buf, int index, RowSink sink, int column) {
      sink.onUuid(column, buf.getLong(index), buf.getLong(index + 8));
    }

    @Override
    Object decodeFixed(ByteBuf buf, int index) {
      return new UUID(buf.getLong(index), buf.getLong(index + 8));
    }
  }
}

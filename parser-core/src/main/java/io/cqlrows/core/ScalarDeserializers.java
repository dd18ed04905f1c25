package io.cqlrows.core;

import io.cqlrows.core.CqlParseException.Reason;
import io.cqlrows.core.sink.RowSink;
import io.cqlrows.core.type.CqlType;
import io.cqlrows.core.type.NativeType;
import io.cqlrows.core.value.CqlDuration;
import io.netty.buffer.ByteBuf;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.util.UUID;

/**
 * Deserializers for the CQL types without parameters (spec §6 of native_protocol_v5.spec; SPEC §5).
 * Fixed-width types check the exact length; all reads are absolute and big-endian.
 */
final class ScalarDeserializers {
  /** Largest valid {@code time}: 24 h in nanoseconds, minus one. */
  static final long MAX_TIME_NANOS = 86_399_999_999_999L;

  private ScalarDeserializers() {}

  static ValueDeserializer forType(NativeType type) {
    switch (type) {
      case BOOLEAN: return new BooleanDeserializer();
      case TINYINT: return new TinyintDeserializer();
      case SMALLINT: return new SmallintDeserializer();
      case INT: return new IntDeserializer();
      case BIGINT:
      case COUNTER: return new BigintDeserializer(type);
      case FLOAT: return new FloatDeserializer();
      case DOUBLE: return new DoubleDeserializer();
      case TIMESTAMP: return new TimestampDeserializer();
      case DATE: return new DateDeserializer();
      case TIME: return new TimeDeserializer();
      case UUID:
      case TIMEUUID: return new UuidDeserializer(type);
      case TEXT: return new TextDeserializer(type, StandardCharsets.UTF_8);
      case ASCII: return new TextDeserializer(type, StandardCharsets.US_ASCII);
      case BLOB: return new BlobDeserializer(type);
      case VARINT: return new VarintDeserializer();
      case DECIMAL: return new DecimalDeserializer();
      case INET: return new InetDeserializer();
      case DURATION: return new DurationDeserializer();
      default: throw new AssertionError(type);
    }
  }

  /** Base for fixed-width types: checks the exact length once. */
  abstract static class Fixed extends ValueDeserializer {
    final int width;

    Fixed(CqlType type, int width) {
      super(type);
      this.width = width;
    }

    /** Top-level cells: the row loop decodes these inline; this is the same code, for any caller. */
    @Override
    final void deliver(ByteBuf buf, int index, int length, RowSink sink, int column) {
      InlineCells.deliver(InlineCells.kindOf(this), null, 0, buf, index, length, sink, column, this);
    }

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
    Object decodeFixed(ByteBuf buf, int index) {
      return buf.getByte(index) != 0;
    }
  }

  static final class TinyintDeserializer extends Fixed {
    TinyintDeserializer() {
      super(NativeType.TINYINT, 1);
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
    Object decodeFixed(ByteBuf buf, int index) {
      return buf.getShort(index);
    }
  }

  static final class IntDeserializer extends Fixed {
    IntDeserializer() {
      super(NativeType.INT, 4);
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
    Object decodeFixed(ByteBuf buf, int index) {
      return buf.getLong(index);
    }
  }

  static final class FloatDeserializer extends Fixed {
    FloatDeserializer() {
      super(NativeType.FLOAT, 4);
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
    Object decodeFixed(ByteBuf buf, int index) {
      return buf.getDouble(index);
    }
  }

  static final class TimestampDeserializer extends Fixed {
    TimestampDeserializer() {
      super(NativeType.TIMESTAMP, 8);
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
        throw CqlParseException.at(Reason.INVALID_VALUE, "value", index, type,
            v + " ns is not a time of day (expected: 0 to " + MAX_TIME_NANOS + ")");
      }
      return v;
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
    Object decodeFixed(ByteBuf buf, int index) {
      return new UUID(buf.getLong(index), buf.getLong(index + 8));
    }
  }

  /**
   * {@code text} (UTF-8) and {@code ascii}. Malformed input is not rejected: malformed UTF-8
   * sequences, and bytes above 0x7F in ascii, decode to U+FFFD, as the JDK's decoders do (Cassandra
   * validates text on write, so this only shows on corrupt or hostile input).
   */
  static final class TextDeserializer extends ValueDeserializer {
    private final java.nio.charset.Charset charset;

    TextDeserializer(NativeType type, java.nio.charset.Charset charset) {
      super(type);
      this.charset = charset;
    }

    @Override
    boolean emptyIsValue() {
      return true;
    }

    @Override
    void deliver(ByteBuf buf, int index, int length, RowSink sink, int column) {
      sink.onString(column, string(buf, index, length));
    }

    @Override
    Object decode(ByteBuf buf, int index, int length) {
      return string(buf, index, length);
    }

    private String string(ByteBuf buf, int index, int length) {
      if (charset == StandardCharsets.US_ASCII) {
        // Netty decodes US-ASCII byte by byte, mapping 0x80-0xFF to U+0080-U+00FF; the JDK's
        // decoder replaces them with U+FFFD, as documented above.
        byte[] b = new byte[length];
        buf.getBytes(index, b);
        return new String(b, charset);
      }
      return buf.toString(index, length, charset);
    }
  }

  /** {@code blob}, and custom types cqlrows does not interpret: raw bytes. */
  static final class BlobDeserializer extends ValueDeserializer {
    BlobDeserializer(CqlType type) {
      super(type);
    }

    @Override
    boolean emptyIsValue() {
      return true;
    }

    @Override
    void deliver(ByteBuf buf, int index, int length, RowSink sink, int column) {
      // Borrowed view of the cell bytes: never escapes the sink call, so no retain.
      sink.onBlob(column, buf.slice(index, length));
    }

    @Override
    Object decode(ByteBuf buf, int index, int length) {
      byte[] copy = new byte[length];
      buf.getBytes(index, copy);
      return ByteBuffer.wrap(copy);
    }
  }

  /** {@code varint}: big-endian two's complement, any length >= 1. */
  static final class VarintDeserializer extends ValueDeserializer.ToObject {
    VarintDeserializer() {
      super(NativeType.VARINT);
    }

    @Override
    Object decode(ByteBuf buf, int index, int length) {
      byte[] b = new byte[length];
      buf.getBytes(index, b);
      return new BigInteger(b);
    }
  }

  /** {@code decimal}: an [int] scale, then a varint unscaled value of at least one byte. */
  static final class DecimalDeserializer extends ValueDeserializer.ToObject {
    DecimalDeserializer() {
      super(NativeType.DECIMAL);
    }

    @Override
    Object decode(ByteBuf buf, int index, int length) {
      if (length < 5) {
        throw CqlParseException.at(Reason.LENGTH_MISMATCH, "value", index, type,
            "expected at least 5 bytes (scale and unscaled value), got " + length);
      }
      int scale = buf.getInt(index);
      byte[] b = new byte[length - 4];
      buf.getBytes(index + 4, b);
      return new BigDecimal(new BigInteger(b), scale);
    }
  }

  /** {@code inet}: 4 (IPv4) or 16 (IPv6) address bytes, no port. */
  static final class InetDeserializer extends ValueDeserializer.ToObject {
    InetDeserializer() {
      super(NativeType.INET);
    }

    @Override
    Object decode(ByteBuf buf, int index, int length) {
      if (length != 4 && length != 16) {
        throw CqlParseException.at(Reason.LENGTH_MISMATCH, "value", index, type,
            "expected 4 or 16 bytes, got " + length);
      }
      byte[] b = new byte[length];
      buf.getBytes(index, b);
      try {
        return InetAddress.getByAddress(b);
      } catch (UnknownHostException e) {
        throw new AssertionError("length was checked", e);
      }
    }
  }

  /**
   * {@code duration}: three signed vints, months (int), days (int), nanoseconds (long), all with
   * the same sign (as Cassandra validates them); anything else is {@code INVALID_VALUE}.
   */
  static final class DurationDeserializer extends ValueDeserializer.ToObject {
    DurationDeserializer() {
      super(NativeType.DURATION);
    }

    @Override
    Object decode(ByteBuf buf, int index, int length) {
      int end = index + length;
      long months = Vints.readSigned(buf, index, end, type);
      int p = index + Vints.sizeAt(buf, index);
      long days = Vints.readSigned(buf, p, end, type);
      p += Vints.sizeAt(buf, p);
      long nanos = Vints.readSigned(buf, p, end, type);
      p += Vints.sizeAt(buf, p);
      if (p != end) {
        throw CqlParseException.at(Reason.TRAILING_BYTES, "value", p, type,
            (end - p) + " bytes after the three duration components");
      }
      if (months != (int) months || days != (int) days) {
        throw CqlParseException.at(Reason.INVALID_VALUE, "value", index, type,
            "months " + months + " or days " + days + " out of int range");
      }
      boolean anyNegative = months < 0 || days < 0 || nanos < 0;
      boolean anyPositive = months > 0 || days > 0 || nanos > 0;
      if (anyNegative && anyPositive) {
        // Cassandra's DurationSerializer.validate rejects mixed signs; so do we.
        throw CqlParseException.at(Reason.INVALID_VALUE, "value", index, type,
            "months " + months + ", days " + days + " and nanoseconds " + nanos
                + " do not all have the same sign");
      }
      return new CqlDuration((int) months, (int) days, nanos);
    }
  }
}

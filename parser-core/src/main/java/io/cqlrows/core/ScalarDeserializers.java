package io.cqlrows.core;

import io.cqlrows.core.CqlParseException.Reason;
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
 * Deserializers for the CQL types without parameters (native_protocol_v5.spec section 5,
 * native_protocol_v4.spec section 6).
 * Fixed-width types check the exact length; all reads are absolute and big-endian.
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
      case TEXT:
      case ASCII: return new TextDeserializer(type, replaceMalformedText);
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
   * {@code text} (UTF-8) and {@code ascii}, top-level or nested (every nested text value is
   * decoded by {@link #decode}; top-level text cells by {@link InlineCells}, with {@link
   * #checkedUtf8}).
   *
   * <p><b>Strict by default.</b> A {@code text} value that is not valid UTF-8, exactly as the
   * JDK's UTF-8 decoder with {@link java.nio.charset.CodingErrorAction#REPORT} judges it (lone
   * continuation bytes, cut sequences, overlong forms, surrogates, code points above U+10FFFF),
   * and an {@code ascii} value with a byte above 0x7F, are {@link Reason#INVALID_VALUE} at the
   * first bad byte. With {@link ParseLimits#replaceMalformedText()} they decode instead as the
   * JDK's decoders replace them: one U+FFFD per malformed UTF-8 sequence, and per non-ASCII byte.
   *
   * <p><b>Cost.</b> Values are decoded as they always are, by the JDK's intrinsified decoders
   * with replacement ({@code new String(bytes, UTF_8)}, or Netty's {@code toString}, which ends
   * there), and only then checked: a malformed sequence always leaves a U+FFFD in the string, so
   * a string without one is valid. For a compact Latin-1 string (nearly all ASCII text) {@code
   * indexOf('\uFFFD')} returns at once, since the char cannot be in it; other strings take one
   * vectorised scan. Only a string holding U+FFFD is examined further, to tell an encoded U+FFFD
   * from a malformed sequence. The check allocates nothing; only an error does.
   */
  static final class TextDeserializer extends ValueDeserializer {
    private final boolean ascii;
    /** {@link ParseLimits#replaceMalformedText()}. */
    private final boolean replaceMalformed;

    TextDeserializer(NativeType type, boolean replaceMalformed) {
      super(type);
      this.ascii = type == NativeType.ASCII;
      this.replaceMalformed = replaceMalformed;
    }

    @Override
    boolean emptyIsValue() {
      return true;
    }

    @Override
    void deliver(ByteBuf buf, int index, int length, RowSink sink, int column) {
      sink.onString(column, decode(buf, index, length));
    }

    @Override
    String decode(ByteBuf buf, int index, int length) {
      if (ascii) {
        return ascii(buf, index, length);
      }
      return checkedUtf8(buf.toString(index, length, StandardCharsets.UTF_8), buf, index, length);
    }

    /**
     * {@code s}, the UTF-8 bytes {@code [index, index + length)} of {@code buf} decoded with
     * replacement; unless they are malformed and this deserializer is strict, then an {@link
     * Reason#INVALID_VALUE} at the first malformed byte.
     */
    String checkedUtf8(String s, ByteBuf buf, int index, int length) {
      if (!replaceMalformed && s.indexOf('\uFFFD') >= 0) {
        rejectMalformedUtf8(s, buf, index, length);
      }
      return s;
    }

    /**
     * Throws if the U+FFFD in {@code s} stands for malformed bytes; returns if every one is
     * encoded in them. Apart from {@link #checkedUtf8}, so that what the row loop inlines stays
     * small.
     */
    private void rejectMalformedUtf8(String s, ByteBuf buf, int index, int length) {
      int at = firstMalformedUtf8(s, buf, index, length);
      if (at >= 0) {
        throw CqlParseException.at(Reason.INVALID_VALUE, "value", index + at, type,
            "malformed UTF-8 at byte " + at + " of " + length + ": 0x"
                + hex(buf.getByte(index + at)) + " (ParseLimits.replaceMalformedText)");
      }
    }

    private String ascii(ByteBuf buf, int index, int length) {
      // Not Netty's toString: it decodes US-ASCII byte by byte, mapping 0x80-0xFF to
      // U+0080-U+00FF. The JDK's decoder replaces each of them with U+FFFD.
      String s;
      if (buf.hasArray()) {
        s = new String(buf.array(), buf.arrayOffset() + index, length, StandardCharsets.US_ASCII);
      } else {
        byte[] b = new byte[length];
        buf.getBytes(index, b);
        s = new String(b, StandardCharsets.US_ASCII);
      }
      if (!replaceMalformed && s.indexOf('\uFFFD') >= 0) {
        throw notAscii(buf, index, length);
      }
      return s;
    }

    /** The error for the first byte above 0x7F of an ascii value. */
    private CqlParseException notAscii(ByteBuf buf, int index, int length) {
      int at = 0;
      while (at < length - 1 && buf.getByte(index + at) >= 0) {
        at++;
      }
      return CqlParseException.at(Reason.INVALID_VALUE, "value", index + at, type,
          "byte 0x" + hex(buf.getByte(index + at)) + " at byte " + at + " of " + length
              + " is not ASCII (ParseLimits.replaceMalformedText)");
    }

    /**
     * Where the first malformed sequence starts in the UTF-8 bytes {@code [index, index +
     * length)} of {@code buf}, counted from {@code index}, given {@code s}, those bytes decoded
     * with replacement; -1 if there is none (every U+FFFD in {@code s} is encoded in the bytes).
     *
     * <p>Decoding goes left to right, so the chars before the first replacement come from valid
     * sequences, whose UTF-8 length gives the byte offset of each char; at a U+FFFD, the bytes
     * there are either {@code EF BF BD} (a valid U+FFFD: go on) or the malformed sequence. The
     * decoder's own verdict is used, not a second validator that could disagree with it.
     */
    static int firstMalformedUtf8(String s, ByteBuf buf, int index, int length) {
      int at = 0;
      for (int i = 0, n = s.length(); i < n; i++) {
        char c = s.charAt(i);
        if (c < 0x80) {
          at += 1;
        } else if (c < 0x800) {
          at += 2;
        } else if (Character.isHighSurrogate(c)) {
          // a UTF-8 decoder emits surrogates only as the pair of a 4-byte sequence
          at += 4;
          i++;
        } else if (c == '\uFFFD' && !encodedReplacement(buf, index + at, length - at)) {
          return at;
        } else {
          at += 3;
        }
      }
      return -1;
    }

    /** Whether the {@code remaining} bytes at {@code p} start with U+FFFD's {@code EF BF BD}. */
    private static boolean encodedReplacement(ByteBuf buf, int p, int remaining) {
      return remaining >= 3 && buf.getByte(p) == (byte) 0xEF
          && buf.getByte(p + 1) == (byte) 0xBF && buf.getByte(p + 2) == (byte) 0xBD;
    }

    private static String hex(byte b) {
      return String.format("%02x", b & 0xFF);
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

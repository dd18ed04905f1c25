package io.cqlrows.arrow;

import io.cqlrows.core.value.CqlDuration;
import io.netty.buffer.ByteBuf;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.util.UUID;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntervalMonthDayNanoVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeNanoVector;
import org.apache.arrow.vector.TimeStampMilliTZVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UuidVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;

/** The writers of the CQL types without children (see {@link ArrowMapping}). */
final class ScalarWriters {
  private ScalarWriters() {}

  static final class Bool extends ValueWriter {
    private final BitVector v;

    Bool(BitVector v) {
      super(v);
      this.v = v;
    }

    @Override
    void write(int index, Object value) {
      onBoolean(index, (Boolean) value);
    }

    @Override
    void onBoolean(int index, boolean value) {
      v.setSafe(index, value ? 1 : 0);
    }
  }

  static final class Int8 extends ValueWriter {
    private final TinyIntVector v;

    Int8(TinyIntVector v) {
      super(v);
      this.v = v;
    }

    @Override
    void write(int index, Object value) {
      onInt(index, ((Number) value).byteValue());
    }

    @Override
    void onInt(int index, int value) {
      v.setSafe(index, (byte) value);
    }
  }

  static final class Int16 extends ValueWriter {
    private final SmallIntVector v;

    Int16(SmallIntVector v) {
      super(v);
      this.v = v;
    }

    @Override
    void write(int index, Object value) {
      onInt(index, ((Number) value).shortValue());
    }

    @Override
    void onInt(int index, int value) {
      v.setSafe(index, (short) value);
    }
  }

  static final class Int32 extends ValueWriter {
    private final org.apache.arrow.vector.IntVector v;

    Int32(org.apache.arrow.vector.IntVector v) {
      super(v);
      this.v = v;
    }

    @Override
    void write(int index, Object value) {
      onInt(index, ((Number) value).intValue());
    }

    @Override
    void onInt(int index, int value) {
      v.setSafe(index, value);
    }
  }

  static final class Int64 extends ValueWriter {
    private final BigIntVector v;

    Int64(BigIntVector v) {
      super(v);
      this.v = v;
    }

    @Override
    void write(int index, Object value) {
      onBigint(index, ((Number) value).longValue());
    }

    @Override
    void onBigint(int index, long value) {
      v.setSafe(index, value);
    }
  }

  static final class Float32 extends ValueWriter {
    private final Float4Vector v;

    Float32(Float4Vector v) {
      super(v);
      this.v = v;
    }

    @Override
    void write(int index, Object value) {
      onFloat(index, (Float) value);
    }

    @Override
    void onFloat(int index, float value) {
      v.setSafe(index, value);
    }
  }

  static final class Float64 extends ValueWriter {
    private final Float8Vector v;

    Float64(Float8Vector v) {
      super(v);
      this.v = v;
    }

    @Override
    void write(int index, Object value) {
      onDouble(index, (Double) value);
    }

    @Override
    void onDouble(int index, double value) {
      v.setSafe(index, value);
    }
  }

  static final class Timestamp extends ValueWriter {
    private final TimeStampMilliTZVector v;

    Timestamp(TimeStampMilliTZVector v) {
      super(v);
      this.v = v;
    }

    @Override
    void write(int index, Object value) {
      onTimestamp(index, ((Instant) value).toEpochMilli());
    }

    @Override
    void onTimestamp(int index, long epochMillis) {
      v.setSafe(index, epochMillis);
    }
  }

  static final class Date extends ValueWriter {
    private final DateDayVector v;

    Date(DateDayVector v) {
      super(v);
      this.v = v;
    }

    @Override
    void write(int index, Object value) {
      onDate(index, (int) ((LocalDate) value).toEpochDay());
    }

    @Override
    void onDate(int index, int epochDays) {
      v.setSafe(index, epochDays);
    }
  }

  static final class Time extends ValueWriter {
    private final TimeNanoVector v;

    Time(TimeNanoVector v) {
      super(v);
      this.v = v;
    }

    @Override
    void write(int index, Object value) {
      onTime(index, ((LocalTime) value).toNanoOfDay());
    }

    @Override
    void onTime(int index, long nanosOfDay) {
      v.setSafe(index, nanosOfDay);
    }
  }

  /** uuid and timeuuid: the 16 bytes, most significant first, written straight to the buffer. */
  static final class Uuid extends ValueWriter {
    private static final boolean NATIVE_LITTLE_ENDIAN =
        ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
    private final FixedSizeBinaryVector storage;

    Uuid(UuidVector v) {
      super(v);
      this.storage = v.getUnderlyingVector();
    }

    @Override
    void write(int index, Object value) {
      UUID u = (UUID) value;
      onUuid(index, u.getMostSignificantBits(), u.getLeastSignificantBits());
    }

    @Override
    void onUuid(int index, long mostSigBits, long leastSigBits) {
      while (index >= storage.getValueCapacity()) {
        storage.reAlloc();
      }
      ArrowBuf data = storage.getDataBuffer();
      long at = (long) index * 16;
      // ArrowBuf writes longs in the platform's order; the uuid's bytes are big-endian
      data.setLong(at, NATIVE_LITTLE_ENDIAN ? Long.reverseBytes(mostSigBits) : mostSigBits);
      data.setLong(at + 8, NATIVE_LITTLE_ENDIAN ? Long.reverseBytes(leastSigBits) : leastSigBits);
      BitVectorHelper.setBit(storage.getValidityBuffer(), index);
    }
  }

  /** text, ascii, and decimal or varint as text. */
  static final class Utf8 extends ValueWriter {
    private final VarCharVector v;

    /** Longer strings are encoded into an array of their own. */
    private static final int MAX_SCRATCH = 1 << 16;

    /** The bytes of the last ASCII string: reused, grown to the longest (up to 64 KiB). */
    private byte[] scratch = new byte[64];

    Utf8(VarCharVector v) {
      super(v);
      this.v = v;
    }

    @Override
    void write(int index, Object value) {
      // a String, BigDecimal / BigInteger as their digits, an InetAddress as its address
      onString(index, value instanceof InetAddress a ? a.getHostAddress() : value.toString());
    }

    @Override
    @SuppressWarnings("deprecation") // String.getBytes(int, int, byte[], int): exact for ASCII
    void onString(int index, String value) {
      int n = value.length();
      if (n <= MAX_SCRATCH && isAscii(value, n)) {
        if (n > scratch.length) {
          scratch = new byte[Math.max(n, Math.min(scratch.length * 2, MAX_SCRATCH))];
        }
        value.getBytes(0, n, scratch, 0);
        v.setSafe(index, scratch, 0, n);
        return;
      }
      byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
      v.setSafe(index, utf8, 0, utf8.length);
    }

    private static boolean isAscii(String s, int n) {
      for (int i = 0; i < n; i++) {
        if (s.charAt(i) >= 0x80) {
          return false;
        }
      }
      return true;
    }
  }

  /** blob, inet, custom types, and varint as bytes. */
  static final class Binary extends ValueWriter {
    private final VarBinaryVector v;

    Binary(VarBinaryVector v) {
      super(v);
      this.v = v;
    }

    @Override
    void write(int index, Object value) {
      if (value instanceof ByteBuffer b) {
        v.setSafe(index, b, b.position(), b.remaining());
      } else if (value instanceof InetAddress a) {
        byte[] bytes = a.getAddress();
        v.setSafe(index, bytes, 0, bytes.length);
      } else {
        byte[] bytes = ((BigInteger) value).toByteArray();
        v.setSafe(index, bytes, 0, bytes.length);
      }
    }

    @Override
    void onBlob(int index, ByteBuf value) {
      int n = value.readableBytes();
      if (value.hasArray()) {
        v.setSafe(index, value.array(), value.arrayOffset() + value.readerIndex(), n);
      } else {
        ByteBuffer nio = value.nioBuffer(value.readerIndex(), n);
        v.setSafe(index, nio, nio.position(), n);
      }
    }
  }

  static final class Decimal extends ValueWriter {
    private final DecimalVector v;
    private final int scale;
    private final RoundingMode rounding;
    private final BigDecimal zero;

    Decimal(DecimalVector v, RoundingMode rounding) {
      super(v);
      this.v = v;
      this.scale = v.getScale();
      this.rounding = rounding;
      this.zero = BigDecimal.ZERO.setScale(scale);
    }

    @Override
    void write(int index, Object value) {
      BigDecimal d = (BigDecimal) value;
      if (d.signum() == 0) {
        v.setSafe(index, zero); // any scale: 0E+2147483647 is zero too
        return;
      }
      // digits before the point, in a long: the wire allows any int scale (1E+2147483647)
      long integerDigits = (long) d.precision() - d.scale();
      if (integerDigits > ArrowMapping.DECIMAL128_PRECISION - scale) {
        throw new Unrepresentable(ArrowMappingException.Reason.DECIMAL_PRECISION, d.toString());
      }
      if (integerDigits < -scale - 1) {
        // below a tenth of the last digit: every rounding of d is the rounding of any other value
        // there with its sign, and this one is cheap (setScale on 1E-2147483647 would not be)
        d = new BigDecimal(BigInteger.valueOf(d.signum()), scale + 2);
      }
      BigDecimal scaled;
      try {
        scaled = d.setScale(scale, rounding);
      } catch (ArithmeticException e) {
        throw new Unrepresentable(ArrowMappingException.Reason.DECIMAL_SCALE, value.toString());
      }
      if (scaled.precision() > ArrowMapping.DECIMAL128_PRECISION) {
        throw new Unrepresentable(ArrowMappingException.Reason.DECIMAL_PRECISION, value.toString());
      }
      v.setSafe(index, scaled);
    }
  }

  static final class Interval extends ValueWriter {
    private final IntervalMonthDayNanoVector v;

    Interval(IntervalMonthDayNanoVector v) {
      super(v);
      this.v = v;
    }

    @Override
    void write(int index, Object value) {
      CqlDuration d = (CqlDuration) value;
      v.setSafe(index, d.months(), d.days(), d.nanoseconds());
    }
  }
}

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

/**
 * Deserializers for the native types of variable width other than {@code text} and {@code ascii}
 * (those are {@link TextDeserializer}): {@code blob}, delivered as a borrowed view of its bytes,
 * and {@code varint}, {@code decimal}, {@code inet} and {@code duration}, which reach the sink as
 * Java objects ({@link RowSink#onObject}). Each checks the length its encoding allows
 * (native_protocol_v5.spec section 5); all reads are absolute and big-endian.
 */
final class VariableWidthDeserializers {
  private VariableWidthDeserializers() {}

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

    @Override
    void validate(ByteBuf buf, int index, int length) {
      // every byte string of length >= 1 is a varint
    }
  }

  /** {@code decimal}: an [int] scale, then a varint unscaled value of at least one byte. */
  static final class DecimalDeserializer extends ValueDeserializer.ToObject {
    DecimalDeserializer() {
      super(NativeType.DECIMAL);
    }

    @Override
    Object decode(ByteBuf buf, int index, int length) {
      validate(buf, index, length);
      int scale = buf.getInt(index);
      byte[] b = new byte[length - 4];
      buf.getBytes(index + 4, b);
      return new BigDecimal(new BigInteger(b), scale);
    }

    @Override
    void validate(ByteBuf buf, int index, int length) {
      if (length < 5) {
        throw CqlParseException.at(
            Reason.LENGTH_MISMATCH,
            "value",
            index,
            type,
            "expected at least 5 bytes (scale and unscaled value), got " + length);
      }
    }
  }

  /** {@code inet}: 4 (IPv4) or 16 (IPv6) address bytes, no port. */
  static final class InetDeserializer extends ValueDeserializer.ToObject {
    InetDeserializer() {
      super(NativeType.INET);
    }

    @Override
    Object decode(ByteBuf buf, int index, int length) {
      validate(buf, index, length);
      byte[] b = new byte[length];
      buf.getBytes(index, b);
      try {
        return InetAddress.getByAddress(b);
      } catch (UnknownHostException e) {
        throw new AssertionError("length was checked", e);
      }
    }

    @Override
    void validate(ByteBuf buf, int index, int length) {
      if (length != 4 && length != 16) {
        throw CqlParseException.at(
            Reason.LENGTH_MISMATCH, "value", index, type, "expected 4 or 16 bytes, got " + length);
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
        throw CqlParseException.at(
            Reason.TRAILING_BYTES,
            "value",
            p,
            type,
            (end - p) + " bytes after the three duration components");
      }
      if (months != (int) months || days != (int) days) {
        throw CqlParseException.at(
            Reason.INVALID_VALUE,
            "value",
            index,
            type,
            "months " + months + " or days " + days + " out of int range");
      }
      boolean anyNegative = months < 0 || days < 0 || nanos < 0;
      boolean anyPositive = months > 0 || days > 0 || nanos > 0;
      if (anyNegative && anyPositive) {
        // Cassandra's DurationSerializer.validate rejects mixed signs; so do we.
        throw CqlParseException.at(
            Reason.INVALID_VALUE,
            "value",
            index,
            type,
            "months "
                + months
                + ", days "
                + days
                + " and nanoseconds "
                + nanos
                + " do not all have the same sign");
      }
      return new CqlDuration((int) months, (int) days, nanos);
    }
  }
}

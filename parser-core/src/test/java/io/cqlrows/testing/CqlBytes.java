package io.cqlrows.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;

/**
 * A bytes DSL for tests: writes CQL wire notations (native_protocol_v5.spec section 3) with
 * spec-named calls into a heap buffer. {@link #toByteBuf()} returns a new buffer, which the caller
 * owns and releases.
 */
public final class CqlBytes {
  private final ByteBuf buf = Unpooled.buffer();

  /** A new, empty builder. */
  public static CqlBytes create() {
    return new CqlBytes();
  }

  /** {@code [int]}. */
  public CqlBytes int32(int v) {
    buf.writeInt(v);
    return this;
  }

  /** {@code [short]}. */
  public CqlBytes int16(int v) {
    buf.writeShort(v);
    return this;
  }

  /** One byte. */
  public CqlBytes int8(int v) {
    buf.writeByte(v);
    return this;
  }

  /** {@code [long]}. */
  public CqlBytes int64(long v) {
    buf.writeLong(v);
    return this;
  }

  /** Raw bytes from hex; spaces are ignored. */
  public CqlBytes hex(String hex) {
    buf.writeBytes(ByteBufUtil.decodeHexDump(hex.replace(" ", "")));
    return this;
  }

  /** Raw bytes. */
  public CqlBytes raw(byte[] b) {
    buf.writeBytes(b);
    return this;
  }

  /** {@code [string]}: [short] length and UTF-8 bytes. */
  public CqlBytes string(String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    buf.writeShort(b.length);
    buf.writeBytes(b);
    return this;
  }

  /** {@code [bytes]} from hex: [int] length and the bytes. */
  public CqlBytes bytes(String hex) {
    byte[] b = ByteBufUtil.decodeHexDump(hex.replace(" ", ""));
    buf.writeInt(b.length);
    buf.writeBytes(b);
    return this;
  }

  /** A cell or element with length -1 (NULL). */
  public CqlBytes nullCell() {
    return int32(-1);
  }

  /** A cell or element with length -2 (not set). */
  public CqlBytes notSetCell() {
    return int32(-2);
  }

  /** An unsigned vint (Cassandra VIntCoding). */
  public CqlBytes vint(long v) {
    int size = v == 0 ? 1 : 9 - ((Long.numberOfLeadingZeros(v | 1) - 1) / 7);
    size = Math.min(size, 9);
    if (size == 1) {
      buf.writeByte((int) v);
      return this;
    }
    if (size == 9) {
      buf.writeByte(0xFF);
      buf.writeLong(v);
      return this;
    }
    int extra = size - 1;
    int first = (int) (v >>> (8 * extra)) | (~(0xFF >> extra) & 0xFF);
    buf.writeByte(first);
    for (int i = extra - 1; i >= 0; i--) {
      buf.writeByte((int) (v >>> (8 * i)));
    }
    return this;
  }

  /** A column spec without keyspace/table (Global_tables_spec) and a native option id. */
  public CqlBytes columnSpec(String name, int optionId) {
    return string(name).int16(optionId);
  }

  /** A column spec with a custom type class name (how vectors arrive). */
  public CqlBytes customColumnSpec(String name, String className) {
    return string(name).int16(0).string(className);
  }

  /** Bytes written so far. */
  public int size() {
    return buf.readableBytes();
  }

  /** The bytes as hex. */
  public String toHex() {
    return ByteBufUtil.hexDump(buf);
  }

  /** The bytes, in a new buffer that the caller owns and releases. */
  public ByteBuf toByteBuf() {
    return buf.copy();
  }

  /** The bytes as an array. */
  public byte[] toArray() {
    return ByteBufUtil.getBytes(buf);
  }
}

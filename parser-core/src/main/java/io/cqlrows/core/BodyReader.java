package io.cqlrows.core;

import io.cqlrows.core.CqlParseException.Reason;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/**
 * Bounds-checked reader for the notations of native_protocol_v5.spec section 3 ({@code [int]},
 * {@code [short]}, {@code [string]}, {@code [bytes]}, {@code [short bytes]}) over a window {@code
 * [position, end)} of a borrowed buffer. Reads are absolute: the buffer's own indices never move.
 *
 * <p>Every read checks the bytes are there first and throws {@link Reason#TRUNCATED} naming the
 * field otherwise, so nothing is allocated from an unchecked length. Not thread-safe; one per
 * parse.
 */
final class BodyReader {
  final ByteBuf buf;

  /** Index of the first byte of the body (offsets in errors are relative to it). */
  final int start;

  /** Exclusive end of the readable window. */
  final int end;

  /** Next index to read. */
  int position;

  BodyReader(ByteBuf buf, int start, int position, int end) {
    this.buf = buf;
    this.start = start;
    this.position = position;
    this.end = end;
  }

  int remaining() {
    return end - position;
  }

  /** {@code [int]}. */
  int readInt(String field) {
    require(4, field);
    int v = buf.getInt(position);
    position += 4;
    return v;
  }

  /** {@code [short]}, unsigned. */
  int readUnsignedShort(String field) {
    require(2, field);
    int v = buf.getUnsignedShort(position);
    position += 2;
    return v;
  }

  /** {@code [string]}: a [short] length and that many UTF-8 bytes. */
  String readString(String field) {
    int n = readUnsignedShort(field);
    require(n, field);
    String s = buf.toString(position, n, StandardCharsets.UTF_8);
    position += n;
    return s;
  }

  /** {@code [bytes]} copied out; {@code null} for a negative length. */
  byte[] readBytes(String field) {
    int n = readInt(field);
    if (n < 0) {
      return null;
    }
    require(n, field);
    byte[] b = new byte[n];
    buf.getBytes(position, b);
    position += n;
    return b;
  }

  /** {@code [short bytes]} copied out. */
  byte[] readShortBytes(String field) {
    int n = readUnsignedShort(field);
    require(n, field);
    byte[] b = new byte[n];
    buf.getBytes(position, b);
    position += n;
    return b;
  }

  /** {@code [string list]}. */
  java.util.List<String> readStringList(String field) {
    int n = readUnsignedShort(field);
    // each string takes at least its 2-byte length: bound the list before allocating
    if ((long) n * 2 > remaining()) {
      throw truncated(field, (long) n * 2);
    }
    java.util.List<String> list = new java.util.ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      list.add(readString(field));
    }
    return list;
  }

  void skip(int n, String field) {
    require(n, field);
    position += n;
  }

  void require(int n, String field) {
    if (n > end - position) {
      throw truncated(field, n);
    }
  }

  CqlParseException truncated(String field, long needed) {
    return CqlParseException.at(
        Reason.TRUNCATED,
        field,
        position,
        null,
        "need " + needed + " bytes, have " + (end - position));
  }

  CqlParseException error(Reason reason, String field, int index, String detail) {
    return CqlParseException.at(reason, field, index, null, detail);
  }
}

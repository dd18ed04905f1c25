package io.cqlrows.netty.internal;

import io.cqlrows.netty.frame.Frame;
import io.cqlrows.netty.frame.FramePrelude;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Reads the prelude of a frame body (native_protocol_v5.spec sections 2.4.1.2 and 4): {@code
 * [uuid]} tracing id, then {@code [string list]} warnings, then {@code [bytes map]} custom payload,
 * each only if its flag is set.
 *
 * <p>Every read is bounds-checked against the frame body before anything is allocated; a prelude
 * that runs past the body throws {@link Malformed}, whose offset is relative to the first byte
 * after the header (the caller reports it as a frame-local {@code BAD_PRELUDE} {@link
 * io.cqlrows.netty.frame.CqlFrameException}). Reads are absolute: the buffer's indices never move.
 * Borrowed buffer; one instance per frame.
 *
 * <p>parser-core reads the same notations ({@code [bytes]}, {@code [string]}) inside a RESULT body
 * with its own package-private cursor, whose errors carry the row and column being parsed. The
 * prelude comes before any of that and is reported per frame, so it has this small reader rather
 * than a public cursor in core.
 */
final class PreludeReader {
  private static final int UUID_LENGTH = 16;

  /** A prelude that runs past the body: where, and what was being read. */
  static final class Malformed extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Offset from the first byte after the header. */
    final int offset;

    Malformed(String field, int offset, long need, int have, String bytes) {
      super(
          "truncated "
              + field
              + " at offset "
              + offset
              + ": need "
              + need
              + " bytes, have "
              + have
              + (bytes.isEmpty() ? "" : " [" + bytes + "]"),
          null,
          false,
          false);
      this.offset = offset;
    }
  }

  private final ByteBuf buf;

  /** Index of the first body byte (offsets in errors are relative to it). */
  private final int start;

  /** Exclusive end of the body. */
  private final int end;

  /** Next index to read. */
  private int position;

  PreludeReader(ByteBuf buf, int start, int end) {
    this.buf = buf;
    this.start = start;
    this.end = end;
    this.position = start;
  }

  /** Index of the first byte after what was read: the start of the message body. */
  int position() {
    return position;
  }

  /**
   * Reads the prelude the flags announce.
   *
   * @param response tracing ids precede the body only in responses; in a request the flag merely
   *     asks for tracing
   */
  FramePrelude read(int flags, boolean response) {
    UUID tracingId = null;
    if (response && (flags & Frame.FLAG_TRACING) != 0) {
      require(UUID_LENGTH, "tracing_id");
      tracingId = new UUID(buf.getLong(position), buf.getLong(position + 8));
      position += UUID_LENGTH;
    }
    List<String> warnings =
        (flags & Frame.FLAG_WARNING) != 0 ? readStringList("warnings") : List.of();
    Map<String, byte[]> payload =
        (flags & Frame.FLAG_CUSTOM_PAYLOAD) != 0 ? readBytesMap("custom_payload") : Map.of();
    if (tracingId == null && warnings.isEmpty() && payload.isEmpty()) {
      return FramePrelude.NONE;
    }
    return new FramePrelude(tracingId, warnings, payload);
  }

  /** {@code [string list]}: a [short] n, then n [string]. */
  private List<String> readStringList(String field) {
    int n = readUnsignedShort(field);
    // each [string] takes at least its 2-byte length: bound the list before allocating
    require((long) n * 2, field);
    List<String> list = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      list.add(readString(field));
    }
    return list;
  }

  /** {@code [bytes map]}: a [short] n, then n pairs of [string] key and [bytes] value. */
  private Map<String, byte[]> readBytesMap(String field) {
    int n = readUnsignedShort(field);
    // each pair takes at least a 2-byte key length and a 4-byte value length
    require((long) n * 6, field);
    Map<String, byte[]> map = new LinkedHashMap<>(n * 2);
    for (int i = 0; i < n; i++) {
      String key = readString(field + " key");
      map.put(key, readBytes(field + " value"));
    }
    return map;
  }

  /** {@code [string]}: a [short] length, then that many UTF-8 bytes. */
  private String readString(String field) {
    int n = readUnsignedShort(field);
    require(n, field);
    String s = buf.toString(position, n, StandardCharsets.UTF_8);
    position += n;
    return s;
  }

  /** {@code [bytes]}: an [int] length, then that many bytes; a negative length means null. */
  private byte[] readBytes(String field) {
    require(4, field);
    int n = buf.getInt(position);
    position += 4;
    if (n < 0) {
      return null;
    }
    require(n, field);
    byte[] b = new byte[n];
    buf.getBytes(position, b);
    position += n;
    return b;
  }

  private int readUnsignedShort(String field) {
    require(2, field);
    int v = buf.getUnsignedShort(position);
    position += 2;
    return v;
  }

  private void require(long n, String field) {
    if (n > end - position) {
      throw new Malformed(field, position - start, n, end - position, hexAround(position));
    }
  }

  /**
   * The body's bytes around {@code index} in hex, {@code >} before the one at {@code index}: up to
   * 8 before it and 24 from it, as the parser's errors show them.
   */
  private String hexAround(int index) {
    int from = Math.max(start, index - 8);
    int to = Math.min(end, index + 24);
    StringBuilder sb = new StringBuilder(Math.max(0, to - from) * 3);
    for (int i = from; i < to; i++) {
      if (i == index) {
        sb.append('>');
      } else if (i > from) {
        sb.append(' ');
      }
      int b = buf.getUnsignedByte(i);
      sb.append(Character.forDigit(b >> 4, 16)).append(Character.forDigit(b & 0xF, 16));
    }
    return sb.toString();
  }
}

package io.cqlrows.netty.frame;

import java.util.Locale;

/**
 * The compression a connection negotiated with the STARTUP option {@code COMPRESSION}
 * (native_protocol_v4.spec section 5, native_protocol_v5.spec section 2.3.2). On v3/v4 it applies
 * to frame bodies (flag 0x01); on v5 only LZ4 exists, and it applies to segments.
 */
public enum Compression {
  /** No compression. */
  NONE,
  /**
   * LZ4: v4 bodies are a 4-byte big-endian length and a raw block; v5 segments carry raw blocks.
   */
  LZ4,
  /** Snappy (v3/v4 only): a raw Snappy block. */
  SNAPPY;

  /**
   * The compression named by a STARTUP {@code COMPRESSION} value ({@code lz4}, {@code snappy}), or
   * {@link #NONE} for {@code null}.
   *
   * @throws IllegalArgumentException for any other name
   */
  public static Compression fromStartupOption(String value) {
    if (value == null) {
      return NONE;
    }
    switch (value.toLowerCase(Locale.ROOT)) {
      case "lz4":
        return LZ4;
      case "snappy":
        return SNAPPY;
      default:
        throw new IllegalArgumentException("COMPRESSION: " + value + " (expected: lz4 or snappy)");
    }
  }
}

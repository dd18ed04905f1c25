package io.cqlrows.capture.pcap;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * The byte source under a capture reader: counts the offset of every byte read, reads exactly or
 * reports how much was there, skips without allocating, and decodes fixed-width integers in either
 * byte order.
 *
 * <p>Ownership: borrows the stream; {@link PcapReader} closes it. Not thread-safe.
 */
final class PcapInput {
  /** Packets up to this length are read into an array allocated at once; longer ones grow. */
  private static final int EAGER_ALLOCATION_LIMIT = 256 * 1024;

  private final InputStream in;

  /** Bytes consumed so far: the file offset of the next byte. */
  private long offset;

  PcapInput(InputStream in) {
    this.in = in;
  }

  /** The file offset of the next byte. */
  long offset() {
    return offset;
  }

  /** Reads up to {@code len} bytes; fewer only at the end of the input. Returns the count. */
  int read(byte[] b, int off, int len) throws IOException {
    int n = in.readNBytes(b, off, len);
    offset += n;
    return n;
  }

  /**
   * Reads {@code len} bytes into a new array, which is shorter only at the end of the input. An
   * absurd length costs no more memory than the bytes actually there.
   */
  byte[] readArray(int len) throws IOException {
    byte[] b;
    if (len <= EAGER_ALLOCATION_LIMIT) {
      b = new byte[len];
      int n = in.readNBytes(b, 0, len);
      if (n < len) {
        b = Arrays.copyOf(b, n);
      }
    } else {
      b = in.readNBytes(len); // grows chunk by chunk with the bytes present
    }
    offset += b.length;
    return b;
  }

  /** Skips up to {@code n} bytes; fewer only at the end of the input. Returns the count. */
  long skip(long n) throws IOException {
    long done = 0;
    while (done < n) {
      long k = in.skip(n - done);
      if (k <= 0) {
        // skip() may return 0 before the end; one read tells which it is
        if (in.read() < 0) {
          break;
        }
        k = 1;
      }
      done += k;
    }
    offset += done;
    return done;
  }

  /** Unsigned 16-bit value at {@code at}. */
  static int u16(byte[] b, int at, boolean bigEndian) {
    int b0 = b[at] & 0xFF;
    int b1 = b[at + 1] & 0xFF;
    return bigEndian ? (b0 << 8) | b1 : (b1 << 8) | b0;
  }

  /** 32-bit value at {@code at}. */
  static int i32(byte[] b, int at, boolean bigEndian) {
    int hi = u16(b, at, bigEndian);
    int lo = u16(b, at + 2, bigEndian);
    return bigEndian ? (hi << 16) | lo : (lo << 16) | hi;
  }

  /** Unsigned 32-bit value at {@code at}. */
  static long u32(byte[] b, int at, boolean bigEndian) {
    return i32(b, at, bigEndian) & 0xFFFF_FFFFL;
  }

  /** 64-bit value at {@code at}. */
  static long i64(byte[] b, int at, boolean bigEndian) {
    long first = u32(b, at, bigEndian);
    long second = u32(b, at + 4, bigEndian);
    return bigEndian ? (first << 32) | second : (second << 32) | first;
  }
}

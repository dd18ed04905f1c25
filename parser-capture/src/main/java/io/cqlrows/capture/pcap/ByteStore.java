package io.cqlrows.capture.pcap;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * An append-only byte sequence in blocks: the first blocks double in size (a short stream stays
 * small), later ones are 1 MiB, so appending never copies what is stored and a stream may exceed
 * the 2 GiB of one array.
 *
 * <p>Ownership: owns its blocks. Not thread-safe; read-only once {@link #trim} has run.
 */
final class ByteStore {
  private static final int FIRST_BLOCK = 1024;
  private static final int MAX_BLOCK = 1 << 20;

  /** The longest array the JVM reliably allocates. */
  static final int MAX_ARRAY = Integer.MAX_VALUE - 8;

  private final List<byte[]> blocks = new ArrayList<>();

  /** Bytes used in the last block. */
  private int lastUsed;

  /** Total bytes. */
  private long length;

  long length() {
    return length;
  }

  void append(byte[] src, int off, int len) {
    while (len > 0) {
      byte[] last = blocks.isEmpty() ? null : blocks.get(blocks.size() - 1);
      if (last == null || lastUsed == last.length) {
        last = new byte[(int) Math.min(MAX_BLOCK, Math.max(FIRST_BLOCK, length))];
        blocks.add(last);
        lastUsed = 0;
      }
      int n = Math.min(len, last.length - lastUsed);
      System.arraycopy(src, off, last, lastUsed, n);
      lastUsed += n;
      off += n;
      len -= n;
      length += n;
    }
  }

  /** Shrinks the last block to its content; call once appending is over. */
  void trim() {
    if (!blocks.isEmpty()) {
      int i = blocks.size() - 1;
      blocks.set(i, Arrays.copyOf(blocks.get(i), lastUsed));
    }
  }

  /** A copy of all bytes in one array. */
  byte[] toArray() {
    if (length > MAX_ARRAY) {
      throw new IllegalStateException(
          "stream of " + length + " bytes does not fit in one array; use copyTo");
    }
    byte[] out = new byte[(int) length];
    int at = 0;
    for (int i = 0; i < blocks.size(); i++) {
      int n = used(i);
      System.arraycopy(blocks.get(i), 0, out, at, n);
      at += n;
    }
    return out;
  }

  /** Writes all bytes to {@code out}. */
  void copyTo(OutputStream out) throws IOException {
    for (int i = 0; i < blocks.size(); i++) {
      out.write(blocks.get(i), 0, used(i));
    }
  }

  private int used(int block) {
    return block == blocks.size() - 1 ? lastUsed : blocks.get(block).length;
  }
}

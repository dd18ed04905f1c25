package io.cqlrows.capture.pcap;

import java.io.IOException;
import java.io.OutputStream;
import java.util.AbstractList;
import java.util.Arrays;
import java.util.List;

/**
 * One direction of a reassembled TCP connection: the bytes received in order, when each run of them
 * arrived, and the gaps where bytes are missing for good.
 *
 * <p><b>Offsets.</b> Every offset indexes {@link #bytes()}, which holds only bytes that were
 * captured: a {@link Gap} at offset {@code k} of length {@code n} means {@code n} bytes are missing
 * between {@code bytes()[k - 1]} and {@code bytes()[k]}. (The position in the sender's byte stream
 * is {@code k} plus the lengths of the earlier gaps.)
 *
 * <p>Ownership and threading: immutable; {@link #bytes()} returns a fresh copy.
 */
public final class TcpStream {
  /**
   * Bytes that are missing for good.
   *
   * @param offset where in {@link #bytes()} they belong (the count of bytes before them)
   * @param length how many are missing
   */
  public record Gap(long offset, long length) {}

  /**
   * A run of bytes that arrived in one packet.
   *
   * @param offset first byte, in {@link #bytes()}
   * @param length bytes
   * @param timestampNanos capture time of the packet that carried them
   */
  public record Chunk(long offset, long length, long timestampNanos) {}

  private final ByteStore store;

  /** Start offset of each chunk, ascending. */
  private final long[] chunkOffsets;

  /** Capture time of each chunk. */
  private final long[] chunkTimes;

  private final List<Gap> gaps;

  /** True if the sender's FIN was captured. */
  private final boolean finished;

  TcpStream(
      ByteStore store, long[] chunkOffsets, long[] chunkTimes, List<Gap> gaps, boolean finished) {
    this.store = store;
    this.chunkOffsets = chunkOffsets;
    this.chunkTimes = chunkTimes;
    this.gaps = List.copyOf(gaps);
    this.finished = finished;
  }

  /** Number of bytes received. */
  public long length() {
    return store.length();
  }

  /**
   * A copy of the bytes received, in order, without the gaps.
   *
   * @throws IllegalStateException if the stream is longer than an array can be (2 GiB); use {@link
   *     #copyTo}
   */
  public byte[] bytes() {
    return store.toArray();
  }

  /** Writes the bytes received to {@code out}, which stays open. */
  public void copyTo(OutputStream out) throws IOException {
    store.copyTo(out);
  }

  /** Missing bytes, in stream order; empty if the stream is complete. */
  public List<Gap> gaps() {
    return gaps;
  }

  /** True if the sender's FIN was captured: the stream ended there. */
  public boolean finished() {
    return finished;
  }

  /** The runs of bytes by arrival, in stream order. */
  public List<Chunk> chunks() {
    return new AbstractList<>() {
      @Override
      public Chunk get(int i) {
        long end = i + 1 < chunkOffsets.length ? chunkOffsets[i + 1] : store.length();
        return new Chunk(chunkOffsets[i], end - chunkOffsets[i], chunkTimes[i]);
      }

      @Override
      public int size() {
        return chunkOffsets.length;
      }
    };
  }

  /**
   * Capture time of the packet that carried the byte at {@code offset}.
   *
   * @throws IndexOutOfBoundsException unless {@code 0 <= offset < length()}
   */
  public long timestampNanosAt(long offset) {
    if (offset < 0 || offset >= store.length()) {
      throw new IndexOutOfBoundsException("offset " + offset + " (length " + length() + ")");
    }
    int i = Arrays.binarySearch(chunkOffsets, offset);
    return chunkTimes[i >= 0 ? i : -i - 2];
  }

  @Override
  public String toString() {
    return "TcpStream{length="
        + length()
        + ", chunks="
        + chunkOffsets.length
        + ", gaps="
        + gaps
        + ", finished="
        + finished
        + "}";
  }
}

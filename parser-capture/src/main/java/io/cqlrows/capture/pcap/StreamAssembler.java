package io.cqlrows.capture.pcap;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reassembles one direction of a TCP connection by sequence number.
 *
 * <p>Sequence numbers become 64-bit stream offsets relative to the next expected byte, through
 * their signed 32-bit difference, so wraparound is invisible as long as segments lie within 2 GiB
 * of that point.
 *
 * <ul>
 *   <li><b>Duplicates</b> (every byte already delivered) are dropped.
 *   <li><b>Overlaps: the first copy wins.</b> Bytes already delivered or already buffered are kept;
 *       a later segment only contributes the bytes nobody supplied before, whatever it says about
 *       the others. This is what Linux does with data it has queued, and it makes the output
 *       independent of how retransmissions were split.
 *   <li><b>Out-of-order</b> segments wait in a buffer until the hole before them fills.
 *   <li><b>Gaps.</b> A hole is given up, recorded as a gap and skipped when it can never fill: the
 *       peer acknowledged bytes beyond it (it has them, nobody will resend them), the buffered
 *       bytes exceed the limit, or the connection ends ({@link #finish}). Bytes the peer
 *       acknowledged or the FIN placed beyond the last captured byte also end as a gap.
 * </ul>
 *
 * <p>Ownership: copies what it keeps out of the packets. Not thread-safe.
 */
final class StreamAssembler {
  /** A buffered out-of-order run. */
  @SuppressWarnings("ArrayRecordComponent") // a holder of bytes, never compared
  private record Pending(byte[] data, long timestampNanos) {}

  /** Limit on buffered out-of-order bytes before the first hole is given up. */
  private final long maxBuffered;

  /** True once the sequence number of the first byte is known. */
  private boolean started;

  /** Sequence number of the next byte expected. */
  private int nextSeq;

  /** Stream offset of the next byte expected: bytes delivered plus bytes given up as gaps. */
  private long nextOffset;

  /** Highest stream offset a captured segment reached, including bytes cut by the snaplen. */
  private long seenEnd;

  /** Highest stream offset the peer acknowledged, or 0. */
  private long ackedEnd;

  /** Stream offset of the FIN, or -1. */
  private long finOffset = -1;

  /** Out-of-order runs by stream offset; they never overlap. */
  private final TreeMap<Long, Pending> pending = new TreeMap<>();

  private long pendingBytes;
  private final ByteStore store = new ByteStore();
  private long[] chunkOffsets = new long[8];
  private long[] chunkTimes = new long[8];
  private int chunks;
  private final List<TcpStream.Gap> gaps = new ArrayList<>();

  StreamAssembler(long maxBuffered) {
    this.maxBuffered = maxBuffered;
  }

  boolean started() {
    return started;
  }

  /** Fixes the sequence number of the stream's first byte. */
  void start(int seq) {
    started = true;
    nextSeq = seq;
  }

  /**
   * A segment's payload {@code d[off, off + len)} at {@code seq}, followed by {@code missing} bytes
   * the capture cut off.
   */
  void segment(int seq, byte[] d, int off, int len, int missing, long timestampNanos) {
    if (!started) {
      start(seq);
    }
    long at = offsetOf(seq);
    long end = at + len;
    seenEnd = Math.max(seenEnd, end + missing);
    if (len == 0 || end <= nextOffset) {
      return; // nothing captured, or a retransmission of delivered bytes
    }
    if (at < nextOffset) { // overlaps delivered bytes: those stay
      int skip = (int) (nextOffset - at);
      off += skip;
      len -= skip;
      at = nextOffset;
    }
    if (at == nextOffset && pending.isEmpty()) {
      deliver(d, off, len, timestampNanos); // the common case: in order, nothing waiting
      return;
    }
    // through the buffer, which keeps any bytes of it that arrived before (first copy wins)
    buffer(at, d, off, len, timestampNanos);
    drain();
    while (pendingBytes > maxBuffered) {
      skipTo(pending.firstKey());
    }
  }

  /** The sender's FIN at {@code seq}. */
  void fin(int seq) {
    if (!started) {
      start(seq);
    }
    if (finOffset < 0) {
      finOffset = offsetOf(seq);
    }
  }

  /** The peer acknowledged every byte before {@code ack}. */
  void acked(int ack) {
    if (!started) {
      return;
    }
    long at = offsetOf(ack);
    if (finOffset >= 0) {
      at = Math.min(at, finOffset); // the FIN takes a sequence number but is no byte
    }
    if (at <= nextOffset) {
      return;
    }
    ackedEnd = Math.max(ackedEnd, at);
    // holes below captured data are lost for good: the peer has those bytes
    long limit = Math.min(at, seenEnd);
    while (nextOffset < limit) {
      skipTo(pending.isEmpty() ? limit : Math.min(pending.firstKey(), limit));
    }
  }

  /** Gives up every remaining hole and returns the stream. */
  TcpStream finish() {
    while (!pending.isEmpty()) {
      skipTo(pending.firstKey());
    }
    long end = Math.max(seenEnd, Math.max(ackedEnd, finOffset));
    if (end > nextOffset) {
      skipTo(end);
    }
    store.trim();
    return new TcpStream(
        store,
        Arrays.copyOf(chunkOffsets, chunks),
        Arrays.copyOf(chunkTimes, chunks),
        gaps,
        finOffset >= 0);
  }

  private long offsetOf(int seq) {
    return nextOffset + (seq - nextSeq);
  }

  private void deliver(byte[] d, int off, int len, long timestampNanos) {
    if (chunks == chunkOffsets.length) {
      chunkOffsets = Arrays.copyOf(chunkOffsets, chunks * 2);
      chunkTimes = Arrays.copyOf(chunkTimes, chunks * 2);
    }
    chunkOffsets[chunks] = store.length();
    chunkTimes[chunks++] = timestampNanos;
    store.append(d, off, len);
    nextOffset += len;
    nextSeq += len;
  }

  /** Delivers buffered runs that the next expected byte has reached. */
  private void drain() {
    while (!pending.isEmpty() && pending.firstKey() <= nextOffset) {
      Map.Entry<Long, Pending> first = pending.pollFirstEntry();
      byte[] data = first.getValue().data();
      pendingBytes -= data.length;
      long skip = nextOffset - first.getKey();
      if (skip < data.length) {
        deliver(data, (int) skip, data.length - (int) skip, first.getValue().timestampNanos());
      }
    }
  }

  /** Records the bytes up to {@code offset} as a gap, then delivers what becomes contiguous. */
  private void skipTo(long offset) {
    long missing = offset - nextOffset;
    if (missing > 0) {
      int last = gaps.size() - 1;
      if (last >= 0 && gaps.get(last).offset() == store.length()) { // adjacent: one gap
        missing += gaps.remove(last).length();
      }
      gaps.add(new TcpStream.Gap(store.length(), missing));
      nextSeq += (int) (offset - nextOffset);
      nextOffset = offset;
    }
    drain();
  }

  /** Buffers the parts of {@code [at, at + len)} that no buffered run covers yet. */
  private void buffer(long at, byte[] d, int off, int len, long timestampNanos) {
    long end = at + len;
    long cur = at;
    Map.Entry<Long, Pending> floor = pending.floorEntry(at);
    if (floor != null) {
      cur = Math.max(cur, floor.getKey() + floor.getValue().data().length);
    }
    List<long[]> pieces = new ArrayList<>(2);
    if (cur < end) {
      for (Map.Entry<Long, Pending> e : pending.subMap(cur, true, end, false).entrySet()) {
        if (e.getKey() > cur) {
          pieces.add(new long[] {cur, e.getKey()});
        }
        cur = Math.max(cur, e.getKey() + e.getValue().data().length);
      }
      if (cur < end) {
        pieces.add(new long[] {cur, end});
      }
    }
    for (long[] p : pieces) {
      int from = off + (int) (p[0] - at);
      byte[] copy = Arrays.copyOfRange(d, from, from + (int) (p[1] - p[0]));
      pending.put(p[0], new Pending(copy, timestampNanos));
      pendingBytes += copy.length;
    }
  }
}

package io.cqlrows.capture.pcap;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reassembles one direction of a TCP connection by sequence number and hands the bytes on in stream
 * order as they become contiguous.
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
 *   <li><b>Out-of-order</b> segments wait in a buffer until the hole before them fills, whatever
 *       the peer acknowledged meanwhile (a capture merged from several interfaces or CPUs shows the
 *       acknowledgment of a segment before the segment).
 *   <li><b>Gaps.</b> A hole is given up, reported as a gap and skipped only when its owner says so
 *       ({@link #giveUpFirstHole}: a buffer limit was reached) or when the stream ends ({@link
 *       #finish}). Bytes that the capture cut off a packet (its snapshot length) are a gap as soon
 *       as the stream reaches them. Bytes the peer acknowledged or the FIN placed beyond the last
 *       captured byte end as a gap too.
 * </ul>
 *
 * <p>Ownership: copies what it buffers out of the packets; what it hands to its {@link Output} is
 * borrowed by the output for the duration of the call. Not thread-safe.
 */
final class StreamAssembler {
  /** Where the reassembled bytes go. */
  interface Output {
    /**
     * The next bytes of the stream.
     *
     * @param d borrowed: valid only during the call
     */
    void data(byte[] d, int off, int len, long timestampNanos);

    /** {@code length} bytes of the stream are missing for good. */
    void gap(long length);
  }

  /**
   * A buffered out-of-order run, followed by {@code cut} bytes that the capture cut off its packet.
   */
  @SuppressWarnings("ArrayRecordComponent") // a holder of bytes, never compared
  private record Pending(byte[] data, long timestampNanos, int cut) {}

  private final Output out;

  /** Counts the buffered bytes of every stream of a capture. */
  private final long[] sharedBuffered;

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

  /**
   * A reassembler for one direction.
   *
   * @param out where the bytes go
   * @param sharedBuffered a one-element counter of buffered bytes, shared by every stream of the
   *     capture, which this stream keeps up to date
   */
  StreamAssembler(Output out, long[] sharedBuffered) {
    this.out = out;
    this.sharedBuffered = sharedBuffered;
  }

  boolean started() {
    return started;
  }

  /** Fixes the sequence number of the stream's first byte. */
  void start(int seq) {
    started = true;
    nextSeq = seq;
  }

  /** Out-of-order bytes waiting for a hole to fill. */
  long buffered() {
    return pendingBytes;
  }

  /** True if bytes wait behind a hole. */
  boolean hasHole() {
    return !pending.isEmpty();
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
    if (end + missing <= nextOffset) {
      return; // a retransmission of delivered bytes
    }
    if (at < nextOffset) { // overlaps delivered bytes: those stay
      int skip = (int) Math.min(len, nextOffset - at);
      off += skip;
      len -= skip;
      at += skip;
    }
    if (at == nextOffset && pending.isEmpty()) {
      // the common case: in order, nothing waiting
      if (len > 0) {
        deliver(d, off, len, timestampNanos);
      }
      if (missing > 0) {
        skipTo(end + missing);
      }
      return;
    }
    // through the buffer, which keeps any bytes of it that arrived before (first copy wins)
    buffer(at, d, off, len, timestampNanos, (int) Math.min(missing, end + missing - at));
    drain();
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
    ackedEnd = Math.max(ackedEnd, at);
  }

  /** Gives up the first hole as a gap and delivers what becomes contiguous; false if none. */
  boolean giveUpFirstHole() {
    if (pending.isEmpty()) {
      return false;
    }
    skipTo(pending.firstKey());
    return true;
  }

  /** Gives up every remaining hole and the bytes known to be missing at the end. */
  void finish() {
    while (giveUpFirstHole()) {
      // each call delivers the run after the hole
    }
    long end = Math.max(seenEnd, Math.max(ackedEnd, finOffset));
    if (end > nextOffset) {
      skipTo(end);
    }
  }

  /** True if the FIN was captured. */
  boolean finished() {
    return finOffset >= 0;
  }

  /** True if the FIN was captured and every byte before it was handed on or given up. */
  boolean complete() {
    return finOffset >= 0 && nextOffset >= finOffset && pending.isEmpty();
  }

  private long offsetOf(int seq) {
    return nextOffset + (seq - nextSeq);
  }

  private void deliver(byte[] d, int off, int len, long timestampNanos) {
    nextOffset += len;
    nextSeq += len;
    out.data(d, off, len, timestampNanos);
  }

  /** Delivers buffered runs that the next expected byte has reached. */
  private void drain() {
    while (!pending.isEmpty() && pending.firstKey() <= nextOffset) {
      Map.Entry<Long, Pending> first = pending.pollFirstEntry();
      Pending p = first.getValue();
      byte[] data = p.data();
      account(-data.length);
      long skip = nextOffset - first.getKey();
      if (skip < data.length) {
        deliver(data, (int) skip, data.length - (int) skip, p.timestampNanos());
      }
      long cutEnd = first.getKey() + data.length + p.cut();
      if (p.cut() > 0 && cutEnd > nextOffset) {
        skipGap(cutEnd);
      }
    }
  }

  /** Records the bytes up to {@code offset} as a gap, then delivers what becomes contiguous. */
  private void skipTo(long offset) {
    skipGap(offset);
    drain();
  }

  private void skipGap(long offset) {
    long missing = offset - nextOffset;
    if (missing > 0) {
      nextSeq += (int) missing;
      nextOffset = offset;
      out.gap(missing);
    }
  }

  private void account(long n) {
    pendingBytes += n;
    sharedBuffered[0] += n;
  }

  /** Buffers the parts of {@code [at, at + len)} that no buffered run covers yet. */
  private void buffer(long at, byte[] d, int off, int len, long timestampNanos, int cut) {
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
    for (int i = 0; i < pieces.size(); i++) {
      long[] p = pieces.get(i);
      int from = off + (int) (p[0] - at);
      byte[] copy = Arrays.copyOfRange(d, from, from + (int) (p[1] - p[0]));
      boolean last = i == pieces.size() - 1 && p[1] == end;
      pending.put(p[0], new Pending(copy, timestampNanos, last ? cut : 0));
      account(copy.length);
    }
    if (cut > 0 && (pieces.isEmpty() || pieces.get(pieces.size() - 1)[1] != end)) {
      // the captured bytes were all known already; remember the cut bytes after them
      pending.putIfAbsent(end, new Pending(new byte[0], timestampNanos, cut));
    }
  }
}

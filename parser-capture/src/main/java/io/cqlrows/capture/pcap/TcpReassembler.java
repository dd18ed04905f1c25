package io.cqlrows.capture.pcap;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns captured packets into TCP connections with their two byte streams reassembled.
 *
 * <pre>{@code
 * for (TcpConnection c : TcpReassembler.reassemble(Path.of("capture.pcap"))) {
 *   byte[] responses = c.serverToClient().bytes();
 *   List<ReplayedResult> results = CaptureReplay.results(responses);
 * }
 * }</pre>
 *
 * <p><b>Decoding.</b> Ethernet (with VLAN tags), Linux SLL and SLL2, BSD NULL and LOOP, and raw IP
 * packets are decoded through IPv4 or IPv6 to TCP; everything else is ignored. Non-first IP
 * fragments are skipped. Each kind of skipped or damaged packet is noted once in {@link
 * #warnings()}.
 *
 * <p><b>Connections</b> are told apart by their address/port pairs, and a new SYN on the same pair
 * after the first starts a new connection. {@link #finish()} lists them in the order they started
 * (the capture time of their first packet; ties in file order). The SYN sender is the client.
 * Without a captured handshake the connection is {@linkplain TcpConnection#startedMidStream()
 * started mid-stream}, each stream starts at its first captured byte, and the server is guessed:
 * the side on the server port given here, else on 9042 or 9142, else the side with the lower port,
 * else the receiver of the first payload byte.
 *
 * <p><b>Streams</b> are reassembled as {@link TcpFlows} does it: by sequence number with 32-bit
 * wraparound, whatever the order of the segments in the file; retransmitted bytes are dropped, and
 * where segments overlap the bytes received first are kept. Out-of-order segments are buffered (at
 * most {@code maxBufferedBytes} per direction) until the hole before them fills; a hole becomes a
 * {@link TcpStream.Gap} when the buffer limit is reached or the capture ends. Checksums are not
 * verified (captures on the sending host carry unfinished ones).
 *
 * <p><b>Memory.</b> Packets are not kept, but every reassembled stream is, so memory grows with the
 * capture. For large captures use {@link TcpFlows}, which hands the bytes on instead.
 *
 * <p>Not thread-safe: one reassembler per capture, fed from one thread.
 */
public final class TcpReassembler {
  /** Default limit on out-of-order bytes buffered per direction: 64 MiB. */
  public static final long DEFAULT_MAX_BUFFERED_BYTES = 64L << 20;

  private final TcpFlows flows;

  /** Every connection, once closed. */
  private final List<TcpConnection> connections = new ArrayList<>();

  /** The streams of each connection while it is open. */
  private final Map<Long, Collected> collecting = new HashMap<>();

  private boolean finished;

  /** A reassembler that guesses the server side when a handshake is missing. */
  public TcpReassembler() {
    this(0, DEFAULT_MAX_BUFFERED_BYTES);
  }

  /**
   * A reassembler with a known server port and a buffer limit.
   *
   * @param serverPort the server's port, used when a connection's handshake was not captured; 0 to
   *     guess
   * @param maxBufferedBytes out-of-order bytes buffered per direction before the first hole is
   *     given up as a gap
   */
  public TcpReassembler(int serverPort, long maxBufferedBytes) {
    if (maxBufferedBytes < 0) {
      throw new IllegalArgumentException(
          "maxBufferedBytes: " + maxBufferedBytes + " (expected: >= 0)");
    }
    this.flows =
        new TcpFlows(
            serverPort,
            new TcpFlows.Limits(Integer.MAX_VALUE, maxBufferedBytes, Long.MAX_VALUE),
            new Collector());
  }

  /** Reads a whole capture file and reassembles its connections. */
  public static List<TcpConnection> reassemble(Path file) throws IOException {
    try (PcapReader reader = PcapReader.open(file)) {
      return reassemble(reader);
    }
  }

  /**
   * Reads a whole capture from a stream, which is closed, and reassembles its connections.
   *
   * @throws PcapFormatException if the file is malformed anywhere. To keep the connections of a
   *     file cut short, feed {@link #add} from a {@link PcapReader} and call {@link #finish} after
   *     catching the exception.
   */
  public static List<TcpConnection> reassemble(InputStream in) throws IOException {
    try (PcapReader reader = new PcapReader(in)) {
      return reassemble(reader);
    }
  }

  private static List<TcpConnection> reassemble(PcapReader reader) throws IOException {
    TcpReassembler reassembler = new TcpReassembler();
    for (PcapPacket p; (p = reader.next()) != null; ) {
      reassembler.add(p);
    }
    return reassembler.finish();
  }

  /**
   * Adds the next packet of the capture. Packets that are not TCP are ignored.
   *
   * @param packet borrowed: only copies of its payload bytes are kept
   * @throws IllegalStateException after {@link #finish}
   */
  public void add(PcapPacket packet) {
    if (finished) {
      throw new IllegalStateException("finish() was called");
    }
    flows.add(packet);
  }

  /**
   * Ends the capture: gives up the remaining holes as gaps and returns the connections in the order
   * they started (the capture time of their first packet; ties in file order). Call once.
   */
  public List<TcpConnection> finish() {
    if (finished) {
      throw new IllegalStateException("finish() was called");
    }
    finished = true;
    flows.finish();
    List<TcpConnection> out = new ArrayList<>(connections);
    out.sort(Comparator.comparingLong(TcpConnection::startNanos)); // stable: ties in file order
    connections.clear();
    return List.copyOf(out);
  }

  /**
   * Notes about packets that were skipped or damaged (link types not decoded, fragments, cut
   * headers, snapshot-length truncation), each kind once, in the order first seen.
   */
  public List<String> warnings() {
    return flows.warnings();
  }

  /** One direction as it is collected. */
  private static final class Direction {
    final ByteStore store = new ByteStore();
    long[] chunkOffsets = new long[8];
    long[] chunkTimes = new long[8];
    int chunks;
    final List<TcpStream.Gap> gaps = new ArrayList<>();

    void data(byte[] d, int off, int len, long timestampNanos) {
      if (chunks == chunkOffsets.length) {
        chunkOffsets = Arrays.copyOf(chunkOffsets, chunks * 2);
        chunkTimes = Arrays.copyOf(chunkTimes, chunks * 2);
      }
      chunkOffsets[chunks] = store.length();
      chunkTimes[chunks++] = timestampNanos;
      store.append(d, off, len);
    }

    void gap(long length) {
      int last = gaps.size() - 1;
      if (last >= 0 && gaps.get(last).offset() == store.length()) { // adjacent: one gap
        length += gaps.remove(last).length();
      }
      gaps.add(new TcpStream.Gap(store.length(), length));
    }

    TcpStream finish(boolean fin) {
      store.trim();
      return new TcpStream(
          store, Arrays.copyOf(chunkOffsets, chunks), Arrays.copyOf(chunkTimes, chunks), gaps, fin);
    }
  }

  /** Both directions of a connection. */
  private static final class Collected {
    final Direction fromClient = new Direction();
    final Direction fromServer = new Direction();
  }

  /** Collects every connection's streams. */
  private final class Collector implements TcpFlows.Listener {
    private Collected of(TcpFlow flow) {
      return collecting.computeIfAbsent(flow.id(), id -> new Collected());
    }

    @Override
    public void onData(
        TcpFlow flow, boolean fromClient, byte[] data, int offset, int length, long timestamp) {
      Collected c = of(flow);
      (fromClient ? c.fromClient : c.fromServer).data(data, offset, length, timestamp);
    }

    @Override
    public void onGap(TcpFlow flow, boolean fromClient, long length) {
      Collected c = of(flow);
      (fromClient ? c.fromClient : c.fromServer).gap(length);
    }

    @Override
    public void onClose(TcpFlow flow) {
      Collected c = collecting.remove(flow.id());
      if (c == null) {
        c = new Collected();
      }
      connections.add(
          new TcpConnection(
              flow,
              c.fromClient.finish(flow.clientFinished()),
              c.fromServer.finish(flow.serverFinished())));
    }
  }
}

package io.cqlrows.capture.pcap;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

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
 * <p><b>Streams</b> are reassembled by sequence number with 32-bit wraparound. Retransmitted bytes
 * are dropped; where segments overlap, the bytes received first are kept. Out-of-order segments are
 * buffered (at most {@code maxBufferedBytes} per direction) until the hole before them fills. A
 * hole becomes a {@link TcpStream.Gap} and is skipped when it can never fill: the peer acknowledged
 * bytes beyond it, the buffer limit was reached, or the capture ended. Checksums are not verified
 * (captures on the sending host carry unfinished ones).
 *
 * <p><b>Memory.</b> Packets are not kept; the reassembled streams and the out-of-order buffers are.
 *
 * <p>Not thread-safe: one reassembler per capture, fed from one thread.
 */
public final class TcpReassembler {
  /** Default limit on out-of-order bytes buffered per direction: 64 MiB. */
  public static final long DEFAULT_MAX_BUFFERED_BYTES = 64L << 20;

  /** One direction's address pair. */
  private record Flow(InetSocketAddress source, InetSocketAddress destination) {}

  /** The server port given, or 0 to guess. */
  private final int serverPort;

  private final long maxBufferedBytes;
  private final Set<String> warnings = new LinkedHashSet<>();
  private final PacketDecoder decoder = new PacketDecoder(warnings);

  /** The current connection of each address pair, under both directions. */
  private final Map<Flow, ConnectionTracker> current = new HashMap<>();

  /** Every connection, in order of their first packet in the file. */
  private final List<ConnectionTracker> all = new ArrayList<>();

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
    if (serverPort < 0 || serverPort > 65535) {
      throw new IllegalArgumentException("serverPort: " + serverPort + " (expected: 0-65535)");
    }
    if (maxBufferedBytes < 0) {
      throw new IllegalArgumentException(
          "maxBufferedBytes: " + maxBufferedBytes + " (expected: >= 0)");
    }
    this.serverPort = serverPort;
    this.maxBufferedBytes = maxBufferedBytes;
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
    TcpSegment s = decoder.decode(packet);
    if (s == null) {
      return;
    }
    Flow flow = new Flow(s.source(), s.destination());
    ConnectionTracker c = current.get(flow);
    if (c == null || c.isNewConnection(s)) {
      c = new ConnectionTracker(s, packet.timestampNanos(), maxBufferedBytes);
      current.put(flow, c);
      current.put(new Flow(s.destination(), s.source()), c);
      all.add(c);
    }
    c.accept(s, packet.timestampNanos());
  }

  /**
   * Ends the capture: gives up the remaining holes as gaps and returns the connections in the order
   * they started. Call once.
   */
  public List<TcpConnection> finish() {
    if (finished) {
      throw new IllegalStateException("finish() was called");
    }
    finished = true;
    List<ConnectionTracker> byStart = new ArrayList<>(all);
    byStart.sort(Comparator.comparingLong(c -> c.startNanos)); // stable: ties in file order
    List<TcpConnection> out = new ArrayList<>(byStart.size());
    for (ConnectionTracker c : byStart) {
      out.add(c.finish(serverPort));
    }
    current.clear();
    all.clear();
    return List.copyOf(out);
  }

  /**
   * Notes about packets that were skipped or damaged (link types not decoded, fragments, cut
   * headers, snapshot-length truncation), each kind once, in the order first seen.
   */
  public List<String> warnings() {
    return List.copyOf(warnings);
  }
}

package io.cqlrows.capture.pcap;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Reassembles the TCP connections of a capture as its packets are read, and hands each connection's
 * two byte streams to a {@link Listener} in order, as they become contiguous. Nothing of a packet
 * is kept once it is handled, except bytes that wait for a hole before them to fill, so memory does
 * not grow with the capture: it is bounded by {@link Limits}.
 *
 * <pre>{@code
 * TcpFlows flows = new TcpFlows(0, TcpFlows.Limits.DEFAULT, listener);
 * try (PcapReader reader = PcapReader.open(file)) {
 *   for (PcapPacket p; (p = reader.next()) != null; ) {
 *     flows.add(p);
 *   }
 * }
 * flows.finish();
 * }</pre>
 *
 * <p><b>Decoding.</b> Ethernet (with VLAN tags), Linux SLL and SLL2, BSD NULL and LOOP, and raw IP
 * packets are decoded through IPv4 or IPv6 to TCP; everything else is ignored. Non-first IP
 * fragments are skipped. Each kind of skipped or damaged packet is noted once in {@link
 * #warnings()}.
 *
 * <p><b>Connections</b> are told apart by their address/port pairs, and a new SYN on the same pair
 * starts a new connection. The SYN sender is the client. Without a captured handshake the
 * connection {@linkplain TcpFlow#startedMidStream() started mid-stream}, each stream starts at its
 * first captured byte, and the server is guessed when the first payload byte arrives: the side on
 * the server port given here, else on 9042 or 9142, else the side with the lower port, else the
 * receiver of that first byte. A connection ends when both FINs are captured and no hole is left,
 * at a RST, when it is closed early to stay within {@link Limits#maxOpenConnections}, or at {@link
 * #finish}; packets of a connection that ended are ignored, unless a new SYN starts another.
 *
 * <p><b>Reassembly.</b> Streams are reassembled by sequence number with 32-bit wraparound, whatever
 * the order of the segments in the file. Retransmitted bytes are dropped; where segments overlap,
 * the bytes received first are kept (Wireshark's default). Segments after a hole wait until it
 * fills, even if the peer acknowledged the missing bytes (captures merged from several interfaces
 * show acknowledgments before the data). The server's bytes also wait while the client's stream has
 * a hole, so that a response is handed on after its request. A hole is given up, and reported once
 * with {@link Listener#onGap}, when a buffer limit is reached or the connection ends; bytes cut off
 * by the capture's snapshot length are a gap at once. Checksums are not verified: captures on the
 * sending host carry unfinished ones.
 *
 * <p><b>Memory</b> is bounded by the limits, whatever the capture's size: at most {@link
 * Limits#maxBufferedBytes} bytes wait for holes in all connections together, each direction at most
 * {@link Limits#maxBufferedBytesPerDirection}, and at most {@link Limits#maxOpenConnections}
 * connections are open, each with a few hundred bytes of state; another {@value #MAX_ENDED} ended
 * connections are remembered so that their late packets are recognised.
 *
 * <p>Not thread-safe: one instance per capture, fed from one thread; the listener is called on that
 * thread, during {@link #add} and {@link #finish}.
 */
public final class TcpFlows {
  /** Ended connections remembered so that their late packets do not start new ones. */
  static final int MAX_ENDED = 1 << 16;

  /**
   * Receives the byte streams of a capture's TCP connections. Every connection that the listener
   * hears of is closed exactly once, at the latest during {@link #finish}.
   */
  public interface Listener {
    /**
     * The next bytes of one direction of a connection, in stream order.
     *
     * @param flow the connection
     * @param fromClient whether the client sent them
     * @param data borrowed: {@code data[offset, offset + length)} is valid only during this call
     * @param timestampNanos capture time of the packet that carried them, in nanoseconds since the
     *     epoch (0 for packets without a time)
     */
    void onData(
        TcpFlow flow, boolean fromClient, byte[] data, int offset, int length, long timestampNanos);

    /** {@code length} bytes of one direction are missing from the capture for good. */
    default void onGap(TcpFlow flow, boolean fromClient, long length) {}

    /** The connection ended; it gets no more calls. */
    default void onClose(TcpFlow flow) {}

    /** Something the user should know about a connection: a limit that cut its reassembly. */
    default void onNote(TcpFlow flow, String note) {}
  }

  /**
   * Bounds on what reassembly keeps.
   *
   * @param maxOpenConnections connections open at once; the least recently active one is closed
   *     early (its holes given up, with a note) to open another
   * @param maxBufferedBytesPerDirection bytes one direction keeps behind a hole before the hole is
   *     given up
   * @param maxBufferedBytes bytes all connections together keep behind holes; over it, the first
   *     hole of the connection that keeps the most is given up
   */
  public record Limits(
      int maxOpenConnections, long maxBufferedBytesPerDirection, long maxBufferedBytes) {
    /** 10,000 connections, 4 MiB per direction, 32 MiB in all. */
    public static final Limits DEFAULT = new Limits(10_000, 4L << 20, 32L << 20);

    /** Checks the bounds. */
    public Limits {
      if (maxOpenConnections < 1) {
        throw new IllegalArgumentException(
            "maxOpenConnections: " + maxOpenConnections + " (expected: >= 1)");
      }
      if (maxBufferedBytesPerDirection < 0 || maxBufferedBytes < 0) {
        throw new IllegalArgumentException(
            "buffer limits: "
                + maxBufferedBytesPerDirection
                + ", "
                + maxBufferedBytes
                + " (expected: >= 0)");
      }
    }
  }

  /** One direction's address pair. */
  private record Pair(InetSocketAddress source, InetSocketAddress destination) {}

  private final int serverPort;
  private final Limits limits;
  private final Listener listener;
  private final Set<String> warnings = new LinkedHashSet<>();
  private final PacketDecoder decoder = new PacketDecoder(warnings);

  /** The current connection of each address pair, under both directions. */
  private final Map<Pair, ConnectionTracker> current = new HashMap<>();

  /** Open connections by id, least recently active first. */
  private final LinkedHashMap<Long, ConnectionTracker> open = new LinkedHashMap<>(16, 0.75f, true);

  /** Ended connections still in {@link #current}, oldest first. */
  private final LinkedHashMap<Long, ConnectionTracker> ended = new LinkedHashMap<>();

  /** Bytes kept behind holes by all connections. */
  private final long[] buffered = new long[1];

  private long nextId;
  private boolean finished;

  /**
   * Reassembly into a listener.
   *
   * @param serverPort the server's port, used when a connection's handshake was not captured; 0 to
   *     guess
   * @param limits the bounds on what is kept
   * @param listener receives the streams
   */
  public TcpFlows(int serverPort, Limits limits, Listener listener) {
    if (serverPort < 0 || serverPort > 65535) {
      throw new IllegalArgumentException("serverPort: " + serverPort + " (expected: 0-65535)");
    }
    this.serverPort = serverPort;
    this.limits = Objects.requireNonNull(limits, "limits");
    this.listener = Objects.requireNonNull(listener, "listener");
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
    Pair pair = new Pair(s.source(), s.destination());
    ConnectionTracker c = current.get(pair);
    if (c == null || c.isNewConnection(s)) {
      if (c != null && !c.closed()) {
        open.remove(c.id);
        c.close(); // ports reused: the old connection ends here
      }
      c =
          new ConnectionTracker(
              nextId++,
              s,
              packet.timestampNanos(),
              listener,
              serverPort,
              limits.maxBufferedBytesPerDirection(),
              buffered);
      current.put(pair, c);
      current.put(new Pair(s.destination(), s.source()), c);
      open.put(c.id, c);
      while (open.size() > limits.maxOpenConnections()) {
        closeEarly(open.values().iterator().next());
      }
    } else if (!c.closed()) {
      open.get(c.id); // most recently active now
    }
    c.accept(s, packet.timestampNanos());
    if (c.closed() && open.remove(c.id) != null) {
      remember(c);
    }
    while (buffered[0] > limits.maxBufferedBytes()) {
      if (!shrinkLargest()) {
        break;
      }
    }
  }

  private void closeEarly(ConnectionTracker c) {
    open.remove(c.id);
    c.close();
    warnings.add(
        "more than "
            + limits.maxOpenConnections()
            + " connections were open at once: the least recently active ones were closed early");
    remember(c);
  }

  /** Keeps an ended connection in {@link #current}, within {@link #MAX_ENDED}. */
  private void remember(ConnectionTracker c) {
    ended.put(c.id, c);
    if (ended.size() > MAX_ENDED) {
      Iterator<ConnectionTracker> eldest = ended.values().iterator();
      ConnectionTracker e = eldest.next();
      eldest.remove();
      current.remove(new Pair(e.first, e.second), e);
      current.remove(new Pair(e.second, e.first), e);
    }
  }

  private boolean shrinkLargest() {
    ConnectionTracker largest = null;
    for (ConnectionTracker c : open.values()) {
      if (largest == null || c.buffered() > largest.buffered()) {
        largest = c;
      }
    }
    return largest != null && largest.shrink();
  }

  /** Ends the capture: closes every open connection, in the order they started. Call once. */
  public void finish() {
    if (finished) {
      throw new IllegalStateException("finish() was called");
    }
    finished = true;
    List<ConnectionTracker> left = new ArrayList<>(open.values());
    left.sort((a, b) -> Long.compare(a.id, b.id));
    open.clear();
    for (ConnectionTracker c : left) {
      c.close();
    }
    current.clear();
    ended.clear();
  }

  /** Bytes kept behind holes now, by all connections. */
  public long bufferedBytes() {
    return buffered[0];
  }

  /**
   * Notes about packets that were skipped or damaged (link types not decoded, fragments, cut
   * headers, snapshot-length truncation) and limits reached, each kind once, in the order first
   * seen.
   */
  public List<String> warnings() {
    return List.copyOf(warnings);
  }
}

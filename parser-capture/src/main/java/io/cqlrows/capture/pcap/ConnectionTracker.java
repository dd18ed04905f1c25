package io.cqlrows.capture.pcap;

import java.net.InetSocketAddress;

/**
 * The state of one connection while its packets arrive: which side is which, and one {@link
 * StreamAssembler} per direction. Sides are named by the packets: "first" sent the connection's
 * first captured packet.
 *
 * <p>Not thread-safe.
 */
final class ConnectionTracker {
  /** CQL native transport ports: plain, and the usual TLS one. */
  private static final int[] WELL_KNOWN_SERVER_PORTS = {9042, 9142};

  /** Sender of the first captured packet. */
  final InetSocketAddress first;

  /** Its peer. */
  final InetSocketAddress second;

  /** Capture time of the first packet. */
  final long startNanos;

  private final StreamAssembler fromFirst;
  private final StreamAssembler fromSecond;
  private final boolean startedMidStream;

  /** True if the first side is the client, per a SYN or SYN-ACK; null until one is seen. */
  private Boolean firstIsClient;

  /** True if the first side sent the first payload byte; null until a payload is seen. */
  private Boolean firstSentData;

  /** The client's initial sequence number, once a SYN was seen. */
  private Integer clientIsn;

  private boolean reset;

  ConnectionTracker(TcpSegment s, long timestampNanos, long maxBuffered) {
    this.first = s.source();
    this.second = s.destination();
    this.startNanos = timestampNanos;
    this.fromFirst = new StreamAssembler(maxBuffered);
    this.fromSecond = new StreamAssembler(maxBuffered);
    this.startedMidStream = !s.has(TcpSegment.SYN);
  }

  /** True if {@code s} is the SYN of a new connection on the same ports (ports reused). */
  boolean isNewConnection(TcpSegment s) {
    return s.has(TcpSegment.SYN)
        && !s.has(TcpSegment.ACK)
        && (clientIsn == null || clientIsn != s.seq());
  }

  void accept(TcpSegment s, long timestampNanos) {
    boolean byFirst = s.source().equals(first);
    StreamAssembler out = byFirst ? fromFirst : fromSecond;
    StreamAssembler peer = byFirst ? fromSecond : fromFirst;
    if (s.has(TcpSegment.SYN)) {
      syn(s, byFirst, out, peer);
    }
    if (s.has(TcpSegment.RST)) {
      reset = true; // a RST's payload is a diagnostic, not stream data
      return;
    }
    int dataSeq = s.seq() + (s.has(TcpSegment.SYN) ? 1 : 0);
    int captured = s.payloadLength();
    if (captured > 0 || s.missingLength() > 0) {
      if (firstSentData == null) {
        firstSentData = byFirst;
      }
      out.segment(
          dataSeq, s.packet(), s.payloadOffset(), captured, s.missingLength(), timestampNanos);
    }
    if (s.has(TcpSegment.FIN)) {
      out.fin(dataSeq + captured + s.missingLength());
    }
    if (s.has(TcpSegment.ACK)) {
      peer.acked(s.ack());
    }
  }

  private void syn(TcpSegment s, boolean byFirst, StreamAssembler out, StreamAssembler peer) {
    boolean synAck = s.has(TcpSegment.ACK);
    if (firstIsClient == null) {
      firstIsClient = synAck != byFirst; // the SYN sender is the client, the SYN-ACK's is not
    }
    if (!synAck) {
      clientIsn = s.seq();
    }
    if (!out.started()) {
      out.start(s.seq() + 1);
    }
    if (synAck && !peer.started()) {
      peer.start(s.ack());
    }
  }

  /** Gives up the remaining holes and names the sides. */
  TcpConnection finish(int serverPort) {
    boolean firstClient = firstIsClient != null ? firstIsClient : guessFirstIsClient(serverPort);
    TcpStream a = fromFirst.finish();
    TcpStream b = fromSecond.finish();
    boolean closed = reset || (a.finished() && b.finished());
    return firstClient
        ? new TcpConnection(first, second, startNanos, a, b, startedMidStream, closed)
        : new TcpConnection(second, first, startNanos, b, a, startedMidStream, closed);
  }

  /**
   * Without a handshake: the side on the given server port is the server; else the side on a
   * well-known CQL port; else the side with the lower port (clients use ephemeral high ports); with
   * equal ports, the side that sent the first payload byte is the client (CQL clients speak first),
   * and failing that the sender of the first packet.
   */
  private boolean guessFirstIsClient(int serverPort) {
    int p1 = first.getPort();
    int p2 = second.getPort();
    if (serverPort > 0 && (p1 == serverPort) != (p2 == serverPort)) {
      return p2 == serverPort;
    }
    for (int known : WELL_KNOWN_SERVER_PORTS) {
      if ((p1 == known) != (p2 == known)) {
        return p2 == known;
      }
    }
    if (p1 != p2) {
      return p1 > p2;
    }
    return firstSentData == null || firstSentData;
  }
}

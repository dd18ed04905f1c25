package io.cqlrows.capture.pcap;

import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.Arrays;

/**
 * The state of one connection while its packets arrive: which side is which, one {@link
 * StreamAssembler} per direction, and the server's bytes that wait for a hole in the client's
 * stream to fill. Sides are named by the packets until the client is known: "first" sent the
 * connection's first captured packet.
 *
 * <p>The server's bytes wait while the client's stream has a hole, so that a response is never
 * handed on before the request it answers when the capture has the request's segments out of order.
 * The waiting bytes count towards the client direction's buffer limit.
 *
 * <p>Not thread-safe.
 */
final class ConnectionTracker {
  /** CQL native transport ports: plain, and the usual TLS one. */
  private static final int[] WELL_KNOWN_SERVER_PORTS = {9042, 9142};

  /** Server bytes, or a server gap when {@code data} is null, waiting for the client's hole. */
  @SuppressWarnings("ArrayRecordComponent") // a holder of bytes, never compared
  private record Held(byte[] data, long timestampNanos, long gap) {}

  final long id;

  /** Sender of the first captured packet. */
  final InetSocketAddress first;

  /** Its peer. */
  final InetSocketAddress second;

  /** Capture time of the first packet. */
  final long startNanos;

  private final TcpFlows.Listener listener;
  private final int serverPort;
  private final long maxPerDirection;
  private final long[] sharedBuffered;
  private final StreamAssembler fromFirst;
  private final StreamAssembler fromSecond;
  private final boolean startedMidStream;

  /** True if the first side is the client, per a SYN or SYN-ACK; null until one is seen. */
  private Boolean firstIsClient;

  /** The client's initial sequence number, once a SYN was seen. */
  private Integer clientIsn;

  /** Known once the sides are; null before. */
  private TcpFlow flow;

  private final ArrayDeque<Held> held = new ArrayDeque<>();
  private long heldBytes;
  private boolean reset;
  private boolean closed;

  ConnectionTracker(
      long id,
      TcpSegment s,
      long timestampNanos,
      TcpFlows.Listener listener,
      int serverPort,
      long maxPerDirection,
      long[] sharedBuffered) {
    this.id = id;
    this.first = s.source();
    this.second = s.destination();
    this.startNanos = timestampNanos;
    this.listener = listener;
    this.serverPort = serverPort;
    this.maxPerDirection = maxPerDirection;
    this.sharedBuffered = sharedBuffered;
    this.fromFirst = new StreamAssembler(output(true), sharedBuffered);
    this.fromSecond = new StreamAssembler(output(false), sharedBuffered);
    this.startedMidStream = !s.has(TcpSegment.SYN);
  }

  private StreamAssembler.Output output(boolean byFirst) {
    return new StreamAssembler.Output() {
      @Override
      public void data(byte[] d, int off, int len, long timestampNanos) {
        deliver(byFirst, d, off, len, timestampNanos, 0);
      }

      @Override
      public void gap(long length) {
        deliver(byFirst, null, 0, 0, 0, length);
      }
    };
  }

  /** True if {@code s} is the SYN of a new connection on the same ports (ports reused). */
  boolean isNewConnection(TcpSegment s) {
    return s.has(TcpSegment.SYN)
        && !s.has(TcpSegment.ACK)
        && (clientIsn == null || clientIsn != s.seq());
  }

  boolean closed() {
    return closed;
  }

  /** Bytes held for holes: out-of-order bytes of both directions and waiting server bytes. */
  long buffered() {
    return fromFirst.buffered() + fromSecond.buffered() + heldBytes;
  }

  void accept(TcpSegment s, long timestampNanos) {
    if (closed) {
      return; // a late packet of a connection that ended
    }
    boolean byFirst = s.source().equals(first);
    StreamAssembler out = byFirst ? fromFirst : fromSecond;
    StreamAssembler peer = byFirst ? fromSecond : fromFirst;
    if (s.has(TcpSegment.SYN)) {
      syn(s, byFirst, out, peer);
    }
    if (s.has(TcpSegment.RST)) {
      reset = true; // a RST's payload is a diagnostic, not stream data
      close();
      return;
    }
    int dataSeq = s.seq() + (s.has(TcpSegment.SYN) ? 1 : 0);
    int captured = s.payloadLength();
    if (captured > 0 || s.missingLength() > 0) {
      decideSides(byFirst);
      out.segment(
          dataSeq, s.packet(), s.payloadOffset(), captured, s.missingLength(), timestampNanos);
    }
    if (s.has(TcpSegment.FIN)) {
      out.fin(dataSeq + captured + s.missingLength());
    }
    if (s.has(TcpSegment.ACK)) {
      peer.acked(s.ack());
    }
    enforceLimit();
    if (fromFirst.complete() && fromSecond.complete()) {
      close();
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

  /** Keeps each direction within its buffer limit by giving up its first holes. */
  private void enforceLimit() {
    if (flow == null) {
      return;
    }
    StreamAssembler client = firstIsClient ? fromFirst : fromSecond;
    StreamAssembler server = firstIsClient ? fromSecond : fromFirst;
    while (server.buffered() > maxPerDirection) {
      overLimit(false, server);
    }
    while (client.buffered() + heldBytes > maxPerDirection && client.hasHole()) {
      overLimit(true, client);
    }
    releaseHeld();
  }

  private void overLimit(boolean fromClient, StreamAssembler stream) {
    listener.onNote(
        flow,
        (fromClient ? "client" : "server")
            + " bytes after a hole reached the buffer limit of "
            + maxPerDirection
            + " bytes: the hole is given up");
    stream.giveUpFirstHole();
  }

  /** Gives up the first hole of the direction that holds more; false if nothing is held. */
  boolean shrink() {
    StreamAssembler bigger = fromFirst.buffered() >= fromSecond.buffered() ? fromFirst : fromSecond;
    StreamAssembler client = flow == null || firstIsClient ? fromFirst : fromSecond;
    if (heldBytes > 0 && client.hasHole()) {
      bigger = client;
    }
    if (!bigger.hasHole()) {
      return false;
    }
    if (flow != null) {
      listener.onNote(
          flow,
          "the capture's bytes after holes reached the buffer limit for all connections: a hole"
              + " is given up");
    }
    bigger.giveUpFirstHole();
    releaseHeld();
    return true;
  }

  /** Ends the connection: gives up the remaining holes and tells the listener. Idempotent. */
  void close() {
    if (closed) {
      return;
    }
    closed = true;
    decideSides(null);
    StreamAssembler client = firstIsClient ? fromFirst : fromSecond;
    StreamAssembler server = firstIsClient ? fromSecond : fromFirst;
    client.finish();
    releaseHeld();
    server.finish();
    flow.clientFinished = client.finished();
    flow.serverFinished = server.finished();
    flow.reset = reset;
    listener.onClose(flow);
  }

  private void deliver(
      boolean byFirst, byte[] d, int off, int len, long timestampNanos, long gapLength) {
    boolean fromClient = byFirst == firstIsClient;
    if (!fromClient && (!held.isEmpty() || (firstIsClient ? fromFirst : fromSecond).hasHole())) {
      byte[] copy = d == null ? null : Arrays.copyOfRange(d, off, off + len);
      held.add(new Held(copy, timestampNanos, gapLength));
      heldBytes += len;
      sharedBuffered[0] += len;
      return;
    }
    if (d == null) {
      listener.onGap(flow, fromClient, gapLength);
    } else {
      listener.onData(flow, fromClient, d, off, len, timestampNanos);
    }
  }

  /** Hands on the server bytes that waited, once the client's stream has no hole. */
  private void releaseHeld() {
    if (held.isEmpty() || (firstIsClient ? fromFirst : fromSecond).hasHole()) {
      return;
    }
    while (!held.isEmpty()) {
      Held h = held.poll();
      if (h.data() == null) {
        listener.onGap(flow, false, h.gap());
      } else {
        heldBytes -= h.data().length;
        sharedBuffered[0] -= h.data().length;
        listener.onData(flow, false, h.data(), 0, h.data().length, h.timestampNanos());
      }
    }
  }

  /**
   * Fixes which side is the client, before the first byte is handed on. Without a handshake: the
   * side on the given server port is the server; else the side on a well-known CQL port; else the
   * side with the lower port (clients use ephemeral high ports); with equal ports, the side that
   * sent the first payload byte is the client (CQL clients speak first), and failing that the
   * sender of the first packet.
   *
   * @param firstSentData whether the first side sent the payload being handled, or null
   */
  private void decideSides(Boolean firstSentData) {
    if (flow != null) {
      return;
    }
    if (firstIsClient == null) {
      firstIsClient = guessFirstIsClient(firstSentData);
    }
    flow =
        firstIsClient
            ? new TcpFlow(id, first, second, startNanos, startedMidStream)
            : new TcpFlow(id, second, first, startNanos, startedMidStream);
  }

  private boolean guessFirstIsClient(Boolean firstSentData) {
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

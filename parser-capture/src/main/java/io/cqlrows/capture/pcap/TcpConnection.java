package io.cqlrows.capture.pcap;

import java.net.InetSocketAddress;

/**
 * One TCP connection found in a capture, with both byte streams reassembled by {@link
 * TcpReassembler}.
 *
 * <p>The client is the side that sent the SYN (or received the SYN-ACK). For a connection whose
 * handshake was not captured ({@link #startedMidStream()}), the client is guessed from the ports:
 * see {@link TcpReassembler}.
 *
 * <p>Immutable.
 */
public final class TcpConnection {
  private final TcpFlow flow;
  private final TcpStream clientToServer;
  private final TcpStream serverToClient;

  TcpConnection(TcpFlow flow, TcpStream clientToServer, TcpStream serverToClient) {
    this.flow = flow;
    this.clientToServer = clientToServer;
    this.serverToClient = serverToClient;
  }

  /** The client's address and port. */
  public InetSocketAddress client() {
    return flow.client();
  }

  /** The server's address and port. */
  public InetSocketAddress server() {
    return flow.server();
  }

  /** Capture time of the connection's first packet, in nanoseconds since the epoch. */
  public long startNanos() {
    return flow.startNanos();
  }

  /** The bytes the client sent (requests, for CQL). */
  public TcpStream clientToServer() {
    return clientToServer;
  }

  /** The bytes the server sent (responses and events, for CQL). */
  public TcpStream serverToClient() {
    return serverToClient;
  }

  /**
   * True if the connection's first captured packet was not a SYN or SYN-ACK: each stream starts at
   * its first captured byte, which may be inside a frame, and the client was guessed.
   */
  public boolean startedMidStream() {
    return flow.startedMidStream();
  }

  /** True if both sides' FINs, or a RST, were captured. */
  public boolean closed() {
    return flow.reset() || (flow.clientFinished() && flow.serverFinished());
  }

  /** {@code client -> server}, with IPv6 addresses in brackets. */
  public String label() {
    return flow.label();
  }

  /** True if either stream has a gap. */
  public boolean hasGaps() {
    return !clientToServer.gaps().isEmpty() || !serverToClient.gaps().isEmpty();
  }

  @Override
  public String toString() {
    return "TcpConnection{"
        + label()
        + ", c2s="
        + clientToServer.length()
        + " bytes, s2c="
        + serverToClient.length()
        + " bytes"
        + (startedMidStream() ? ", started mid-stream" : "")
        + (closed() ? ", closed" : "")
        + (hasGaps() ? ", with gaps" : "")
        + "}";
  }
}

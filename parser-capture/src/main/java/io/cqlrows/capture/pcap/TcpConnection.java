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
  private final InetSocketAddress client;
  private final InetSocketAddress server;

  /** Capture time of the connection's first packet. */
  private final long startNanos;

  private final TcpStream clientToServer;
  private final TcpStream serverToClient;
  private final boolean startedMidStream;
  private final boolean closed;

  TcpConnection(
      InetSocketAddress client,
      InetSocketAddress server,
      long startNanos,
      TcpStream clientToServer,
      TcpStream serverToClient,
      boolean startedMidStream,
      boolean closed) {
    this.client = client;
    this.server = server;
    this.startNanos = startNanos;
    this.clientToServer = clientToServer;
    this.serverToClient = serverToClient;
    this.startedMidStream = startedMidStream;
    this.closed = closed;
  }

  /** The client's address and port. */
  public InetSocketAddress client() {
    return client;
  }

  /** The server's address and port. */
  public InetSocketAddress server() {
    return server;
  }

  /** Capture time of the connection's first packet, in nanoseconds since the epoch. */
  public long startNanos() {
    return startNanos;
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
    return startedMidStream;
  }

  /** True if both sides' FINs, or a RST, were captured. */
  public boolean closed() {
    return closed;
  }

  /** True if either stream has a gap. */
  public boolean hasGaps() {
    return !clientToServer.gaps().isEmpty() || !serverToClient.gaps().isEmpty();
  }

  @Override
  public String toString() {
    return "TcpConnection{"
        + client
        + " -> "
        + server
        + ", c2s="
        + clientToServer.length()
        + " bytes, s2c="
        + serverToClient.length()
        + " bytes"
        + (startedMidStream ? ", started mid-stream" : "")
        + (closed ? ", closed" : "")
        + (hasGaps() ? ", with gaps" : "")
        + "}";
  }
}

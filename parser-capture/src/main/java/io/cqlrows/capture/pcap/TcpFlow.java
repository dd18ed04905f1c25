package io.cqlrows.capture.pcap;

import java.net.InetSocketAddress;

/**
 * One TCP connection of a capture as {@link TcpFlows} streams it: who is client and server, when it
 * started, and how it ended.
 *
 * <p>The client is the side that sent the SYN (or received the SYN-ACK). Without a captured
 * handshake ({@link #startedMidStream()}) it is guessed, before the first byte is handed on: see
 * {@link TcpFlows}. The end state ({@link #clientFinished()}, {@link #serverFinished()}, {@link
 * #reset()}) is final once {@link TcpFlows.Listener#onClose} is called.
 *
 * <p>Read on the thread that feeds the {@link TcpFlows}; not thread-safe.
 */
public final class TcpFlow {
  private final long id;
  private final InetSocketAddress client;
  private final InetSocketAddress server;
  private final long startNanos;
  private final boolean startedMidStream;
  boolean clientFinished;
  boolean serverFinished;
  boolean reset;

  TcpFlow(
      long id,
      InetSocketAddress client,
      InetSocketAddress server,
      long startNanos,
      boolean startedMidStream) {
    this.id = id;
    this.client = client;
    this.server = server;
    this.startNanos = startNanos;
    this.startedMidStream = startedMidStream;
  }

  /** The connection's number in the capture, from 0, in the order of their first packets. */
  public long id() {
    return id;
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

  /**
   * True if the connection's first captured packet was not a SYN or SYN-ACK: each stream starts at
   * its first captured byte, which may be inside a frame, and the client was guessed.
   */
  public boolean startedMidStream() {
    return startedMidStream;
  }

  /** True if the client's FIN was captured. */
  public boolean clientFinished() {
    return clientFinished;
  }

  /** True if the server's FIN was captured. */
  public boolean serverFinished() {
    return serverFinished;
  }

  /** True if a RST was captured. */
  public boolean reset() {
    return reset;
  }

  /** {@code client -> server}, with IPv6 addresses in brackets. */
  public String label() {
    return label(client) + " -> " + label(server);
  }

  private static String label(InetSocketAddress a) {
    String host = a.getAddress() != null ? a.getAddress().getHostAddress() : a.getHostString();
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + a.getPort();
  }

  @Override
  public String toString() {
    return "TcpFlow{#"
        + id
        + " "
        + label()
        + (startedMidStream ? ", started mid-stream" : "")
        + "}";
  }
}

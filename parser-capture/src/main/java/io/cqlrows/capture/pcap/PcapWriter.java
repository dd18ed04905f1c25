package io.cqlrows.capture.pcap;

import java.io.Closeable;
import java.io.Flushable;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Writes one TCP connection as a classic pcap file (microsecond timestamps, little-endian, link
 * type Ethernet) that Wireshark, tshark, tcpdump and {@link PcapReader} read: a three-way
 * handshake, data segments in both directions with consistent sequence and acknowledgment numbers,
 * and a FIN exchange at {@link #close}. IPv4 (with header checksum) or IPv6, and TCP with its
 * pseudo-header checksum; Ethernet MAC addresses are zero, as on Linux loopback.
 *
 * <pre>{@code
 * try (PcapWriter w = PcapWriter.builder(Files.newOutputStream(path)).build()) {
 *   w.writeClientToServer(request, 0, request.length);
 *   w.writeServerToClient(response, 0, response.length);
 * }
 * }</pre>
 *
 * <p>The handshake is written by {@link #writeHandshake} or before the first data. Each write
 * becomes segments of at most the maximum segment size, the last with PSH; every segment
 * acknowledges all the peer's bytes so far. Timestamps come from the builder's {@link Clock}, read
 * once per packet.
 *
 * <p>Ownership: the writer owns the stream and closes it in {@link #close}; data arrays are
 * borrowed for the call. Not thread-safe.
 */
public final class PcapWriter implements Closeable, Flushable {
  /** Server port when none is given: the CQL native transport's. */
  public static final int DEFAULT_SERVER_PORT = 9042;

  /** The largest segment payload: what fits in one IPv4 packet (65535 - 40). */
  public static final int MAX_SEGMENT_SIZE = PacketEncoder.MAX_PAYLOAD;

  private static final int SNAP_LENGTH = 262144;
  private static final int RECORD_HEADER = 16;

  private final OutputStream out;
  private final InetSocketAddress client;
  private final InetSocketAddress server;
  private final Clock clock;
  private final int maxSegmentSize;

  /** Next sequence number of each side. */
  private int clientSeq;

  private int serverSeq;

  /** IPv4 identification of the next packet. */
  private int ipId;

  private boolean open;
  private boolean closed;

  /** One packet record: record header, Ethernet, IP, TCP, payload. */
  private final byte[] packet;

  private PcapWriter(Builder b, InetSocketAddress client) {
    this.out = b.out;
    this.client = client;
    this.server = b.server;
    this.clock = b.clock;
    this.maxSegmentSize = b.maxSegmentSize;
    this.clientSeq = b.clientIsn != null ? b.clientIsn : client.hashCode() * 0x9E3779B9;
    this.serverSeq = b.serverIsn != null ? b.serverIsn : (server.hashCode() ^ clientSeq) * 31;
    this.packet =
        new byte
            [RECORD_HEADER
                + PacketEncoder.ETHERNET_HEADER
                + PacketEncoder.IPV6_HEADER
                + PacketEncoder.TCP_HEADER
                + maxSegmentSize];
  }

  /** A builder writing to {@code out}, which the writer will own. */
  public static Builder builder(OutputStream out) {
    return new Builder(out);
  }

  /** The client's address (the SYN sender). */
  public InetSocketAddress client() {
    return client;
  }

  /** The server's address. */
  public InetSocketAddress server() {
    return server;
  }

  /** Writes the SYN, SYN-ACK, ACK handshake, unless it was written already. */
  public void writeHandshake() throws IOException {
    checkNotClosed();
    if (open) {
      return;
    }
    open = true;
    segment(true, TcpSegment.SYN, null, 0, 0);
    clientSeq++;
    segment(false, TcpSegment.SYN | TcpSegment.ACK, null, 0, 0);
    serverSeq++;
    segment(true, TcpSegment.ACK, null, 0, 0);
  }

  /** Writes bytes the client sent, as one or more segments. */
  public void writeClientToServer(byte[] data, int offset, int length) throws IOException {
    write(true, data, offset, length);
  }

  /** Writes bytes the server sent, as one or more segments. */
  public void writeServerToClient(byte[] data, int offset, int length) throws IOException {
    write(false, data, offset, length);
  }

  /**
   * Advances one side's sequence number over {@code length} bytes it sent that cannot be recorded,
   * so that readers see a missing segment rather than silently joined data.
   */
  void skip(boolean fromClient, long length) throws IOException {
    writeHandshake();
    if (fromClient) {
      clientSeq += (int) length;
    } else {
      serverSeq += (int) length;
    }
  }

  /** Flushes the stream. */
  @Override
  public void flush() throws IOException {
    out.flush();
  }

  /**
   * Writes the FIN exchange (client first) if the handshake was written, then flushes and closes
   * the stream. Idempotent.
   */
  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    try (OutputStream o = out) {
      if (open) {
        segment(true, TcpSegment.FIN | TcpSegment.ACK, null, 0, 0);
        clientSeq++;
        segment(false, TcpSegment.FIN | TcpSegment.ACK, null, 0, 0);
        serverSeq++;
        segment(true, TcpSegment.ACK, null, 0, 0);
      }
      o.flush();
    } finally {
      closed = true;
    }
  }

  private void write(boolean fromClient, byte[] data, int offset, int length) throws IOException {
    Objects.checkFromIndexSize(offset, length, data.length);
    writeHandshake();
    int end = offset + length;
    for (int at = offset; at < end; ) {
      int n = Math.min(maxSegmentSize, end - at);
      int flags = TcpSegment.ACK | (at + n == end ? TcpSegment.PSH : 0);
      segment(fromClient, flags, data, at, n);
      if (fromClient) {
        clientSeq += n;
      } else {
        serverSeq += n;
      }
      at += n;
    }
  }

  /** Writes one packet record; sequence numbers are advanced by the caller. */
  private void segment(boolean fromClient, int flags, byte[] data, int offset, int length)
      throws IOException {
    InetSocketAddress src = fromClient ? client : server;
    InetSocketAddress dst = fromClient ? server : client;
    int seq = fromClient ? clientSeq : serverSeq;
    int ack = (flags & TcpSegment.ACK) == 0 ? 0 : fromClient ? serverSeq : clientSeq;
    boolean ipv6 = !(src.getAddress() instanceof Inet4Address);
    int at = RECORD_HEADER;
    at += PacketEncoder.ethernet(packet, at, ipv6);
    at +=
        PacketEncoder.ipTcp(
            packet,
            at,
            src,
            dst,
            seq,
            ack,
            flags,
            ipId++,
            data == null ? packet : data,
            data == null ? 0 : offset,
            length);
    int captured = at - RECORD_HEADER;
    Instant now = clock.instant();
    putLe32(packet, 0, (int) now.getEpochSecond());
    putLe32(packet, 4, now.getNano() / 1000);
    putLe32(packet, 8, captured);
    putLe32(packet, 12, captured);
    out.write(packet, 0, at);
  }

  private void checkNotClosed() {
    if (closed) {
      throw new IllegalStateException("the writer is closed");
    }
  }

  private static void putLe32(byte[] b, int at, int v) {
    b[at] = (byte) v;
    b[at + 1] = (byte) (v >>> 8);
    b[at + 2] = (byte) (v >>> 16);
    b[at + 3] = (byte) (v >>> 24);
  }

  /** Writes the 24-byte file header. */
  private void writeFileHeader() throws IOException {
    byte[] h = new byte[24];
    putLe32(h, 0, ClassicPcapSource.MAGIC_MICROS);
    h[4] = 2; // version 2.4
    h[6] = 4;
    putLe32(h, 16, SNAP_LENGTH);
    putLe32(h, 20, LinkType.ETHERNET);
    out.write(h);
  }

  /**
   * Options of a {@link PcapWriter}. Defaults: client 127.0.0.1 on a random port from 49152, server
   * 127.0.0.1:{@value PcapWriter#DEFAULT_SERVER_PORT}, the system UTC clock, segments of up to
   * {@link PcapWriter#MAX_SEGMENT_SIZE} bytes. Not thread-safe.
   */
  public static final class Builder {
    private final OutputStream out;
    private InetSocketAddress client;
    private InetSocketAddress server =
        new InetSocketAddress(InetAddress.getLoopbackAddress(), DEFAULT_SERVER_PORT);
    private Clock clock = Clock.systemUTC();
    private int maxSegmentSize = MAX_SEGMENT_SIZE;
    private Integer clientIsn;
    private Integer serverIsn;

    private Builder(OutputStream out) {
      this.out = Objects.requireNonNull(out, "out");
    }

    /** The client's address; a resolved address of the server's IP version. */
    public Builder client(InetSocketAddress client) {
      this.client = resolved(client, "client");
      return this;
    }

    /** The server's address; a resolved address of the client's IP version. */
    public Builder server(InetSocketAddress server) {
      this.server = resolved(server, "server");
      return this;
    }

    /** The clock that timestamps packets, e.g. a fixed one for reproducible files. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** The largest payload per segment, 1 to {@link PcapWriter#MAX_SEGMENT_SIZE}. */
    public Builder maxSegmentSize(int maxSegmentSize) {
      if (maxSegmentSize < 1 || maxSegmentSize > MAX_SEGMENT_SIZE) {
        throw new IllegalArgumentException(
            "maxSegmentSize: " + maxSegmentSize + " (expected: 1-" + MAX_SEGMENT_SIZE + ")");
      }
      this.maxSegmentSize = maxSegmentSize;
      return this;
    }

    /** Initial sequence numbers (of the SYNs); derived from the addresses by default. */
    Builder initialSequenceNumbers(int client, int server) {
      this.clientIsn = client;
      this.serverIsn = server;
      return this;
    }

    /** A writer; writes the pcap file header. */
    public PcapWriter build() throws IOException {
      InetSocketAddress c =
          client != null
              ? client
              : new InetSocketAddress(
                  InetAddress.getLoopbackAddress(),
                  ThreadLocalRandom.current().nextInt(49152, 65536));
      if ((c.getAddress() instanceof Inet4Address)
          != (server.getAddress() instanceof Inet4Address)) {
        throw new IllegalArgumentException(
            "client " + c + " and server " + server + " are of different IP versions");
      }
      PcapWriter w = new PcapWriter(this, c);
      w.writeFileHeader();
      return w;
    }

    private static InetSocketAddress resolved(InetSocketAddress a, String name) {
      if (Objects.requireNonNull(a, name).isUnresolved()) {
        throw new IllegalArgumentException(name + ": " + a + " (expected: a resolved address)");
      }
      return a;
    }
  }
}

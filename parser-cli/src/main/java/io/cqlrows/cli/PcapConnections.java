package io.cqlrows.cli;

import io.cqlrows.capture.pcap.PcapFormatException;
import io.cqlrows.capture.pcap.PcapPacket;
import io.cqlrows.capture.pcap.PcapReader;
import io.cqlrows.capture.pcap.TcpConnection;
import io.cqlrows.capture.pcap.TcpReassembler;
import io.cqlrows.capture.pcap.TcpStream;
import io.cqlrows.core.ParseLimits;
import io.cqlrows.netty.CqlDecoders;
import io.cqlrows.netty.frame.Opcode;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The CQL connections of a pcap/pcapng file, in the order they start.
 *
 * <p>Which TCP connections are CQL: with {@code --port}, those whose server is on that port;
 * otherwise those on 9042, and if there are none, every connection whose bytes start like CQL (a
 * plausible request or response header, or for a capture that starts mid-connection a provable
 * frame or segment boundary).
 *
 * <p>A direction with missing bytes (a gap) is replayed up to the gap; what follows it is replayed
 * as a connection of its own that starts mid-stream, without the client side.
 */
final class PcapConnections {
  private static final int CQL_PORT = 9042;

  private PcapConnections() {}

  static List<Captures.Connection> read(Path file, Integer port) throws IOException {
    List<String> notes = new ArrayList<>();
    List<TcpConnection> tcp = reassemble(file, port, notes);
    List<TcpConnection> cql = select(tcp, port);
    if (cql.isEmpty()) {
      throw new IOException(
          "no CQL connection in "
              + tcp.size()
              + " TCP connection(s)"
              + (port == null
                  ? " (on port 9042 or starting like CQL; try --port)"
                  : " on port " + port));
    }
    List<Captures.Connection> out = new ArrayList<>();
    for (TcpConnection c : cql) {
      addConnection(c, out, notes);
      notes = new ArrayList<>();
    }
    return out;
  }

  private static List<TcpConnection> reassemble(Path file, Integer port, List<String> notes)
      throws IOException {
    TcpReassembler reassembler =
        port == null
            ? new TcpReassembler()
            : new TcpReassembler(port, TcpReassembler.DEFAULT_MAX_BUFFERED_BYTES);
    try (PcapReader reader = PcapReader.open(file)) {
      for (PcapPacket p; (p = reader.next()) != null; ) {
        reassembler.add(p);
      }
    } catch (PcapFormatException e) {
      if (e.reason() != PcapFormatException.Reason.TRUNCATED) {
        throw e;
      }
      notes.add(
          "the capture file is cut short ("
              + e.getMessage()
              + "); its packets up to there are replayed");
    }
    List<TcpConnection> connections = reassembler.finish();
    notes.addAll(reassembler.warnings());
    return connections;
  }

  private static List<TcpConnection> select(List<TcpConnection> tcp, Integer port) {
    List<TcpConnection> out = new ArrayList<>();
    int wanted = port == null ? CQL_PORT : port;
    for (TcpConnection c : tcp) {
      if (c.server().getPort() == wanted) {
        out.add(c);
      }
    }
    if (!out.isEmpty() || port != null) {
      return out;
    }
    for (TcpConnection c : tcp) {
      if (looksLikeCql(c)) {
        out.add(c);
      }
    }
    return out;
  }

  private static boolean looksLikeCql(TcpConnection c) {
    byte[] s2c = c.serverToClient().bytes();
    if (c.startedMidStream()) {
      return CqlDecoders.findStart(
              Unpooled.wrappedBuffer(s2c), ParseLimits.DEFAULT_MAX_FRAME_BODY_LENGTH)
          .isPresent();
    }
    return plausibleHeader(c.clientToServer().bytes(), false) || plausibleHeader(s2c, true);
  }

  /** A v3-v6 envelope header in the given direction at the start of the bytes. */
  private static boolean plausibleHeader(byte[] b, boolean response) {
    if (b.length < 9) {
      return false;
    }
    int version = b[0] & 0xFF;
    int expected = response ? 0x80 : 0;
    int length =
        ((b[5] & 0xFF) << 24) | ((b[6] & 0xFF) << 16) | ((b[7] & 0xFF) << 8) | (b[8] & 0xFF);
    return (version & 0x80) == expected
        && (version & 0x7F) >= 3
        && (version & 0x7F) <= 6
        && (b[1] & ~0x1F) == 0
        && Opcode.fromCode(b[4] & 0xFF) != null
        && length >= 0;
  }

  private static void addConnection(
      TcpConnection c, List<Captures.Connection> out, List<String> notes) {
    String label = label(c.client()) + " -> " + label(c.server());
    TcpStream s2c = c.serverToClient();
    TcpStream c2s = c.clientToServer();
    byte[] server = s2c.bytes();
    byte[] client = c2s.bytes();
    if (c.startedMidStream()) {
      notes.add(
          "the capture starts after the connection did: decoding starts at the first "
              + "frame boundary that can be proved");
    }
    int serverCut = firstGap(s2c, server.length);
    int clientCut = firstGap(c2s, client.length);
    if (clientCut < client.length) {
      notes.add(gapNote("client-to-server", c2s));
    }
    out.add(
        new Captures.Connection(
            label,
            Arrays.copyOf(client, clientCut),
            Arrays.copyOf(server, serverCut),
            c.startedMidStream(),
            notes));
    if (serverCut < server.length) {
      out.add(
          new Captures.Connection(
              label + " (after missing bytes)",
              null,
              Arrays.copyOfRange(server, serverCut, server.length),
              true,
              List.of(gapNote("server-to-client", s2c))));
    }
  }

  private static int firstGap(TcpStream stream, int length) {
    return stream.gaps().isEmpty() ? length : (int) stream.gaps().get(0).offset();
  }

  private static String gapNote(String direction, TcpStream stream) {
    TcpStream.Gap g = stream.gaps().get(0);
    return "the capture misses "
        + g.length()
        + " "
        + direction
        + " bytes after byte "
        + g.offset()
        + (stream.gaps().size() > 1 ? " (and " + (stream.gaps().size() - 1) + " more gaps)" : "")
        + "; the rest is replayed from the next provable frame "
        + "boundary";
  }

  private static String label(InetSocketAddress a) {
    String host = a.getAddress() != null ? a.getAddress().getHostAddress() : a.getHostString();
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + a.getPort();
  }
}

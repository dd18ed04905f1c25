package io.cqlrows.capture.replay;

import io.cqlrows.capture.pcap.PcapFormatException;
import io.cqlrows.capture.pcap.PcapPacket;
import io.cqlrows.capture.pcap.PcapReader;
import io.cqlrows.capture.pcap.TcpFlow;
import io.cqlrows.capture.pcap.TcpFlows;
import io.cqlrows.core.ParseLimits;
import io.cqlrows.core.ProtocolFeatures;
import io.cqlrows.netty.CqlDecoders;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.netty.frame.Opcode;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Replays every CQL connection of a capture file in one pass, in memory bounded by options, however
 * large the file: a pcap or pcapng file is read packet by packet through {@link TcpFlows}, and each
 * CQL connection's bytes go through a {@link ReplayStream} as they are reassembled; any other file
 * is the raw server-to-client bytes of one connection, read in chunks, with the client's bytes from
 * a second file when there is one.
 *
 * <pre>{@code
 * FileReplay.Summary s = FileReplay.builder().build().replay(Path.of("capture.pcap"), handler);
 * }</pre>
 *
 * <p><b>Which connections are CQL.</b> With a {@linkplain Builder#serverPort server port}, those
 * whose server is on it. Otherwise those whose server is on 9042, and any other whose first bytes
 * look like CQL: a plausible request or response header at the start of a captured handshake, or
 * for a connection captured from its middle, a provable frame or segment boundary in its first
 * {@value #PROBE_BYTES} server bytes. A connection whose client starts with a TLS handshake record
 * is noted as encrypted and skipped, whatever its port.
 *
 * <p><b>Verdicts.</b> A file that is neither a capture nor starts with a CQL response header is
 * refused with {@link PcapFormatException.Reason#NOT_A_CAPTURE}; a damaged capture reports the
 * packets before the damage and a note naming the offset and what was wrong.
 *
 * <p><b>Memory</b> is at most: the {@linkplain Builder#flowLimits reassembly buffers} (bytes
 * waiting for holes, 32 MiB by default), plus per open CQL connection one frame in progress per
 * direction ({@link ParseLimits#maxFrameBodyLength()} at most, or {@value
 * ReplayStream#MAX_SEARCH_BYTES} bytes while a start is searched for), {@value
 * ClientSide#MAX_WAITING} waiting requests and {@value #PROBE_BYTES} bytes per direction while a
 * connection is being recognised; plus what the handler's listeners keep.
 *
 * <p>Single-threaded: the handler and the listeners are called on the calling thread. Immutable and
 * reusable.
 */
public final class FileReplay {
  /** Bytes per direction a connection is looked at to tell whether it is CQL. */
  public static final int PROBE_BYTES = 64 * 1024;

  /** The well-known CQL port. */
  private static final int CQL_PORT = 9042;

  /** Bytes per read of a raw byte stream. */
  private static final int RAW_CHUNK = 64 * 1024;

  /** A TLS handshake record starts with this content type. */
  private static final int TLS_HANDSHAKE = 0x16;

  /** What the file was. */
  public enum Kind {
    /** A classic pcap or a pcapng file. */
    CAPTURE,
    /** The raw bytes of one connection. */
    RAW
  }

  /**
   * One CQL connection of the file.
   *
   * @param label {@code client -> server} for a capture, the file name for raw bytes
   * @param flow the TCP connection, or null for raw bytes
   * @param midStream whether the capture starts after the connection did
   */
  public record Connection(String label, TcpFlow flow, boolean midStream) {}

  /**
   * What a replay found.
   *
   * @param kind what the file was
   * @param tcpConnections TCP connections in a capture (1 for raw bytes)
   * @param cqlConnections those replayed as CQL
   * @param bytesRead bytes of the file read
   * @param damage the damage that ended the reading of a capture early (a truncated or malformed
   *     block or record), or null if it was read to its end
   */
  public record Summary(
      Kind kind,
      long tcpConnections,
      long cqlConnections,
      long bytesRead,
      PcapFormatException damage) {}

  /** Hears the connections of a replay. */
  public interface Handler {
    /**
     * A CQL connection's first bytes arrived.
     *
     * @return the listener for its results
     */
    ReplayListener onConnection(Connection connection);

    /**
     * The connection ended; it gets no more calls.
     *
     * @param failure the first connection-level failure of its byte streams, if any
     */
    default void onEnd(Connection connection, Optional<CqlFrameException> failure) {}

    /**
     * Something worth telling the user: bytes missing from a connection, a limit reached, a damaged
     * or cut file, packets that were skipped.
     *
     * @param connection the connection concerned, or null for the file
     */
    default void onNote(Connection connection, String note) {}

    /** Progress: bytes of the file read so far (called every few MiB). */
    default void onProgress(long bytesRead, long fileSize) {}

    /**
     * Whether the caller has seen enough: asked after every packet (or chunk of raw bytes), and
     * when true the replay ends there, closing the connections open at that point.
     */
    default boolean done() {
      return false;
    }
  }

  private final int serverPort;
  private final ProtocolFeatures assumed;
  private final ParseLimits limits;
  private final TcpFlows.Limits flowLimits;
  private final Path clientToServer;

  private FileReplay(Builder b) {
    this.serverPort = b.serverPort;
    this.assumed = b.assumed;
    this.limits = b.limits;
    this.flowLimits = b.flowLimits;
    this.clientToServer = b.clientToServer;
  }

  /** A builder with the defaults: server port guessed, no extensions, default limits. */
  public static Builder builder() {
    return new Builder();
  }

  /** Options of a {@link FileReplay}. Not thread-safe. */
  public static final class Builder {
    private int serverPort;
    private ProtocolFeatures assumed = ProtocolFeatures.NONE;
    private ParseLimits limits = ParseLimits.defaults();
    private TcpFlows.Limits flowLimits = TcpFlows.Limits.DEFAULT;
    private Path clientToServer;

    private Builder() {}

    /** The server's port (1-65535), or 0 (the default) to take 9042 and what looks like CQL. */
    public Builder serverPort(int port) {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("serverPort: " + port + " (expected: 0-65535)");
      }
      this.serverPort = port;
      return this;
    }

    /** The protocol extensions of connections whose STARTUP is not in the file. */
    public Builder assumedFeatures(ProtocolFeatures features) {
      this.assumed = Objects.requireNonNull(features, "features");
      return this;
    }

    /** Limits on untrusted input, which also bound a frame in progress. */
    public Builder limits(ParseLimits limits) {
      this.limits = Objects.requireNonNull(limits, "limits");
      return this;
    }

    /** Bounds of TCP reassembly. */
    public Builder flowLimits(TcpFlows.Limits limits) {
      this.flowLimits = Objects.requireNonNull(limits, "limits");
      return this;
    }

    /**
     * For a raw byte stream, the file with the client's bytes; without it, {@code X.c2s.Y} beside
     * an {@code X.s2c.Y} is used when it exists.
     */
    public Builder clientToServer(Path file) {
      this.clientToServer = file;
      return this;
    }

    /** The replay. */
    public FileReplay build() {
      return new FileReplay(this);
    }
  }

  /**
   * Replays a file.
   *
   * @throws PcapFormatException with {@link PcapFormatException.Reason#NOT_A_CAPTURE} if the file
   *     is neither a capture nor a CQL byte stream; other damage is a note, after the packets
   *     before it
   * @throws IOException if the file cannot be read
   */
  public Summary replay(Path file, Handler handler) throws IOException {
    Objects.requireNonNull(handler, "handler");
    byte[] head;
    try (InputStream in = Files.newInputStream(file)) {
      head = in.readNBytes(9);
    }
    if (PcapReader.isCapture(head)) {
      return capture(file, handler);
    }
    if (!plausibleHeader(head, 0, true)) {
      throw PcapFormatException.notACapture(Files.size(file));
    }
    return raw(file, handler);
  }

  private Summary raw(Path file, Handler handler) throws IOException {
    Path c2s = clientToServer != null ? clientToServer : sibling(file);
    Connection c = new Connection(file.getFileName().toString(), null, false);
    ReplayListener listener = handler.onConnection(c);
    ReplayStream stream =
        new ReplayStream(c.label(), false, assumed, new PreparedStatements(), limits, listener);
    long size = Files.size(file);
    long read = 0;
    try (InputStream server = Files.newInputStream(file);
        InputStream client =
            c2s == null ? InputStream.nullInputStream() : Files.newInputStream(c2s)) {
      byte[] serverChunk = new byte[RAW_CHUNK];
      byte[] clientChunk = new byte[RAW_CHUNK];
      boolean clientDone = c2s == null;
      for (int n; !handler.done() && (n = server.read(serverChunk)) > 0; ) {
        // requests go first, as many as a connection can have in flight
        while (!clientDone && stream.waitingRequests() < ClientSide.MAX_WAITING / 2) {
          int m = client.read(clientChunk);
          if (m <= 0) {
            clientDone = true;
          } else {
            stream.write(true, clientChunk, 0, m, 0);
          }
        }
        stream.write(false, serverChunk, 0, n, 0);
        read += n;
        if (read % PROGRESS_STEP < n) {
          handler.onProgress(read, size);
        }
      }
      // requests after the last response: unanswered
      for (int m; !clientDone && !handler.done() && (m = client.read(clientChunk)) > 0; ) {
        stream.write(true, clientChunk, 0, m, 0);
      }
    }
    boolean stoppedEarly = handler.done();
    stream.close();
    handler.onEnd(c, stoppedEarly ? Optional.empty() : stream.failure());
    return new Summary(Kind.RAW, 1, 1, read, null);
  }

  /** {@code conn-01.c2s.bin} beside {@code conn-01.s2c.bin}, if it exists. */
  private static Path sibling(Path file) {
    String name = file.getFileName().toString();
    if (!name.contains(".s2c.")) {
      return null;
    }
    Path c2s = file.resolveSibling(name.replace(".s2c.", ".c2s."));
    return Files.isRegularFile(c2s) ? c2s : null;
  }

  private Summary capture(Path file, Handler handler) throws IOException {
    long size = Files.size(file);
    Flows flows = new Flows(handler);
    TcpFlows tcp = new TcpFlows(serverPort, flowLimits, flows);
    long nextProgress = PROGRESS_STEP;
    long read = 0;
    PcapFormatException damage = null;
    try (PcapReader reader = PcapReader.open(file)) {
      try {
        for (PcapPacket p; !handler.done() && (p = reader.next()) != null; ) {
          tcp.add(p);
          read = reader.position();
          if (read >= nextProgress) {
            nextProgress = read + PROGRESS_STEP;
            handler.onProgress(read, size);
          }
        }
      } catch (PcapFormatException e) {
        damage = e;
        handler.onNote(
            null,
            "the capture file is damaged ("
                + e.getMessage()
                + "); the packets before the damage are replayed");
      }
      read = reader.position();
    }
    flows.stoppedEarly = handler.done();
    tcp.finish();
    for (String warning : tcp.warnings()) {
      handler.onNote(null, warning);
    }
    return new Summary(Kind.CAPTURE, flows.tcpConnections, flows.cqlConnections, read, damage);
  }

  /** Progress is reported every this many bytes of a capture. */
  private static final long PROGRESS_STEP = 32L << 20;

  /** A v3-v6 envelope header at {@code at}, from the server if {@code response}. */
  static boolean plausibleHeader(byte[] b, int at, boolean response) {
    if (b.length - at < 9) {
      return false;
    }
    int version = b[at] & 0xFF;
    int expected = response ? 0x80 : 0;
    int length =
        ((b[at + 5] & 0xFF) << 24)
            | ((b[at + 6] & 0xFF) << 16)
            | ((b[at + 7] & 0xFF) << 8)
            | (b[at + 8] & 0xFF);
    return (version & 0x80) == expected
        && (version & 0x7F) >= 3
        && (version & 0x7F) <= 6
        && (b[at + 1] & ~0x1F) == 0
        && Opcode.fromCode(b[at + 4] & 0xFF) != null
        && length >= 0;
  }

  /**
   * Bytes of one direction kept while a connection is being recognised, or a gap when {@code data}
   * is null.
   */
  @SuppressWarnings("ArrayRecordComponent") // a holder of bytes, never compared
  private record Kept(boolean fromClient, byte[] data, long timestampNanos, long gap) {}

  /** The state of a TCP connection: being recognised, replayed as CQL, or ignored. */
  private static final class FlowState {
    final TcpFlow flow;

    /** Bytes kept while the connection is being recognised, in arrival order; null after. */
    List<Kept> probe = new ArrayList<>();

    long probeClient;
    long probeServer;

    /** On the given server port or on 9042: CQL unless it starts with a TLS handshake. */
    boolean onCqlPort;

    /** The kept bytes at which the connection is looked at again. */
    long nextLook;

    Connection connection;
    ReplayStream stream;
    boolean ignored;
    int gapNotes;
    long moreGaps;
    long moreGapBytes;

    FlowState(TcpFlow flow) {
      this.flow = flow;
    }
  }

  /** Gap notes per connection before they are only counted. */
  private static final int GAP_NOTES = 3;

  /** Routes the reassembled streams of the capture's connections. */
  private final class Flows implements TcpFlows.Listener {
    final Handler handler;
    final PreparedStatements prepared = new PreparedStatements();
    final Map<Long, FlowState> states = new HashMap<>();
    long tcpConnections;
    long cqlConnections;

    /** True when the handler ended the replay: what was open then is closed without failures. */
    boolean stoppedEarly;

    Flows(Handler handler) {
      this.handler = handler;
    }

    private FlowState state(TcpFlow flow) {
      FlowState s = states.get(flow.id());
      if (s == null) {
        s = new FlowState(flow);
        states.put(flow.id(), s);
        if (serverPort > 0 && flow.server().getPort() != serverPort) {
          s.ignored = true;
          s.probe = null;
        } else {
          s.onCqlPort = serverPort > 0 || flow.server().getPort() == CQL_PORT;
        }
      }
      return s;
    }

    @Override
    public void onData(
        TcpFlow flow, boolean fromClient, byte[] data, int offset, int length, long timestamp) {
      FlowState s = state(flow);
      if (s.ignored) {
        return;
      }
      if (s.probe != null) {
        s.probe.add(
            new Kept(fromClient, Arrays.copyOfRange(data, offset, offset + length), timestamp, 0));
        if (fromClient) {
          s.probeClient += length;
        } else {
          s.probeServer += length;
        }
        long kept = s.probeClient + s.probeServer;
        // looked at again as the kept bytes double, so that recognising costs linear time
        if (kept >= s.nextLook || s.probeClient > PROBE_BYTES || s.probeServer > PROBE_BYTES) {
          s.nextLook = Math.max(4096, 2 * kept);
          decide(s, false);
        }
        return;
      }
      if (s.stream != null) {
        s.stream.write(fromClient, data, offset, length, timestamp);
      }
    }

    @Override
    public void onGap(TcpFlow flow, boolean fromClient, long length) {
      FlowState s = state(flow);
      if (s.ignored) {
        return;
      }
      if (s.probe != null) {
        s.probe.add(new Kept(fromClient, null, 0, length));
        return;
      }
      gap(s, fromClient, length);
    }

    private void gap(FlowState s, boolean fromClient, long length) {
      if (s.stream == null) {
        return;
      }
      s.stream.gap(fromClient, length);
      if (s.gapNotes++ < GAP_NOTES) {
        handler.onNote(
            s.connection,
            "the capture misses "
                + length
                + " "
                + (fromClient ? "client-to-server" : "server-to-client")
                + " bytes; the rest is decoded from the next frame boundary");
      } else {
        s.moreGaps++;
        s.moreGapBytes += length;
      }
    }

    @Override
    public void onNote(TcpFlow flow, String note) {
      FlowState s = states.get(flow.id());
      if (s != null && s.connection != null) {
        handler.onNote(s.connection, note);
      }
    }

    @Override
    public void onClose(TcpFlow flow) {
      FlowState s = state(flow);
      states.remove(flow.id());
      tcpConnections++;
      if (s.probe != null) {
        decide(s, true);
      }
      if (s.stream != null) {
        s.stream.close();
        if (s.moreGaps > 0) {
          handler.onNote(
              s.connection,
              "the capture misses "
                  + s.moreGapBytes
                  + " more bytes in "
                  + s.moreGaps
                  + " more gaps");
        }
        handler.onEnd(s.connection, stoppedEarly ? Optional.empty() : s.stream.failure());
      }
    }

    /** Tells from the kept bytes whether a connection is CQL; at the end, decides anyway. */
    private void decide(FlowState s, boolean atEnd) {
      Boolean cql = looksLikeCql(s, atEnd);
      if (cql == null) {
        if (s.probeClient <= PROBE_BYTES && s.probeServer <= PROBE_BYTES) {
          return;
        }
        cql = false;
      }
      List<Kept> kept = s.probe;
      s.probe = null;
      if (!cql) {
        s.ignored = true;
        return;
      }
      start(s);
      for (Kept k : kept) {
        if (k.data() == null) {
          gap(s, k.fromClient(), k.gap());
        } else {
          s.stream.write(k.fromClient(), k.data(), 0, k.data().length, k.timestampNanos());
        }
      }
    }

    /** True, false, or null while undecided. */
    private Boolean looksLikeCql(FlowState s, boolean atEnd) {
      byte[] client = first(s, true);
      byte[] server = first(s, false);
      // TLS and CQL clients speak first; without the client's bytes (a capture of one direction)
      // the server's first byte tells, unless the capture starts mid-stream
      boolean tls =
          client.length > 0
              ? (client[0] & 0xFF) == TLS_HANDSHAKE
              : server.length > 0
                  && !s.flow.startedMidStream()
                  && (server[0] & 0xFF) == TLS_HANDSHAKE;
      if (tls) {
        handler.onNote(
            null,
            s.flow.label() + " starts with a TLS handshake: encrypted traffic cannot be decoded");
        return false;
      }
      if (s.onCqlPort) {
        return client.length > 0 || server.length > 0 || atEnd;
      }
      if (!s.flow.startedMidStream()) {
        if (client.length >= 9) {
          return plausibleHeader(client, 0, false);
        }
        if (server.length >= 9) {
          return plausibleHeader(server, 0, true);
        }
        return atEnd ? false : null;
      }
      if (server.length == 0) {
        return atEnd ? false : null;
      }
      Optional<CqlDecoders.Start> start =
          CqlDecoders.findStart(Unpooled.wrappedBuffer(server), limits.maxFrameBodyLength());
      if (start.isPresent()) {
        return true;
      }
      return atEnd ? false : null;
    }

    /** The bytes of one direction kept so far, up to its first gap. */
    private byte[] first(FlowState s, boolean fromClient) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      for (Kept k : s.probe) {
        if (k.fromClient() == fromClient) {
          if (k.data() == null) {
            break;
          }
          out.writeBytes(k.data());
        }
      }
      return out.toByteArray();
    }

    private void start(FlowState s) {
      cqlConnections++;
      s.connection = new Connection(s.flow.label(), s.flow, s.flow.startedMidStream());
      if (s.flow.startedMidStream()) {
        handler.onNote(
            s.connection,
            "the capture starts after the connection did: decoding starts at the first frame"
                + " boundary that can be proved");
      }
      ReplayListener listener = handler.onConnection(s.connection);
      s.stream =
          new ReplayStream(
              s.connection.label(), s.flow.startedMidStream(), assumed, prepared, limits, listener);
    }
  }
}

package io.cqlrows.capture.replay;

import io.cqlrows.core.CqlResult;
import io.cqlrows.core.ParseLimits;
import io.cqlrows.core.ProtocolFeatures;
import io.cqlrows.core.RowSink;
import io.cqlrows.core.sink.RowsCollector;
import io.cqlrows.netty.frame.CqlFrameException;
import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;

/**
 * Replays captured CQL connections for tests: the server's bytes (and, when known, the client's) go
 * through the same Netty decoders a driver uses, on an {@link EmbeddedChannel}. Framing and
 * compression are detected: v3/v4 frames with or without LZ4 or Snappy bodies, and v5 with the
 * switch to segments (uncompressed or LZ4) after READY.
 *
 * <pre>{@code
 * List<ReplayedResult> results = CaptureReplay.results(
 *     Files.readAllBytes(dir.resolve("conn-01.s2c.bin")),
 *     Files.readAllBytes(dir.resolve("conn-01.c2s.bin")));
 * ReplayedResult scalars = results.get(1);    // 0: the driver's SELECT cluster_name
 * assertEquals("SELECT * FROM corpus.scalars", scalars.query());
 * assertEquals(41, scalars.rows().size());
 *
 * // or through your own pipeline:
 * EmbeddedChannel channel = new EmbeddedChannel(myDecoder, myHandler);
 * CaptureReplay.writeInbound(channel, capture, 1);   // one byte per read
 * }</pre>
 *
 * <p>Stateless; every call uses its own channels and runs on the calling thread.
 */
public final class CaptureReplay {
  /** Bytes per simulated socket read. */
  public static final int CHUNK_SIZE = ConnectionReplay.CHUNK_SIZE;

  private CaptureReplay() {}

  /**
   * Every RESULT response of one connection's server-to-client bytes, in order, with the rows of
   * ROWS results materialised. Queries are unknown and the cells of {@code No_metadata} results are
   * raw bytes.
   *
   * @throws CqlFrameException if the byte stream is broken (connection-level)
   */
  public static List<ReplayedResult> results(byte[] serverToClient) {
    return results(serverToClient, null);
  }

  /**
   * Every RESULT response of one connection, in order, with queries and fully decoded prepared
   * results.
   *
   * @param serverToClient the server's bytes from the connection's start
   * @param clientToServer the client's bytes from the connection's start, or {@code null}
   * @throws CqlFrameException if either byte stream is broken (connection-level)
   */
  public static List<ReplayedResult> results(byte[] serverToClient, byte[] clientToServer) {
    Collector collector = new Collector();
    replay(serverToClient, clientToServer, ProtocolFeatures.NONE, collector);
    return collector.results;
  }

  /**
   * Replays one connection into a listener of the caller's: every RESULT, server ERROR and frame
   * (see {@link ReplayListener}).
   *
   * @param serverToClient the server's bytes from the connection's start
   * @param clientToServer the client's bytes from the connection's start, or {@code null}
   * @param assumed the protocol extensions to assume when the client's STARTUP is not in the
   *     capture (e.g. a ScyllaDB capture without its client side); a captured STARTUP overrides
   *     them
   * @throws CqlFrameException if either byte stream is broken (connection-level)
   */
  public static void replay(
      byte[] serverToClient,
      byte[] clientToServer,
      ProtocolFeatures assumed,
      ReplayListener listener) {
    ConnectionReplay.replay(
        "connection",
        clientToServer,
        serverToClient,
        false,
        assumed,
        new PreparedStatements(),
        ParseLimits.defaults(),
        listener);
  }

  /**
   * Writes a capture into a caller's channel as inbound reads of {@code chunkSize} bytes (1 for
   * byte-at-a-time tests). Each read is a new buffer, which the pipeline then owns and releases.
   * Exceptions the pipeline reports are left for {@link EmbeddedChannel#checkException()}.
   */
  public static void writeInbound(EmbeddedChannel channel, byte[] bytes, int chunkSize) {
    if (chunkSize <= 0) {
      throw new IllegalArgumentException("chunkSize: " + chunkSize + " (expected: > 0)");
    }
    for (int at = 0; at < bytes.length; at += chunkSize) {
      int n = Math.min(chunkSize, bytes.length - at);
      ByteBuf chunk = channel.alloc().buffer(n).writeBytes(bytes, at, n);
      channel.writeInbound(chunk);
    }
  }

  /** Collects results with their rows. */
  static final class Collector implements ReplayListener {
    final List<ReplayedResult> results = new ArrayList<>();
    private RowsCollector rows;

    @Override
    public RowSink sinkFor(Response response) {
      rows = new RowsCollector();
      return rows;
    }

    @Override
    public void onResult(Response response, CqlResult result) {
      results.add(
          new ReplayedResult(
              response.connection(),
              response.streamId(),
              response.query(),
              result,
              rows.rows(),
              null,
              response.tablets()));
    }

    @Override
    public void onError(Response response, CqlFrameException error) {
      results.add(
          new ReplayedResult(
              response.connection(),
              response.streamId(),
              response.query(),
              null,
              List.of(),
              error,
              response.tablets()));
    }
  }
}

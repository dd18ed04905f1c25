package io.cqlrows.capture.replay;

import io.cqlrows.core.ParseLimits;
import io.cqlrows.core.ProtocolFeatures;
import io.cqlrows.netty.CqlDecoders;
import io.cqlrows.netty.frame.CqlFrameException;
import java.util.Optional;

/**
 * Replays both directions of one captured connection through the Netty decoders: the client's
 * requests tell the query of every response and which prepared statement an EXECUTE ran, so {@code
 * No_metadata} results decode with the columns of the matching PREPARED result (or of its latest
 * {@code Metadata_changed} result: v5, or v4 with ScyllaDB's {@code SCYLLA_USE_METADATA_ID}).
 *
 * <p>Responses are matched to requests first-in, first-out per stream id (a client reuses a stream
 * only after its response). Framing and compression are detected in each direction ({@link
 * CqlDecoders#detecting}). Without the client side, queries are unknown and the cells of {@code
 * No_metadata} results are delivered as raw bytes.
 *
 * <p><b>Protocol extensions.</b> The STARTUP in the client's bytes says which extensions
 * (ScyllaDB's v4 extensions, {@link ProtocolFeatures}) the connection uses, and the server's
 * SUPPORTED gives their parameters; requests and responses after it are read accordingly. A
 * connection whose STARTUP is not in the capture (no client side, or captured from its middle) uses
 * the assumed features the caller passes.
 *
 * <p>Single-threaded: everything runs on the caller's thread, through a {@link ReplayStream} that
 * is given the whole client side first. Captures too large for arrays replay through {@link
 * ReplayStream} directly.
 */
public final class ConnectionReplay {
  /** Bytes per simulated socket read. */
  static final int CHUNK_SIZE = 64 * 1024;

  private ConnectionReplay() {}

  /**
   * Replays one connection.
   *
   * @param connection a label for the connection, passed to the listener
   * @param clientToServer the client's bytes from the connection's start, or {@code null}
   * @param serverToClient the server's bytes from the connection's start
   * @param prepared the capture's prepared statements, shared by its connections
   * @throws CqlFrameException when either byte stream is broken (connection-level); results before
   *     the break have been delivered
   */
  public static void replay(
      String connection,
      byte[] clientToServer,
      byte[] serverToClient,
      PreparedStatements prepared,
      ParseLimits limits,
      ReplayListener listener) {
    replay(
        connection,
        clientToServer,
        serverToClient,
        false,
        ProtocolFeatures.NONE,
        prepared,
        limits,
        listener);
  }

  /**
   * Replays one connection, possibly captured from its middle, assuming no protocol extension
   * unless its STARTUP names some.
   *
   * @see #replay(String, byte[], byte[], boolean, ProtocolFeatures, PreparedStatements,
   *     ParseLimits, ReplayListener)
   */
  public static void replay(
      String connection,
      byte[] clientToServer,
      byte[] serverToClient,
      boolean midStream,
      PreparedStatements prepared,
      ParseLimits limits,
      ReplayListener listener) {
    replay(
        connection,
        clientToServer,
        serverToClient,
        midStream,
        ProtocolFeatures.NONE,
        prepared,
        limits,
        listener);
  }

  /**
   * Replays one connection, possibly captured from its middle.
   *
   * @param midStream whether the capture starts after the connection did: each direction is then
   *     decoded from its first provable frame or segment boundary ({@link CqlDecoders#findStart}),
   *     and the skipped bytes are reported with {@link ReplayListener#onSkipped}. Responses to
   *     requests sent before the capture began may be labelled with the wrong query.
   * @param assumed the protocol extensions of a connection whose STARTUP is not in the capture
   *     ({@link ProtocolFeatures#NONE} for a Cassandra connection); a captured STARTUP overrides
   *     them
   * @throws CqlFrameException when either byte stream is broken (connection-level), or no boundary
   *     can be found
   */
  public static void replay(
      String connection,
      byte[] clientToServer,
      byte[] serverToClient,
      boolean midStream,
      ProtocolFeatures assumed,
      PreparedStatements prepared,
      ParseLimits limits,
      ReplayListener listener) {
    ReplayStream stream =
        new ReplayStream(connection, midStream, assumed, prepared, limits, listener);
    if (clientToServer != null) {
      for (int at = 0; at < clientToServer.length; at += CHUNK_SIZE) {
        stream.write(true, clientToServer, at, Math.min(CHUNK_SIZE, clientToServer.length - at), 0);
      }
    }
    for (int at = 0; at < serverToClient.length; at += CHUNK_SIZE) {
      stream.write(false, serverToClient, at, Math.min(CHUNK_SIZE, serverToClient.length - at), 0);
    }
    stream.close();
    Optional<CqlFrameException> failure = stream.failure();
    if (failure.isPresent()) {
      throw failure.get();
    }
  }
}

package io.cqlrows.client.live;

import static io.cqlrows.client.live.LiveClients.get;
import static io.cqlrows.client.live.LiveClients.int32;
import static io.cqlrows.client.live.LiveCorpus.KEYSPACE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cqlrows.capture.pcap.PcapRecordingHandler;
import io.cqlrows.capture.pcap.TcpConnection;
import io.cqlrows.capture.pcap.TcpReassembler;
import io.cqlrows.capture.replay.ConnectionReplay;
import io.cqlrows.capture.replay.PreparedStatements;
import io.cqlrows.capture.replay.ReplayListener;
import io.cqlrows.client.QueryResult;
import io.cqlrows.core.CqlResult;
import io.cqlrows.core.ParseLimits;
import io.cqlrows.core.PreparedResult;
import io.cqlrows.core.ProtocolFeatures;
import io.cqlrows.core.RowSink;
import io.cqlrows.core.sink.JsonLinesSink;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.netty.frame.Frame;
import io.cqlrows.netty.frame.Opcode;
import io.cqlrows.netty.request.DecodedRequest;
import io.cqlrows.netty.request.Requests;
import io.cqlrows.testing.Corpus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Makes capture fixtures by running a test: a few queries on the corpus's {@code scalars} and
 * {@code vectors} tables, QUERY and prepared EXECUTE, over a connection recorded by a {@link
 * PcapRecordingHandler} that {@link CqlClient#connect} puts at the head of the pipeline, into
 * {@code target/captures/live-<combo>.pcap}. The recording is then reassembled and replayed: every
 * ROWS result, with its query, equals what the client decoded live.
 *
 * <p>{@code target/captures/live-v5-lz4.pcap} is the fixture committed as {@code
 * src/test/resources/io/cqlrows/captures/live-v5-lz4.pcap} (see docs/testing.md, "Live tests").
 */
class CaptureLiveTest extends LiveTestSupport {
  /** The statements of a capture, in order; the last one is prepared and executed twice. */
  static final List<String> STATEMENTS =
      List.of(
          "SELECT * FROM " + KEYSPACE + ".scalars",
          "SELECT * FROM " + KEYSPACE + ".vectors",
          "SELECT * FROM " + KEYSPACE + ".vectors WHERE id = ?");

  /** The fixture's size limit. */
  static final long MAX_FIXTURE_BYTES = 300 * 1024;

  @BeforeAll
  static void loadTheCorpus() throws InterruptedException {
    LiveCorpus.load(session);
  }

  @ParameterizedTest
  @EnumSource(Combo.class)
  void aRecordedConnectionReplaysToWhatTheClientDecoded(Combo combo) throws IOException {
    Path file = LiveClients.capturesDir().resolve("live-" + combo + ".pcap");
    PcapRecordingHandler recorder = new PcapRecordingHandler(file);
    client = LiveClients.connect(combo, group, p -> p.addFirst("pcap", recorder));
    assertEquals(ProtocolFeatures.NONE, client.features(), "Cassandra offers no extension");
    assertEquals(combo.version(), client.protocolVersion());
    List<ObjectNode> live = new ArrayList<>();
    for (String cql : STATEMENTS.subList(0, 2)) {
      live.add(LiveClients.query(client, cql, 0).put("query", cql));
    }
    PreparedResult prepared = get(client.prepare(STATEMENTS.get(2)));
    QueryResult[] outcome = new QueryResult[1];
    for (int id : new int[] {1, 3}) {
      live.add(
          LiveClients.execute(client, prepared, outcome, int32(id))
              .put("query", STATEMENTS.get(2)));
      assertTrue(outcome[0].rows().metadata().noMetadata());
    }
    get(client.close());
    client = null;
    assertNull(recorder.recordingError());

    List<TcpConnection> connections = TcpReassembler.reassemble(file);
    assertEquals(1, connections.size());
    TcpConnection c = connections.get(0);
    assertFalse(c.startedMidStream(), "the handshake is in the recording");
    assertFalse(c.hasGaps());
    assertHandshake(combo, c.clientToServer().bytes(), c.serverToClient().bytes());
    List<ObjectNode> replayed = replay(c.clientToServer().bytes(), c.serverToClient().bytes());
    assertEquals(live.size(), replayed.size(), "ROWS results");
    for (int i = 0; i < live.size(); i++) {
      ObjectNode l = live.get(i);
      ObjectNode r = replayed.get(i);
      String what = combo + " result " + i + " (" + l.get("query").asText() + ")";
      assertEquals(l.get("query"), r.get("query"), what);
      assertEquals(l.get("columns"), r.get("columns"), what);
      assertEquals(l.get("rows"), r.get("rows"), what);
    }
    if (combo == Combo.V5_LZ4) {
      long size = Files.size(file);
      assertTrue(size < MAX_FIXTURE_BYTES, file + ": " + size + " bytes");
      System.err.printf("[cqlrows] recorded %s: %d bytes%n", file, size);
    }
  }

  /**
   * The client's handshake toward Cassandra: OPTIONS, then a STARTUP with exactly {@code
   * CQL_VERSION} and {@code COMPRESSION}, both on stream 0, as the Java driver sends them.
   */
  private static void assertHandshake(Combo combo, byte[] clientToServer, byte[] serverToClient) {
    List<DecodedRequest> requests = new ArrayList<>();
    ConnectionReplay.replay(
        "connection",
        clientToServer,
        serverToClient,
        new PreparedStatements(),
        ParseLimits.defaults(),
        new ReplayListener() {
          @Override
          public RowSink sinkFor(Response response) {
            return null;
          }

          @Override
          public void onResult(Response response, CqlResult result) {}

          @Override
          public void onError(Response response, CqlFrameException error) {}

          @Override
          public void onFrame(boolean fromClient, Frame frame) {
            if (fromClient && requests.size() < 2) {
              requests.add(DecodedRequest.decode(frame));
            }
          }
        });
    assertEquals(Opcode.OPTIONS, requests.get(0).opcode());
    assertEquals(Opcode.STARTUP, requests.get(1).opcode());
    assertEquals(0, requests.get(0).streamId());
    assertEquals(0, requests.get(1).streamId());
    assertEquals(
        List.copyOf(Requests.startupOptions(combo.compression()).entrySet()),
        List.copyOf(requests.get(1).options().entrySet()));
  }

  /**
   * The ROWS results of one recorded connection, decoded as {@code cqlrows replay} does (both
   * directions, prepared results with their PREPARED columns), each as a JSON Lines object with its
   * {@code query}.
   */
  static List<ObjectNode> replay(byte[] clientToServer, byte[] serverToClient) {
    List<ObjectNode> out = new ArrayList<>();
    ConnectionReplay.replay(
        "connection",
        clientToServer,
        serverToClient,
        new PreparedStatements(),
        ParseLimits.defaults(),
        new ReplayListener() {
          private StringBuilder line;

          @Override
          public RowSink sinkFor(Response response) {
            line = new StringBuilder();
            return new JsonLinesSink(line);
          }

          @Override
          public void onResult(Response response, CqlResult result) {
            if (line.length() > 0) {
              out.add(((ObjectNode) Corpus.json(line.toString())).put("query", response.query()));
            }
          }

          @Override
          public void onError(Response response, CqlFrameException error) {
            throw new AssertionError("stream " + response.streamId() + ": " + error, error);
          }
        });
    return out;
  }
}

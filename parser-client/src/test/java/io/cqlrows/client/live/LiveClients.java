package io.cqlrows.client.live;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.ResultSet;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.Statement;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.cqlrows.capture.pcap.PcapRecordingHandler;
import io.cqlrows.client.CqlClient;
import io.cqlrows.client.QueryResult;
import io.cqlrows.core.PagingState;
import io.cqlrows.core.sink.JsonLinesSink;
import io.cqlrows.testing.Corpus;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Our side of the live tests: {@link CqlClient} connections to {@link CassandraServer}, results as
 * canonical JSON through {@link JsonLinesSink}, and the driver's rows as the same JSON.
 *
 * <p>Recording: with {@code -Dcqlrows.live.record=true} every connection opened here is recorded
 * into {@code target/captures/<label>-<combo>-<n>.pcap}.
 *
 * <p>Stateless apart from a counter for file names; thread-safe.
 */
final class LiveClients {
  /** Set to {@code true} to record every live connection. */
  static final String RECORD_PROPERTY = "cqlrows.live.record";

  static final long TIMEOUT_SECONDS = 120;
  private static final AtomicInteger CONNECTIONS = new AtomicInteger();

  private LiveClients() {}

  /** Connects with the combo's version and compression; {@code label} names a recording. */
  static CqlClient connect(Combo combo, EventLoopGroup group, String label) {
    Consumer<ChannelPipeline> customizer = p -> {};
    if (Boolean.getBoolean(RECORD_PROPERTY)) {
      Path file =
          capturesDir()
              .resolve(label + "-" + combo + "-" + CONNECTIONS.incrementAndGet() + ".pcap");
      customizer = p -> p.addFirst("pcap", new PcapRecordingHandler(file));
    }
    return connect(combo, group, customizer);
  }

  /** Connects with the combo's version and compression and a pipeline customizer. */
  static CqlClient connect(
      Combo combo, EventLoopGroup group, Consumer<ChannelPipeline> customizer) {
    CassandraServer server = CassandraServer.get();
    return get(
        CqlClient.connect(
            server.host(), server.port(), combo.version(), combo.compression(), group, customizer));
  }

  /** {@code target/captures/}, created if needed. */
  static Path capturesDir() {
    Path dir = CassandraServer.buildDir().resolve("captures");
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return dir;
  }

  /**
   * Runs a QUERY through our client, following paging states to the end, and returns {@code
   * {"columns": [...], "rows": [...], "pages": n}} with the columns of the first page and the rows
   * of every page.
   */
  static ObjectNode query(CqlClient client, String cql, int pageSize) {
    ObjectNode result = null;
    PagingState pagingState = null;
    int pages = 0;
    do {
      StringBuilder line = new StringBuilder();
      QueryResult page = get(client.query(cql, new JsonLinesSink(line), pageSize, pagingState));
      pages++;
      result = append(result, line);
      pagingState = page.pagingState().orElse(null);
    } while (pagingState != null);
    return result.put("pages", pages);
  }

  /** One EXECUTE of a prepared statement (Skip_metadata), as one JSON Lines object. */
  static ObjectNode execute(
      CqlClient client,
      io.cqlrows.core.PreparedResult prepared,
      QueryResult[] outcome,
      byte[]... values) {
    StringBuilder line = new StringBuilder();
    outcome[0] = get(client.execute(prepared, new JsonLinesSink(line), 0, null, values));
    return append(null, line);
  }

  private static ObjectNode append(ObjectNode result, StringBuilder line) {
    if (line.length() == 0) {
      throw new AssertionError("no ROWS result");
    }
    ObjectNode page = (ObjectNode) Corpus.json(line.toString());
    if (result == null) {
      return page;
    }
    ((ArrayNode) result.get("rows")).addAll((ArrayNode) page.get("rows"));
    return result;
  }

  /** The driver's rows of a statement, every page, as {@code {"columns": .., "rows": ..}}. */
  static ObjectNode driverQuery(CqlSession session, Statement<?> statement) {
    ResultSet rs = session.execute(statement);
    StringBuilder out =
        new StringBuilder("{\"columns\":")
            .append(DriverJson.columns(rs.getColumnDefinitions()))
            .append(",\"rows\":[");
    boolean first = true;
    for (Row row : rs) {
      out.append(first ? "" : ",").append(DriverJson.row(row));
      first = false;
    }
    return (ObjectNode) Corpus.json(out.append("]}").toString());
  }

  /** Waits for a client future; its failure's cause is rethrown unchecked. */
  static <T> T get(CompletableFuture<T> future) {
    try {
      return future.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw new AssertionError("request failed: " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      throw new AssertionError("no answer in " + TIMEOUT_SECONDS + " s", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  /** A big-endian 4-byte int value. */
  static byte[] int32(int v) {
    return ByteBuffer.allocate(4).putInt(v).array();
  }

  /** Renders the JSON tree of a value for messages, cut to 300 chars. */
  static String brief(JsonNode node) {
    String s = String.valueOf(node);
    return s.length() <= 300 ? s : s.substring(0, 300) + "...(" + s.length() + " chars)";
  }
}
